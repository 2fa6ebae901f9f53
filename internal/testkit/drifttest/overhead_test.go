package drifttest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/drifttest"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/drift"
)

func TestMain(m *testing.M) {
	drifttest.ServeIfChild()
	os.Exit(m.Run())
}

// BenchmarkRunnerOverhead measures the runner's own time per item on a
// real workspace (DRIFTKIT_BENCH_WS, e.g. Mathlib@59fdb6b0 extracted,
// template-informalized and indexed) over a benchmark
// (DRIFTKIT_BENCH_FILE, e.g. ProofNet valid): an instant fake endpoint in
// another process answers six sub-queries per statement and one
// formalization; one item at a time. overhead_ms/item is the run's wall
// time minus the time spent waiting for the endpoint, per item: retrieval
// of the six sub-queries, corpus lookups, illustration, prompt rendering,
// extraction, journalling.
func BenchmarkRunnerOverhead(b *testing.B) {
	ws, bench := os.Getenv("DRIFTKIT_BENCH_WS"), os.Getenv("DRIFTKIT_BENCH_FILE")
	if ws == "" || bench == "" {
		b.Skip("set DRIFTKIT_BENCH_WS (an indexed workspace) and DRIFTKIT_BENCH_FILE (a benchmark)")
	}
	ix, err := index.Open(context.Background(), ws, nil) // the workspace's head applied, as driftkit search does
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	items, err := drift.ReadBenchFile(bench)
	if err != nil {
		b.Fatal(err)
	}
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
	p, err := drift.New(drift.Parts{Search: ix, Corpus: ix, Chat: c}, drift.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var wall, waited, cpuT time.Duration
	var n int
	var sum *drift.Summary
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		cpu0, t0 := cpu.Time(), time.Now()
		sum, err = drift.Run(context.Background(), p, items, drift.RunOptions{Dir: dir, Jobs: 1})
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		cpuT += cpu.Time() - cpu0
		n += len(items)
		recs, err := readRecords(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			for _, c := range r.Decompose {
				waited += time.Duration(c.Seconds * float64(time.Second))
			}
			for _, s := range r.Samples {
				for _, a := range s.Attempts {
					waited += time.Duration(a.Call.Seconds * float64(time.Second))
				}
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(ms(wall-waited), "overhead_ms/item")
	b.ReportMetric(ms(wall), "wall_ms/item")
	b.ReportMetric(ms(cpuT), "cpu_ms/item")
	b.ReportMetric(sum.MeanRetrieveMs, "retrieve_ms/item")
	b.ReportMetric(sum.MeanIllustrateMs, "illustrate_ms/item")
	b.ReportMetric(sum.MeanSubQueries, "subqueries/item")
}
