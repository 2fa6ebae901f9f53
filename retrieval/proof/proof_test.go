package proof

import (
	"slices"
	"strings"
	"testing"
)

func TestGoalOf(t *testing.T) {
	for sig, want := range map[string]string{
		"(a b : ℕ) {f : α → β} [Group G] (h : a < b) : f a = f b": "a b : ℕ\nf : α → β\ninst✝ : Group G\nh : a < b\n⊢ f a = f b",
		": 1 + 1 = 2":                  "⊢ 1 + 1 = 2",
		"(n : ℕ := 3) ⦃x : α⦄ : P n x": "n : ℕ\nx : α\n⊢ P n x",
		"(s : Set (α × β)) :\n  s = s": "s : Set (α × β)\n⊢ s = s",
		"Nat.Prime 2":                  "⊢ Nat.Prime 2",
	} {
		if got := GoalOf(sig); got != want {
			t.Errorf("GoalOf(%q) = %q, want %q", sig, got, want)
		}
	}
}

// library: A.lean defines P and lemmas about it; B.lean (importing A)
// proves things with them.
func library() []EvalRow {
	r := func(name, kind, mod string, line int32, sig string, stmt, proof []string) EvalRow {
		return EvalRow{Row: Row{Revision: "abc1234", Name: name, Kind: kind, Module: mod, LineStart: line, StatementDeps: stmt, ProofDeps: proof}, Signature: sig}
	}
	return []EvalRow{
		r("P", "definition", "A", 1, "(n : ℕ) : Prop", nil, nil),
		r("Q", "definition", "A", 2, "(n : ℕ) : Prop", nil, nil),
		r("P.mono", "theorem", "A", 3, "(h : P n) : P (n+1)", []string{"P"}, []string{"P"}),
		r("P.of_Q", "theorem", "A", 4, "(h : Q n) : P n", []string{"P", "Q"}, []string{"P", "Q"}),
		r("R", "definition", "C", 1, "(n : ℕ) : Prop", nil, nil),
		r("B.first", "theorem", "B", 1, "(h : Q n) : P (n+1)", []string{"P", "Q"}, []string{"P.mono", "P.of_Q"}),
		r("B.second", "theorem", "B", 2, "(h : Q n) : P (n+2)", []string{"P", "Q"}, []string{"P.mono", "B.first", "R"}),
		r("B.third", "theorem", "B", 3, "(h : Q n) : P (n+3)", []string{"P", "Q"}, []string{"B.second", "P.mono"}),
	}
}

func graphOf(rows []EvalRow) *Graph {
	base := make([]Row, len(rows))
	for i := range rows {
		base[i] = rows[i].Row
	}
	return New(base, []ModuleRow{{Name: "B", Imports: []string{"A"}}, {Name: "A"}, {Name: "C"}})
}

func TestGraph(t *testing.T) {
	g := graphOf(library())
	if g.Len() != 8 || !slices.Equal(g.Modules(), []string{"A", "B", "C"}) || !slices.Equal(g.Revisions(), []string{"abc1234"}) {
		t.Fatalf("graph: %d %v %v", g.Len(), g.Modules(), g.Revisions())
	}
	mono, _ := g.ID("P.mono")
	if g.ProofUses(mono) != 3 {
		t.Errorf("P.mono used by %d proofs, want 3", g.ProofUses(mono))
	}
	p, _ := g.ID("P")
	if users := g.users.of(p); len(users) != 5 {
		t.Errorf("P's statement users %v", users)
	}
}

func TestRank(t *testing.T) {
	g := graphOf(library())
	// The goal names P and Q: their lemmas and what similar proofs use come first.
	hits := g.Rank(&Query{Goal: "h : Q n\n⊢ P (n + 4)", K: 4, Similar: []string{"B.third", "B.second"}})
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
	}
	if len(hits) != 4 || !slices.Contains(names, "P.mono") || !slices.Contains(names, "B.second") {
		t.Errorf("hits %v", names)
	}
	// Candidate and Exclude hold for every list, votes included.
	third, _ := g.ID("B.third")
	second, _ := g.ID("B.second")
	hits = g.Rank(&Query{Goal: "h : Q n\n⊢ P (n + 4)", K: 10, Similar: []string{"B.third", "B.second"}, Exclude: []int32{second, third},
		Candidate: func(id int32) bool { return g.ModuleOf(id) == 0 }})
	for _, h := range hits {
		if id, _ := g.ID(h.Name); g.ModuleOf(id) != 0 {
			t.Errorf("%s is not a candidate", h.Name)
		}
	}
	// B.second voted for R: excluded voters do not vote.
	hits = g.Rank(&Query{Goal: "⊢ True", K: 10, Similar: []string{"B.second"}, Exclude: []int32{second}})
	for _, h := range hits {
		if h.Name == "R" {
			t.Errorf("R got a vote from the excluded B.second: %v", hits)
		}
	}
	// New premises are ranked with the rest and shadow indexed names.
	hits = g.Rank(&Query{Goal: "h : Q n\n⊢ P n", K: 3, Candidate: func(int32) bool { return false },
		New: []NewPremise{{Name: "mine", Decl: "theorem mine (h : Q n) : P n", Dense: 0.9}, {Name: "other", Decl: "theorem other : True", Dense: 0.1}}})
	if len(hits) == 0 || hits[0].Name != "mine" || !hits[0].New {
		t.Errorf("new premises: %v", hits)
	}
}

