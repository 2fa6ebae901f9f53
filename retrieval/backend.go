package retrieval

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
)

// Backends rank documents by one method (dense vectors, lexical matching)
// and know nothing of signals or fusion: an Engine asks them for ranked lists
// and fuses those with the signals of the query's profile. Documents are
// named by id: the row of the corpus (0 ≤ id < Table.Len()), the same in
// every backend of one Engine.

// Scored is one entry of a backend's ranked list.
type Scored struct {
	Doc   int
	Score float32
}

// Selection describes which documents one ranked list may hold, in terms any
// backend can translate into its own query language (a filter of an external
// vector store, a bleve boolean query).
type Selection struct {
	// Kinds the documents may have; nil means any kind.
	Kinds []string
	// Library, when set, is the only library the documents may come from.
	Library string
	// Exclude names documents that are never selected.
	Exclude []string
}

// Request asks for the K best documents of a selection.
type Request struct {
	Select Selection
	K      int
}

// Batch is several top-k requests over disjoint selections of one corpus,
// answered in one call so that a scanning backend visits each document once
// for all of them (today: the candidates and the neighbours that vote for
// them).
type Batch struct {
	Requests []Request
	// Class is the selections compiled against the corpus (Table.Compile):
	// Class[doc] is 1 + the index of the request doc belongs to, or 0 when
	// it belongs to none. Backends that scan in process use it; backends
	// with a query language translate Requests[i].Select instead. Class
	// values beyond len(Requests) belong to no request of this batch, and a
	// request with K ≤ 0 asks for nothing: its documents are skipped.
	// Read-only.
	Class []uint8
	// Shared, when set, equals Class except at the documents Patched lists
	// (sorted, no repeats): an array that many batches share (the table's
	// classes of the selections without their exclusions), so that a
	// backend scanning for many batches in one pass may read one array
	// from cache for all, and Class only at Patched. Read-only.
	Shared  []uint8
	Patched []int32
}

// DenseBackend ranks documents by the inner product of their vectors with a
// query vector (cosine for L2-normalised vectors). Implementations are safe
// for concurrent use. Each returned list holds at most Requests[i].K
// documents of request i's selection, best first, equal scores in
// increasing doc order.
type DenseBackend interface {
	// Dim is the dimension of the query vectors it takes.
	Dim() int
	SearchDense(ctx context.Context, query []float32, b *Batch) ([][]Scored, error)
}

// MultiDenseBackend is a DenseBackend that scores several query vectors in
// one pass over its vectors: result i is exactly SearchDense(queries[i],
// batches[i]). A scan of a large corpus is bound by memory bandwidth, so
// the pass costs little more than one query's.
type MultiDenseBackend interface {
	DenseBackend
	SearchDenseMany(ctx context.Context, queries [][]float32, batches []*Batch) ([][][]Scored, error)
}

