package lean

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/leantest"
)

// BenchmarkREPLCheck checks one snippet at a time on one fake REPL worker
// (header already imported) and reports the client's CPU per check
// (getrusage of this process only: the fake's own CPU is not counted) —
// the goal is at most 1 ms — and the wall time per round trip.
func BenchmarkREPLCheck(b *testing.B) {
	c := benchREPL(b, 1)
	ctx := context.Background()
	s := []Snippet{{ID: "b", Header: mathlibHeader, Code: "theorem t (x : ℕ) : x + 0 = x := by\n  sorry"}}
	if _, err := c.Check(ctx, s); err != nil { // import the header
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, t0 := cpu.Time(), time.Now()
	for i := 0; i < b.N; i++ {
		rs, err := c.Check(ctx, s)
		if err != nil || !rs[0].Pass {
			b.Fatalf("%+v %v", rs, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Time()-cpu0)/float64(b.N)/1e6, "client-cpu-ms/check")
	b.ReportMetric(float64(time.Since(t0))/float64(b.N)/1e6, "wall-ms/check")
}

// BenchmarkREPLThroughput8 sends batches of 64 snippets to 8 fake workers
// that each take 50 ms per snippet (a stand-in for Lean's time): the ideal
// is 160 checks/s. It reports the achieved rate, its share of the ideal and
// the client's CPU per check.
func BenchmarkREPLThroughput8(b *testing.B) {
	const workers, batch, leanTime = 8, 64, 50 * time.Millisecond
	c := benchREPL(b, workers)
	ctx := context.Background()
	var snips []Snippet
	for i := 0; i < batch; i++ {
		snips = append(snips, Snippet{ID: fmt.Sprint(i), Header: mathlibHeader,
			Code: fmt.Sprintf("theorem t%d : True := trivial --! slow %v", i, leanTime)})
	}
	if _, err := c.Check(ctx, snips[:workers]); err != nil { // start all workers, import the header
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0, t0 := cpu.Time(), time.Now()
	for i := 0; i < b.N; i++ {
		rs, err := c.Check(ctx, snips)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rs {
			if !r.Pass {
				b.Fatalf("%+v", r)
			}
		}
	}
	b.StopTimer()
	n := float64(b.N * batch)
	rate := n / time.Since(t0).Seconds()
	ideal := float64(workers) / leanTime.Seconds()
	b.ReportMetric(rate, "checks/s")
	b.ReportMetric(100*rate/ideal, "%-of-ideal")
	b.ReportMetric(float64(cpu.Time()-cpu0)/n/1e6, "client-cpu-ms/check")
}

func benchREPL(b *testing.B, workers int) *REPL {
	b.Helper()
	c, err := Open(context.Background(), Options{REPL: leantest.FakeREPL(b), Workers: workers, Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c.(*REPL)
}
