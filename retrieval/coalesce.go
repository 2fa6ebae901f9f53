package retrieval

import (
	"context"
	"fmt"
	"sync"
)

// coalescer shares dense passes between concurrent searches of one Engine:
// a search whose dense requests arrive while a pass is running waits for
// the next pass, which takes every request queued meanwhile (at most
// maxCoalesce) in one SearchDenseMany call. A scan over a large corpus is
// bound by memory bandwidth, so a server under many clients reads the
// vectors once for many queries instead of once each. No timer: a lone
// search starts its pass at once. Each request's list is exactly what
// SearchDense gives it (MultiDenseBackend's contract), so coalescing never
// changes a ranking. Only in-process scans (MultiDenseBackend) coalesce.
type coalescer struct {
	mu      sync.Mutex
	running bool
	queue   []*denseJob
}

// maxCoalesce bounds the queries of one shared pass (their top-k heaps and
// the pass's latency).
const maxCoalesce = 64

// denseJob is one query's dense requests and, when done is closed, its
// answer.
type denseJob struct {
	vec   []float32
	batch *Batch
	res   [][]Scored
	err   error
	done  chan struct{}
}

// search answers vecs[i] against batches[i] on d, in shared passes.
func (c *coalescer) search(ctx context.Context, d MultiDenseBackend, vecs [][]float32, batches []*Batch) ([][][]Scored, error) {
	jobs := make([]*denseJob, len(vecs))
	for i := range vecs {
		jobs[i] = &denseJob{vec: vecs[i], batch: batches[i], done: make(chan struct{})}
	}
	c.mu.Lock()
	c.queue = append(c.queue, jobs...)
	if !c.running {
		c.running = true
		go c.drain(d)
	}
	c.mu.Unlock()
	out := make([][][]Scored, len(jobs))
	for i, j := range jobs {
		select {
		case <-j.done:
		case <-ctx.Done():
			return nil, ctx.Err() // the pass still answers the job, for no one
		}
		if j.err != nil {
			return nil, j.err
		}
		out[i] = j.res
	}
	return out, nil
}

// drain runs passes until the queue is empty. The passes run without a
// request's context: a cancelled search stops waiting, not the others'
// pass.
func (c *coalescer) drain(d MultiDenseBackend) {
	for {
		c.mu.Lock()
		n := min(len(c.queue), maxCoalesce)
		if n == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		jobs := c.queue[:n:n]
		c.queue = c.queue[n:]
		if len(c.queue) == 0 {
			c.queue = nil
		}
		c.mu.Unlock()
		vecs := make([][]float32, n)
		batches := make([]*Batch, n)
		for i, j := range jobs {
			vecs[i], batches[i] = j.vec, j.batch
		}
		res, err := pass(d, vecs, batches)
		for i, j := range jobs {
			if err != nil {
				j.err = err
			} else {
				j.res = res[i]
			}
			close(j.done)
		}
	}
}

// pass is one SearchDenseMany; a panic of the backend fails the pass's
// searches (it would otherwise end the process, outside any request).
func pass(d MultiDenseBackend, vecs [][]float32, batches []*Batch) (res [][][]Scored, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("dense pass: panic: %v", r)
		}
	}()
	return SearchDenseMany(context.Background(), d, vecs, batches)
}
