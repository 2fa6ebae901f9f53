package retrieval

import (
	"math"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/internal/leanname"
)

// The signals of ModeBest: each turns the query, the backends' ranked lists
// and the corpus Table into one more ranked list of candidate documents,
// which Fuse combines. They never see vectors or postings, so they work over
// any backend. cand reports whether a document may be returned.

// Voters is a ranked list of documents that vote for their statement
// dependencies, each vote weighing Scale/(rank+decay).
type Voters struct {
	List  []Scored
	Scale float64
}

// NeighborVotes ranks candidates by the votes of similar declarations (the
// backends' neighbour lists, and optionally their best candidates) for their
// statement dependencies; decay ≤ 0 means 5.
func (t *Table) NeighborVotes(voters []Voters, cand func(int) bool, decay float64, n int) []int {
	if decay <= 0 {
		decay = 5
	}
	votes := map[int]float64{}
	for _, v := range voters {
		for rank, s := range v.List {
			wt := v.Scale / (float64(rank) + decay)
			for _, r := range t.c.Deps.At(s.Doc) {
				if cand(int(r)) {
					votes[int(r)] += wt
				}
			}
		}
	}
	return TopDocs(votes, n)
}

// Mentions finds declaration names written in the query: exact full names
// first, then unambiguous-enough name suffixes (≤ 3 declarations), then the
// candidate prefixes of mentioned names (Set.Nonempty of Set.Nonempty.cloud).
// Only words that look like identifiers count (backquoted, or containing '.',
// '_' or an upper-case letter).
func (t *Table) Mentions(text string, cand func(int) bool) []int {
	named, prefix := t.mentions(text, cand)
	return append(named, prefix...)
}

// mentions is Mentions in two parts: the declarations the query names
// (exact full names, then suffixes) and the prefixes of mentioned names.
// A name whose only match is a prefix (AddCommGroup of
// AddCommGroup.modEq_iff_int_modEq) names nothing itself.
func (t *Table) mentions(text string, cand func(int) bool) (named, prefixes []int) {
	var exact, suffix, prefix []int
	seen := map[int]bool{}
	add := func(dst *[]int, r int) {
		if !seen[r] && cand(r) {
			seen[r] = true
			*dst = append(*dst, r)
		}
	}
	// Names as typed first (typedNames): Words would read them as a
	// neighbour or a namespace.
	for _, r := range t.typedNames(text, cand) {
		add(&exact, r)
	}
	Words(text, func(w string, start, end int) {
		quoted := start > 0 && text[start-1] == '`'
		if !quoted && !strings.ContainsAny(w, "._") && strings.ToLower(w) == w {
			return
		}
		if r, ok := t.docOf(w); ok {
			add(&exact, r)
		} else if rs := t.suffixDocs(w); len(rs) > 0 && len(rs) <= 3 && (quoted || strings.ContainsAny(w, "._")) {
			for _, r := range rs {
				add(&suffix, int(r))
			}
		}
		parts := strings.Split(w, ".")
		for j := len(parts) - 1; j >= 1; j-- {
			if r, ok := t.docOf(strings.Join(parts[:j], ".")); ok {
				add(&prefix, r)
			}
		}
	})
	return append(exact, suffix...), prefix
}

