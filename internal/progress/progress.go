// Package progress shows how long work is going: a progress bar when the
// output is a terminal, otherwise a structured log line every few seconds, so
// that CI logs stay quiet and parseable.
//
// Library code never decides where progress goes: it starts its bars with
// Start(ctx, …), and the caller — the driftkit command, a server, a test —
// puts a Reporter into the context (or none, and nothing is shown). There is
// no process-wide switch.
package progress

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts done units of a task. Add is safe for concurrent use.
type Bar struct {
	name   string
	total  int64
	done   atomic.Int64
	extra  atomic.Pointer[string]
	bar    *progressbar.ProgressBar
	log    *slog.Logger
	every  time.Duration
	start  time.Time
	mu     sync.Mutex
	last   time.Time
	closed bool
}

// A Reporter makes the progress displays of one caller: all of them write
// to one writer. The nil *Reporter shows nothing. A Reporter is safe for
// concurrent use and lives as long as its writer.
type Reporter struct {
	w io.Writer
}

// NewReporter makes a Reporter writing to w; nil w shows nothing.
func NewReporter(w io.Writer) *Reporter {
	if w == nil {
		return nil
	}
	return &Reporter{w: w}
}

// Start starts a display for total units (-1 if unknown). A nil r returns a
// bar that only counts.
func (r *Reporter) Start(name string, total int64) *Bar {
	if r == nil {
		return newBar(name, total)
	}
	return NewTo(r.w, name, total)
}

type ctxKey struct{}

// WithReporter returns a context whose work reports its progress to r (nil:
// to nowhere).
func WithReporter(ctx context.Context, r *Reporter) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// FromContext returns the Reporter ctx carries, or nil.
func FromContext(ctx context.Context) *Reporter {
	r, _ := ctx.Value(ctxKey{}).(*Reporter)
	return r
}

// Start starts a display for total units on ctx's Reporter: what library
// code calls. Without a Reporter in ctx, the bar only counts.
func Start(ctx context.Context, name string, total int64) *Bar {
	return FromContext(ctx).Start(name, total)
}

func newBar(name string, total int64) *Bar {
	return &Bar{name: name, total: total, every: 5 * time.Second, start: time.Now(), last: time.Now()}
}

// NewTo starts a display writing to w: a bar when w is a terminal, log
// lines otherwise; nil w shows nothing.
func NewTo(w io.Writer, name string, total int64) *Bar {
	b := newBar(name, total)
	if w == nil {
		return b
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		return b
	}
	b.log = slog.New(slog.NewTextHandler(w, nil))
	return b
}

// Describe sets a short status shown beside the bar (tokens, cost, errors).
func (b *Bar) Describe(s string) {
	b.extra.Store(&s)
	if b.bar != nil {
		b.bar.Describe(b.name + " " + s)
	}
}

// Add records n more units done.
func (b *Bar) Add(n int) {
	d := b.done.Add(int64(n))
	if b.bar != nil {
		b.bar.Add(n)
		return
	}
	if b.log == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.last) >= b.every {
		b.last = time.Now()
		b.logLine("progress", d)
	}
}

func (b *Bar) logLine(msg string, d int64) {
	attrs := []any{"task", b.name, "done", d, "elapsed", time.Since(b.start).Round(time.Millisecond).String()}
	if b.total > 0 {
		attrs = append(attrs, "total", b.total, "pct", fmt.Sprintf("%.1f", 100*float64(d)/float64(b.total)))
	}
	if el := time.Since(b.start).Seconds(); el > 0 {
		attrs = append(attrs, "rate_per_s", fmt.Sprintf("%.1f", float64(d)/el))
	}
	if e := b.extra.Load(); e != nil {
		attrs = append(attrs, "status", *e)
	}
	b.log.Info(msg, attrs...)
}

// Done returns the units done so far.
func (b *Bar) Done() int64 { return b.done.Load() }

// Finish ends the display with a final line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if b.bar != nil {
		b.bar.Finish()
		return
	}
	if b.log != nil {
		b.logLine("finished", b.done.Load())
	}
}
