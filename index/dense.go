package index

import (
	"container/heap"
	"strings"

	"github.com/viterin/vek/vek32"
)

// scored is a document row with a score.
type scored struct {
	row   int
	score float32
}

// topK keeps the k best scored rows (a min-heap on score).
type topK struct {
	k int
	h scoredHeap
}

type scoredHeap []scored

func (h scoredHeap) Len() int { return len(h) }
func (h scoredHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].row > h[j].row
}
func (h scoredHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newTopK(k int) *topK { return &topK{k: k, h: make(scoredHeap, 0, k+1)} }

func (t *topK) add(row int, s float32) {
	if len(t.h) < t.k {
		heap.Push(&t.h, scored{row, s})
		return
	}
	if s > t.h[0].score {
		t.h[0] = scored{row, s}
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept rows, best first.
func (t *topK) sorted() []scored {
	out := make([]scored, len(t.h))
	h := append(scoredHeap(nil), t.h...)
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(scored)
	}
	return out
}

// DenseStore holds row-major float32 vectors for exact inner-product search.
// It is immutable after construction and safe for concurrent use.
type DenseStore struct {
	Vecs []float32
	Rows int
	Dim  int
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

// SearchBatch scores every allowed row against each query and returns the n
// best rows per query. allow may be nil (all rows). Rows are visited once for
// the whole batch, so a batch costs about one pass over memory.
func (d *DenseStore) SearchBatch(queries [][]float32, n int, allow func(row int) bool) [][]scored {
	tops := make([]*topK, len(queries))
	for i := range tops {
		tops[i] = newTopK(n)
	}
	dim := d.Dim
	for r := 0; r < d.Rows; r++ {
		if allow != nil && !allow(r) {
			continue
		}
		v := d.Vecs[r*dim : (r+1)*dim : (r+1)*dim]
		for qi, q := range queries {
			tops[qi].add(r, vek32.Dot(q, v))
		}
	}
	out := make([][]scored, len(queries))
	for i, t := range tops {
		out[i] = t.sorted()
	}
	return out
}

func lowerString(s string) string { return strings.ToLower(s) }
