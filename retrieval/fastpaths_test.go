package retrieval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Compile and the engine's shared classes give every document the class of
// the first selection holding it — by kind, library and exclusions, read
// here straight from the definition — and a query that excludes documents
// never changes the classes a later query without exclusions shares.
func TestCompileMatchesDefinition(t *testing.T) {
	kinds := []string{"theorem", "definition", "structure", "instance"}
	libs := []string{"", "mathlib", "connf"}
	var entries []Entry
	for i := range 400 {
		entries = append(entries, Entry{Name: fmt.Sprintf("D%d", i), Kind: kinds[i%len(kinds)], Library: libs[i*7%len(libs)]})
	}
	tb := NewTable(entries, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	sel := func() Selection {
		var s Selection
		switch rng.IntN(3) {
		case 0:
		case 1:
			s.Kinds = []string{}
		default:
			for _, k := range kinds {
				if rng.IntN(2) == 0 {
					s.Kinds = append(s.Kinds, k)
				}
			}
			s.Kinds = append(s.Kinds, "nosuchkind")
		}
		s.Library = []string{"", "mathlib", "connf", "nosuchlib"}[rng.IntN(4)]
		for range rng.IntN(4) {
			s.Exclude = append(s.Exclude, fmt.Sprintf("D%d", rng.IntN(450)))
		}
		return s
	}
	want := func(reqs []Request) []uint8 {
		c := make([]uint8, len(entries))
		for d, e := range entries {
			for r, req := range reqs {
				s := req.Select
				if (s.Kinds == nil || slices.Contains(s.Kinds, e.Kind)) && (s.Library == "" || s.Library == e.Library) && !slices.Contains(s.Exclude, e.Name) {
					c[d] = uint8(r + 1)
					break
				}
			}
		}
		return c
	}
	for trial := range 300 {
		reqs := []Request{{Select: sel(), K: 5}, {Select: sel(), K: 5}}
		if trial%3 == 0 {
			reqs[1].Select.Exclude = reqs[0].Select.Exclude
		}
		w := want(reqs)
		if got := tb.Compile(reqs).Class; !slices.Equal(got, w) {
			t.Fatalf("trial %d %+v: Compile\n%v\nwant\n%v", trial, reqs, got, w)
		}
		b := tb.compileShared(reqs)
		if !slices.Equal(b.Class, w) {
			t.Fatalf("trial %d %+v: compileShared\n%v\nwant\n%v", trial, reqs, b.Class, w)
		}
		if b.Shared != nil {
			// Shared is Class but at Patched (sorted, distinct).
			if !slices.IsSorted(b.Patched) || len(slices.Compact(slices.Clone(b.Patched))) != len(b.Patched) {
				t.Fatalf("trial %d: Patched %v not sorted and distinct", trial, b.Patched)
			}
			for d := range w {
				if p := slices.Contains(b.Patched, int32(d)); p == (b.Shared[d] == w[d]) {
					t.Fatalf("trial %d doc %d: shared %d, class %d, patched %v", trial, d, b.Shared[d], w[d], p)
				}
			}
		}
	}
}

// powShare is math.Pow bit for bit (names' partial-match factor).
func TestPowShareIsPow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := []float64{0x1p-500, math.Nextafter(0x1p-500, 1), 1e-300, 0.5, math.Nextafter(1, 0), math.SmallestNonzeroFloat64}
	for range 200_000 {
		xs = append(xs[:6], rng.Float64(), math.Ldexp(rng.Float64(), -rng.IntN(600)))
		for _, x := range xs {
			for _, beta := range []float64{2, 1.5, 3} {
				if got, want := powShare(x, beta), math.Pow(x, beta); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("powShare(%v, %v) = %v, math.Pow %v", x, beta, got, want)
				}
			}
		}
	}
}

// TopDocs is the n first of every document sorted by value, then doc id.
func TestTopDocsIsSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 500 {
		m := map[int]float64{}
		for range rng.IntN(300) {
			m[rng.IntN(1000)] = float64(rng.IntN(20)) / 4 // many ties
		}
		n := rng.IntN(40)
		all := make([]int, 0, len(m))
		for d := range m {
			all = append(all, d)
		}
		slices.SortFunc(all, func(a, b int) int {
			if m[a] != m[b] {
				if m[a] > m[b] {
					return -1
				}
				return 1
			}
			return a - b
		})
		want := all[:min(n, len(all))]
		if got := TopDocs(m, n); !slices.Equal(got, want) {
			t.Fatalf("trial %d n %d: %v, want %v", trial, n, got, want)
		}
	}
}
