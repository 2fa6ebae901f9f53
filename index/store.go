package index

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"

	"github.com/driftkit/driftkit/retrieval"
)

// Store is the in-memory dense backend: row-major float32 vectors, on the
// heap or memory-mapped from vectors.npy, searched exactly. Its scan is the
// one dense scoring loop of driftkit: raw vectors, the projection head's
// vectors and brute-force evaluation all go through it. A Store is
// immutable and safe for concurrent use; a memory-mapped one is valid until
// the generation that mapped it is closed.
type Store struct {
	vecs []float32
	rows int
	dim  int
	// docs[i] is the document id of row i when the store holds a subset of
	// the corpus (the projection head's premise rows); nil: row i is doc i.
	docs []int32
	// row[doc] is doc's row, -1 when absent (subset stores only).
	row []int32
	// check verifies the vectors once, before the first search (nil: in
	// memory, nothing to check).
	check func() error
	once  sync.Once
	err   error
	// q8 is the int8 copy of the vectors (quant.go), made by the first
	// pass for several queries.
	q8once sync.Once
	q8     atomic.Pointer[q8Store]
}

// Verify checks the vectors against their file's checksum, once; searches
// call it first, other readers (Vector) must.
func (s *Store) Verify() error {
	if s.check == nil {
		return nil
	}
	s.once.Do(func() { s.err = s.check() })
	return s.err
}

var _ retrieval.MultiDenseBackend = (*Store)(nil)

// NewStore wraps rows × dim vectors, row i being document i. It keeps vecs.
func NewStore(vecs []float32, rows, dim int) *Store {
	return &Store{vecs: vecs[:rows*dim], rows: rows, dim: dim}
}

// newSubsetStore wraps vectors of some documents: row i is document docs[i]
// of a corpus of numDocs documents.
func newSubsetStore(vecs []float32, dim int, docs []int32, numDocs int) *Store {
	s := &Store{vecs: vecs, rows: len(docs), dim: dim, docs: docs, row: make([]int32, numDocs)}
	for i := range s.row {
		s.row[i] = -1
	}
	for i, d := range docs {
		s.row[d] = int32(i)
	}
	return s
}

// Dim implements retrieval.DenseBackend.
func (s *Store) Dim() int { return s.dim }

// Rows is the number of vectors.
func (s *Store) Rows() int { return s.rows }

// Has reports whether the store holds a vector for doc.
func (s *Store) Has(doc int) bool {
	return s.docs == nil && doc < s.rows || s.docs != nil && doc < len(s.row) && s.row[doc] >= 0
}

// Vector returns doc's vector (shared, read-only), or nil.
func (s *Store) Vector(doc int) []float32 {
	r := doc
	if s.docs != nil {
		if doc >= len(s.row) || s.row[doc] < 0 {
			return nil
		}
		r = int(s.row[doc])
	} else if doc >= s.rows {
		return nil
	}
	return s.vecs[r*s.dim : (r+1)*s.dim : (r+1)*s.dim]
}

// SearchDense implements retrieval.DenseBackend.
func (s *Store) SearchDense(ctx context.Context, q []float32, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	if err := s.Verify(); err != nil {
		return nil, err
	}
	if len(q) != s.dim {
		return nil, fmt.Errorf("a query vector of dimension %d, the store's is %d", len(q), s.dim)
	}
	tops := b.NewTops()
	if q8 := s.q8.Load(); q8 != nil {
		s.scanQuantized(q8, [][]float32{q}, [][]uint8{b.Class}, nil, nil, [][]*retrieval.TopK{tops})
	} else {
		s.scan(q, b.Class, tops)
	}
	return retrieval.SortedAll(tops), ctx.Err()
}

