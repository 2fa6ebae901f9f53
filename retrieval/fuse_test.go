package retrieval

import (
	"context"
	"maps"
	"math"
	"testing"
)

// TestFuseScores pins reciprocal-rank fusion's arithmetic, which the
// data-driven signal cases (ranks only) let through: a review planted
// rank instead of rank+1, and the hybrid constant 1 instead of 60, and no
// test failed (#24). score(d) = Σ w / (k + rank), rank 1-based; ties and
// order follow the score; Signals carry each list's 1-based rank.
func TestFuseScores(t *testing.T) {
	tb := corpusFrom(t, "definition A\ndefinition B\ndefinition C\ndefinition D\n")
	lists := []Ranked{{"one", 1, []int{0, 1, 2}}, {"two", 2, []int{2, 0}}}
	want := []struct {
		name  string
		score float64
		sig   map[string]int
	}{
		{"C", 1.0/(10+3) + 2.0/(10+1), map[string]int{"one": 3, "two": 1}},
		{"A", 1.0/(10+1) + 2.0/(10+2), map[string]int{"one": 1, "two": 2}},
		{"B", 1.0 / (10 + 2), map[string]int{"one": 2}},
	}
	hits := tb.Fuse(lists, 10, 10)
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d: %+v", len(hits), len(want), hits)
	}
	for i, w := range want {
		h := hits[i]
		if h.Name != w.name || h.Rank != i+1 || h.Score != round6(w.score) || !maps.Equal(h.Signals, w.sig) {
			t.Errorf("hit %d: %s rank %d score %v signals %v, want %s rank %d score %v signals %v",
				i, h.Name, h.Rank, h.Score, h.Signals, w.name, i+1, round6(w.score), w.sig)
		}
	}
	// k = 0: the first of a list scores its weight (1/(0+1)), not +Inf.
	if h := tb.Fuse([]Ranked{{"one", 3, []int{1, 0}}}, 0, 1); len(h) != 1 || h[0].Name != "B" || h[0].Score != 3 {
		t.Errorf("k=0: %+v, want B with score 3", h)
	}
	// The cut keeps the n best; the scale applies before it.
	half := func(doc int) float64 {
		if doc == 2 {
			return 0.5
		}
		return 1
	}
	hits = tb.FuseScaled(lists, 10, 2, half)
	if len(hits) != 2 || hits[0].Name != "A" || hits[1].Name != "C" || hits[1].Score != round6(0.5*want[0].score) {
		t.Errorf("scaled: %+v, want A then C at half its score", hits)
	}
}

// TestHybridScores: mode hybrid fuses BM25 and dense with RRF k = 60 and
// weight 1 each, so every hit's score is Σ 1/(60 + rank) over the lists
// that ranked it.
func TestHybridScores(t *testing.T) {
	tb := corpusFrom(t, "class Group\nstructure Subgroup uses Group\ndefinition Set.Nonempty.cloud\ndefinition Other.cloud\ndefinition IsOpen\n")
	e := &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: letters{tb}, Encoder: letters{tb}}
	hits, err := e.Search(context.Background(), Query{Text: "group", Mode: ModeHybrid, K: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "Group" || len(hits[0].Signals) != 2 {
		t.Fatalf("hits %+v, want Group first from both lists", hits)
	}
	for _, h := range hits {
		var want float64
		for _, r := range h.Signals {
			want += 1 / (60 + float64(r))
		}
		if math.Abs(h.Score-round6(want)) > 1e-12 {
			t.Errorf("%s (signals %v): score %v, want %v", h.Name, h.Signals, h.Score, round6(want))
		}
	}
}
