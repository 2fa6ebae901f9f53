package index

import (
	"context"
	"fmt"
	"github.com/driftkit/driftkit/retrieval"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

func BenchmarkDot(b *testing.B) {
	for _, n := range []int{256, 1024} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = rand.Float32(), rand.Float32()
		}
		b.Run(fmt.Sprintf("simd/%d", n), func(b *testing.B) {
			var s float32
			for b.Loop() {
				s += DotSIMD(x, y)
			}
			_ = s
		})
		b.Run(fmt.Sprintf("loop/%d", n), func(b *testing.B) {
			var s float32
			for b.Loop() {
				s += DotLoop(x, y)
			}
			_ = s
		})
	}
}

// BenchmarkDenseScan is one exact query over 250k × 256 vectors (the size of
// a Mathlib index), filling a candidate and a neighbour list in one pass.
func BenchmarkDenseScan(b *testing.B) {
	const rows, dim = 250_000, 256
	vecs := make([]float32, rows*dim)
	for i := range vecs {
		vecs[i] = rand.Float32() - 0.5
	}
	s := NewStore(vecs, rows, dim)
	q := vecs[:dim]
	// Candidates (class 1) and neighbours (class 2), as a search asks.
	class := make([]uint8, rows)
	for i := range class {
		class[i] = uint8(1 + i%5/4)
	}
	batch := &retrieval.Batch{Requests: []retrieval.Request{{K: 200}, {K: 20}}, Class: class}
	b.Run("1", func(b *testing.B) {
		for b.Loop() {
			s.SearchDense(context.Background(), q, batch)
		}
	})
}

// BenchmarkDenseScanMany compares five queries scanned one by one with the
// same five in one SearchDenseMany pass (DRIFT's sub-queries of one
// statement) over 250k × 256 vectors.
func BenchmarkDenseScanMany(b *testing.B) {
	const rows, dim, nq = 250_000, 256, 5
	vecs := make([]float32, rows*dim)
	for i := range vecs {
		vecs[i] = rand.Float32() - 0.5
	}
	s := NewStore(vecs, rows, dim)
	class := make([]uint8, rows)
	for i := range class {
		class[i] = uint8(1 + i%5/4)
	}
	qs := make([][]float32, nq)
	bs := make([]*retrieval.Batch, nq)
	for i := range qs {
		qs[i] = vecs[i*dim : (i+1)*dim]
		bs[i] = &retrieval.Batch{Requests: []retrieval.Request{{K: 200}, {K: 20}}, Class: class}
	}
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for i := range qs {
				s.SearchDense(context.Background(), qs[i], bs[i])
			}
		}
	})
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			s.SearchDenseMany(context.Background(), qs, bs)
		}
	})
}

