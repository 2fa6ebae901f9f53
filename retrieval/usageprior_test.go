package retrieval

import (
	"math"
	"testing"
)

func TestUsagePrior(t *testing.T) {
	entries := []Entry{
		{Name: "Nat", Kind: "inductive"},
		{Name: "lemma_a", Kind: "theorem", StatementDeps: []string{"Nat"}},
		{Name: "lemma_b", Kind: "theorem", StatementDeps: []string{"Nat"}},
		{Name: "lemma_c", Kind: "theorem"},
	}
	used := map[string][]string{"Nat": {"lemma_a", "lemma_b"}}
	c := BuildTableColumns(entries, used)
	c.AddProofUses(map[string]int32{"lemma_b": 6, "lemma_c": 1, "elsewhere": 9})
	tb, err := OpenTable(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.usagePrior(0) != nil {
		t.Error("weight 0: want no scale")
	}
	s := tb.usagePrior(0.5)
	// Nat: 2 statement uses; lemma_b: 6 proof uses, the most; lemma_a: none.
	for doc, want := range []float64{1 + 0.5*math.Log(3)/math.Log(7), 1, 1.5, 1 + 0.5*math.Log(2)/math.Log(7)} {
		if got := s(doc); math.Abs(got-want) > 1e-12 {
			t.Errorf("scale(%s) = %v, want %v", entries[doc].Name, got, want)
		}
	}
	// Equal fused ranks: the used lemma first.
	hits := tb.FuseScaled([]Ranked{{"bm25", 1, []int{1, 3}}, {"dense", 1, []int{3, 1}}}, 20, 2, s)
	if hits[0].Name != "lemma_c" {
		t.Errorf("with the prior: %v first, want lemma_c", hits[0].Name)
	}
	// The reranker's usage feature is the prior's share, by name.
	if got, want := tb.UsageShare("Nat"), math.Log(3)/math.Log(7); math.Abs(got-want) > 1e-12 || tb.UsageShare("lemma_b") != 1 || tb.UsageShare("elsewhere") != 0 {
		t.Errorf("UsageShare: Nat %v (want %v), lemma_b %v, elsewhere %v", got, want, tb.UsageShare("lemma_b"), tb.UsageShare("elsewhere"))
	}
	// No proof-use column (an older index): statement uses alone.
	tb2 := NewTable(entries, used)
	if got := tb2.usagePrior(1)(0); got != 2 {
		t.Errorf("statement uses alone: scale(Nat) = %v, want 2", got)
	}
}
