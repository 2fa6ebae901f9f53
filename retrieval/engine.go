package retrieval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Engine is a Searcher made of parts: a corpus Table, a dense backend with
// its query encoder, and a lexical backend. It compiles a Query's filter
// into backend requests, asks each backend once, and fuses the ranked lists
// with the signals of the query's profile (profile.go). Any backend pair
// plugs in: an external vector store, a sharded index, a brute-force test
// double. An Engine is safe for concurrent use when its parts are; its
// fields must not change while it is in use.
type Engine struct {
	Table *Table
	// Dense and Encoder answer dense retrieval; nil Dense: modes that need
	// it fail with ErrNoDense.
	Dense   DenseBackend
	Encoder QueryEncoder
	// Lexical answers BM25; nil: modes that need it fail with ErrNoLexical.
	Lexical LexicalBackend
	// Formula ranks statements by the layout of the formula a query
	// writes (formula.go; the index's formula.dk); nil: no formula list.
	Formula LexicalBackend

	// co shares the dense passes of concurrent searches (coalesce.go).
	co coalescer
}

// Errors of an Engine missing a part a query needs.
var (
	ErrNoDense   = errors.New("no dense vectors (index opened without them)")
	ErrNoLexical = errors.New("no lexical index")
)

var _ Searcher = (*Engine)(nil)

// searchState is what the signals of one query see.
type searchState struct {
	t      *Table
	q      *Query
	w      *Weights
	depth  int
	class  []uint8
	text   string
	lex    LexicalBackend
	lexC   []Scored // lexical candidates and neighbours
	lexN   []Scored
	denseC []Scored // dense candidates and neighbours
	denseN []Scored
	// formulaC are the candidates whose statements' layout matches the
	// formula the query writes (nil: none, or no formula list).
	formulaC []Scored
	// uses counts a document's users without the excluded declarations.
	uses func(int) int
	// expanded caches expansion().
	expanded *string
	// norm is the query text its signals read: q.Text, with LaTeX read
	// as Lean's characters when the weights ask for symbols.
	norm string
	// typed is the document the one-identifier query names exactly as
	// typed (fullName; typedOK when there is one): ModeBest ranks it first.
	typed   int
	typedOK bool
}

// expansion is the query's added words, computed once (QueryView).
func (s *searchState) expansion() string {
	if s.expanded == nil {
		_, e := s.t.QueryView(s.q.Text, s.w, s.q.Vocabulary)
		s.expanded = &e
	}
	return *s.expanded
}

// QueryView is how theorem search reads a query text with weights w: norm
// is the text with LaTeX read as Lean's characters (with w.Symbols; else
// the text), extra the words it adds: the vocabulary's (Expand; none
// without one), then, with w.Symbols, the name words of its symbols
// (SymbolWords), then, with w.WordNames, the name tokens the library's
// docstrings give its words (WordNameTokens), then, with w.Notations, the names of the constants behind
// its library notations (NotationHeads; none when t is nil or has no
// notation table). LaTeX is read as Lean's characters before notations are
// looked up only with w.Symbols.
func (t *Table) QueryView(text string, w *Weights, v *Vocabulary) (norm, extra string) {
	norm = text
	if w.Symbols {
		norm = NormalizeLaTeX(text)
	}
	words := []string{v.Expand(norm)}
	if w.Symbols {
		words = append(words, SymbolWords(norm))
	}
	if w.WordNames {
		words = append(words, WordNameTokens(norm))
	}
	if w.Notations && t != nil {
		words = append(words, t.NotationHeads(norm)...)
	}
	return norm, strings.TrimSpace(strings.Join(slices.DeleteFunc(words, func(s string) bool { return s == "" }), " "))
}

func (s *searchState) cand(doc int) bool { return s.class[doc] == 1 }

func (s *searchState) neighbors() []int {
	v := []Voters{{s.lexN, 1}, {s.denseN, 1}}
	if s.w.CandidateVotes > 0 {
		nd := s.w.NeighborDocs
		v = append(v, Voters{s.lexC[:min(len(s.lexC), nd)], s.w.CandidateVotes}, Voters{s.denseC[:min(len(s.denseC), nd)], s.w.CandidateVotes})
	}
	return s.t.NeighborVotes(v, s.cand, s.w.NeighborDecay, s.depth)
}

