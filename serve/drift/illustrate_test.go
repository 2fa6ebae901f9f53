package drift

import (
	"fmt"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

func names(ils []Illustration) []string {
	out := []string{}
	for _, il := range ils {
		out = append(out, il.Name)
	}
	return out
}

func TestIllustrateGreedy(t *testing.T) {
	// Premises P1..P4; theorems use them as listed.
	base := []retrieval.Entry{
		def("P1", "", ""), def("P2", "", ""), def("P3", "", ""), def("P4", "", ""), def("Other", "", ""),
	}
	cases := []struct {
		name     string
		theorems []retrieval.Entry
		premises []string
		opts     IllustrateOptions
		want     []string
		covers   [][]string
	}{
		{
			name: "largest coverage first, then what is left",
			theorems: []retrieval.Entry{
				thm("T12", "", "", "P1", "P2"), thm("T123", "", "", "P1", "P2", "P3"), thm("T4", "", "", "P4"), thm("T34", "", "", "P3", "P4"),
			},
			premises: []string{"P1", "P2", "P3", "P4"},
			want:     []string{"T123", "T4"}, // T4 and T34 both add P4; T4 has fewer dependencies
			covers:   [][]string{{"P1", "P2", "P3"}, {"P4"}},
		},
		{
			name: "stops at zero gain before m",
			theorems: []retrieval.Entry{
				thm("A", "", "", "P1"), thm("B", "", "", "P1"), thm("C", "", "", "Other"),
			},
			premises: []string{"P1", "P2"},
			want:     []string{"A"},
		},
		{
			name: "tie on gain: fewer statement dependencies wins",
			theorems: []retrieval.Entry{
				thm("Aa", "", "", "P1", "Other", "P9"), thm("Zz", "", "", "P1"),
			},
			premises: []string{"P1"},
			want:     []string{"Zz"},
		},
		{
			name: "tie on gain and dependencies: smaller name wins",
			theorems: []retrieval.Entry{
				thm("b_thm", "", "", "P1"), thm("a_thm", "", "", "P2"), thm("c_thm", "", "", "P3"),
			},
			premises: []string{"P1", "P2", "P3"},
			opts:     IllustrateOptions{Max: 2},
			want:     []string{"a_thm", "b_thm"},
		},
		{
			name: "self and held-out names are never picked",
			theorems: []retrieval.Entry{
				thm("Self", "", "", "P1", "P2"), thm("HeldOut", "", "", "P1", "P2"), thm("T1", "", "", "P1"), thm("T2", "", "", "P2"),
			},
			premises: []string{"P1", "P2"},
			opts:     IllustrateOptions{Exclude: []string{"Self", "HeldOut"}},
			want:     []string{"T1", "T2"},
		},
		{
			name: "only theorems illustrate by default",
			theorems: []retrieval.Entry{
				{Name: "D12", Kind: "definition", StatementDeps: []string{"P1", "P2"}}, thm("T1", "", "", "P1"),
			},
			premises: []string{"P1", "P2"},
			want:     []string{"T1"},
		},
		{
			name: "other kinds when asked",
			theorems: []retrieval.Entry{
				{Name: "D12", Kind: "definition", StatementDeps: []string{"P1", "P2"}}, thm("T1", "", "", "P1"),
			},
			premises: []string{"P1", "P2"},
			opts:     IllustrateOptions{Kinds: []string{"theorem", "definition"}},
			want:     []string{"D12"},
		},
		{
			name:     "at most m",
			theorems: []retrieval.Entry{thm("T1", "", "", "P1"), thm("T2", "", "", "P2"), thm("T3", "", "", "P3"), thm("T4", "", "", "P4")},
			premises: []string{"P1", "P2", "P3", "P4"},
			want:     []string{"T1", "T2", "T3"},
		},
		{
			name:     "no premises, nothing",
			theorems: []retrieval.Entry{thm("T1", "", "", "P1")},
			premises: nil,
			want:     []string{},
		},
		{
			name:     "repeated premises count once",
			theorems: []retrieval.Entry{thm("T11", "", "", "P1"), thm("T2", "", "", "P2")},
			premises: []string{"P1", "P1", "P2"},
			want:     []string{"T11", "T2"},
		},
		{
			name:     "user missing from the corpus is skipped",
			theorems: []retrieval.Entry{thm("T1", "", "", "P1")},
			premises: []string{"P1", "Ghost"},
			want:     []string{"T1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			corpus := newCorpus(append(slices.Clone(base), c.theorems...)...)
			if c.name == "user missing from the corpus is skipped" {
				corpus.usedBy["Ghost"] = []string{"NotInCorpus"}
			}
			got := Illustrate(corpus, c.premises, c.opts)
			if g := names(got); !slices.Equal(g, c.want) {
				t.Fatalf("picked %v, want %v", g, c.want)
			}
			for i, cov := range c.covers {
				if !slices.Equal(got[i].Covers, cov) {
					t.Errorf("%s covers %v, want %v", got[i].Name, got[i].Covers, cov)
				}
			}
		})
	}
}

// The choice must not depend on the order in which the corpus lists users.
func TestIllustrateDeterministic(t *testing.T) {
	es := []retrieval.Entry{def("P1", "", ""), def("P2", "", "")}
	for _, n := range []string{"t5", "t3", "t9", "t1", "t7"} {
		es = append(es, thm(n, "", "", "P1", "P2"))
	}
	var first []string
	for i := 0; i < 20; i++ {
		c := newCorpus(es...)
		u := c.usedBy["P1"]
		for j := range u { // reverse/rotate the listing
			k := (j + i) % len(u)
			u[j], u[k] = u[k], u[j]
		}
		got := names(Illustrate(c, []string{"P1", "P2"}, IllustrateOptions{}))
		if i == 0 {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d picked %v, first run %v", i, got, first)
		}
	}
	if !slices.Equal(first, []string{"t1"}) {
		t.Fatalf("picked %v, want [t1] (one theorem covers both; smallest name)", first)
	}
}

func TestIllustrateManyPremises(t *testing.T) {
	// More than 64 premises: the coverage bitsets span several words.
	var es []retrieval.Entry
	var prem []string
	for i := 0; i < 130; i++ {
		p := "P" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		prem = append(prem, p)
		es = append(es, def(p, "", ""))
	}
	es = append(es, thm("Big", "", "", prem[60:130]...), thm("Small", "", "", prem[0:70]...), thm("Rest", "", "", prem[0:60]...))
	got := Illustrate(newCorpus(es...), prem, IllustrateOptions{})
	if g := names(got); !slices.Equal(g, []string{"Big", "Rest"}) {
		t.Fatalf("picked %v, want [Big Rest]", g)
	}
	if len(got[1].Covers) != 60 || len(got[1].Uses) != 60 {
		t.Errorf("Rest covers %d, uses %d; want 60, 60", len(got[1].Covers), len(got[1].Uses))
	}
}

// BenchmarkIllustrate runs the greedy selection on a Mathlib-shaped usage
// graph: five premises with 20,000, 5,000, 1,000, 200 and 50 users (a
// Set-like premise next to specific ones), theorems sharing some of them.
func BenchmarkIllustrate(b *testing.B) {
	prem := []string{"Set", "Finset", "Group", "Subgroup.index", "Subgroup.Normal"}
	sizes := []int{20000, 5000, 1000, 200, 50}
	var es []retrieval.Entry
	for _, p := range prem {
		es = append(es, def(p, "", ""))
	}
	for t := 0; t < 20000; t++ {
		var deps []string
		for i, n := range sizes {
			if t%(20000/n) == 0 {
				deps = append(deps, prem[i])
			}
		}
		kind := "theorem"
		if t%5 == 0 {
			kind = "definition"
		}
		es = append(es, retrieval.Entry{Name: fmt.Sprintf("T%05d", t), Kind: kind, StatementDeps: deps})
	}
	c := newCorpus(es...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := Illustrate(c, prem, IllustrateOptions{}); len(got) == 0 {
			b.Fatal("nothing picked")
		}
	}
}