// SearchDenseMany implements retrieval.MultiDenseBackend: one pass over
// the vectors for all queries, each row read once and scored against every
// query whose batch selects it (BenchmarkSearchDenseMany: five queries over
// Mathlib's vectors cost about a third of five single scans).
func (s *Store) SearchDenseMany(ctx context.Context, qs [][]float32, bs []*retrieval.Batch) ([][][]retrieval.Scored, error) {
	if len(qs) != len(bs) {
		return nil, fmt.Errorf("%d queries, %d batches", len(qs), len(bs))
	}
	if err := s.Verify(); err != nil {
		return nil, err
	}
	for _, q := range qs {
		// The kernels read dim values of every query.
		if len(q) != s.dim {
			return nil, fmt.Errorf("a query vector of dimension %d, the store's is %d", len(q), s.dim)
		}
	}
	classes := make([][]uint8, len(bs))
	tops := make([][]*retrieval.TopK, len(bs))
	shared, patched := make([][]uint8, len(bs)), make([][]int32, len(bs))
	for i, b := range bs {
		classes[i], tops[i] = b.Class, b.NewTops()
		if b.Shared != nil && len(b.Shared) == len(b.Class) {
			shared[i], patched[i] = b.Shared, b.Patched
		}
	}
	if q8 := s.quantized(); q8 != nil {
		s.scanQuantized(q8, qs, classes, shared, patched, tops)
	} else {
		s.scanMany(qs, classes, tops)
	}
	out := make([][][]retrieval.Scored, len(bs))
	for i := range tops {
		out[i] = retrieval.SortedAll(tops[i])
	}
	return out, ctx.Err()
}

// scanMany is scan for several queries, row by row: each row is scored
// against every query that wants it while it is in cache, three queries a
// kernel call (dot3). The dot products are scan's, so each query's list is
// bit for bit scan's.
func (s *Store) scanMany(qs [][]float32, classes [][]uint8, tops [][]*retrieval.TopK) {
	dim := s.dim
	want := make([]int, 0, len(qs))
	var out [3]float32
	for r := 0; r < s.rows; r++ {
		doc := r
		if s.docs != nil {
			doc = int(s.docs[r])
		}
		row := s.vecs[r*dim : (r+1)*dim : (r+1)*dim]
		want = want[:0]
		for j := range qs {
			if c := classes[j][doc]; c != 0 && int(c) <= len(tops[j]) && tops[j][c-1] != nil {
				want = append(want, j)
			}
		}
		i := 0
		for ; i+3 <= len(want); i += 3 {
			j0, j1, j2 := want[i], want[i+1], want[i+2]
			dot3(qs[j0], qs[j1], qs[j2], row, &out)
			tops[j0][classes[j0][doc]-1].Add(doc, out[0])
			tops[j1][classes[j1][doc]-1].Add(doc, out[1])
			tops[j2][classes[j2][doc]-1].Add(doc, out[2])
		}
		for _, j := range want[i:] {
			tops[j][classes[j][doc]-1].Add(doc, vek32.Dot(qs[j], row))
		}
	}
}

// scan scores q against every stored document whose class names a request
// with a TopK, once per document. (One query a pass is bound by memory:
// scoring three rows a kernel call measured slower here, BenchmarkDenseScan.)
func (s *Store) scan(q []float32, class []uint8, tops []*retrieval.TopK) {
	dim, n := s.dim, uint8(len(tops))
	for r := 0; r < s.rows; r++ {
		doc := r
		if s.docs != nil {
			doc = int(s.docs[r])
		}
		c := class[doc]
		if c == 0 || c > n || tops[c-1] == nil {
			continue
		}
		tops[c-1].Add(doc, vek32.Dot(q, s.vecs[r*dim:(r+1)*dim:(r+1)*dim]))
	}
}

// DotSIMD is the dot product used by search (viterin/vek, AVX2 when available).
func DotSIMD(a, b []float32) float32 { return vek32.Dot(a, b) }

// DotLoop is a plain Go loop, kept as the baseline of BenchmarkDot.
func DotLoop(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