// typedNames are the declarations text names exactly as Lean reads its
// identifiers where Words, the analyzer's tokenizer, reads them otherwise
// (LeanIdents, wordsAlter): Filter.tendsto_const_div_iff' (Words:
// Filter.tendsto_const_div_iff, its unprimed neighbour), forall₂_comm
// (Words: forall, comm). Only such names: the others are found as Words
// reads them, and the tokenizer gives a primed name and its neighbour the
// same BM25 and name-signal credit, so the name as typed is the one
// evidence of which the query means.
func (t *Table) typedNames(text string, cand func(int) bool) []int {
	var out []int
	LeanIdents(text, func(id string, _, _ int) {
		if !wordsAlter(id) {
			return
		}
		if r, ok := t.docOf(leanname.Canonical(id)); ok && cand(r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	})
	return out
}

// UsageCount is how many declarations' statements use premise, not counting
// the declarations in exclude.
func (t *Table) UsageCount(premise string, exclude []string) int {
	u := t.users(premise)
	n := len(u)
	for _, e := range exclude {
		if _, found := slices.BinarySearchFunc(u, e, func(r int32, e string) int { return strings.Compare(t.refName(r), e) }); found {
			n--
		}
	}
	return n
}

// UsesWithout returns how many declarations' statements use each document,
// not counting the declarations in exclude: the usage graph with the
// excluded declarations removed, as if they were not in the corpus (the
// query's own declaration; every benchmark theorem under the unseen
// protocol).
func (t *Table) UsesWithout(exclude []string) func(doc int) int {
	var adj map[int32]int
	seen := map[int]bool{}
	for _, e := range exclude {
		if i, ok := t.docOf(e); ok && !seen[i] {
			seen[i] = true
			if adj == nil {
				adj = map[int32]int{}
			}
			for _, r := range t.c.Deps.At(i) {
				adj[r]++
			}
		}
	}
	if adj == nil {
		return func(doc int) int { return int(t.c.Uses[doc]) }
	}
	return func(doc int) int { return int(t.c.Uses[doc]) - adj[int32(doc)] }
}

// Prior ranks the candidates by uses (Table.UsesWithout), most used first.
// The precomputed order by corpus-wide uses is walked only until no later
// document can enter the top n (exclusions only lower a count).
func (t *Table) Prior(cand func(int) bool, uses func(int) int, n int) []int {
	m := map[int]float64{}
	top := NewTopK(n)
	kept := 0
	prior := t.c.PriorOrder
	for i, r32 := range prior {
		r := int(r32)
		if cand(r) {
			if u := uses(r); u > 0 {
				m[r] = float64(u)
				top.Add(r, float32(u))
				kept++
			}
		}
		if kept >= n && i+1 < len(prior) && top.h[0].Score > float32(t.c.Uses[prior[i+1]]) {
			break
		}
	}
	return TopDocs(m, n)
}

// Concepts matches plain query words to premise names (see Weights.Concept):
// a word of four letters or more, its plural stripped and with "is"
// prepended, is looked up among lower-cased last name components; each
// word keeps its top most used candidates (top ≤ 0 means 3), by uses.
func (t *Table) Concepts(text string, cand func(int) bool, uses func(int) int, n, top int) []int {
	if top <= 0 {
		top = 3
	}
	m := map[int]float64{}
	Words(text, func(w string, _, _ int) {
		if len(w) < 4 || strings.ContainsAny(w, "._") {
			return
		}
		lw := strings.ToLower(w)
		keys := []string{lw, "is" + lw}
		if strings.HasSuffix(lw, "s") {
			keys = append(keys, lw[:len(lw)-1], "is"+lw[:len(lw)-1])
		}
		for _, k := range keys {
			// t.concept[k] is sorted by corpus-wide uses; exclusions may
			// reorder it.
			docs := t.conceptDocs(k)
			if len(docs) > 1 {
				docs = slices.Clone(docs)
				slices.SortStableFunc(docs, func(a, b int32) int { return uses(int(b)) - uses(int(a)) })
			}
			kept := 0
			for _, r := range docs {
				if kept == top {
					break
				}
				if cand(int(r)) {
					m[int(r)] = float64(uses(int(r)))
					kept++
				}
			}
		}
	})
	return TopDocs(m, n)
}

// Assoc ranks candidates by term–premise association (see Weights.Assoc):
// every selected document containing a query term votes for its candidate
// statement dependencies with idf(term)/(df(term)+smooth). class is the
// candidates' Batch.Class (1: candidate, 0: neither candidate nor voter).
func (t *Table) Assoc(terms []TermPostings, numDocs int, class []uint8, uses func(int) int, w Weights, n int) []int {
	maxDF := w.AssocMaxDF
	if maxDF <= 0 {
		maxDF = 0.2
	}
	score := map[int]float32{}
	for _, tp := range terms {
		df := len(tp.Docs)
		if float64(df) > maxDF*float64(numDocs) {
			continue
		}
		v := tp.IDF / (float32(df) + float32(w.AssocSmooth))
		for _, d := range tp.Docs {
			if class[d] == 0 {
				continue // excluded (the query's own declaration) or filtered out
			}
			for _, r := range t.c.Deps.At(int(d)) {
				if class[r] == 1 {
					score[int(r)] += v
				}
			}
		}
	}
	m := make(map[int]float64, len(score))
	for r, s := range score {
		sc := float64(s)
		if w.AssocBeta > 0 {
			sc /= math.Pow(float64(uses(r)+1), w.AssocBeta)
		}
		m[r] = sc
	}
	return TopDocs(m, n)
}

// TopDocs returns the n documents of m with the highest values, equal values
// in increasing doc order (selected with a heap: m may hold thousands of
// voted documents, sorting them all by map lookups cost 4 % of a server's
// search CPU).
func TopDocs(m map[int]float64, n int) []int {
	s := make([]docScore, 0, len(m))
	for d, v := range m {
		s = append(s, docScore{d, v})
	}
	return topScored(s, n)
}

// Ranked is one list of a fusion: documents best first, under a signal name
// and weight.
type Ranked struct {
	Signal string
	Weight float64
	Docs   []int
}

// DocsOf returns the documents of a backend list, in order.
func DocsOf(s []Scored) []int {
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.Doc
	}
	return out
}

