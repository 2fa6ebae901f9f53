package proof

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// BenchmarkGraphMemory loads a workspace's proof graph and reports the heap
// it keeps (what a server holds per declarations table) and the CPU of a
// load:
//
//	DRIFTKIT_BENCH_WS=/path/to/ws go test -run '^$' -bench GraphMemory -benchtime 1x ./retrieval/proof
func BenchmarkGraphMemory(b *testing.B) {
	ws := os.Getenv("DRIFTKIT_BENCH_WS")
	if ws == "" {
		b.Skip("set DRIFTKIT_BENCH_WS")
	}
	var g *Graph
	for b.Loop() {
		var err error
		if g, err = Load(filepath.Join(ws, workspace.DeclarationsFile), filepath.Join(ws, workspace.ModulesFile)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	g = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, _ = Load(filepath.Join(ws, workspace.DeclarationsFile), filepath.Join(ws, workspace.ModulesFile))
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-kept")
	b.ReportMetric(float64(g.Len()), "decls")
	runtime.KeepAlive(g)
}
