package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

func TestScoreSearch(t *testing.T) {
	l2 := func(i int) float64 { return 1 / math.Log2(float64(i+1)) } // discount of 1-based rank i
	for _, tc := range []struct {
		name   string
		ranked []string
		gold   []string
		want   SearchMetrics
		rank   int
	}{
		{"first", []string{"a", "x"}, []string{"a"}, SearchMetrics{Hit1: 1, Hit10: 1, MRR10: 1, NDCG10: 1, P10: 0.1, R10: 1}, 1},
		{"third", []string{"x", "y", "a"}, []string{"a"}, SearchMetrics{Hit10: 1, MRR10: 1.0 / 3, NDCG10: l2(3), P10: 0.1, R10: 1}, 3},
		{"one of two alternatives", []string{"x", "b"}, []string{"a", "b"}, SearchMetrics{Hit10: 1, MRR10: 0.5, NDCG10: l2(2) / (1 + l2(2)), P10: 0.1, R10: 0.5}, 2},
		{"both", []string{"b", "a"}, []string{"a", "b"}, SearchMetrics{Hit1: 1, Hit10: 1, MRR10: 1, NDCG10: 1, P10: 0.2, R10: 1}, 1},
		{"repeated hit counts once", []string{"a", "a"}, []string{"a"}, SearchMetrics{Hit1: 1, Hit10: 1, MRR10: 1, NDCG10: 1, P10: 0.1, R10: 1}, 1},
		{"beyond 10", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a"}, []string{"a"}, SearchMetrics{}, 0},
		{"none", nil, []string{"a"}, SearchMetrics{}, 0},
	} {
		got, rank := scoreSearch(tc.ranked, tc.gold)
		if rank != tc.rank || math.Abs(got.NDCG10-tc.want.NDCG10) > 1e-12 || got.Hit1 != tc.want.Hit1 || got.Hit10 != tc.want.Hit10 ||
			math.Abs(got.MRR10-tc.want.MRR10) > 1e-12 || got.P10 != tc.want.P10 || got.R10 != tc.want.R10 {
			t.Errorf("%s: %+v rank %d, want %+v rank %d", tc.name, got, rank, tc.want, tc.rank)
		}
	}
}

// searchRecorder answers each query text with fixed names and records the
// queries.
type searchRecorder struct {
	queries []retrieval.Query
	answers map[string][]string
}

func (r *searchRecorder) Search(_ context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	r.queries = append(r.queries, q)
	var out []retrieval.Hit
	for i, n := range r.answers[q.Text] {
		if i < q.K {
			out = append(out, retrieval.Hit{Rank: i + 1, Name: n})
		}
	}
	return out, nil
}

func TestSearchConfigsAndRewrite(t *testing.T) {
	c := corpus{"A": "M", "B": "M", "C": "M"}
	items := []SearchItem{{ID: "1", Query: "qa", Gold: []string{"A"}, Line: 1}, {ID: "2", Query: "qb", Gold: []string{"B", "Gone"}, Line: 2}}
	s := &searchRecorder{answers: map[string][]string{"qa": {"A"}, "qb": {"C", "B"}, "qa rewritten": {"A"}, "qb rewritten": {"B"}}}
	var per []SearchPerItem
	rep, err := Search(context.Background(), s, c, items, SearchOptions{
		Configs:  []SearchConfig{{retrieval.ProfilePremise, retrieval.ModeBest}, {retrieval.ProfileAuto, retrieval.ModeBest}, {"", retrieval.ModeBM25}},
		PerItem:  func(p SearchPerItem) error { per = append(per, p); return nil },
		Progress: func(int) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.GoldTotal != 3 || rep.GoldInIndex != 2 || len(rep.Missing) != 1 || rep.Missing[0] != (MissingGold{"2", 2, "Gone"}) {
		t.Errorf("gold coverage %d/%d, missing %+v", rep.GoldInIndex, rep.GoldTotal, rep.Missing)
	}
	if len(rep.Runs) != 3 || rep.Runs[0].Resolved != retrieval.ProfilePremise || rep.Runs[1].Resolved != retrieval.ProfileTheorem || rep.Runs[2].Profile != "" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	r := rep.Runs[0]
	if r.Hit1 != 0.5 || r.Hit10 != 1 || r.MRR10 != 0.75 {
		t.Errorf("metrics %+v", r)
	}
	// Every query searches all kinds with the run's profile and mode, the
	// gold never reaches the searcher and nothing is excluded.
	for i, q := range s.queries {
		if !q.Filter.AllKinds || len(q.Filter.Exclude) > 0 || q.K != SearchCutoff {
			t.Errorf("query %d: %+v", i, q)
		}
	}
	if s.queries[0].Profile != retrieval.ProfilePremise || s.queries[2].Profile != retrieval.ProfileAuto || s.queries[4].Mode != retrieval.ModeBM25 {
		t.Errorf("queries %+v", s.queries)
	}
	if len(per) != 6 || per[1].Rank != 2 || !slices.Equal(per[1].Ranked, []string{"C", "B"}) {
		t.Errorf("per-item %+v", per)
	}

	// A rewriter is asked once per query and its variants are fused.
	asked := 0
	s.queries = nil
	rep, err = Search(context.Background(), s, c, items, SearchOptions{
		Configs:  []SearchConfig{{retrieval.ProfileTheorem, retrieval.ModeBest}, {"", retrieval.ModeHybrid}},
		Progress: func(int) {},
		Rewrite: func(_ context.Context, text string) ([]retrieval.Variant, string) {
			asked++
			return []retrieval.Variant{{Label: "raw", Text: text}, {Label: "rw", Text: text + " rewritten", Weight: 2}}, "augmented"
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 2 || len(s.queries) != 8 {
		t.Errorf("rewriter asked %d times, %d searches", asked, len(s.queries))
	}
	if rep.Runs[0].Hit1 != 1 || rep.Runs[0].Notes["augmented"] != 2 || rep.Runs[0].Fallbacks != 0 {
		t.Errorf("with rewrite: %+v", rep.Runs[0])
	}

	// A query the rewriter gives nothing beyond the raw text is a fallback,
	// counted whatever its note says, and the table says how many.
	rep, err = Search(context.Background(), s, c, items, SearchOptions{
		Progress: func(int) {},
		Rewrite: func(_ context.Context, text string) ([]retrieval.Variant, string) {
			if text == "qb" {
				return []retrieval.Variant{{Label: "raw", Text: text}}, "fallback (raw query only): model timed out"
			}
			return []retrieval.Variant{{Label: "raw", Text: text}, {Label: "rw", Text: text + " rewritten"}}, "cached"
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tab strings.Builder
	rep.WriteTable(&tab)
	if rep.Runs[0].Fallbacks != 1 || !strings.Contains(tab.String(), "augmentation: 1 of 2 queries fell back to the raw query alone; 1 cached, 1 fallback (raw query only): model timed out") {
		t.Errorf("fallbacks %d:\n%s", rep.Runs[0].Fallbacks, tab.String())
	}
}

func TestSampleEvery(t *testing.T) {
	var items []SearchItem
	for i := range 10 {
		items = append(items, SearchItem{ID: fmt.Sprint(i)})
	}
	got, label := SampleEvery(items, 4)
	var ids []string
	for _, it := range got {
		ids = append(ids, it.ID)
	}
	if !slices.Equal(ids, []string{"0", "4", "8"}) || label != "one in every 4 items in file order, the first included: 3 of 10" {
		t.Errorf("SampleEvery(10 items, 4) = %v, %q", ids, label)
	}
	if got, label := SampleEvery(items, 1); len(got) != 10 || label != "" {
		t.Errorf("k=1 kept %d, %q", len(got), label)
	}
}

func TestReadSearchBench(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		line    int
	}{
		{`{"id": "a", "query": "q", "gold": ["X"]}` + "\n\n" + `{"id": "b", "query": "", "gold": ["X"]}`, "no query", 3},
		{`{"id": "a", "query": "q", "gold": []}`, "no gold", 1},
		{`{"query": "q", "gold": ["X"]}`, "no id", 1},
		{`{"id": "a", "query": "q", "gold": [" X"]}`, "padded", 1},
		{`{"id": "a", "query": "q", "gold": ["X"], "informal_stmt": "s"}`, "unknown field", 1},
		{`{"id": "a", "query": "q", "gold": ["X"]}` + "\n" + `{"id": "a", "query": "r", "gold": ["Y"]}`, "repeats line 1", 2},
		{"\n", "no items", 1},
		{`{"id": "a", "query": "q", "gold": "X"}`, "want one JSON object", 1},
	} {
		_, err := ReadSearchBench(strings.NewReader(tc.in), "s.jsonl")
		var be *BenchError
		if !errors.As(err, &be) || !errors.Is(err, ErrBench) || be.Line != tc.line || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%.50q: err %v, want line %d saying %q", tc.in, err, tc.line, tc.err)
		}
	}
}

// The committed benchmarks parse, are large enough, and their split lists
// are exactly what the rule gives for their ids.
func TestSearchBenchmarksAndSplits(t *testing.T) {
	for _, tc := range []struct {
		file, name string
		least      int
	}{
		{"driftlib.jsonl", "search-driftlib", 40},
		{"mathlib-59fdb6b0.jsonl", "search-mathlib-59fdb6b0", 100},
		{"dev-mathlib-v4.29.0.jsonl", "search-dev-mathlib-v4.29.0", 1000},
		// The second sets are never tuned on and are reported whole: no
		// split list.
		{"bump-mathlib-head-f4a7505.jsonl", "", 400},
		{"lib-connf-16041ae.jsonl", "", 30},
		{"lib-pfr-01c9b66.jsonl", "", 30},
	} {
		items, err := ReadSearchBenchFile(filepath.Join("..", "..", "testdata", "search", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if len(items) < tc.least {
			t.Errorf("%s: %d items, want at least %d", tc.file, len(items), tc.least)
		}
		for _, half := range []string{SplitTune, SplitHeldOut} {
			if tc.name == "" {
				break
			}
			b, err := os.ReadFile(filepath.Join("testdata", "splits", tc.name+"."+half+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, it := range SplitSearch(items, half) {
				ids = append(ids, it.ID)
			}
			slices.Sort(ids)
			if got := strings.Fields(string(b)); !slices.Equal(got, ids) {
				t.Errorf("%s %s half: the committed list (%d ids) is not the rule's (%d ids)", tc.file, half, len(got), len(ids))
			}
		}
	}
}

// Items with a style are scored per style too; an item's half overrides
// the id rule, and a half other than tune or held-out is refused.
func TestSearchStylesAndHalves(t *testing.T) {
	c := corpus{"A": "M", "B": "M"}
	items := []SearchItem{
		{ID: "1", Query: "qa", Gold: []string{"A"}, Style: "latex", Half: SplitHeldOut},
		{ID: "2", Query: "qb", Gold: []string{"B"}, Style: "latex", Half: SplitHeldOut},
		{ID: "3", Query: "qc", Gold: []string{"A"}, Style: "nickname", Half: SplitTune},
		{ID: "4", Query: "qa", Gold: []string{"A"}},
	}
	s := &searchRecorder{answers: map[string][]string{"qa": {"A"}, "qb": {"A", "B"}, "qc": {"B"}}}
	rep, err := Search(context.Background(), s, c, items, SearchOptions{Progress: func(int) {}})
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Runs[0].Styles
	if len(st) != 2 || st[0].Style != "latex" || st[0].Queries != 2 || st[0].MRR10 != 0.75 || st[0].Hit1 != 0.5 ||
		st[1].Style != "nickname" || st[1].Queries != 1 || st[1].Hit10 != 0 {
		t.Errorf("styles %+v", st)
	}
	if got := rep.Runs[0].MRR10; got != (1+0.5+0+1)/4.0 {
		t.Errorf("overall MRR %v", got)
	}
	var b strings.Builder
	rep.WriteTable(&b)
	if !strings.Contains(b.String(), "latex") || !strings.Contains(b.String(), "(2 queries)") {
		t.Errorf("table without the style rows:\n%s", b.String())
	}
	for _, half := range []string{SplitTune, SplitHeldOut} {
		var ids []string
		for _, it := range SplitSearch(items, half) {
			ids = append(ids, it.ID)
		}
		want := []string{"3"}
		if half == SplitHeldOut {
			want = []string{"1", "2"}
		}
		if HalfOf("4") == half {
			want = append(want, "4")
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s half %v, want %v", half, ids, want)
		}
	}
	_, err = ReadSearchBench(strings.NewReader(`{"id": "a", "query": "q", "gold": ["X"], "half": "test"}`), "f.jsonl")
	if !errors.Is(err, ErrBench) || !strings.Contains(err.Error(), `half "test"`) {
		t.Errorf("a bad half: %v", err)
	}
}

func FuzzReadSearchBench(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "search", "driftlib.jsonl"))
	f.Add(string(b))
	f.Add(`{"id": "a", "query": "q", "gold": ["X"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ReadSearchBench(strings.NewReader(s), "f.jsonl")
		if err != nil {
			var be *BenchError
			if !errors.As(err, &be) || !errors.Is(err, ErrBench) || be.Line < 1 {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, it := range items {
			if strings.TrimSpace(it.Query) == "" || it.ID == "" || len(it.Gold) == 0 {
				t.Fatalf("bad item accepted: %+v", it)
			}
		}
	})
}

// kindCorpus is a corpus of names → kinds.
type kindCorpus map[string]string

func (c kindCorpus) Len() int { return len(c) }
func (c kindCorpus) Lookup(n string) (retrieval.Entry, bool) {
	k, ok := c[n]
	return retrieval.Entry{Name: n, Kind: k}, ok
}
func (c kindCorpus) UsedBy(string) []string { return nil }

// The metrics are broken down by the kind of each item's first gold name
// when the gold names are of several kinds.
func TestSearchGoldKinds(t *testing.T) {
	c := kindCorpus{"A": "theorem", "B": "class", "C": "theorem"}
	items := []SearchItem{
		{ID: "1", Query: "qa", Gold: []string{"A"}},
		{ID: "2", Query: "qb", Gold: []string{"B", "A"}},
		{ID: "3", Query: "qc", Gold: []string{"C"}},
		{ID: "4", Query: "qa", Gold: []string{"Missing"}},
	}
	s := &searchRecorder{answers: map[string][]string{"qa": {"A"}, "qb": {"A", "B"}, "qc": {"B"}}}
	rep, err := Search(context.Background(), s, c, items, SearchOptions{Progress: func(int) {}})
	if err != nil {
		t.Fatal(err)
	}
	k := rep.Runs[0].GoldKinds
	if len(k) != 2 || k[0].Kind != "class" || k[0].Queries != 1 || k[0].Hit1 != 1 || k[1].Kind != "theorem" || k[1].Queries != 2 || k[1].MRR10 != 0.5 {
		t.Errorf("gold kinds %+v", k)
	}
	var b strings.Builder
	rep.WriteTable(&b)
	if !strings.Contains(b.String(), "gold class") {
		t.Errorf("table without the kind rows:\n%s", b.String())
	}
	// One kind: no breakdown.
	rep, err = Search(context.Background(), s, c, items[:1], SearchOptions{Progress: func(int) {}})
	if err != nil || rep.Runs[0].GoldKinds != nil {
		t.Errorf("one kind: %+v, %v", rep.Runs[0].GoldKinds, err)
	}
}
