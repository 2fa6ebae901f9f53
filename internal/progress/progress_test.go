package progress

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

func TestLogLinesWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := NewTo(&buf, "parse", 100)
	b.every = 0 // log on every Add
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); b.Add(25) }()
	}
	wg.Wait()
	b.Describe("errors=2")
	b.Finish()
	b.Finish() // idempotent
	out := buf.String()
	if b.Done() != 100 {
		t.Fatalf("done = %d", b.Done())
	}
	last := strings.Split(strings.TrimSpace(out), "\n")
	final := last[len(last)-1]
	for _, want := range []string{"msg=finished", "task=parse", "done=100", "total=100", "pct=100.0", `status="errors=2"`} {
		if !strings.Contains(final, want) {
			t.Errorf("final line %q lacks %q", final, want)
		}
	}
	if strings.Count(out, "msg=finished") != 1 {
		t.Errorf("finished logged %d times", strings.Count(out, "msg=finished"))
	}
}

// TestReporterInContext: library code starts bars on its context; only a
// Reporter the caller put there makes them visible, and two contexts with
// different reporters do not share output.
func TestReporterInContext(t *testing.T) {
	var a, b bytes.Buffer
	ctxA := WithReporter(context.Background(), NewReporter(&a))
	ctxB := WithReporter(context.Background(), NewReporter(&b))
	for _, c := range []struct {
		ctx  context.Context
		name string
	}{{ctxA, "a"}, {ctxB, "b"}, {context.Background(), "none"}, {WithReporter(ctxA, nil), "silenced"}} {
		bar := Start(c.ctx, c.name, 1)
		bar.Add(1)
		bar.Finish()
		if bar.Done() != 1 {
			t.Errorf("%s: done %d", c.name, bar.Done())
		}
	}
	if !strings.Contains(a.String(), "task=a") || strings.Contains(a.String(), "task=b") || strings.Contains(a.String(), "silenced") {
		t.Errorf("reporter a got %q", a.String())
	}
	if !strings.Contains(b.String(), "task=b") || strings.Contains(b.String(), "task=a") {
		t.Errorf("reporter b got %q", b.String())
	}
	if NewReporter(nil) != nil {
		t.Error("NewReporter(nil) is not the silent reporter")
	}
}
