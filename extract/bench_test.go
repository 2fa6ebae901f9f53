package extract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasPrefix(filepath.Base(p), "deep-") })
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

// BenchmarkDeepNesting parses pathological nesting at doubling depths: the
// time per op must double with the depth, not quadruple (40,000 nested '('
// took 19.5 s when every '(' rescanned its group; 40,000 nested ascriptions
// 30 s when every token rescanned the open ascriptions).
func BenchmarkDeepNesting(b *testing.B) {
	shapes := map[string]func(n int) string{
		"parens": func(n int) string {
			return "def a : Nat := " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n"
		},
		"unclosed": func(n int) string { return "def a : Nat := " + strings.Repeat("(", n) + "\n" },
		"ascription": func(n int) string {
			return "def a : Nat := " + strings.Repeat("(x : ", n) + "Nat" + strings.Repeat(")", n) + "\n"
		},
		"commented": func(n int) string {
			return "def a : Nat := " + strings.Repeat("( /- (c -/ [ /-- d -/ ", n) + "1" + strings.Repeat(" /- e) -/ ] )", n) + "\n"
		},
		"comments": func(n int) string {
			return "theorem t : " + strings.Repeat("/- ( [ ", n) + strings.Repeat(" ] ) -/", n) + " True := trivial\n"
		},
	}
	for _, name := range []string{"parens", "unclosed", "ascription", "commented", "comments"} {
		for _, n := range []int{10000, 20000, 40000} {
			src := []byte(shapes[name](n))
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					ParseFile(src, "Deep.lean", "deep")
				}
			})
		}
	}
}
