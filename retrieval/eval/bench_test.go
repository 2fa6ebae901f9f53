package eval

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzReadBench(f *testing.F) {
	b, _ := os.ReadFile("testdata/bench.jsonl")
	f.Add(string(b))
	f.Add(`{"informal_stmt": 3}`)
	f.Add(`{"informal_stmt": "a", "mathlib_dependencies": ["X"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ReadBench(strings.NewReader(s), "f.jsonl")
		if err != nil {
			var be *BenchError
			if !errors.As(err, &be) || !errors.Is(err, ErrBench) || be.Line < 1 {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, it := range items {
			if strings.TrimSpace(it.InformalStmt) == "" {
				t.Fatal("item without statement accepted")
			}
			if strings.TrimSpace(it.FullName) == "" {
				t.Fatal("item without full_name accepted")
			}
		}
	})
}

func TestReadBenchErrorLine(t *testing.T) {
	_, err := ReadBench(strings.NewReader("{\"informal_stmt\":\"a\",\"full_name\":\"a\"}\n\n{\"full_name\":\"x\"}\n"), "b.jsonl")
	var be *BenchError
	if !errors.As(err, &be) || be.Line != 3 || !strings.Contains(err.Error(), "b.jsonl:3") {
		t.Fatalf("err = %v", err)
	}
	// A line without full_name is reported, not scored without excluding
	// its own declaration.
	_, err = ReadBench(strings.NewReader("{\"informal_stmt\":\"a\",\"full_name\":\"a\"}\n{\"informal_stmt\":\"b\",\"full_name\":\" \"}\n"), "n.jsonl")
	if !errors.As(err, &be) || be.Line != 2 || !strings.Contains(err.Error(), "n.jsonl:2") || !strings.Contains(err.Error(), "no full_name") {
		t.Fatalf("line without full_name: err = %v", err)
	}
	// A file without items is an error, not an empty benchmark scoring zero.
	for _, s := range []string{"", "\n\n  \n"} {
		_, err := ReadBench(strings.NewReader(s), "e.jsonl")
		if !errors.As(err, &be) || !errors.Is(err, ErrBench) || be.Line < 1 || !strings.Contains(err.Error(), "no items") {
			t.Errorf("%q: err = %v, want a BenchError saying there are no items", s, err)
		}
	}
}
