package retrieval

import (
	"slices"
	"testing"
)

func TestRerankFeatures(t *testing.T) {
	hits := []Hit{
		{Name: "Nat.Prime", Kind: "definition", Signals: map[string]int{"bm25": 1, "dense": 4}},
		{Name: "Nat.Prime.dvd_mul", Kind: "theorem", Signals: map[string]int{"bm25": 2, "name": 1}},
	}
	norm, extra := (*Table)(nil).QueryView(`$p \mid ab$ for a prime p`, &Weights{Symbols: true}, nil)
	f := RerankFeatures(norm, extra, hits)
	idx := func(n string) int { return slices.Index(rerankFeatureNames, n) }
	if f[0][idx("bm25")] != 1 || f[0][idx("dense")] != 0.25 || f[0][idx("name")] != 0 || f[1][idx("fused")] != 0.5 {
		t.Errorf("rank features %v", f)
	}
	if f[0][idx("kind_definition")] != 1 || f[1][idx("kind_theorem")] != 1 || f[1][idx("kind_definition")] != 0 {
		t.Errorf("kind features %v", f)
	}
	// Nat.Prime.dvd_mul: tokens nat, prime, dvd, mul; the query gives prime
	// and, through \mid → ∣, dvd (no mul: "ab" is not notation).
	if got := f[1][idx("name_cover")]; got != 0.5 {
		t.Errorf("name_cover %v, want 0.5 (query %q + %q)", got, norm, extra)
	}
	if f[1][idx("name_depth")] != 2 {
		t.Errorf("name_depth %v", f[1][idx("name_depth")])
	}
}

func TestRerankModel(t *testing.T) {
	m := &RerankModel{Features: RerankFeatureNames(), Weights: make([]float64, len(rerankFeatureNames)), Depth: 2}
	m.Weights[slices.Index(rerankFeatureNames, "kind_theorem")] = 1
	hits := []Hit{
		{Rank: 1, Name: "A", Kind: "definition", Signals: map[string]int{"bm25": 1}},
		{Rank: 2, Name: "B", Kind: "theorem", Signals: map[string]int{"bm25": 2}},
		{Rank: 3, Name: "C", Kind: "theorem"},
	}
	got := m.Rerank("q", "", hits, 3)
	var names []string
	for i, h := range got {
		names = append(names, h.Name)
		if h.Rank != i+1 {
			t.Errorf("rank %d at %d", h.Rank, i)
		}
	}
	// Only the first Depth hits are rescored; C stays third.
	if !slices.Equal(names, []string{"B", "A", "C"}) || got[0].Signals["fused"] != 2 || got[0].Score <= got[1].Score {
		t.Errorf("reranked %+v", got)
	}
	if len(m.Rerank("q", "", hits, 1)) != 1 {
		t.Error("k not applied")
	}
	bad := *m
	bad.Features = bad.Features[1:]
	if bad.Check() == nil {
		t.Error("a model with other features passes Check")
	}
}

// The embedded model is a valid one.
func TestEmbeddedRerankModel(t *testing.T) {
	if theoremReranker() == nil {
		t.Fatal("data/rerank-theorem.json is not a model of RerankFeatureNames")
	}
}
