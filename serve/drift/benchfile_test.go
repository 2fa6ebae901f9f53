package drift

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestReadBenchFormats(t *testing.T) {
	in := strings.Join([]string{
		`{"informal_stmt": "ProofNet style.", "formal_stmt": "theorem x : True :=\nsorry", "header": "import Mathlib\n", "mathlib_dependencies": ["A", "B"], "full_name": "Src.x", "problem_name": "x"}`,
		``,
		`{"name": "mathd_1", "informal_prefix": "/-- miniF2F style. -/\n", "formal_statement": "theorem mathd_1 : 1 = 1 := by\n", "header": "import Mathlib\n"}`,
		`{"informal_stmt": "No name."}`,
		`{"informal_stmt": "Same name.", "full_name": "Src.x"}`,
	}, "\n")
	items, err := ReadBench(strings.NewReader(in), "b.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	a, b, c, d := items[0], items[1], items[2], items[3]
	if a.Key != "Src.x" || a.Self != "Src.x" || a.Reference == "" || a.Header != "import Mathlib\n" || len(a.Gold) != 2 || a.Line != 1 {
		t.Errorf("proofnet item: %+v", a)
	}
	if b.Key != "mathd_1" || b.Self != "" || b.Informal != "miniF2F style." || !strings.HasPrefix(b.Reference, "theorem mathd_1") || b.Line != 3 {
		t.Errorf("minif2f item: %+v", b)
	}
	if c.Key != "line 4" {
		t.Errorf("unnamed item key %q", c.Key)
	}
	if d.Key != "Src.x#5" || d.Self != "Src.x" {
		t.Errorf("repeated key %q", d.Key)
	}
}

func TestReadBenchErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"informal_stmt\": \"ok\"}\nnot json\n", "b.jsonl:2:"},
		{"{\"formal_stmt\": \"theorem x : True := sorry\"}\n", "b.jsonl:1: bad benchmark file: no informal statement"},
		{"\n\n", "no items"},
		{"[1, 2]\n", "b.jsonl:1:"},
	} {
		_, err := ReadBench(strings.NewReader(c.in), "b.jsonl")
		var be *BenchError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBench) || !errors.As(err, &be) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// The shared benchmarks and the bundled one all read.
func TestReadRealBenchmarks(t *testing.T) {
	paths := []string{filepath.Join(repoRoot(t), "testdata", "bench.jsonl")}
	for _, p := range []string{"connf/benchmark-dev.jsonl", "proofnet/valid.jsonl"} {
		if full := filepath.Join("/work/shared/benchmarks", p); fileExists(full) {
			paths = append(paths, full)
		}
	}
	for _, p := range paths {
		items, err := ReadBenchFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.Self == "" || it.Reference == "" || it.Header == "" || it.Gold == nil {
				t.Fatalf("%s:%d: incomplete item %+v", p, it.Line, it)
			}
		}
		t.Logf("%s: %d items", p, len(items))
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func FuzzReadBench(f *testing.F) {
	f.Add(`{"informal_stmt": "a", "full_name": "x"}` + "\n" + `{"informal_stmt": "b", "full_name": "x"}`)
	f.Add(`{"name": "n", "informal_prefix": "/-- -/"}`)
	f.Add("\n{\n")
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ReadBench(strings.NewReader(s), "f")
		if err != nil {
			if !errors.Is(err, ErrBench) {
				t.Fatalf("error does not wrap ErrBench: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, it := range items {
			if it.Informal == "" || it.Key == "" || seen[it.Key] {
				t.Fatalf("bad item %+v", it)
			}
			seen[it.Key] = true
		}
	})
}