// BenchmarkWorkspaceSearch measures queries against a real index:
// DRIFTKIT_BENCH_WS=/path/to/ws DRIFTKIT_BENCH_FILE=bench.jsonl go test -bench WorkspaceSearch -cpu 1 ./index
// It reports p50/p90 latency per mode over the benchmark's informal statements.
func BenchmarkWorkspaceSearch(b *testing.B) {
	ws, bf := os.Getenv("DRIFTKIT_BENCH_WS"), os.Getenv("DRIFTKIT_BENCH_FILE")
	if ws == "" || bf == "" {
		b.Skip("set DRIFTKIT_BENCH_WS and DRIFTKIT_BENCH_FILE")
	}
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	// DRIFTKIT_BENCH_WARM=1 opens the index as serve does (OpenOptions.Warm):
	// the int8 copy of the vectors is made before the clock starts, so single
	// queries take the int8 first pass; without it they scan exactly.
	warm := os.Getenv("DRIFTKIT_BENCH_WARM") == "1"
	ix, err := Open(context.Background(), ws, &OpenOptions{Warm: warm})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ix.warming.Wait()
	var ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	items, err := eval.ReadBenchFile(bf)
	if err != nil {
		b.Fatal(err)
	}
	g, release := ix.Pin()
	b.Logf("index heap %.0f MB (%d docs, vectors memory-mapped: %v, warm: %v)", float64(ms1.HeapAlloc-ms0.HeapAlloc)/1e6, ix.Len(), g.Mapped(), warm)
	release()
	// "theorem" is theorem search (ProfileAuto with every kind a candidate,
	// as the server asks): the statements as queries, K 10. Its name index
	// is built lazily by the first query, before the clock starts.
	for _, m := range []Mode{ModeBM25, ModeDense, ModeHybrid, ModeBest, "theorem"} {
		b.Run(string(m), func(b *testing.B) {
			query := func(it eval.BenchItem) Query {
				if m == "theorem" {
					return Query{Text: it.InformalStmt, K: 10, Mode: ModeBest, Profile: retrieval.ProfileAuto, Filter: retrieval.Filter{AllKinds: true, Exclude: []string{it.FullName}}}
				}
				return Query{Text: it.InformalStmt, K: 100, Mode: m, Filter: retrieval.Filter{Exclude: []string{it.FullName}}}
			}
			if _, err := ix.Search(context.Background(), query(items[0])); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			i := 0
			c0 := cpu.Time()
			for b.Loop() {
				it := items[i%len(items)]
				i++
				t0 := time.Now()
				if _, err := ix.Search(context.Background(), query(it)); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.ReportMetric(float64((cpu.Time()-c0).Microseconds())/1000/float64(len(lat)), "cpu-ms/query")
			p50, p90 := percentile(lat, 50), percentile(lat, 90)
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p90.Microseconds())/1000, "p90-ms")
		})
	}
}

func percentile(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[(len(s)-1)*p/100]
}

// BenchmarkWorkspaceBuild builds the index of a real workspace's declarations
// (copied to a temporary workspace): DRIFTKIT_BENCH_WS=/path/to/ws go test
// -bench WorkspaceBuild -benchtime 1x ./index. It reports the CPU seconds
// used besides wall time, since shared machines make wall time noisy.
func BenchmarkWorkspaceBuild(b *testing.B) {
	src := os.Getenv("DRIFTKIT_BENCH_WS")
	if src == "" {
		b.Skip("set DRIFTKIT_BENCH_WS")
	}
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		for _, n := range []string{workspace.DeclarationsFile, workspace.InformalFile} {
			if data, err := os.ReadFile(filepath.Join(src, n)); err == nil {
				os.WriteFile(filepath.Join(dir, n), data, 0o644)
			}
		}
		ws := &workspace.Workspace{Dir: dir}
		c0 := cpu.Time()
		b.StartTimer()
		st, err := Build(context.Background(), ws, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpu.Time().Seconds()-c0.Seconds(), "cpu-s")
		b.ReportMetric(float64(st.Docs), "docs")
		for k, v := range st.Phases {
			b.Logf("%s %.1fs", k, v.Seconds())
		}
	}
}

// BenchmarkWorkspaceOpen opens a real workspace's index and answers one
// query, as a cold `driftkit search` does:
// DRIFTKIT_BENCH_WS=/path/to/ws go test -bench WorkspaceOpen -benchtime 1x
// -cpuprofile cpu.out ./index.
func BenchmarkWorkspaceOpen(b *testing.B) {
	ws := os.Getenv("DRIFTKIT_BENCH_WS")
	if ws == "" {
		b.Skip("set DRIFTKIT_BENCH_WS")
	}
	for b.Loop() {
		c0 := cpu.Time()
		ix, err := Open(context.Background(), ws, nil)
		if err != nil {
			b.Fatal(err)
		}
		c1 := cpu.Time()
		if _, err := ix.Search(context.Background(), Query{Text: "Every finite group of prime order is cyclic.", K: 10}); err != nil {
			b.Fatal(err)
		}
		c2 := cpu.Time()
		if st, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, l := range strings.Split(string(st), "\n") {
				if strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "RssAnon") || strings.HasPrefix(l, "RssFile") {
					b.Log(l)
				}
			}
		}
		ix.Close()
		b.ReportMetric((c1-c0).Seconds()*1000, "open-cpu-ms")
		b.ReportMetric((c2-c1).Seconds()*1000, "query-cpu-ms")
	}
}
