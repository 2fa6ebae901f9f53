package retrieval

import (
	"fmt"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/internal/cpu"
)

func TestRerankFeatures(t *testing.T) {
	hits := []Hit{
		{Name: "Nat.Prime", Kind: "definition", Signals: map[string]int{"bm25": 1, "dense": 4}},
		{Name: "Nat.Prime.dvd_mul", Kind: "theorem", Signals: map[string]int{"bm25": 2, "name": 1}},
	}
	norm, extra := (*Table)(nil).QueryView(`$p \mid ab$ for a prime p`, &Weights{Symbols: true}, nil)
	docs := fakeDocs{
		"Nat.Prime":         {0.75, "def Nat.Prime (p : ℕ) : Prop", "prime number: a natural number with exactly two divisors"},
		"Nat.Prime.dvd_mul": {0, "theorem Nat.Prime.dvd_mul {p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n", "a prime divides a product iff it divides a factor"},
	}
	f := RerankFeatures(norm, extra, hits, docs)
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
	if f[0][idx("usage")] != 0.75 || f[1][idx("usage")] != 0 || RerankFeatures(norm, extra, hits, nil)[0][idx("usage")] != 0 {
		t.Errorf("usage feature %v, %v", f[0][idx("usage")], f[1][idx("usage")])
	}
	// The query's notation is ∣ alone ($ab$ writes no operator): dvd_mul's
	// statement has it (and ∨ ↔ * ℕ besides), Nat.Prime's has none.
	if f[1][idx("sym_cover")] != 1 || f[0][idx("sym_cover")] != 0 || f[1][idx("sym_jaccard")] != 1.0/5 {
		t.Errorf("symbol features %v / %v", f[0][16:18], f[1][16:18])
	}
	// Query words (p, ∣ is no word, ab, for, prime, stopword a dropped):
	// "prime" is in both informal texts; the statement of dvd_mul has p
	// and prime (p.Prime), Nat.Prime's p, nat, prime.
	if f[0][idx("text_cover")] != 1.0/3 || f[1][idx("sig_cover")] != 2.0/3 {
		t.Errorf("text features %v / %v (query %q)", f[0][18:], f[1][18:], norm)
	}
	// ∣ and * are in dvd_mul's statement, ≤ is not: cover 2/3, Jaccard
	// 2/(3+5-2).
	if h := RerankFeatures("p ∣ a * b ≤ c", "", hits, docs)[1]; h[idx("sym_cover")] != 2.0/3 || h[idx("sym_jaccard")] != 2.0/6 {
		t.Errorf("symbol features of a notation query: %v", h[16:18])
	}
	// A query without notation has no symbol features.
	g := RerankFeatures("a prime divides a product", "", hits, docs)
	if g[1][idx("sym_cover")] != 0 || g[1][idx("text_cover")] != 1 {
		t.Errorf("plain query: %v", g[1][16:])
	}
}

type fakeDocs map[string]struct {
	usage         float64
	sig, informal string
}

func (d fakeDocs) UsageShare(name string) float64 { return d[name].usage }
func (d fakeDocs) RerankText(name string) (string, string) {
	return d[name].sig, d[name].informal
}

func TestStatementSymbols(t *testing.T) {
	got := statementSymbols("theorem foo {α : Type*} (x : ℝ≥0∞) : ‖f x‖⁻¹ ≤ ∑ i ∈ s, (g i) - 1 := “quote” — ⟨a, b⟩")
	var rs []string
	for r := range got {
		rs = append(rs, string(r))
	}
	slices.Sort(rs)
	if want := []string{"*", "=", "¹", "‖", "⁻", "ℝ", "∈", "∑", "∞", "≤", "≥"}; !slices.Equal(rs, want) {
		t.Errorf("symbols %q, want %q", rs, want)
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
	got := m.Rerank("q", "", hits, nil, 3)
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
	if len(m.Rerank("q", "", hits, nil, 1)) != 1 {
		t.Error("k not applied")
	}
	bad := *m
	bad.Features = bad.Features[1:]
	if bad.Check() == nil {
		t.Error("a model with other features passes Check")
	}
}

// The embedded model is a valid one, and it holds at 0 the weights its
// training queries cannot teach (README, "Reranker"): the per-kind weights
// would learn the kind mix of module docstrings' "Main definitions" lists,
// not users'. kind_other (constructors, recursors, projections: generated
// rows) may weigh. mention — a name typed in the query, read as typed — is
// learnt from internal/tools/typednames' sentences and must not count
// against a hit: a name the user typed is never a reason to rank it lower.
func TestEmbeddedRerankModel(t *testing.T) {
	m := theoremReranker()
	if m == nil {
		t.Fatal("data/rerank-theorem.json is not a model of RerankFeatureNames")
	}
	for _, f := range []string{"kind_theorem", "kind_definition", "kind_structure", "kind_class", "kind_instance"} {
		if w := m.Weights[slices.Index(rerankFeatureNames, f)]; w != 0 {
			t.Errorf("embedded reranker weighs %s %v: train it with -drop (internal/tools/rerank)", f, w)
		}
	}
	if w := m.Weights[slices.Index(rerankFeatureNames, "mention")]; w < 0 {
		t.Errorf("embedded reranker weighs a typed name %v: its training lacks typednames' queries", w)
	}
	// The kinds the model does not weigh still reach it as features.
	f := RerankFeatures("q", "", []Hit{{Name: "A", Kind: "class"}}, nil)[0]
	if f[slices.Index(rerankFeatureNames, "kind_class")] != 1 {
		t.Errorf("kind_class feature %v", f)
	}
}

// BenchmarkRerank is the second stage's cost per query: features and
// scores of 30 fused hits (names, kinds, usage, statements and informal
// texts looked up in the table).
func BenchmarkRerank(b *testing.B) {
	m := theoremReranker()
	if m == nil {
		b.Fatal("no embedded reranker")
	}
	var entries []Entry
	for i := range 30000 {
		name := fmt.Sprintf("Mathlib.Algebra.Group%d.mul_le_mul_of_le_%d", i%97, i)
		entries = append(entries, Entry{Name: name, Kind: "theorem",
			Signature:         "theorem " + name + " {α : Type u_1} [Mul α] [Preorder α] [CovariantClass α α (· * ·) (· ≤ ·)] {a b c d : α} (h₁ : a ≤ b) (h₂ : c ≤ d) : a * c ≤ b * d",
			InformalName:      "Monotonicity of multiplication",
			InformalStatement: "For elements a, b, c, d of an ordered monoid with a ≤ b and c ≤ d, the product a * c is at most the product b * d; multiplication is monotone in both arguments."})
	}
	tb := NewTable(entries, nil)
	hits := tb.Fuse([]Ranked{{"bm25", 1, []int{3, 1, 4, 1000, 5926, 535, 8979, 3238, 4626, 4338, 3279, 502, 884, 1971, 6939, 9375, 1058, 2097, 4944, 5923, 781, 6406, 2862, 899, 8628, 348, 2534, 2117, 679, 8214}}}, 20, 30)
	c0 := cpu.Time()
	for b.Loop() {
		m.Rerank("the product of two numbers at most a bound is at most the product of the bounds", "mul le", hits, tb, 10)
	}
	b.ReportMetric(float64((cpu.Time()-c0).Microseconds())/float64(b.N), "cpu-µs/query")
}
