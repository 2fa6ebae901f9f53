package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// End to end: import rauto → index → search → eval retrieval, through the CLI.
func TestRetrievalCommands(t *testing.T) {
	ws := t.TempDir()
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	bench := filepath.Join(t.TempDir(), "bench.jsonl")
	os.WriteFile(bench, []byte(`{"informal_stmt": "Every bar's field is its x, about `+"`Foo.Bar`"+`.", "mathlib_dependencies": ["Foo.Bar", "Foo.Bar.x"], "full_name": "Foo.bar_mk"}`+"\n"), 0o644)
	per := filepath.Join(t.TempDir(), "items.jsonl")
	for _, args := range [][]string{
		{"import", "rauto", "--library", lib, "--ws", ws},
		{"index", "--ws", ws, "--dim", "32"},
		{"index", "--ws", ws, "--dim", "32"}, // rebuild over its own outputs
		{"search", "--ws", ws, "--json", "a bar holds a natural number"},
		{"search", "--ws", ws, "--mode", "bm25", "natural numbers"},
		{"eval", "retrieval", "--ws", ws, "--bench", bench, "--k", "1,5", "--per-item", per},
		{"eval", "retrieval", "--ws", ws, "--bench", bench, "--json", "--mode", "hybrid"},
	} {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			t.Fatalf("driftkit %v: exit %d", args, code)
		}
	}
	f, err := os.Open(per)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var item struct {
			FullName string   `json:"full_name"`
			Gold     []string `json:"gold"`
			Ranked   []string `json:"ranked"`
			Misses   []string `json:"misses"`
		}
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		n++
		for _, r := range item.Ranked {
			if r == item.FullName {
				t.Error("the query's own declaration was ranked")
			}
		}
		if len(item.Gold) != 2 || item.Misses == nil {
			t.Errorf("per-item line %+v", item)
		}
	}
	if n != 1 {
		t.Errorf("%d per-item lines", n)
	}
	for _, args := range [][]string{
		{"index"},
		{"search", "--ws", ws},
		{"search", "--ws", ws, "--mode", "nope", "x"},
		{"eval", "retrieval", "--ws", ws},
		{"eval", "retrieval", "--ws", ws, "--bench", bench, "--k", "0"},
		{"import", "rauto", "--ws", ws},
	} {
		if code := run(args, io.Discard, io.Discard); code != 2 {
			t.Errorf("driftkit %v: exit %d, want 2", args, code)
		}
	}
}
