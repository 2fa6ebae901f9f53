package drift

import (
	"math/bits"
	"slices"

	"github.com/driftkit/driftkit/retrieval"
)

// Illustration is a library theorem shown to the formalizer as an example
// of how retrieved premises are used.
type Illustration struct {
	Name string `json:"name"`
	// Covers are the retrieved premises its statement uses that no earlier
	// illustration covered (the gain that chose it), in premise order.
	Covers []string `json:"covers"`
	// Uses are all the retrieved premises its statement uses.
	Uses      []string `json:"uses"`
	Signature string   `json:"signature,omitempty"`
	Informal  string   `json:"informal,omitempty"`
	Kind      string   `json:"kind,omitempty"`
}

// Formal renders the theorem's statement (keyword, name, signature).
func (il Illustration) Formal() string { return declText(il.Kind, il.Name, il.Signature) }

// IllustrateOptions configure Illustrate.
type IllustrateOptions struct {
	// Max is m, the most theorems picked (default 3).
	Max int
	// Kinds are the declaration kinds that may illustrate (default
	// theorem only: examples of statements, which is what the formalizer
	// writes).
	Kinds []string
	// Exclude are never picked: the query's own declaration (on ConNF the
	// benchmark theorem is itself a library row with the same informal
	// text), and whatever the protocol holds out.
	Exclude []string
}

// Illustrate picks up to Max theorems greedily over the usage graph: the
// candidates are the declarations (of Kinds, not excluded) whose statement
// uses at least one of premises; each round takes the candidate covering
// the most premises not covered yet, and the selection stops at Max or when
// no candidate adds coverage (zero gain).
//
// Tie-break, so that the choice is deterministic whatever order the corpus
// lists users in: among candidates with the same gain, the one with fewer
// statement dependencies in total (a theorem that shows the premises with
// the least else around them, and the shortest prompt), then the smaller
// name in byte order.
func Illustrate(c retrieval.Corpus, premises []string, o IllustrateOptions) []Illustration {
	if o.Max == 0 {
		o.Max = 3
	}
	if len(o.Kinds) == 0 {
		o.Kinds = []string{"theorem"}
	}
	if o.Max < 0 || len(premises) == 0 {
		return nil
	}
	// Deduplicate premises, keeping their order: bit i ↔ prem[i].
	var prem []string
	for _, p := range premises {
		if !slices.Contains(prem, p) {
			prem = append(prem, p)
		}
	}
	words := (len(prem) + 63) / 64
	type cand struct {
		name string
		e    retrieval.Entry
		cov  []uint64
	}
	cands := map[string]*cand{}
	rejected := map[string]bool{}
	for _, x := range o.Exclude {
		rejected[x] = true
	}
	for i, p := range prem {
		for _, u := range c.UsedBy(p) {
			if rejected[u] {
				continue
			}
			cd := cands[u]
			if cd == nil {
				e, ok := c.Lookup(u)
				if !ok || !slices.Contains(o.Kinds, e.Kind) {
					rejected[u] = true
					continue
				}
				cd = &cand{name: u, e: e, cov: make([]uint64, words)}
				cands[u] = cd
			}
			cd.cov[i/64] |= 1 << (i % 64)
		}
	}
	list := make([]*cand, 0, len(cands))
	for _, cd := range cands {
		list = append(list, cd)
	}
	covered := make([]uint64, words)
	gain := func(cd *cand) int {
		n := 0
		for w := range cd.cov {
			n += bits.OnesCount64(cd.cov[w] &^ covered[w])
		}
		return n
	}
	better := func(a *cand, ga int, b *cand, gb int) bool {
		if ga != gb {
			return ga > gb
		}
		if la, lb := len(a.e.StatementDeps), len(b.e.StatementDeps); la != lb {
			return la < lb
		}
		return a.name < b.name
	}
	var out []Illustration
	for len(out) < o.Max {
		bi, bg := -1, 0
		for i, cd := range list {
			if g := gain(cd); g > 0 && (bi < 0 || better(cd, g, list[bi], bg)) {
				bi, bg = i, g
			}
		}
		if bi < 0 {
			break
		}
		cd := list[bi]
		il := Illustration{Name: cd.name, Kind: cd.e.Kind, Signature: cd.e.Signature, Informal: informalOf(cd.e)}
		for i, p := range prem {
			bit := uint64(1) << (i % 64)
			if cd.cov[i/64]&bit != 0 {
				il.Uses = append(il.Uses, p)
				if covered[i/64]&bit == 0 {
					il.Covers = append(il.Covers, p)
				}
			}
		}
		for w := range covered {
			covered[w] |= cd.cov[w]
		}
		out = append(out, il)
		list[bi] = list[len(list)-1]
		list = list[:len(list)-1]
	}
	return out
}
