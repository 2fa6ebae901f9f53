package retrieval

import (
	"github.com/driftkit/driftkit/internal/leanname"
	"slices"
	"strings"
)

// A profile decides what ModeBest fuses: which signals, in which order, with
// which default weights. This file is the one place where that is chosen;
// a new profile (theorem search, say) is one more entry of profiles.

// signal is one list of the fusion of ModeBest.
type signal struct {
	name string
	// weight reads the list's weight from the query's weights.
	weight func(w *Weights) float64
	// rank makes the list; it may return nil (nothing to add).
	rank func(s *searchState) []int
}

// profileSpec is a profile's signals, in fusion order, and its defaults.
type profileSpec struct {
	signals  []signal
	defaults func() Weights
}

// premiseSignals are the lists premise retrieval fuses, in this order (the
// order only matters for ties of floating-point sums).
var premiseSignals = []signal{
	{"bm25", func(w *Weights) float64 { return w.BM25 }, func(s *searchState) []int { return DocsOf(s.lexC) }},
	{"dense", func(w *Weights) float64 { return w.Dense }, func(s *searchState) []int { return DocsOf(s.denseC) }},
	{"neighbors", func(w *Weights) float64 { return w.Neighbors }, (*searchState).neighbors},
	{"assoc", func(w *Weights) float64 { return w.Assoc }, (*searchState).assoc},
	{"concept", func(w *Weights) float64 { return w.Concept }, func(s *searchState) []int {
		return s.t.Concepts(s.q.Text, s.cand, s.uses, s.depth, s.w.ConceptTop)
	}},
	{"mention", func(w *Weights) float64 { return w.Mention }, func(s *searchState) []int {
		return s.t.Mentions(s.q.Text+"\n"+s.q.Formal, s.cand)
	}},
	{"prior", func(w *Weights) float64 { return w.Prior }, func(s *searchState) []int {
		return s.t.Prior(s.cand, s.uses, s.depth)
	}},
}

// theoremSignals are the lists theorem search fuses: the ones that find a
// statement — BM25 over the document (name tokens, signature, informal
// text), dense similarity, names written in the query — and none that favour
// popular premises (no usage-prior list, no neighbour votes, no concept
// words, which rank premises by uses); the constants behind the query's
// notations when Weights.Notation asks. Popularity enters only as the soft
// UsagePrior, which rescales fused scores (usageprior.go).
var theoremSignals = []signal{
	{"bm25", func(w *Weights) float64 { return w.BM25 }, func(s *searchState) []int { return DocsOf(s.lexC) }},
	{"dense", func(w *Weights) float64 { return w.Dense }, func(s *searchState) []int { return DocsOf(s.denseC) }},
	{"mention", func(w *Weights) float64 { return w.Mention }, (*searchState).fullName},
	{"name", func(w *Weights) float64 { return w.Name }, func(s *searchState) []int {
		return s.t.NameMatch(s.norm, s.expansion(), s.cand, s.w.NameBeta, s.depth)
	}},
	{"notation", func(w *Weights) float64 { return w.Notation }, (*searchState).notationDocs},
	{"formula", func(w *Weights) float64 { return w.Formula }, func(s *searchState) []int { return DocsOf(s.formulaC) }},
}

// fullName is theorem search's name list: the declaration a query names
// when the query is one name (`Nat.Prime.dvd_mul`, dvd_mul, backquoted or
// not), by Mentions' exact-then-suffix rule, the name as typed first
// (typedNames: primes and subscripts kept). A name written inside a
// sentence is context ("the `finsum` of …"), not the answer, and adds
// nothing (on the dev benchmark's tuning half, mentions inside sentences
// cost 0.03 nDCG@10) — unless the tokenizer cannot read it: a name that
// Words alters (`Filter.tendsto_const_div_iff'`, `forall₂_comm`) gives its
// unprimed neighbour the same BM25 and name credit, so the name as typed
// is listed (README, "theorem search").
func (s *searchState) fullName() []int {
	text := strings.Trim(strings.TrimSpace(s.q.Text), "`")
	if text == "" || s.q.Formal != "" {
		return nil
	}
	if strings.ContainsAny(text, " \t\n") {
		return s.t.typedNames(s.q.Text, s.cand)
	}
	// A one-identifier query that is a declaration's full name as typed
	// asks for that declaration: ModeBest ranks it first (finish).
	if r, ok := s.t.docOf(leanname.Canonical(text)); ok && s.cand(r) {
		s.typed, s.typedOK = r, true
	}
	named, prefix := s.t.mentions("`"+text+"`", s.cand)
	if len(named) > 0 || !s.w.FuzzyName {
		return append(named, prefix...)
	}
	// A name that matches only as a prefix (the namespace of a renamed
	// AddCommGroup.modEq_iff_int_modEq) names nothing: the fuzzy matches
	// come first, the prefixes after them.
	fuzzy := s.t.FuzzyName(text, s.cand)
	for _, p := range prefix {
		if !slices.Contains(fuzzy, p) {
			fuzzy = append(fuzzy, p)
		}
	}
	return fuzzy
}

// TheoremWeights are the defaults of theorem search (see README.md, "theorem
// search", for how they were tuned; UsagePrior 1: dev benchmark tune half
// 0.554 → 0.559, held-out 0.600 → 0.610). It returns a fresh value.
func TheoremWeights() Weights {
	return Weights{BM25: 2, Dense: 0.5, Mention: 2, Name: 0.3, NameBeta: 2, ExpandLexical: true, Symbols: true, Rerank: true, UsagePrior: 1, FuzzyName: true, Formula: 2, RRFK: 20, Depth: 200}
}

// profiles maps each profile to its signals and default weights.
var profiles = map[Profile]profileSpec{
	ProfilePremise: {signals: premiseSignals, defaults: DefaultWeights},
	ProfileTheorem: {signals: theoremSignals, defaults: TheoremWeights},
}

// ResolveProfile turns ProfileAuto into the profile a query's filter asks
// for: theorem search when theorems are candidates, premise retrieval
// otherwise.
func ResolveProfile(q *Query) Profile {
	if q.Profile != ProfileAuto {
		return q.Profile
	}
	if q.Filter.AllKinds || slices.Contains(q.Filter.Kinds, "theorem") {
		return ProfileTheorem
	}
	return ProfilePremise
}

// ProfileWeights returns the default weights of a profile (ProfileAuto and
// unknown profiles: premise retrieval's).
func ProfileWeights(p Profile) Weights {
	if spec, ok := profiles[p]; ok {
		return spec.defaults()
	}
	return DefaultWeights()
}

// CandidateDepth is how many candidates each of q's signals ranks before
// fusion: max(weights' Depth, K), the weights q resolves to. Asking for up to
// that many hits lengthens the answer without changing the order of its
// first K — what a caller that drops some hits afterwards (serve leaves out
// module-private declarations) may ask for more, and no more.
func CandidateDepth(q Query) int {
	w := ProfileWeights(ResolveProfile(&q))
	if q.Weights != nil {
		w = *q.Weights
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	return max(w.Depth, k)
}