func TestItemsHideTheFuture(t *testing.T) {
	rows := library()
	g := graphOf(rows)
	items := Items(g, rows, ItemOptions{InHalf: func(m string) bool { return m == "B" }})
	byName := map[string]Item{}
	for _, it := range items {
		byName[it.Name] = it
	}
	sec, ok := byName["B.second"]
	if !ok || len(items) != 3 {
		t.Fatalf("items %v", items)
	}
	// R (module C, not imported) is not gold; B.first (earlier) is.
	if !slices.Equal(sec.Gold, []string{"P.mono", "B.first"}) || !slices.Equal(sec.ExcludeNames, []string{"B.second", "B.third"}) {
		t.Errorf("B.second: gold %v exclude %v", sec.Gold, sec.ExcludeNames)
	}
	r, _ := g.ID("R")
	first, _ := g.ID("B.first")
	third, _ := g.ID("B.third")
	if sec.Candidate(r) || !sec.Candidate(first) || sec.Candidate(third) {
		t.Error("candidates: want imports and earlier declarations only")
	}
	if sec.Goal != "h : Q n\n⊢ P (n+2)" || !slices.Equal(sec.Constants, []string{"P", "Q"}) {
		t.Errorf("goal %q constants %v", sec.Goal, sec.Constants)
	}
}

