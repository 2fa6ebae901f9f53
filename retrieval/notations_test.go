package retrieval

import (
	"context"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// notationRows are notation declarations as extract writes them: global,
// scoped and local ones, heads that are variables, symbols that are words.
func notationRows() []workspace.Notation {
	n := func(sym, scope string, heads ...string) workspace.Notation {
		return workspace.Notation{Symbol: sym, Scope: scope, Heads: heads, Kind: "notation"}
	}
	return []workspace.Notation{
		n("ℝ≥0∞", "scoped", "ENNReal"),
		n("ℝ", "", "Real"),
		n("∫", "scoped", "CategoryTheory.Grothendieck"), // another meaning of ∫ where opened
		{Symbol: "∫", Atoms: []string{"∫", ",", "∂"}, Heads: []string{"MeasureTheory.lintegral"}, Scope: "scoped"},
		n("''", "", "Set.image"),
		{Symbol: "∫", Atoms: []string{"∫", ",", "∂"}, Heads: []string{"μ", "MeasureTheory.integral"}}, // μ is a variable; no letter atom
		n("∫", "", "intervalIntegral", "MeasureTheory.MeasureSpace.volume"),
		n("∫", "", "μ", "MeasureTheory.integral"), // a repeat
		n("‖", "local", "Fintype.card"),           // file-only: not the norm elsewhere
		n("σ", "scoped", "spectrum"),              // a Greek letter is a variable in a query
		n("!", "scoped", "Nat.factorial"),         // one ASCII character: core's operator
		n("tactic", "", "Lean.Parser.Tactic"),     // a word
		n("GL(", "", "Matrix.GeneralLinearGroup"), // a word and a bracket
		n("⊔", "", "Max.max"),                     // a core constant (not a document)
		n("⋆", "", "x"),                           // no constant at all
		n("≤", "scoped", "ValuativeRel.vle"),      // redefines core's ≤ where opened
		n("∞", "scoped", "ENNReal"),               // ∞ means two things: dropped
		n("∞", "scoped", "OnePoint.infty"),
		n("≅", "", "CategoryTheory.Iso"), // a global meaning beats a scoped one
		n("≅", "scoped", "Congruent"),
		{Symbol: "≡", Atoms: []string{"≡", "[ZMOD", "]"}, Heads: []string{"Int.ModEq"}},
		{Symbol: "≡", Atoms: []string{"≡", "[MOD", "]"}, Heads: []string{"Nat.ModEq"}},
		n("⁻", "", "NegPart.negPart"),
	}
}

func notationTable(t *testing.T) *Table {
	t.Helper()
	entries := []Entry{
		{Name: "ENNReal", Kind: "definition"}, {Name: "Real", Kind: "structure"}, {Name: "Set.image", Kind: "definition"},
		{Name: "MeasureTheory.integral", Kind: "definition"}, {Name: "intervalIntegral", Kind: "definition"},
		{Name: "spectrum", Kind: "definition"}, {Name: "Set.mem_image", Kind: "theorem"},
		{Name: "ENNReal.toReal_add", Kind: "theorem"}, {Name: "Set.mem_union", Kind: "theorem"},
	}
	c := BuildTableColumns(entries, nil)
	if got := c.AddNotations(notationRows()); got != 10 {
		t.Errorf("AddNotations kept %d entries, want 10 (ℝ≥0∞ ℝ '' ∫ ∫ ⊔ ≅ ≡ ≡ ⁻)", got)
	}
	tb, err := OpenTable(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestAddNotations(t *testing.T) {
	tb := notationTable(t)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"x ∈ f '' s", []string{"Set.image"}},
		// The longest symbol at a position wins: ℝ≥0∞ is not ℝ.
		{"a b : ℝ≥0∞ and c : ℝ", []string{"ENNReal", "Real"}},
		// First constant of each row, in table order, once.
		{"∫ x, f x ∂μ", []string{"MeasureTheory.integral", "intervalIntegral"}},
		{"a ⊔ b = b ⊔ a", []string{"Max.max"}},
		// Dropped: local, Greek letter, single ASCII character, words,
		// scoped redefinitions of core symbols, ambiguous scoped ones.
		{"‖x‖ σ n ! tactic GL(2) ⋆ a ≤ ∞", nil},
		{"X ≅ Y", []string{"CategoryTheory.Iso"}},
		// The other atoms must follow.
		{"a ≡ b [MOD n]", []string{"Nat.ModEq"}},
		{"a ≡ b [ZMOD n]", []string{"Int.ModEq"}},
		{"a ≡ b", nil},
		// ⁻ is not cut from ⁻¹.
		{"x⁻¹ * a⁻", []string{"NegPart.negPart"}},
	} {
		if got := tb.NotationHeads(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("NotationHeads(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// A table without notations (an index built before them) adds nothing.
	if got := NewTable([]Entry{{Name: "Set.image", Kind: "definition"}}, nil).NotationHeads("f '' s"); got != nil {
		t.Errorf("no notation table: %q", got)
	}
}

// TestNotationSearch: the names behind a query's notation reach the name
// signal (with Notations) and the constants the notation list.
func TestNotationSearch(t *testing.T) {
	tb := notationTable(t)
	e := &Engine{Table: tb, Lexical: nil}
	search := func(w Weights, text string) []string {
		hits, err := e.Search(context.Background(), Query{Text: text, Mode: ModeBest, Profile: ProfileTheorem, Filter: Filter{AllKinds: true}, Weights: &w, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Name)
		}
		return out
	}
	on := Weights{Name: 1, NameBeta: 2, Symbols: true, Notations: true, RRFK: 20, Depth: 10} // ∈ is mem
	if got := search(on, "x ∈ f '' s ↔ ∃ y ∈ s, f y = x"); len(got) == 0 || got[0] != "Set.mem_image" {
		t.Errorf("with notations: %q, want Set.mem_image first", got)
	}
	off := on
	off.Notations = false
	if got := search(off, "x ∈ f '' s ↔ ∃ y ∈ s, f y = x"); slices.Contains(got, "Set.image") {
		t.Errorf("without notations nothing in the query names the image, got %q", got)
	}
	if got := search(Weights{Notation: 1, RRFK: 20, Depth: 10}, "∫ x in a..b, f x"); !slices.Equal(got, []string{"MeasureTheory.integral", "intervalIntegral"}) {
		t.Errorf("notation list: %q", got)
	}
}
