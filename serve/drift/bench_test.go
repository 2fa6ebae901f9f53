package drift_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/drifttest"
	"github.com/driftkit/driftkit/internal/testkit/leakcheck"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/serve/drift"
)

func TestMain(m *testing.M) {
	drifttest.ServeIfChild()
	// A run, its workers or a stream left running fails the package.
	leakcheck.Main(m)
}

// tinyCorpus answers every query with the same few premises, each used by
// one theorem: retrieval and illustration cost next to nothing, so the
// benchmarks measure the runner and the client.
type tinyCorpus struct{}

func (tinyCorpus) Len() int { return 4 }
func (tinyCorpus) Lookup(n string) (retrieval.Entry, bool) {
	switch n {
	case "P1", "P2":
		return retrieval.Entry{Name: n, Kind: "definition", Signature: ": Prop"}, true
	case "T1", "T2":
		return retrieval.Entry{Name: n, Kind: "theorem", Signature: ": True", StatementDeps: []string{"P" + n[1:]}}, true
	}
	return retrieval.Entry{}, false
}
func (tinyCorpus) UsedBy(p string) []string { return []string{"T" + p[1:]} }
func (tinyCorpus) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	return []retrieval.Hit{{Rank: 1, Name: "P1", Kind: "definition", Score: 1}, {Rank: 2, Name: "P2", Kind: "definition", Score: 0.5}}[:min(q.K, 2)], nil
}

func benchItems(n int) []drift.Item {
	out := make([]drift.Item, n)
	for i := range out {
		out[i] = drift.Item{Key: fmt.Sprintf("item%05d", i), Line: i + 1,
			Informal: fmt.Sprintf("Every finite group of prime order %d is cyclic and abelian, and its subgroups are trivial.", i)}
	}
	return out
}

// BenchmarkRunThroughput runs items against a fake endpoint (in a child
// process) whose every answer takes 100 ms, with 16 requests in flight,
// and reports the throughput as a share of the ideal: all 16 slots busy
// all the time, i.e. requests × 100 ms / 16.
func BenchmarkRunThroughput(b *testing.B) {
	for _, samples := range []int{1, 4} {
		b.Run(fmt.Sprintf("samples=%d", samples), func(b *testing.B) {
			const latency, conc, items = 100 * time.Millisecond, 16, 256
			url, stop, err := drifttest.StartProcess(latency)
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			c, err := llm.New(llm.Config{BaseURLs: []string{url}, Model: "m", Concurrency: conc})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			p, err := drift.New(drift.Parts{Search: tinyCorpus{}, Corpus: tinyCorpus{}, Chat: c}, drift.Options{Samples: samples})
			if err != nil {
				b.Fatal(err)
			}
			var wall time.Duration
			var cpuT time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				dir := b.TempDir()
				cpu0, t0 := cpu.Time(), time.Now()
				sum, err := drift.Run(context.Background(), p, benchItems(items), drift.RunOptions{Dir: dir, Jobs: 2 * conc})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(t0)
				cpuT += cpu.Time() - cpu0
				if sum.OK != items {
					b.Fatalf("%d of %d items ok", sum.OK, items)
				}
			}
			requests := float64(items * (1 + samples) * b.N)
			ideal := time.Duration(requests / conc * float64(latency))
			b.ReportMetric(100*float64(ideal)/float64(wall), "%_of_ideal")
			b.ReportMetric(float64(items*b.N)/wall.Seconds(), "items/s")
			b.ReportMetric(float64(cpuT.Microseconds())/1000/float64(items*b.N), "cpu_ms/item")
		})
	}
}

// BenchmarkItemOverhead is the runner's own cost per item with an instant
// endpoint in another process and one item at a time: decomposition and
// formalization round trips on loopback, retrieval and illustration on a
// trivial corpus, prompt rendering, extraction, journalling.
func BenchmarkItemOverhead(b *testing.B) {
	url, stop, err := drifttest.StartProcess(0)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	c, err := llm.New(llm.Config{BaseURLs: []string{url}, Model: "m", Concurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p, err := drift.New(drift.Parts{Search: tinyCorpus{}, Corpus: tinyCorpus{}, Chat: c}, drift.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	items := benchItems(b.N)
	b.ResetTimer()
	cpu0 := cpu.Time()
	if _, err := drift.Run(context.Background(), p, items, drift.RunOptions{Dir: dir, Jobs: 1}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((cpu.Time()-cpu0).Microseconds())/1000/float64(b.N), "cpu_ms/item")
}