func TestSteps(t *testing.T) {
	sig := "[TopologicalSpace ι] (hτ : IsStoppingTime f τ) (i : ι) :\n    MeasurableSet[hτ.measurableSpace] {ω | τ ω < i}"
	code := "protected theorem measurableSet_lt' " + sig + " := by\n" +
		"  have : {ω | τ ω < i} = {ω | τ ω ≤ i} \\ {ω | τ ω = i} := by\n" +
		"    ext1 ω\n" +
		"    simp only [lt_iff_le_and_ne, Set.mem_ofPred_eq] -- not Set.mem_sdiff\n" +
		"\n" +
		"  rw [this]\n" +
		"  suffices h : MeasurableSet {ω | τ ω ≤ i} by exact h.diff (hτ.measurableSet_eq' i)\n" +
		"  exact hτ.measurableSet_le' i\n" +
		"termination_by 0"
	proof, ok := ProofOf(code, sig)
	if !ok {
		t.Fatal("no proof")
	}
	steps := Steps(proof)
	if len(steps) != 4 {
		t.Fatalf("%d steps: %q", len(steps), steps)
	}
	if steps[0].Hyp != "this : {ω | τ ω < i} = {ω | τ ω ≤ i} \\ {ω | τ ω = i}" || !strings.Contains(steps[0].Proof, "lt_iff_le_and_ne") ||
		strings.Contains(steps[0].Proof, "≤ i}") || strings.Contains(steps[0].Proof, "mem_sdiff") {
		t.Errorf("have: %+v", steps[0])
	}
	if steps[2].SetsTarget != "MeasurableSet {ω | τ ω ≤ i}" || !strings.Contains(steps[2].Proof, "h.diff") {
		t.Errorf("suffices: %+v", steps[2])
	}
	if steps[3].Text != "exact hτ.measurableSet_le' i" {
		t.Errorf("last step %q (the block ends before termination_by)", steps[3].Text)
	}
	if got := Steps("foo.trans (bar x)"); len(got) != 1 || got[0].Proof != "foo.trans (bar x)" {
		t.Errorf("term proof: %+v", got)
	}

	g := New([]Row{
		{Name: "lt_iff_le_and_ne", Kind: "theorem", Module: "A"}, {Name: "Set.mem_ofPred_eq", Kind: "theorem", Module: "A"},
		{Name: "MeasurableSet.diff", Kind: "theorem", Module: "A"}, {Name: "IsStoppingTime.measurableSet_eq'", Kind: "theorem", Module: "A"},
		{Name: "IsStoppingTime.measurableSet_le'", Kind: "theorem", Module: "A"}, {Name: "MeasurableSet", Kind: "definition", Module: "A"},
		{Name: "lt", Kind: "theorem", Module: "B", ProofDeps: []string{"lt_iff_le_and_ne", "Set.mem_ofPred_eq", "MeasurableSet",
			"MeasurableSet.diff", "IsStoppingTime.measurableSet_eq'", "IsStoppingTime.measurableSet_le'"}},
	}, []ModuleRow{{Name: "B", Imports: []string{"A"}}})
	it := Item{Name: "lt", Statement: sig, Constants: []string{"IsStoppingTime"},
		Gold: []string{"lt_iff_le_and_ne", "Set.mem_ofPred_eq", "MeasurableSet.diff", "IsStoppingTime.measurableSet_eq'", "IsStoppingTime.measurableSet_le'"}}
	items := StepItems(g, []Item{it}, func(string) string { return code })
	if len(items) != 3 {
		t.Fatalf("%d step items: %+v", len(items), items)
	}
	want := []struct{ name, goal string }{
		{"lt#1", "inst✝ : TopologicalSpace ι\nhτ : IsStoppingTime f τ\ni : ι\n⊢ {ω | τ ω < i} = {ω | τ ω ≤ i} \\ {ω | τ ω = i}"},
		{"lt#3", "inst✝ : TopologicalSpace ι\nhτ : IsStoppingTime f τ\ni : ι\nthis : {ω | τ ω < i} = {ω | τ ω ≤ i} \\ {ω | τ ω = i}\nh : MeasurableSet {ω | τ ω ≤ i}\n⊢ MeasurableSet[hτ.measurableSpace] {ω | τ ω < i}"},
		{"lt#4", "inst✝ : TopologicalSpace ι\nhτ : IsStoppingTime f τ\ni : ι\nthis : {ω | τ ω < i} = {ω | τ ω ≤ i} \\ {ω | τ ω = i}\n⊢ MeasurableSet {ω | τ ω ≤ i}"},
	}
	for i, w := range want {
		if items[i].Name != w.name || items[i].Goal != w.goal {
			t.Errorf("item %d: %s\n%s\nwant %s\n%s", i, items[i].Name, items[i].Goal, w.name, w.goal)
		}
	}
	if !slices.Equal(items[0].Gold, []string{"lt_iff_le_and_ne", "Set.mem_ofPred_eq"}) ||
		!slices.Equal(items[1].Gold, []string{"MeasurableSet.diff", "IsStoppingTime.measurableSet_eq'"}) ||
		!slices.Equal(items[2].Gold, []string{"IsStoppingTime.measurableSet_le'"}) {
		t.Errorf("groups %v / %v / %v", items[0].Gold, items[1].Gold, items[2].Gold)
	}
	// The goal's new parts name MeasurableSet (pp.fullNames would).
	if !slices.Contains(items[2].Constants, "MeasurableSet") || !slices.Contains(items[2].Constants, "IsStoppingTime") {
		t.Errorf("constants %v", items[2].Constants)
	}
}

// With LocalAsNew the module's earlier declarations are new premises, not
// candidates, and stay gold; the ranker returns them by name.
func TestItemsLocalAsNew(t *testing.T) {
	rows := library()
	g := graphOf(rows)
	items := Items(g, rows, ItemOptions{InHalf: func(m string) bool { return m == "B" }, LocalAsNew: true})
	var sec *Item
	for i := range items {
		if items[i].Name == "B.second" {
			sec = &items[i]
		}
	}
	if sec == nil || len(sec.New) != 1 || sec.New[0].Name != "B.first" || sec.New[0].Decl != "theorem B.first (h : Q n) : P (n+1)" {
		t.Fatalf("B.second: %+v", sec)
	}
	first, _ := g.ID("B.first")
	if sec.Candidate(first) || !slices.Equal(sec.Gold, []string{"P.mono", "B.first"}) {
		t.Errorf("candidate %v gold %v", sec.Candidate(first), sec.Gold)
	}
	hits := g.Rank(&Query{Goal: sec.Goal, K: 5, Candidate: sec.Candidate, Exclude: sec.Exclude, New: sec.New})
	if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == "B.first" && h.New }) {
		t.Errorf("hits %v lack the new premise B.first", hits)
	}
}
