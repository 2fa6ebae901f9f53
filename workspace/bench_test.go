package workspace

import (
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkWriteDeclarations measures streaming 50k declaration rows (about a
// fifth of Mathlib) into a zstd Parquet file.
func BenchmarkWriteDeclarations(b *testing.B) {
	rows := sampleDeclarations(50_000)
	path := filepath.Join(b.TempDir(), DeclarationsFile)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteTable(path, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriteDeclarationsParallel is the same table through a
// ParallelWriter with GOMAXPROCS encoders (the same bytes).
func BenchmarkWriteDeclarationsParallel(b *testing.B) {
	rows := sampleDeclarations(50_000)
	path := filepath.Join(b.TempDir(), DeclarationsFile)
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter[Declaration](path)
		if err != nil {
			b.Fatal(err)
		}
		p := w.Parallel(runtime.GOMAXPROCS(0))
		if err := p.Write(rows...); err != nil {
			b.Fatal(err)
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkEachRowDeclarations measures streaming them back.
func BenchmarkEachRowDeclarations(b *testing.B) {
	rows := sampleDeclarations(50_000)
	path := filepath.Join(b.TempDir(), DeclarationsFile)
	if err := WriteTable(path, rows); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := EachRow(path, func(*Declaration) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != len(rows) {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
