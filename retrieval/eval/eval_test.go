package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// recorder is a Searcher that returns fixed hits and records the queries.
type recorder struct {
	queries []retrieval.Query
	hits    []string
}

func (r *recorder) Search(_ context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	r.queries = append(r.queries, q)
	var out []retrieval.Hit
	for i, n := range r.hits {
		if !slices.Contains(q.Filter.Exclude, n) {
			out = append(out, retrieval.Hit{Rank: i + 1, Name: n})
		}
	}
	return out, nil
}

// corpus is a Corpus (and ModuleLister) over a few names.
type corpus map[string]string // name → module

func (c corpus) Len() int { return len(c) }
func (c corpus) Lookup(n string) (retrieval.Entry, bool) {
	m, ok := c[n]
	return retrieval.Entry{Name: n, Module: m}, ok
}
func (c corpus) UsedBy(string) []string { return nil }
func (c corpus) ModuleMembers(m string) []string {
	var out []string
	for n, mm := range c {
		if mm == m && strings.HasPrefix(n, "thm") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// The protocols decide what each query excludes; the gold never reaches the
// searcher; the query's own name is never scored even if returned.
func TestProtocols(t *testing.T) {
	c := corpus{"thm1": "A", "thm2": "A", "thm3": "B", "P": "A", "Q": "B"}
	items := []BenchItem{
		{InformalStmt: "one", Gold: []string{"P", "thm1"}, FullName: "thm1"},
		{InformalStmt: "three", Gold: []string{"Q"}, FullName: "thm3"},
		{InformalStmt: "no gold", FullName: "thm2"},
	}
	run := func(o Options) (*recorder, *Report) {
		t.Helper()
		s := &recorder{hits: []string{"thm1", "P", "Q"}}
		o.Progress = func(int) {}
		rep, err := Retrieval(context.Background(), s, c, items, o)
		if err != nil {
			t.Fatal(err)
		}
		return s, rep
	}
	s, rep := run(Options{Ks: []int{1}})
	if rep.Queries != 2 || rep.Skipped != 1 || len(s.queries) != 2 || !strings.HasPrefix(rep.Config.Protocol, "leave-one-out") {
		t.Fatalf("report %+v, %d queries", rep, len(s.queries))
	}
	if !slices.Equal(s.queries[0].Filter.Exclude, []string{"thm1"}) || s.queries[0].Text != "one" {
		t.Errorf("leave-one-out query %+v", s.queries[0])
	}
	// Item one: thm1 is its own declaration, so P is rank 1 (P@1 = 1).
	// Item three: thm1, P, then its gold Q (P@1 = 0, reciprocal rank 1/3).
	if rep.AtK[0].P != 0.5 || rep.MRR != (1+1.0/3)/2 {
		t.Errorf("metrics %+v, MRR %v", rep.AtK[0], rep.MRR)
	}
	s, rep = run(Options{Ks: []int{1}, HoldOutModule: true})
	if !slices.Equal(s.queries[0].Filter.Exclude, []string{"thm1", "thm1", "thm2"}) || !strings.Contains(rep.Config.Protocol, "module") {
		t.Errorf("hold-out-module excludes %v (%q)", s.queries[0].Filter.Exclude, rep.Config.Protocol)
	}
	unseen := []string{"thm1", "thm2", "thm3"}
	s, rep = run(Options{Ks: []int{1}, Unseen: unseen})
	for _, q := range s.queries {
		for _, u := range unseen {
			if !slices.Contains(q.Filter.Exclude, u) {
				t.Errorf("unseen: query %q does not exclude %s", q.Text, u)
			}
		}
	}
	if !strings.HasPrefix(rep.Config.Protocol, "unseen") {
		t.Errorf("protocol %q", rep.Config.Protocol)
	}
	// A corpus that cannot list module members is refused for hold-out.
	if _, err := Retrieval(context.Background(), &recorder{}, struct{ retrieval.Corpus }{c}, items, Options{HoldOutModule: true, Progress: func(int) {}}); err == nil {
		t.Error("hold-out-module without a ModuleLister accepted")
	}
}

// TestPerItem: each scored item's line says where it is in the benchmark,
// with the text searched, its gold, what was ranked (its own name removed)
// and the gold missed in the top 100; items without gold have no line.
func TestPerItem(t *testing.T) {
	c := corpus{"thm1": "A", "thm3": "B", "P": "A", "Q": "B"}
	items := []BenchItem{
		{InformalStmt: "one", Gold: []string{"P", "Q"}, FullName: "thm1", Line: 1},
		{InformalStmt: "no gold", FullName: "thm2", Line: 2},
		{InformalStmt: "three", Gold: []string{"Q"}, FullName: "thm3", Line: 3},
	}
	var got []PerItem
	s := &recorder{hits: []string{"thm1", "P"}}
	_, err := Retrieval(context.Background(), s, c, items, Options{Ks: []int{1}, Progress: func(int) {},
		PerItem: func(p PerItem) error { got = append(got, p); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	want := []PerItem{
		{FullName: "thm1", Line: 1, Query: "one", Gold: []string{"P", "Q"}, Ranked: []string{"P"}, Misses: []string{"Q"}},
		{FullName: "thm3", Line: 3, Query: "three", Gold: []string{"Q"}, Ranked: []string{"thm1", "P"}, Misses: []string{"Q"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.FullName != w.FullName || g.Line != w.Line || g.Query != w.Query || !slices.Equal(g.Gold, w.Gold) ||
			!slices.Equal(g.Ranked, w.Ranked) || !slices.Equal(g.Misses, w.Misses) {
			t.Errorf("item %d: %+v, want %+v", i, g, w)
		}
	}
}
