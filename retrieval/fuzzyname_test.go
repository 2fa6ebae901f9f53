package retrieval

import (
	"context"
	"slices"
	"testing"
)

func TestFuzzyName(t *testing.T) {
	entries := []Entry{
		{Name: "IsCompact.image", Kind: "theorem"}, {Name: "IsCompact", Kind: "definition"},
		{Name: "Nat.Prime.dvd_mul", Kind: "theorem"}, {Name: "Int.Prime.dvd_mul", Kind: "theorem"},
		{Name: "Prime.dvd_mul", Kind: "theorem"}, {Name: "Finset.sum_comm", Kind: "theorem"},
		{Name: "Finset.prod_comm", Kind: "theorem"}, {Name: "mul_comm", Kind: "theorem"},
		{Name: "A.mul_comm", Kind: "theorem"}, {Name: "B.mul_comm", Kind: "theorem"}, {Name: "C.mul_comm", Kind: "theorem"},
	}
	tb := NewTable(entries, nil)
	all := func(int) bool { return true }
	names := func(docs []int) []string {
		var out []string
		for _, d := range docs {
			out = append(out, tb.Name(d))
		}
		return out
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"is_compact_image", []string{"IsCompact.image"}},
		{"isCompactImage", []string{"IsCompact.image"}},
		{"nat_prime_dvd_mul", []string{"Nat.Prime.dvd_mul"}},
		// prime_dvd_mul spells Prime.dvd_mul and the tails of two more.
		{"prime_dvd_mul", []string{"Prime.dvd_mul", "Nat.Prime.dvd_mul", "Int.Prime.dvd_mul"}},
		{"finset_sums_comm", []string{"Finset.sum_comm"}}, // plural read as NameMatch reads it
		{"mulComm", nil},          // four declarations: too vague
		{"compact_is_image", nil}, // order matters
		{"image", nil},            // one component is a word, not a name
		{"Finset-sum-comm", nil},  // a hyphen: a nickname, not a name
	} {
		if got := names(tb.FuzzyName(c.q, all)); !slices.Equal(got, c.want) {
			t.Errorf("FuzzyName(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	// Through theorem search: only with FuzzyName, and never over an exact name.
	e := &Engine{Table: tb}
	search := func(fuzzy bool, text string) []string {
		w := Weights{Mention: 1, FuzzyName: fuzzy, RRFK: 20, Depth: 10}
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
	if got := search(true, "`is_compact_image`"); !slices.Equal(got, []string{"IsCompact.image"}) {
		t.Errorf("fuzzy on: %q", got)
	}
	if got := search(false, "is_compact_image"); len(got) != 0 {
		t.Errorf("fuzzy off: %q", got)
	}
	if got := search(true, "IsCompact"); !slices.Equal(got, []string{"IsCompact"}) {
		t.Errorf("exact name: %q", got)
	}
}