func (s *searchState) assoc() []int {
	ti, ok := s.lex.(TermIndex)
	if !ok {
		return nil
	}
	return s.t.Assoc(ti.QueryTerms(s.text), ti.NumDocs(), s.class, s.uses, *s.w, s.depth)
}

// Selections turns a filter into the two selections a search ranks:
// candidates (documents that may be returned) and neighbours (other
// declarations that may vote for their statement dependencies: the
// non-premise kinds that are not candidates).
func (t *Table) Selections(f Filter) (cand, neigh Selection) {
	var premise, other []string
	for _, k := range t.kinds {
		if workspace.IsPremiseKind(k) {
			premise = append(premise, k)
		} else {
			other = append(other, k)
		}
	}
	cand = Selection{Library: f.Library, Exclude: f.Exclude}
	switch {
	case len(f.Kinds) > 0:
		cand.Kinds = f.Kinds
	case f.AllKinds:
	default:
		cand.Kinds = premise
	}
	neigh = Selection{Kinds: []string{}, Library: f.Library, Exclude: f.Exclude}
	for _, k := range other {
		if cand.Kinds != nil && !contains(cand.Kinds, k) {
			neigh.Kinds = append(neigh.Kinds, k)
		}
	}
	return cand, neigh
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Search implements Searcher.
func (e *Engine) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits, err := e.SearchMany(ctx, []Query{q})
	var qe *QueryError
	if errors.As(err, &qe) {
		return nil, qe.Err
	}
	if err != nil {
		return nil, err
	}
	return hits[0], nil
}

// SearchMany implements MultiSearcher: the queries' dense vectors are
// encoded in one Encode call and scored in one pass over the vectors when
// the dense backend is a MultiDenseBackend (a scan of a large corpus is
// bound by memory, so five queries cost little more than one); lexical
// retrieval and fusion run per query. Each query's hits are exactly those
// Search returns for it. The first query that cannot run fails the call,
// with Search's error for it wrapped in a *QueryError; a failure of the
// shared dense pass (the encoder, the backend) is returned as is.
func (e *Engine) SearchMany(ctx context.Context, qs []Query) ([][]Hit, error) {
	if err := e.damaged(); err != nil {
		return nil, err
	}
	plans := make([]*plan, len(qs))
	classes := map[string]*Batch{} // queries with one filter share its compiled classes
	for i, q := range qs {
		p, err := e.plan(q, classes)
		if err != nil {
			return nil, &QueryError{Query: i, Err: err}
		}
		plans[i] = p
	}
	if err := e.dense(ctx, plans); err != nil {
		return nil, err
	}
	out := make([][]Hit, len(plans))
	for i, p := range plans {
		hits, err := e.finish(ctx, p)
		if err != nil {
			return nil, &QueryError{Query: i, Err: err}
		}
		out[i] = hits
	}
	// A signal that found its table columns damaged ranked nothing: the
	// answer is not what the index holds.
	if err := e.damaged(); err != nil {
		return nil, err
	}
	return out, nil
}

// Damaged is implemented by parts that verify their data as they first
// read it (a memory-mapped table or index): Err is the damage found, nil
// when none (yet).
type Damaged interface{ Err() error }

