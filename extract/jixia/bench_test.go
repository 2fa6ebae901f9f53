package jixia

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

// BenchmarkImport imports the bundled library's jixia output (38 modules,
// 1,148 rows, generated from its extraction) with its sources, and reports
// rows per second.
func BenchmarkImport(b *testing.B) {
	rows := driftlibRows(b)
	dir := b.TempDir()
	mods, err := elabtest.WriteJixia(dir, driftlib, rows, true)
	if err != nil {
		b.Fatal(err)
	}
	var pairs []Pair
	for _, m := range mods {
		pairs = append(pairs, Pair{Decl: m.Decl, Sym: m.Sym, Module: ModuleFromFile(m.Decl, "")})
	}
	b.ResetTimer()
	var n int64
	for i := 0; i < b.N; i++ {
		ws, _ := workspace.Open(filepath.Join(dir, "ws"+strconv.Itoa(i)))
		st, err := Import(context.Background(), ws, pairs, Options{Library: "driftlib", Src: driftlib})
		if err != nil {
			b.Fatal(err)
		}
		n += st.Declarations
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
}