// Fuse combines ranked lists by weighted reciprocal-rank fusion,
// score(d) = Σ_list w_list / (k + rank_list(d)), and returns the n best
// documents as hits (Signals: each list's 1-based rank of the document).
func (t *Table) Fuse(lists []Ranked, k float64, n int) []Hit { return t.FuseScaled(lists, k, n, nil) }

// FuseScaled is Fuse with each document's fused score multiplied by
// scale(doc) (nil: 1) before the cut.
func (t *Table) FuseScaled(lists []Ranked, k float64, n int, scale func(doc int) float64) []Hit {
	score := map[int]float64{}
	sig := map[int]map[string]int{}
	for _, l := range lists {
		for rank, r := range l.Docs {
			score[r] += l.Weight / (k + float64(rank+1))
			if sig[r] == nil {
				sig[r] = map[string]int{}
			}
			sig[r][l.Signal] = rank + 1
		}
	}
	if scale != nil {
		for r := range score {
			score[r] *= scale(r)
		}
	}
	rows := TopDocs(score, n)
	out := make([]Hit, len(rows))
	for i, r := range rows {
		out[i] = t.hit(r, i+1, round6(score[r]), sig[r])
	}
	return out
}

// Hits turns one backend list into at most n hits under one signal name.
func (t *Table) Hits(s []Scored, n int, signal string) []Hit {
	if len(s) > n {
		s = s[:n]
	}
	out := make([]Hit, len(s))
	for i, x := range s {
		out[i] = t.hit(x.Doc, i+1, round6(float64(x.Score)), map[string]int{signal: i + 1})
	}
	return out
}

// hit makes document doc's hit (strings copied out of the table).
func (t *Table) hit(doc, rank int, score float64, signals map[string]int) Hit {
	return Hit{Rank: rank, Name: t.Name(doc), Kind: t.kindOf(doc), Module: strings.Clone(t.c.Modules.At(int(t.c.Module[doc]))), Score: score, Signals: signals}
}

// suffixDocs are the documents whose name ends with the components w.
func (t *Table) suffixDocs(w string) []int32 {
	if i := t.c.Suffix.Find(w); i >= 0 {
		return t.c.SuffixDocs.At(i)
	}
	return nil
}

// conceptDocs are the premise documents whose lower-cased last name
// component is k, most used first.
func (t *Table) conceptDocs(k string) []int32 {
	if i := t.c.Concept.Find(k); i >= 0 {
		return t.c.ConceptDoc.At(i)
	}
	return nil
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