// SearchDenseMany asks d for every query: in one pass when d is a
// MultiDenseBackend, otherwise one SearchDense per query.
func SearchDenseMany(ctx context.Context, d DenseBackend, queries [][]float32, batches []*Batch) ([][][]Scored, error) {
	if len(queries) != len(batches) {
		return nil, fmt.Errorf("%d queries, %d batches", len(queries), len(batches))
	}
	if md, ok := d.(MultiDenseBackend); ok && len(queries) > 1 {
		return md.SearchDenseMany(ctx, queries, batches)
	}
	out := make([][][]Scored, len(queries))
	for i, q := range queries {
		res, err := d.SearchDense(ctx, q, batches[i])
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	return out, nil
}

// LexicalBackend ranks documents by term matching (BM25). Its contract is
// DenseBackend's, with the query's text in place of a vector.
type LexicalBackend interface {
	SearchLexical(ctx context.Context, text string, b *Batch) ([][]Scored, error)
}

// TermPostings is one analysed query term with the documents containing it.
type TermPostings struct {
	Term string
	// IDF is the term's inverse document frequency as the backend scores it.
	IDF float32
	// Docs lists the documents containing the term (len(Docs) is its
	// document frequency). Shared: read-only.
	Docs []uint32
}

// TermIndex is implemented by lexical backends that can list, for a text's
// terms, the documents containing them; the term–premise association signal
// (Weights.Assoc) needs it.
type TermIndex interface {
	// QueryTerms lists the distinct analysed terms of text the index knows,
	// sorted by term.
	QueryTerms(text string) []TermPostings
	// NumDocs is the number of documents indexed.
	NumDocs() int
}

// QueryEncoder embeds query texts for a DenseBackend: one vector per text, in
// order, of the backend's dimension. Safe for concurrent use.
type QueryEncoder interface {
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// TopK keeps the k best scored documents seen, ties going to the lower doc
// id, so that every backend cuts a list at the same place. Not safe for
// concurrent use.
type TopK struct {
	k int
	h scoredHeap
	// worst is h[0], the entry to drop first, once the heap is full;
	// until then it is below every score (-Inf at the largest doc id).
	worst Scored
}

type scoredHeap []Scored

func (h scoredHeap) Len() int { return len(h) }

// Less orders the heap so that its root is the entry to drop first: the
// lowest score, and among equal scores the highest doc id.
func (h scoredHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].Doc > h[j].Doc
}
func (h scoredHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(Scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// SortScored orders a ranked list the way every backend cuts one: best
// first, equal scores by increasing doc id (TopK's order), for a backend
// that gathers candidates elsewhere.
func SortScored(s []Scored) {
	slices.SortFunc(s, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Doc - b.Doc
	})
}

// NewTopK keeps the k best (k ≥ 1).
func NewTopK(k int) *TopK {
	return &TopK{k: max(k, 1), h: make(scoredHeap, 0, max(k, 1)+1), worst: Scored{math.MaxInt, float32(math.Inf(-1))}}
}

// K is how many documents t keeps.
func (t *TopK) K() int { return t.k }

// Full reports whether t holds k documents, and the lowest score it keeps:
// then Add drops every document scored below it.
func (t *TopK) Full() (lowest float32, full bool) {
	return t.worst.Score, len(t.h) == t.k
}

// Add offers a document. (The heap is container/heap's, without its
// interface calls: Add is a scanning backend's inner loop, and its common
// case — a full heap whose worst entry beats the document — is small enough
// to be inlined there.)
func (t *TopK) Add(doc int, s float32) {
	if s < t.worst.Score || (s == t.worst.Score && doc > t.worst.Doc) {
		return
	}
	t.add(doc, s)
}

func (t *TopK) add(doc int, s float32) {
	h := t.h
	if len(h) < t.k {
		h = append(h, Scored{doc, s})
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.Less(i, p) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		if len(h) == t.k {
			t.worst = h[0]
		}
		return
	}
	if r := h[0]; s > r.Score || (s == r.Score && doc < r.Doc) {
		h[0] = Scored{doc, s}
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			j := l
			if r := l + 1; r < len(h) && h.Less(r, l) {
				j = r
			}
			if !h.Less(j, i) {
				break
			}
			h[i], h[j] = h[j], h[i]
			i = j
		}
		t.worst = h[0]
	}
}

// Sorted returns the kept documents, best first (equal scores by doc id).
func (t *TopK) Sorted() []Scored {
	out := make([]Scored, len(t.h))
	h := append(scoredHeap(nil), t.h...)
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Scored)
	}
	return out
}

// NewTops makes a TopK for each request of b that asks for documents
// (K > 0), nil for the others: the accumulators of a scanning backend.
func (b *Batch) NewTops() []*TopK {
	tops := make([]*TopK, len(b.Requests))
	for i, r := range b.Requests {
		if r.K > 0 {
			tops[i] = NewTopK(r.K)
		}
	}
	return tops
}

// Top returns the TopK that doc goes to, or nil: the lookup of a scanning
// backend's inner loop.
func Top(tops []*TopK, class []uint8, doc int) *TopK {
	if c := int(class[doc]); c > 0 && c <= len(tops) {
		return tops[c-1]
	}
	return nil
}

// SortedAll returns each TopK's documents, best first (nil for nil).
func SortedAll(tops []*TopK) [][]Scored {
	out := make([][]Scored, len(tops))
	for i, t := range tops {
		if t != nil {
			out[i] = t.Sorted()
		}
	}
	return out
}
