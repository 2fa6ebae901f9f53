// Package torntest checks that a journal's user reports a torn last line
// while the line is still in the file, that is from journal.Options.BeforeCut
// and not after journal.Open has cut it: a run killed between the cut and a
// later report loses the report, and the next run finds nothing to report.
//
// A test writes a journal with Tear, hands the user Writer or Logger (or
// Func for a callback) as its report channel, opens the journal through the
// user, and calls Verify. It is test support, used by the journals' users.
package torntest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
)

// Word is what every torn-line report says ("dropped a torn last line").
const Word = "torn"

// Check watches one journal file for its torn-line report.
type Check struct {
	path, complete, tail string

	mu       sync.Mutex
	reports  []string
	atReport []string // the file's content at each report
}

// Tear writes path as complete (whole lines) followed by tail (a line cut
// mid-write, no newline) and returns the check for it.
func Tear(t testing.TB, path, complete, tail string) *Check {
	t.Helper()
	if strings.Contains(tail, "\n") || tail == "" {
		t.Fatalf("torntest: the torn tail %q must be a non-empty line without its newline", tail)
	}
	if err := os.WriteFile(path, []byte(complete+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Check{path: path, complete: complete, tail: tail}
}

// saw records a report and the file as it is while the report is made.
func (c *Check) saw(msg string) {
	if !strings.Contains(msg, Word) {
		return
	}
	b, err := os.ReadFile(c.path)
	now := string(b)
	if err != nil {
		now = "(" + err.Error() + ")"
	}
	c.mu.Lock()
	c.reports = append(c.reports, msg)
	c.atReport = append(c.atReport, now)
	c.mu.Unlock()
}

// Func is a report callback.
func (c *Check) Func() func(string) { return c.saw }

// Writer passes writes on to w (nil: dropped) and watches them.
func (c *Check) Writer(w io.Writer) io.Writer {
	if w == nil {
		w = io.Discard
	}
	return writer{c, w}
}

type writer struct {
	c *Check
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	w.c.saw(string(p))
	return w.w.Write(p)
}

// Logger is a logger whose records (message and attributes) are watched.
func (c *Check) Logger() *slog.Logger { return slog.New(handler{c: c}) }

type handler struct {
	c     *Check
	attrs []slog.Attr
}

func (h handler) Enabled(context.Context, slog.Level) bool { return true }

func (h handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.c.saw(b.String())
	return nil
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	return handler{c: h.c, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h handler) WithGroup(string) slog.Handler { return h }

// Verify fails t unless the torn line was reported exactly once, the report
// was made while the line was still in the file, it names the file and every
// string in want, and the torn line is gone from the file (cut).
func (c *Check) Verify(t testing.TB, want ...string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.reports) != 1 {
		t.Fatalf("torn line of %s reported %d times, want once: %q", c.path, len(c.reports), c.reports)
	}
	if c.atReport[0] != c.complete+c.tail {
		t.Errorf("torn line of %s reported after the cut (a kill between the cut and the report loses it): the file held %q at the report", c.path, c.atReport[0])
	}
	for _, w := range append([]string{c.path}, want...) {
		if !strings.Contains(c.reports[0], w) {
			t.Errorf("the torn-line report %q does not say %q", c.reports[0], w)
		}
	}
	// Records appended since may follow the complete lines.
	if b, err := os.ReadFile(c.path); err != nil || !strings.HasPrefix(string(b), c.complete) || strings.HasPrefix(string(b), c.complete+c.tail) {
		t.Errorf("after opening, %s holds %q (%v), want the complete lines %q without the torn one", c.path, b, err, c.complete)
	}
}
