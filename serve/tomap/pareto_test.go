package tomap

import (
	"slices"
	"testing"
)

func cand(seq int, f, p, l float64) *Candidate {
	return &Candidate{Seq: seq, Rubric: Rubric{Scores: Vector{f, p, l}}}
}

func TestDominates(t *testing.T) {
	for _, tc := range []struct {
		a, b Vector
		want bool
	}{
		{Vector{1, 1, 1}, Vector{0, 0, 0}, true},
		{Vector{0.5, 0.5, 0.5}, Vector{0.5, 0.5, 0.4}, true},  // better on one, equal elsewhere
		{Vector{0.5, 0.5, 0.5}, Vector{0.5, 0.5, 0.5}, false}, // equal: neither
		{Vector{0.9, 0.1, 0.5}, Vector{0.1, 0.9, 0.5}, false}, // trade-off
		{Vector{0.4, 0.5, 0.5}, Vector{0.5, 0.5, 0.5}, false},
		{Vector{1, 1, 0.99}, Vector{1, 1, 1}, false},
	} {
		if got := Dominates(tc.a, tc.b); got != tc.want {
			t.Errorf("Dominates(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if tc.want && Dominates(tc.b, tc.a) {
			t.Errorf("dominance is not antisymmetric for %v, %v", tc.a, tc.b)
		}
	}
}

func TestFrontier(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool []*Candidate
		want []int
	}{
		{"empty", nil, nil},
		{"one", []*Candidate{cand(0, .1, .1, .1)}, []int{0}},
		{"chain keeps the top", []*Candidate{cand(0, .1, .1, .1), cand(1, .5, .5, .5), cand(2, .9, .9, .9)}, []int{2}},
		{"trade-offs all stay", []*Candidate{cand(0, 1, 0, 0), cand(1, 0, 1, 0), cand(2, 0, 0, 1)}, []int{0, 1, 2}},
		{"equal vectors all stay", []*Candidate{cand(0, .5, .5, .5), cand(1, .5, .5, .5)}, []int{0, 1}},
		{"mixed", []*Candidate{cand(0, .9, .2, .5), cand(1, .8, .2, .5), cand(2, .2, .9, .5), cand(3, .9, .9, .1)}, []int{0, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := seqs(Frontier(tc.pool)); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("frontier %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBestTieRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []*Candidate
		want int
	}{
		{"highest sum", []*Candidate{cand(0, .9, .7, .1), cand(1, .6, .6, .6)}, 1},
		{"equal sum: higher minimum", []*Candidate{cand(0, .9, .6, .3), cand(1, .6, .6, .6), cand(2, 1, .8, 0)}, 1},
		{"equal sum and minimum: newer", []*Candidate{cand(0, .9, .3, .6), cand(3, .3, .6, .9), cand(1, .6, .9, .3)}, 3},
		{"float rounding is a tie", []*Candidate{cand(5, .1, .2, .3), cand(2, .3, .2, .1)}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Best(tc.cs); got.Seq != tc.want {
				t.Errorf("best %d, want %d", got.Seq, tc.want)
			}
		})
	}
}

func TestAdmit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		pool        []*Candidate
		c           *Candidate
		k           int
		wantPool    []int
		wantAdmit   bool
		wantEvicted []int
	}{
		{"into empty", nil, cand(0, .5, .5, .5), 4, []int{0}, true, nil},
		{"dominated is discarded", []*Candidate{cand(0, .6, .6, .6)}, cand(1, .5, .6, .6), 4, []int{0}, false, nil},
		{"dominating clears the dominated", []*Candidate{cand(0, .5, .5, .5), cand(1, .9, .1, .1), cand(2, .4, .5, .5)}, cand(3, .6, .6, .6), 4,
			[]int{1, 3}, true, []int{0, 2}},
		{"equal vector stays beside its twin", []*Candidate{cand(0, .5, .5, .5)}, cand(1, .5, .5, .5), 4, []int{0, 1}, true, nil},
		{"K overflow evicts the lowest sum", []*Candidate{cand(0, 1, 0, 0), cand(1, 0, .9, .9)}, cand(2, 0, .1, 1), 2,
			[]int{1, 2}, true, []int{0}},
		{"K overflow evicts the newcomer when it is worst", []*Candidate{cand(0, 1, .5, 0), cand(1, 0, 1, .5)}, cand(2, .5, 0, .1), 2,
			[]int{0, 1}, false, nil},
		{"K overflow tie on sum: lower minimum goes", []*Candidate{cand(0, .9, .3, .3), cand(1, .3, .9, .3)}, cand(2, .5, .5, .5), 2,
			[]int{1, 2}, true, []int{0}},
		{"K overflow full tie: the oldest goes", []*Candidate{cand(0, .9, .3, .6), cand(1, .3, .9, .6)}, cand(2, .6, .3, .9), 2,
			[]int{1, 2}, true, []int{0}},
		{"K=1 keeps the better", []*Candidate{cand(0, 1, 0, 0)}, cand(1, 0, .6, .6), 1, []int{1}, true, []int{0}},
		{"K=0 behaves as 1", nil, cand(0, .1, .1, .1), 0, []int{0}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, admitted, evicted := Admit(tc.pool, tc.c, tc.k)
			if got := seqs(pool); !slices.Equal(got, tc.wantPool) {
				t.Errorf("pool %v, want %v", got, tc.wantPool)
			}
			if admitted != tc.wantAdmit {
				t.Errorf("admitted %v, want %v", admitted, tc.wantAdmit)
			}
			if got := seqs(evicted); !slices.Equal(got, tc.wantEvicted) && len(got)+len(tc.wantEvicted) > 0 {
				t.Errorf("evicted %v, want %v", got, tc.wantEvicted)
			}
			if len(pool) > max(tc.k, 1) {
				t.Errorf("pool of %d exceeds K=%d", len(pool), tc.k)
			}
			if f := Frontier(pool); len(f) != len(pool) {
				t.Errorf("pool %v holds dominated members (frontier %v)", seqs(pool), seqs(f))
			}
		})
	}
}

func TestGate(t *testing.T) {
	failed := cand(9, 0, 0, 0)
	failed.JudgeFailed = true
	for _, tc := range []struct {
		name string
		pool []*Candidate
		eps  float64
		want int // -1: none
	}{
		{"nobody reaches 1.0", []*Candidate{cand(0, 1, 1, .9), cand(1, .95, .95, .95)}, 1.0, -1},
		{"perfect passes", []*Candidate{cand(0, 1, 1, .9), cand(1, 1, 1, 1)}, 1.0, 1},
		{"min is what counts", []*Candidate{cand(0, 1, 1, .79), cand(1, .8, .8, .8)}, 0.8, 1},
		{"several pass: highest sum", []*Candidate{cand(0, .8, .8, .8), cand(1, .9, .8, .9)}, 0.8, 1},
		{"boundary is inclusive", []*Candidate{cand(0, .7, .7, .7)}, 0.7, 0},
		{"gate 0 passes any judged candidate", []*Candidate{cand(0, 0, 0, 0)}, 0, 0},
		{"gate 0 never passes an unjudged one", []*Candidate{failed}, 0, -1},
		{"dominated members are not considered", []*Candidate{cand(0, .8, .8, .8), cand(1, .9, .9, .9)}, 0.8, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Gate(tc.pool, tc.eps)
			got := -1
			if g != nil {
				got = g.Seq
			}
			if got != tc.want {
				t.Errorf("gate → %d, want %d", got, tc.want)
			}
		})
	}
}
