package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/dataset"
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
	// uses counts a document's users without the excluded declarations.
	uses func(int) int
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
		if dataset.IsPremiseKind(k) {
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
	s := &searchState{t: e.Table, q: &q, w: &w, depth: max(w.Depth, q.K), lex: e.Lexical, text: q.Text, uses: e.Table.UsesWithout(q.Filter.Exclude)}
	if q.Formal != "" {
		s.text += "\n" + q.Formal
	}
	nn := 0
	if q.Mode == ModeBest && w.Neighbors > 0 {
		nn = w.NeighborDocs
	}
	cand, neigh := e.Table.Selections(q.Filter)
	all := e.Table.Compile([]Request{{cand, s.depth}, {neigh, max(nn, 1)}})
	s.class = all.Class
	// The neighbour request is made only when neighbours vote; its class
	// stays in the mask (it tells voters from filtered-out documents).
	b := &Batch{Requests: all.Requests, Class: all.Class}
	if nn == 0 {
		b.Requests = b.Requests[:1]
	}
	needDense := q.Mode == ModeDense || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.Dense > 0 || w.Neighbors > 0))
	needLex := q.Mode == ModeBM25 || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.BM25 > 0 || w.Neighbors > 0))
	if needDense {
		if e.Dense == nil || e.Encoder == nil {
			return nil, ErrNoDense
		}
		vs, err := e.Encoder.Encode(ctx, []string{s.text})
		if err != nil {
			return nil, fmt.Errorf("encode query: %w", err)
		}
		if len(vs) != 1 || len(vs[0]) != e.Dense.Dim() {
			return nil, fmt.Errorf("encode query: %d vectors, want 1 of dimension %d", len(vs), e.Dense.Dim())
		}
		res, err := e.Dense.SearchDense(ctx, vs[0], b)
		if err != nil {
			return nil, fmt.Errorf("dense: %w", err)
		}
		s.denseC, s.denseN = split(res)
	}
	if needLex {
		if e.Lexical == nil {
			return nil, ErrNoLexical
		}
		res, err := e.Lexical.SearchLexical(ctx, s.text, b)
		if err != nil {
			return nil, fmt.Errorf("bm25: %w", err)
		}
		s.lexC, s.lexN = split(res)
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
	for _, sg := range spec.signals {
		if wt := sg.weight(&w); wt > 0 {
			lists = append(lists, Ranked{sg.name, wt, sg.rank(s)})
		}
	}
	return e.Table.Fuse(lists, w.RRFK, q.K), nil
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