// damaged is the first damage the table or the backends found.
func (e *Engine) damaged() error {
	for _, p := range []any{e.Table, e.Lexical, e.Dense, e.Formula} {
		if d, ok := p.(Damaged); ok && d != nil {
			if err := d.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// plan is one query of a SearchMany call, compiled against the table.
type plan struct {
	s                  *searchState
	spec               profileSpec
	b                  *Batch
	needDense, needLex bool
	// lexText and denseText are what BM25 and the encoder get: the query,
	// plus its vocabulary when the weights ask for it (theorem search).
	lexText, denseText string
}

// plan checks q, resolves its profile and weights and compiles its filter,
// reusing the classes of an earlier query with the same selections.
func (e *Engine) plan(q Query, classes map[string]*Batch) (*plan, error) {
	if strings.TrimSpace(q.Text) == "" && strings.TrimSpace(q.Formal) == "" {
		return nil, ErrEmptyQuery
	}
	if q.K <= 0 {
		q.K = 10
	}
	if q.Mode == "" {
		q.Mode = ModeBest
	}
	spec, ok := profiles[ResolveProfile(&q)]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q", q.Profile)
	}
	w := spec.defaults()
	if q.Weights != nil {
		w = *q.Weights
	}
	s := &searchState{t: e.Table, q: &q, w: &w, depth: max(w.Depth, q.K), lex: e.Lexical, text: q.Text, uses: e.Table.UsesWithout(q.Filter.Exclude), norm: q.Text}
	if q.Mode == ModeBest && w.Symbols {
		s.norm = NormalizeLaTeX(q.Text)
		s.text = s.norm
	}
	if q.Formal != "" {
		s.text += "\n" + q.Formal
	}
	nn := 0
	if q.Mode == ModeBest && w.Neighbors > 0 {
		nn = w.NeighborDocs
	}
	cand, neigh := e.Table.Selections(q.Filter)
	reqs := []Request{{cand, s.depth}, {neigh, max(nn, 1)}}
	key := selectionKey(cand) + "\x00" + selectionKey(neigh)
	compiled, ok := classes[key]
	if !ok {
		compiled = e.Table.compileShared(reqs)
		classes[key] = compiled
	}
	s.class = compiled.Class
	// The neighbour request is made only when neighbours vote; its class
	// stays in the mask (it tells voters from filtered-out documents).
	b := &Batch{Requests: reqs, Class: compiled.Class, Shared: compiled.Shared, Patched: compiled.Patched}
	if nn == 0 {
		b.Requests = b.Requests[:1]
	}
	p := &plan{
		s: s, spec: spec, b: b,
		needDense: q.Mode == ModeDense || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.Dense > 0 || w.Neighbors > 0)),
		needLex:   q.Mode == ModeBM25 || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.BM25 > 0 || w.Neighbors > 0)),
		lexText:   s.text, denseText: s.text,
	}
	if q.Mode == ModeBest && (w.ExpandLexical || w.ExpandDense) {
		// The vocabulary's words reach BM25 and the encoder; symbol words
		// only the name signal (they made BM25 worse on the dev
		// benchmark's tuning half: nDCG@10 0.502 vs 0.508).
		if x := q.Vocabulary.Expand(s.norm); x != "" {
			if w.ExpandLexical {
				p.lexText += "\n" + x
			}
			if w.ExpandDense {
				p.denseText += "\n" + x
			}
		}
	}
	return p, nil
}

// selectionKey identifies a selection's compiled classes (nil Kinds, any
// kind, differs from empty Kinds, none).
func selectionKey(s Selection) string {
	return fmt.Sprintf("%t%q%q%q", s.Kinds == nil, s.Kinds, s.Library, s.Exclude)
}

// dense answers the dense requests of every plan that needs them: one
// Encode call, one SearchDenseMany.
func (e *Engine) dense(ctx context.Context, plans []*plan) error {
	var texts []string
	var need []*plan
	for _, p := range plans {
		if p.needDense {
			texts = append(texts, p.denseText)
			need = append(need, p)
		}
	}
	if len(need) == 0 {
		return nil
	}
	if e.Dense == nil || e.Encoder == nil {
		return ErrNoDense
	}
	vs, err := e.Encoder.Encode(ctx, texts)
	if err != nil {
		return fmt.Errorf("encode query: %w", err)
	}
	if len(vs) != len(texts) {
		return fmt.Errorf("encode query: %d vectors for %d texts", len(vs), len(texts))
	}
	batches := make([]*Batch, len(need))
	for i, v := range vs {
		if len(v) != e.Dense.Dim() {
			return fmt.Errorf("encode query: a vector of dimension %d, want %d", len(v), e.Dense.Dim())
		}
		batches[i] = need[i].b
	}
	var res [][][]Scored
	if md, ok := e.Dense.(MultiDenseBackend); ok {
		res, err = e.co.search(ctx, md, vs, batches)
	} else {
		res, err = SearchDenseMany(ctx, e.Dense, vs, batches)
	}
	if err != nil {
		return fmt.Errorf("dense: %w", err)
	}
	for i, p := range need {
		p.s.denseC, p.s.denseN = split(res[i])
	}
	return nil
}

