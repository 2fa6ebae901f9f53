package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval/eval"
)

// eval proof on the bundled library: both halves have items, the three
// rankers are scored, and --bench-out is a benchmark eval retrieval reads,
// whose gold never names the theorem itself.
func TestEvalProof(t *testing.T) {
	ws := bundledWorkspace(t)
	bench := filepath.Join(t.TempDir(), "items.jsonl")
	out := mustRun(t, "eval", "proof", "--ws", ws, "--split", "held-out", "--max", "20", "--json", "--bench-out", bench)
	var rep proofReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rep.Scores) != 3 || rep.Scores[0].Items == 0 || rep.Split != "held-out" {
		t.Fatalf("report %+v", rep)
	}
	for _, s := range rep.Scores {
		if s.R10 < 0 || s.R10 > s.R32 || s.R32 > 1 {
			t.Errorf("%s: R@10 %v R@32 %v", s.Ranker, s.R10, s.R32)
		}
	}
	if rep.Scores[1].R32 == 0 {
		t.Errorf("the proof profile found nothing: %+v", rep.Scores)
	}
	items, err := eval.ReadBenchFile(bench)
	if err != nil || len(items) != rep.Scores[0].Items {
		t.Fatalf("bench-out: %d items, %v", len(items), err)
	}
	for _, it := range items {
		if eval.HalfOf(it.FullName) == "" || it.FormalStmt == "" || len(it.Gold) == 0 {
			t.Errorf("item %+v", it)
		}
		for _, g := range it.Gold {
			if g == it.FullName {
				t.Errorf("%s is its own gold", it.FullName)
			}
		}
	}
	// The other half has other theorems.
	mustRun(t, "eval", "proof", "--ws", ws, "--split", "tune", "--max", "20", "--bench-out", bench+".tune")
	a, _ := os.ReadFile(bench)
	b, _ := os.ReadFile(bench + ".tune")
	if len(b) == 0 || strings.Contains(string(a), strings.SplitN(string(b), "\n", 2)[0]) {
		t.Error("the halves share an item")
	}
}
