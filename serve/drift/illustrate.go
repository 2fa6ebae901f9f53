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
	excluded := make(map[string]bool, len(o.Exclude))
	for _, x := range o.Exclude {
		excluded[x] = true
	}
	// Coverage of every user of a premise, by name only: on Mathlib a
	// popular premise has tens of thousands of users, so entries are looked
	// up lazily, only for candidates that tie for the best gain.
	users := make([][]string, len(prem))
	total := 0
	for i, p := range prem {
		users[i] = c.UsedBy(p)
		total += len(users[i])
	}
	cands, cov := mergeUsers(users, words, excluded, total)
	// state: 0 not looked up, 1 may illustrate, -1 may not (wrong kind,
	// unknown to the corpus, or already picked).
	state := make([]int8, len(cands))
	ndeps := make([]int32, len(cands)) // statement dependencies, once looked up
	covered := make([]uint64, words)
	gain := func(j int) int {
		n := 0
		for w := 0; w < words; w++ {
			n += bits.OnesCount64(cov[j*words+w] &^ covered[w])
		}
		return n
	}
	var out []Illustration
	gains := make([]int32, len(cands))
	count := make([]int, len(prem)+2)
	order := make([]int32, len(cands))
	for len(out) < o.Max {
		// Counting sort of the candidates by gain, best first, so that one
		// pass per round finds the best gain whose ties include a candidate
		// of the right kind.
		clear(count)
		for j := range cands {
			g := 0
			if state[j] >= 0 {
				g = gain(j)
			}
			gains[j] = int32(g)
			count[len(prem)-g+1]++
		}
		for k := 1; k < len(count); k++ {
			count[k] += count[k-1]
		}
		for j := range cands {
			k := len(prem) - int(gains[j])
			order[count[k]] = int32(j)
			count[k]++
		}
		best := -1
		for a := 0; a < len(order) && best < 0; {
			g := gains[order[a]]
			if g == 0 {
				break
			}
			b := a
			for ; b < len(order) && gains[order[b]] == g; b++ {
				j := int(order[b])
				if state[j] == 0 {
					e, ok := c.Lookup(cands[j])
					if ok && slices.Contains(o.Kinds, e.Kind) {
						state[j], ndeps[j] = 1, int32(len(e.StatementDeps))
					} else {
						state[j] = -1
						continue
					}
				}
				if state[j] > 0 && (best < 0 || ndeps[j] < ndeps[best] || ndeps[j] == ndeps[best] && cands[j] < cands[best]) {
					best = j
				}
			}
			a = b
		}
		if best < 0 {
			break
		}
		e, _ := c.Lookup(cands[best])
		il := Illustration{Name: cands[best], Kind: e.Kind, Signature: e.Signature, Informal: informalOf(e)}
		for i, p := range prem {
			w, bit := best*words+i/64, uint64(1)<<(i%64)
			if cov[w]&bit != 0 {
				il.Uses = append(il.Uses, p)
				if covered[i/64]&bit == 0 {
					il.Covers = append(il.Covers, p)
				}
			}
		}
		for w := range covered {
			covered[w] |= cov[best*words+w]
		}
		state[best] = -1
		out = append(out, il)
	}
	return out
}

// mergeUsers lists every user of the premises once, with the bitset of the
// premises it uses (words uint64 per candidate). Corpus.UsedBy lists are
// sorted by name, so a k-way merge finds equal names without hashing tens
// of thousands of them; a list found out of order falls back to a map.
func mergeUsers(users [][]string, words int, excluded map[string]bool, total int) ([]string, []uint64) {
	cands := make([]string, 0, total)
	cov := make([]uint64, 0, total*words)
	pos := make([]int, len(users))
	for {
		min := ""
		found := false
		for i, us := range users {
			if pos[i] < len(us) && (!found || us[pos[i]] < min) {
				min, found = us[pos[i]], true
			}
		}
		if !found {
			return cands, cov
		}
		keep := !excluded[min]
		if keep {
			cands = append(cands, min)
			cov = append(cov, make([]uint64, words)...)
		}
		for i, us := range users {
			if pos[i] < len(us) && us[pos[i]] == min {
				if keep {
					cov[len(cov)-words+i/64] |= 1 << (i % 64)
				}
				pos[i]++
				if pos[i] < len(us) && us[pos[i]] <= min {
					return mergeUsersMap(users, words, excluded, total)
				}
			}
		}
	}
}

// mergeUsersMap is mergeUsers for lists not sorted by name.
func mergeUsersMap(users [][]string, words int, excluded map[string]bool, total int) ([]string, []uint64) {
	at := make(map[string]int, total)
	var cands []string
	var cov []uint64
	for i, us := range users {
		for _, u := range us {
			if excluded[u] {
				continue
			}
			j, ok := at[u]
			if !ok {
				j = len(cands)
				at[u] = j
				cands = append(cands, u)
				cov = append(cov, make([]uint64, words)...)
			}
			cov[j*words+i/64] |= 1 << (i % 64)
		}
	}
	return cands, cov
}
