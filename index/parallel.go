package index

import (
	"context"
	"runtime"
	"sync"

	"github.com/driftkit/driftkit/internal/progress"
)

// parallelRows calls fn(i) for i in [0,n) on GOMAXPROCS goroutines, in chunks,
// stopping early when ctx is cancelled.
func parallelRows(ctx context.Context, n int, fn func(i int), bar *progress.Bar) error {
	workers := runtime.GOMAXPROCS(0)
	const chunk = 512
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				s := next
				next += chunk
				mu.Unlock()
				if s >= n {
					return
				}
				e := min(s+chunk, n)
				for i := s; i < e; i++ {
					fn(i)
				}
				if bar != nil {
					bar.Add(e - s)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