// finish runs p's lexical retrieval and fuses its signals.
func (e *Engine) finish(ctx context.Context, p *plan) ([]Hit, error) {
	s, q, w := p.s, p.s.q, p.s.w
	if p.needLex {
		if e.Lexical == nil {
			return nil, ErrNoLexical
		}
		res, err := e.Lexical.SearchLexical(ctx, p.lexText, p.b)
		if err != nil {
			return nil, fmt.Errorf("bm25: %w", err)
		}
		s.lexC, s.lexN = split(res)
	}
	if q.Mode == ModeBest && w.Formula > 0 && e.Formula != nil && FormulaQuery(q.Text) != "" {
		fb := *p.b
		fb.Requests = fb.Requests[:1] // candidates only
		res, err := e.Formula.SearchLexical(ctx, q.Text, &fb)
		if err != nil {
			return nil, fmt.Errorf("formula: %w", err)
		}
		s.formulaC, _ = split(res)
	}
	switch q.Mode {
	case ModeDense:
		return e.Table.Hits(s.denseC, q.K, "dense"), nil
	case ModeBM25:
		return e.Table.Hits(s.lexC, q.K, "bm25"), nil
	case ModeHybrid:
		return e.Table.Fuse([]Ranked{{"bm25", 1, DocsOf(s.lexC)}, {"dense", 1, DocsOf(s.denseC)}}, 60, q.K), nil
	case ModeBest:
	default:
		return nil, fmt.Errorf("unknown mode %q", q.Mode)
	}
	var lists []Ranked
	for _, sg := range p.spec.signals {
		if wt := sg.weight(w); wt > 0 {
			lists = append(lists, Ranked{sg.name, wt, sg.rank(s)})
		}
	}
	scale := e.Table.scale(w)
	var hits []Hit
	if m := theoremReranker(); w.Rerank && m != nil {
		hits = m.Rerank(s.norm, s.expansion(), e.Table.FuseScaled(lists, w.RRFK, max(q.K, m.Depth), scale), e.Table, q.K)
	} else {
		hits = e.Table.FuseScaled(lists, w.RRFK, q.K, scale)
	}
	if s.typedOK {
		hits = e.Table.pinFirst(hits, s.typed, q.K)
	}
	return hits, nil
}

// pinFirst puts document doc first in hits (at most k): a query that is
// one declaration's full name as typed asks for that declaration. The
// other signals read names through Words, which drops a final ' and breaks
// at subscripts, so fused they put Result before a pasted Result' or
// one_lt_of_lt_mul_right before one_lt_of_lt_mul_right₀ (Mathlib v4.29.0:
// 110 of 300 such names pasted were not first). Its score is raised to
// the first hit's, so scores stay in rank order.
func (t *Table) pinFirst(hits []Hit, doc, k int) []Hit {
	if k <= 0 {
		return hits
	}
	name := t.Name(doc)
	i := slices.IndexFunc(hits, func(h Hit) bool { return h.Name == name })
	if i == 0 {
		return hits
	}
	var h Hit
	if i > 0 {
		h = hits[i]
		hits = slices.Delete(hits, i, i+1)
	} else {
		h = t.hit(doc, 1, 0, map[string]int{"mention": 1})
		if len(hits) >= k {
			hits = hits[:k-1]
		}
	}
	if len(hits) > 0 {
		h.Score = max(h.Score, hits[0].Score)
	}
	hits = slices.Insert(hits, 0, h)
	for j := range hits {
		hits[j].Rank = j + 1
	}
	return hits
}

// scale is what ModeBest multiplies a fused score by under w: NonTheorem
// lowers non-theorems, UsagePrior raises used declarations (nil: 1).
func (t *Table) scale(w *Weights) func(int) float64 {
	nt := w.NonTheorem
	prior := t.usagePrior(w.UsagePrior)
	if nt <= 0 && prior == nil {
		return nil
	}
	return func(doc int) float64 {
		f := 1.0
		if nt > 0 && t.kindOf(doc) != "theorem" {
			f = 1 - nt
		}
		if prior != nil {
			f *= prior(doc)
		}
		return f
	}
}

func split(res [][]Scored) (cand, neigh []Scored) {
	if len(res) > 0 {
		cand = res[0]
	}
	if len(res) > 1 {
		neigh = res[1]
	}
	return cand, neigh
}
