package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// limiter bounds the requests in flight. Its limit starts at the
// configured concurrency, capped by the parallel slots the servers report
// (probe), and adapts: an attempt that times out halves it (the server
// queues requests it has no slot for, and an abandoned request keeps its
// slot busy while the retry waits behind it), and limit successes in a row
// raise it by one again, up to the cap. Concurrent timeouts of requests
// sent under one limit halve it once.
type limiter struct {
	mu       sync.Mutex
	limit    int
	max      int
	inflight int
	streak   int
	gen      int           // bumped by every decrease
	wake     chan struct{} // closed when a slot frees or the limit grows
}

func newLimiter(n int) *limiter {
	return &limiter{limit: n, max: n, wake: make(chan struct{})}
}

// acquire waits for a slot; it returns the generation to pass to release.
func (l *limiter) acquire(ctx context.Context) (int, error) {
	for {
		l.mu.Lock()
		if l.inflight < l.limit {
			l.inflight++
			g := l.gen
			l.mu.Unlock()
			return g, nil
		}
		w := l.wake
		l.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// release frees a slot. timedOut lowers the limit (once per generation),
// ok counts towards raising it; it returns the new limit when it changed.
func (l *limiter) release(gen int, ok, timedOut bool) (changed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	switch {
	case timedOut && gen == l.gen && l.limit > 1:
		l.limit = max(1, l.limit/2)
		l.gen++
		l.streak = 0
		changed = l.limit
	case ok:
		l.streak++
		if l.streak >= l.limit && l.limit < l.max {
			l.limit++
			l.streak = 0
			changed = l.limit
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
	return changed
}

// capAt lowers the limit and its ceiling to n (a server's slots).
func (l *limiter) capAt(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n > 0 && n < l.max {
		l.max = n
		l.limit = min(l.limit, n)
	}
}

func (l *limiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// Parallelism says how many requests the client keeps in flight and why.
type Parallelism struct {
	// Limit is the current limit; Max the ceiling it grows back to.
	Limit, Max int
	// Source says where Max comes from: "configured", or the server's own
	// report ("llama.cpp /props: 1 slot", "vLLM /metrics: batches").
	Source string
}

// Parallelism returns the client's current concurrency and its source
// (after the first request, which probes the servers).
func (c *Client) Parallelism() Parallelism {
	c.lim.mu.Lock()
	defer c.lim.mu.Unlock()
	return Parallelism{Limit: c.lim.limit, Max: c.lim.max, Source: c.parSource}
}

// probeTimeout bounds each probe request.
const probeTimeout = 3 * time.Second

// probe asks every endpoint how many requests it works on at once, where
// the server says: llama.cpp's server reports its slots (GET /props
// total_slots, or GET /slots), vLLM batches (GET /metrics with vllm:
// series: the configured concurrency stands). When every endpoint reports
// slots, their sum caps the limit. Other servers (llama-cpp-python's,
// OpenAI) say nothing: the limit then adapts on timeouts alone.
func (c *Client) probe(ctx context.Context) {
	total, all := 0, true
	var srcs []string
	for _, ep := range c.eps {
		n, src := ep.parallelism(ctx, c.hc)
		if src != "" {
			srcs = append(srcs, src)
		}
		if n <= 0 {
			all = false
		}
		total += n
	}
	c.parSource = "configured"
	if len(srcs) > 0 {
		c.parSource = strings.Join(srcs, "; ")
	}
	if all && total > 0 {
		if before := c.lim.current(); total < before {
			c.log.Info("the server works on fewer requests at once than --concurrency: concurrency lowered", "concurrency", total, "from", before, "source", c.parSource)
		}
		c.lim.capAt(total)
	}
}

// parallelism is one endpoint's reported slots (0: unknown) and what said so.
func (ep *endpoint) parallelism(ctx context.Context, hc *http.Client) (int, string) {
	root := strings.TrimSuffix(strings.TrimRight(ep.url, "/"), "/v1")
	var props struct {
		TotalSlots int `json:"total_slots"`
	}
	if ep.getJSON(ctx, hc, root+"/props", &props) == nil && props.TotalSlots > 0 {
		return props.TotalSlots, fmt.Sprintf("llama.cpp /props: %d slots", props.TotalSlots)
	}
	var slots []json.RawMessage
	if ep.getJSON(ctx, hc, root+"/slots", &slots) == nil && len(slots) > 0 {
		return len(slots), fmt.Sprintf("llama.cpp /slots: %d slots", len(slots))
	}
	if body, err := ep.get(ctx, hc, root+"/metrics"); err == nil && strings.Contains(string(body), "vllm:") {
		return 0, "vLLM /metrics: batches requests"
	}
	return 0, ""
}

func (ep *endpoint) getJSON(ctx context.Context, hc *http.Client, url string, out any) error {
	b, err := ep.get(ctx, hc, url)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// get fetches url with the endpoint's key (when in scope) and a short
// timeout; any status but 200 is an error.
func (ep *endpoint) get(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if ep.key != "" {
		req.Header.Set("Authorization", "Bearer "+ep.key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}
