package llm

import (
	"context"
	"flag"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    map[string]string
		want time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": "-1"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{map[string]string{"Retry-After": now.Add(-7 * time.Second).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
	} {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		if got := parseRetryAfter(h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.h, got, tc.want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT", "", "NaN", "1e308", "-0"} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", ms)
		if d := parseRetryAfter(h, time.Now()); d < 0 {
			t.Fatalf("negative delay %v for %q/%q", d, ra, ms)
		}
	})
}

func TestBucket(t *testing.T) {
	now := time.Unix(0, 0)
	var slept []time.Duration
	b := newBucket(60) // 1 per second, burst 10
	b.now = func() time.Time { return now }
	b.last = now
	b.sleepF = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	for i := 0; i < 10; i++ {
		b.Wait(context.Background(), 1)
	}
	if len(slept) != 0 {
		t.Fatalf("burst of 10 waited: %v", slept)
	}
	b.Wait(context.Background(), 1)
	b.Wait(context.Background(), 1)
	if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
		t.Fatalf("waits %v, want [1s 2s]", slept)
	}
	now = now.Add(12 * time.Second) // refills to the cap, not beyond
	slept = nil
	for i := 0; i < 11; i++ {
		b.Wait(context.Background(), 1)
	}
	if len(slept) != 1 {
		t.Fatalf("after refill waits %v, want one", slept)
	}
	// Requests larger than the burst are clamped, not starved.
	b2 := newBucket(600)
	b2.sleepF = func(ctx context.Context, d time.Duration) error { return nil }
	if err := b2.Wait(context.Background(), 1e9); err != nil {
		t.Fatal(err)
	}
	var nilB *bucket
	if err := nilB.Wait(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	c := &Client{cfg: Config{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}}
	for n, hi := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 9: time.Second} {
		for i := 0; i < 50; i++ {
			if d := c.backoff(n); d < hi/2 || d > hi {
				t.Fatalf("backoff(%d)=%v, want in [%v,%v]", n, d, hi/2, hi)
			}
		}
	}
}

var _ = flag.ContinueOnError
