package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchInput is a large real file when Mathlib is unpacked next to the
// project (DRIFTKIT_BENCH_FILE overrides), else the seed corpus repeated.
func benchInput(b *testing.B) []byte {
	b.Helper()
	for _, p := range []string{os.Getenv("DRIFTKIT_BENCH_FILE"), "/work/src/mathlib-head/Mathlib/Order/Filter/Basic.lean"} {
		if p == "" {
			continue
		}
		if src, err := os.ReadFile(p); err == nil {
			return src
		}
	}
	paths, _ := filepath.Glob("testdata/seeds/*.lean")
	var buf bytes.Buffer
	for buf.Len() < 200_000 {
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			buf.Write(src)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

func BenchmarkLex(b *testing.B) {
	src := benchInput(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Lex(src)
	}
}

func BenchmarkParseFile(b *testing.B) {
	src := benchInput(b)
	s := &Source{Library: "bench"}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		parseFile(src, string(src), "Bench.lean", "Bench", s, &Options{})
	}
}

func BenchmarkParseAndResolveFile(b *testing.B) {
	src := benchInput(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ParseFile(src, "Bench.lean", "bench")
	}
}
