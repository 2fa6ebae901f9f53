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
