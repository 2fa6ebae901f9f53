package retrieval

import (
	"slices"
	"testing"
)

func TestSubTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ConNF.StructApprox.completeAtomMap", []string{"con", "nf", "struct", "approx", "complete", "atom", "map"}},
		{"Set.Nonempty.cloud", []string{"set", "nonempty", "cloud"}},
		{"toNearLitter_mem", []string{"to", "near", "litter", "mem"}},
		{"HTTPServer", []string{"http", "server"}},
		{"Fin2x", []string{"fin", "2", "x"}},
		{"ι", []string{"ι"}},
		{"Λ_succ'", []string{"λ", "succ"}},
	}
	for _, tc := range tests {
		var got []string
		SubTokens(tc.in, func(s string) { got = append(got, s) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("SubTokens(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Tokens("the `ConNF.cloud` of s."); !slices.Equal(got, []string{"the", "con", "nf", "cloud", "connf.cloud", "of", "s"}) {
		t.Errorf("Tokens = %v", got)
	}
}

// TestLeanIdents: identifiers as Lean reads them — primes, subscripts and
// Greek letters inside, dotted components joined, a final period, a digit
// before or a dot before a number not.
func TestLeanIdents(t *testing.T) {
	var got []string
	LeanIdents("use Filter.tendsto_const_div_iff' here. `forall₂_comm`, 2x and x.1 α₁ Nat.le?!", func(id string, start, end int) {
		got = append(got, id)
	})
	want := []string{"use", "Filter.tendsto_const_div_iff'", "here", "forall₂_comm", "and", "x", "α₁", "Nat.le?!"}
	if !slices.Equal(got, want) {
		t.Errorf("LeanIdents = %q, want %q", got, want)
	}
	for id, alters := range map[string]bool{"Filter.tendsto_const_div_iff'": true, "forall₂_comm": true, "Nat.le_of_lt_succ": false, "dvd_mul": false} {
		if wordsAlter(id) != alters {
			t.Errorf("wordsAlter(%q) = %v", id, !alters)
		}
	}
}
