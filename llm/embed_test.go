package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// slowAbove is a fake whose embeddings requests of more than n texts
// outlast any client timeout; it records each request's size.
func slowAbove(n int) (*fakeopenai.Server, func() []int) {
	var mu sync.Mutex
	var sizes []int
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 4, SlowDelay: time.Minute, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		mu.Lock()
		sizes = append(sizes, len(r.Input))
		mu.Unlock()
		if len(r.Input) > n {
			return fakeopenai.Slow
		}
		return fakeopenai.OK
	}})
	return srv, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), sizes...)
	}
}

// TestEmbedHalvesABatchThatTimesOut: a batch the server cannot answer
// within the timeout is asked for in halves (not sent again whole), and
// the vectors come back in input order.
func TestEmbedHalvesABatchThatTimesOut(t *testing.T) {
	srv, sizes := slowAbove(2)
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	cfg.RequestTimeout = 300 * time.Millisecond
	c := newClient(t, cfg)
	in := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	vecs, u, err := c.Embed(context.Background(), "e5", in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(sizes()), "[8 4 2 2 4 2 2]"; got != want {
		t.Errorf("request sizes %s, want %s (each timed-out batch halved, never resent whole)", got, want)
	}
	for i, s := range in {
		if want := fakeopenai.Vector(s, 4); fmt.Sprint(vecs[i]) != fmt.Sprint(want) {
			t.Errorf("vector %d is not %q's", i, s)
		}
	}
	if u.Failures != 0 || c.Usage().Failures != 0 || u.Requests != 4 {
		t.Errorf("usage %+v (total %+v): want 4 answered requests, no failure", u, c.Usage())
	}
}

// TestEmbedOneTextTimesOut: halving stops at one text, whose timeouts are
// retried as any failure; then the error names the endpoint and the
// timeout, and says what to change.
func TestEmbedOneTextTimesOut(t *testing.T) {
	srv, sizes := slowAbove(0)
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	cfg.RequestTimeout = 200 * time.Millisecond
	cfg.MaxRetries = 2
	c := newClient(t, cfg)
	_, u, err := c.Embed(context.Background(), "e5", []string{"a", "b", "c", "d"})
	if err == nil {
		t.Fatal("no error")
	}
	if got, want := fmt.Sprint(sizes()), "[4 2 1 1 1]"; got != want {
		t.Errorf("request sizes %s, want %s", got, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), srv.BaseURL()) || !strings.Contains(err.Error(), "one text alone") ||
		!strings.Contains(err.Error(), "200ms") {
		t.Errorf("error %q: want the endpoint, the timeout and what to do", err)
	}
	if u.Failures != 1 || c.Usage().Failures != 1 {
		t.Errorf("usage %+v (total %+v): want one failure", u, c.Usage())
	}
}
