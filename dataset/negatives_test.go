package dataset

import (
	"github.com/driftkit/driftkit/workspace"
	"path/filepath"
	"slices"
	"testing"
)

func TestFillRandomNegatives(t *testing.T) {
	pool := []string{"A", "B", "C", "D", "E", "T", "P"}
	bad := func(n string) bool { return n == "T" || n == "P" }
	neg, added := FillRandomNegatives(NegativeRNG(1, "q"), []string{"C"}, 4, pool, bad)
	if len(neg) != 4 || added != 3 || neg[0] != "C" {
		t.Fatalf("neg %v, added %d", neg, added)
	}
	for i, n := range neg {
		if bad(n) || slices.Index(neg, n) != i {
			t.Errorf("neg %v: %q is rejected or repeated", neg, n)
		}
	}
	// Deterministic per seed and query, whatever the order of calls.
	again, _ := FillRandomNegatives(NegativeRNG(1, "q"), []string{"C"}, 4, pool, bad)
	if !slices.Equal(neg, again) {
		t.Errorf("not deterministic: %v then %v", neg, again)
	}
	// A pool of rejected names gives up instead of looping.
	neg, added = FillRandomNegatives(NegativeRNG(1, "q"), nil, 3, []string{"T", "P"}, bad)
	if len(neg) != 0 || added != 0 {
		t.Errorf("all rejected: %v", neg)
	}
	if neg, added = FillRandomNegatives(NegativeRNG(1, "q"), []string{"A"}, 1, pool, bad); added != 0 || len(neg) != 1 {
		t.Errorf("already full: %v", neg)
	}
}

// legacyPair is a pairs.parquet row before negative_sources.
type legacyPair struct {
	QueryID     string   `parquet:"query_id"`
	Query       string   `parquet:"query"`
	QuerySource string   `parquet:"query_source,dict"`
	Theorem     string   `parquet:"theorem"`
	Positives   []string `parquet:"positives,list"`
	Negatives   []string `parquet:"negatives,list"`
	Split       string   `parquet:"split,dict"`
}

func TestPairsWithoutNegativeSources(t *testing.T) {
	old := filepath.Join(t.TempDir(), workspace.PairsFile)
	if err := workspace.WriteTable(old, []legacyPair{{QueryID: "q", Theorem: "T", Positives: []string{"A"}, Negatives: []string{"B", "C"}, Split: workspace.SplitTrain}}); err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Pair](old)
	if err != nil {
		t.Fatalf("pairs written before negative_sources do not load: %v", err)
	}
	if len(rows) != 1 || !slices.Equal(rows[0].Negatives, []string{"B", "C"}) || len(rows[0].NegativeSources) != 0 {
		t.Fatalf("legacy rows %+v", rows)
	}
	if got := NegativeSourcesOf(&rows[0]); !slices.Equal(got, []string{"", ""}) {
		t.Errorf("sources of a legacy row: %q, want unknown", got)
	}
	p := workspace.Pair{Negatives: []string{"B"}, NegativeSources: []string{NegativeRandom}}
	if got := NegativeSourcesOf(&p); !slices.Equal(got, []string{NegativeRandom}) {
		t.Errorf("sources %q", got)
	}
}
