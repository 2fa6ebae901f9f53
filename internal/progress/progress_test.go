package progress

import (
	"bytes"
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

func TestQuiet(t *testing.T) {
	Quiet = true
	defer func() { Quiet = false }()
	var buf bytes.Buffer
	b := NewTo(&buf, "x", 1)
	b.Add(1)
	b.Finish()
	if buf.Len() != 0 {
		t.Fatalf("quiet bar wrote %q", buf.String())
	}
}
