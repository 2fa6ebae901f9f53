package informalize

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

func TestMain(m *testing.M) {
	fakeopenai.ServeIfChild()
	os.Exit(m.Run())
}

// BenchmarkInformalizeThroughput runs whole informalize runs (scheduling,
// prompts, journal with fsync, compaction) against a fake server in another
// process answering after 200 ms, with concurrency 64: ideal 320 requests/s.
// The library is wide, as Mathlib is: 64 roots, every other declaration
// depends on one or two of them.
func BenchmarkInformalizeThroughput(b *testing.B) {
	const latency, conc, n = 200 * time.Millisecond, 64, 1280
	url, stop, err := fakeopenai.StartProcess(latency)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	ds := synthDecls(n, 1)
	for i := range ds {
		ds[i].StatementDeps = nil
		if i >= conc {
			ds[i].StatementDeps = []string{ds[i%conc].Name, ds[(i/conc)%conc].Name}
		}
	}
	p := llmProvider(b, url, conc)
	var total int
	var el, used, sched time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		ws, _ := workspace.Open(b.TempDir())
		writeFixture(b, ws.Dir, ds)
		b.StartTimer()
		cpu0, t0 := cpu.Time(), time.Now()
		rep, err := Run(context.Background(), ws, quietOpts(p))
		el += time.Since(t0)
		used += cpu.Time() - cpu0
		if rep != nil {
			sched += rep.Elapsed
		}
		if err != nil {
			b.Fatal(err)
		}
		if rep.Requested != n {
			b.Fatalf("%d answers, want %d", rep.Requested, n)
		}
		total += n
	}
	b.StopTimer()
	rate := float64(total) / el.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(100*rate/(conc/latency.Seconds()), "%ideal")
	b.ReportMetric(float64(used.Microseconds())/1000/float64(total), "cpu-ms/req")
	// The requests phase alone, without loading the tables and compacting.
	b.ReportMetric(100*float64(total)/sched.Seconds()/(conc/latency.Seconds()), "%ideal-requests-phase")
}

// BenchmarkRerunPlan measures what a rerun after a bump costs before and
// around its requests: loading the tables, computing every reuse key and
// verdict, scheduling and compacting, on a 20,000-declaration library with
// 1% of signatures changed (answers from an in-process fake server).
func BenchmarkRerunPlan(b *testing.B) {
	const n = 20000
	ds := synthDecls(n, 1)
	srv := newFake(fakeopenai.Options{})
	defer srv.Close()
	p := llmProvider(b, srv.BaseURL(), 16)
	ws, _ := workspace.Open(b.TempDir())
	writeFixture(b, ws.Dir, ds)
	if _, err := Run(context.Background(), ws, quietOpts(p)); err != nil {
		b.Fatal(err)
	}
	v1, err := os.ReadFile(ws.Path(workspace.InformalFile))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 100 {
		ds[i].Signature += " ∧ True"
	}
	writeFixture(b, ws.Dir, ds)
	var redone int
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		// Back to the v1 table, as the manifest knew it.
		if err := os.WriteFile(ws.Path(workspace.InformalFile), v1, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		opts := quietOpts(p)
		opts.Force = true
		rep, err := Run(context.Background(), ws, opts)
		if err != nil {
			b.Fatal(err)
		}
		redone = rep.Requested
	}
	b.ReportMetric(float64(redone), "redone")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/n, "µs/decl")
}
