package llm

import (
	"context"
	"sync"
	"time"
)

// bucket is a token bucket with reservations: Wait takes n tokens at once
// (the level may go negative) and sleeps until the debt is repaid, so callers
// are served in arrival order and a large request is never starved. A nil
// bucket never waits. It is safe for concurrent use.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	cap    float64
	level  float64
	last   time.Time
	now    func() time.Time
	sleepF func(ctx context.Context, d time.Duration) error
}

// newBucket returns a bucket refilling perMinute tokens a minute, holding at
// most burst (defaults to 10 seconds' worth, at least 1), starting full.
// perMinute <= 0 returns nil: no limit.
func newBucket(perMinute float64) *bucket {
	if perMinute <= 0 {
		return nil
	}
	c := max(1, perMinute/6)
	return &bucket{rate: perMinute / 60, cap: c, level: c, last: time.Now(), now: time.Now, sleepF: sleepCtx}
}

// reserve takes n tokens and returns how long the caller must wait.
func (b *bucket) reserve(n float64) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.level = min(b.cap, b.level+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	n = min(n, b.cap)
	b.level -= n
	if b.level >= 0 {
		return 0
	}
	return time.Duration(-b.level / b.rate * float64(time.Second))
}

// Wait blocks until n tokens are available or ctx ends; on cancellation the
// reservation is returned.
func (b *bucket) Wait(ctx context.Context, n float64) error {
	if b == nil || n <= 0 {
		return nil
	}
	d := b.reserve(n)
	if d <= 0 {
		return nil
	}
	if err := b.sleepF(ctx, d); err != nil {
		b.Adjust(-n)
		return err
	}
	return nil
}

// Adjust takes delta more tokens (or gives -delta back) after the fact, for
// example when a response reports more tokens than were estimated.
func (b *bucket) Adjust(delta float64) {
	if b == nil || delta == 0 {
		return
	}
	b.mu.Lock()
	b.level = min(b.cap, b.level-delta)
	b.mu.Unlock()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
