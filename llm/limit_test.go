package llm_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// chatAll sends n chats at once and returns the failures.
func chatAll(c *llm.Client, n int) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = c.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}})
		})
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// TestServerSlotsCapConcurrency: a server that works on one request at a
// time and says so (llama.cpp's GET /props) gets one request at a time:
// none waits in its queue long enough to time out, nothing is retried.
// With --concurrency 8 sent regardless, the queued ones timed out and
// were retried while the server still worked on them.
func TestServerSlotsCapConcurrency(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Serial: true, Slots: 1, Latency: 150 * time.Millisecond})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, Model: "m", Concurrency: 8, RequestTimeout: 500 * time.Millisecond,
		BackoffBase: time.Millisecond, BackoffMax: 10 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if errs := chatAll(c, 6); len(errs) > 0 {
		t.Fatal(errs)
	}
	if u := c.Usage(); u.Retries != 0 || srv.MaxInFlight() != 1 {
		t.Errorf("%d retries, %d requests at the server at once; want 0 and 1", u.Retries, srv.MaxInFlight())
	}
	if p := c.Parallelism(); p.Limit != 1 || p.Max != 1 || p.Source != "llama.cpp /props: 1 slots" {
		t.Errorf("parallelism %+v", p)
	}
}

// TestConcurrencyAdaptsToTimeouts: a server that queues silently (no
// /props, like llama-cpp-python's) and keeps working on abandoned requests:
// timeouts lower the concurrency until requests stop timing out, and every
// request succeeds within its retries.
func TestConcurrencyAdaptsToTimeouts(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Serial: true, Latency: 100 * time.Millisecond})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, Model: "m", Concurrency: 8, RequestTimeout: 350 * time.Millisecond,
		MaxRetries: 8, BackoffBase: 5 * time.Millisecond, BackoffMax: 20 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if errs := chatAll(c, 12); len(errs) > 0 {
		t.Fatalf("%d failed: %v", len(errs), errs[0])
	}
	p := c.Parallelism()
	if p.Limit >= 8 || p.Max != 8 || p.Source != "configured" {
		t.Errorf("parallelism %+v: want a lowered limit under the configured 8", p)
	}
	if u := c.Usage(); u.Retries == 0 {
		t.Error("no request timed out: the test does not exercise the adaptation")
	}
}
