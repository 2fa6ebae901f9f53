package retrieval

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestFuzzyName(t *testing.T) {
	entries := []Entry{
		{Name: "IsCompact.image", Kind: "theorem"}, {Name: "IsCompact", Kind: "definition"},
		{Name: "Nat.Prime.dvd_mul", Kind: "theorem"}, {Name: "Int.Prime.dvd_mul", Kind: "theorem"},
		{Name: "Prime.dvd_mul", Kind: "theorem"}, {Name: "Finset.sum_comm", Kind: "theorem"},
		{Name: "Finset.prod_comm", Kind: "theorem"}, {Name: "mul_comm", Kind: "theorem"},
		{Name: "A.mul_comm", Kind: "theorem"}, {Name: "B.mul_comm", Kind: "theorem"}, {Name: "C.mul_comm", Kind: "theorem"},
		{Name: "Unitary.star_eq_inv", Kind: "theorem"}, {Name: "Unitary.star_eq_inv'", Kind: "theorem"},
		{Name: "AddCommGroup", Kind: "structure"}, {Name: "AddCommGroup.modEq_iff_intModEq", Kind: "theorem"},
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
		// The one spelt alike (prime and all) first, then the shorter.
		{"unitary.star_eq_inv'", []string{"Unitary.star_eq_inv'", "Unitary.star_eq_inv"}},
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
	// A namespace that matches as a prefix names nothing: the fallback
	// still runs, its match first (a renamed lemma, Mathlib 2025).
	if got := search(true, "AddCommGroup.modEq_iff_int_modEq"); !slices.Equal(got, []string{"AddCommGroup.modEq_iff_intModEq", "AddCommGroup"}) {
		t.Errorf("prefix only, fuzzy on: %q", got)
	}
	if got := search(false, "AddCommGroup.modEq_iff_int_modEq"); !slices.Equal(got, []string{"AddCommGroup"}) {
		t.Errorf("prefix only, fuzzy off: %q", got)
	}
}

// TestFuzzyNameRenames runs theorem search's full-name list, with the
// default weights, on Mathlib's own renames (testdata/search, held-out half:
// v4.29.0's deprecated aliases, old name → new name; written by Mathlib's
// authors, not by us). The table holds the new names and, as declarations,
// every prefix of an old or new name — namespaces like AddCommGroup match
// the old name as a prefix and must not stop the fallback — but no old name,
// as in a library where the alias is gone. Off, only renames that keep a
// suffix of the old name are found; on, those whose old name has the new
// one's components joined otherwise (modEq_iff_int_modEq →
// modEq_iff_intModEq) are found too.
func TestFuzzyNameRenames(t *testing.T) {
	f, err := os.Open("../testdata/search/renames-mathlib-v4.29.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type item struct {
		Query string   `json:"query"`
		Gold  []string `json:"gold"`
	}
	var items []item
	names := map[string]bool{}
	dec := json.NewDecoder(f)
	for dec.More() {
		var it item
		if err := dec.Decode(&it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
		for _, n := range []string{it.Query, it.Gold[0]} {
			for i := strings.LastIndexByte(n, '.'); i > 0; i = strings.LastIndexByte(n[:i], '.') {
				names[n[:i]] = true
			}
		}
		names[it.Gold[0]] = true
	}
	for _, it := range items {
		if names[it.Query] {
			delete(names, it.Query) // an old name that is some other name's prefix
		}
	}
	var entries []Entry
	for _, n := range slices.Sorted(maps.Keys(names)) {
		entries = append(entries, Entry{Name: n, Kind: "theorem"})
	}
	e := &Engine{Table: NewTable(entries, nil)}
	firsts := func(fuzzy bool) int {
		n := 0
		for _, it := range items {
			w := Weights{Mention: 1, FuzzyName: fuzzy, RRFK: 20, Depth: 10}
			hits, err := e.Search(context.Background(), Query{Text: it.Query, Mode: ModeBest, Profile: ProfileTheorem, Filter: Filter{AllKinds: true}, Weights: &w, K: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) > 0 && hits[0].Name == it.Gold[0] {
				n++
			}
		}
		return n
	}
	on, off := firsts(TheoremWeights().FuzzyName), firsts(false)
	t.Logf("%d renames: new name first %d with the default weights, %d without the fallback", len(items), on, off)
	if on < off+100 {
		t.Errorf("the default full-name list puts %d new names first, %d without the fallback: want the fallback on and ≥ 100 more", on, off)
	}
}

// TestFullNameAsTyped: a pasted name with a final ' or a subscript is
// found as written, alone or inside a sentence — Words, the analyzer's tokenizer, trims the ' and
// breaks at ₂, so the full-name list had named only the unprimed
// neighbour or a namespace (Mathlib's Filter.tendsto_const_div_iff',
// forall₂_comm).
func TestFullNameAsTyped(t *testing.T) {
	tb := NewTable([]Entry{
		{Name: "Filter", Kind: "structure"}, {Name: "Filter.tendsto_const_div_iff", Kind: "theorem"},
		{Name: "Filter.tendsto_const_div_iff'", Kind: "theorem"}, {Name: "forall₂_comm", Kind: "theorem"},
		{Name: "forall_comm", Kind: "theorem"}, {Name: "Nat.le_of_lt_succ", Kind: "theorem"},
	}, nil)
	e := &Engine{Table: tb}
	for _, c := range []struct{ q, want string }{
		{"Filter.tendsto_const_div_iff'", "Filter.tendsto_const_div_iff'"},
		{"`Filter.tendsto_const_div_iff'`", "Filter.tendsto_const_div_iff'"},
		{"Filter.tendsto_const_div_iff", "Filter.tendsto_const_div_iff"},
		{"forall₂_comm", "forall₂_comm"},
		{"Nat.le_of_lt_succ", "Nat.le_of_lt_succ"},
		// Inside a sentence, a name the tokenizer alters is listed as
		// typed; one it reads whole is context and lists nothing.
		{"use Filter.tendsto_const_div_iff' here", "Filter.tendsto_const_div_iff'"},
		{"A version of `Filter.tendsto_const_div_iff'` for groups.", "Filter.tendsto_const_div_iff'"},
		{"see forall₂_comm, for two binders", "forall₂_comm"},
		{"use Filter.tendsto_const_div_iff here", ""},
		{"the lemma Euclid's lemma", ""},
	} {
		w := Weights{Mention: 1, FuzzyName: true, RRFK: 20, Depth: 10}
		hits, err := e.Search(context.Background(), Query{Text: c.q, Mode: ModeBest, Profile: ProfileTheorem, Filter: Filter{AllKinds: true}, Weights: &w, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if len(hits) > 0 {
				t.Errorf("%s: a name in a sentence that the tokenizer reads whole listed %s", c.q, hits[0].Name)
			}
			continue
		}
		if len(hits) == 0 || hits[0].Name != c.want || strings.Contains(c.q, " ") && len(hits) != 1 {
			var got []string
			for _, h := range hits {
				got = append(got, h.Name)
			}
			t.Errorf("%s: first %q, want %s", c.q, got, c.want)
		}
	}
	// The premise profile's mentions read a sentence's names as typed too
	// (ConNF's statements write `ConNF.completionToAdd'`).
	all := func(int) bool { return true }
	if named, _ := tb.mentions("the image of `Filter.tendsto_const_div_iff'` is small", all); len(named) == 0 || tb.Name(named[0]) != "Filter.tendsto_const_div_iff'" {
		var got []string
		for _, d := range named {
			got = append(got, tb.Name(d))
		}
		t.Errorf("mentions in a sentence: %q, want Filter.tendsto_const_div_iff' first", got)
	}
}

// TestExactNameFirst: a query that is a declaration's full name as typed
// gets that declaration first in theorem search, whatever the other
// signals say — they read names through Words (a final ' dropped, a
// subscript a break), so fused they put the unprimed neighbour first
// (Mathlib v4.29.0: 110 of 300 pasted names with ' or a subscript were
// not first with the default weights).
func TestExactNameFirst(t *testing.T) {
	tb := NewTable([]Entry{
		{Name: "Mathlib.Meta.NormNum.Result", Kind: "structure"},
		{Name: "Mathlib.Meta.NormNum.Result'", Kind: "theorem"},
		{Name: "one_lt_of_lt_mul_right", Kind: "theorem"},
		{Name: "one_lt_of_lt_mul_right₀", Kind: "theorem"},
		{Name: "one_lt_of_lt_mul_right'", Kind: "theorem"},
	}, nil)
	e := &Engine{Table: tb}
	// the name signal outweighs the full-name list: fused alone, the
	// neighbour comes first
	w := Weights{Mention: 1, Name: 4, NameBeta: 2, RRFK: 20, Depth: 10}
	for _, c := range []struct {
		q    string
		k    int
		want string
	}{
		{"Mathlib.Meta.NormNum.Result'", 3, "Mathlib.Meta.NormNum.Result'"},
		{"`one_lt_of_lt_mul_right₀`", 3, "one_lt_of_lt_mul_right₀"},
		{"one_lt_of_lt_mul_right₀", 1, "one_lt_of_lt_mul_right₀"},
		{"one_lt_of_lt_mul_right", 3, "one_lt_of_lt_mul_right"},
	} {
		hits, err := e.Search(context.Background(), Query{Text: c.q, Mode: ModeBest, Profile: ProfileTheorem, Filter: Filter{AllKinds: true}, Weights: &w, K: c.k})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, h := range hits {
			got = append(got, h.Name)
			if h.Rank != i+1 || i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("%s: hit %d has rank %d, score %v after %v", c.q, i, h.Rank, h.Score, hits[max(i-1, 0)].Score)
			}
		}
		if len(hits) == 0 || hits[0].Name != c.want || len(hits) > c.k {
			t.Errorf("%s (K %d): got %q, want %s first", c.q, c.k, got, c.want)
		}
	}
}
