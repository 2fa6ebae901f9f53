package index

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// TestSearchDenseManyEqualsSearchDense holds the one-pass scan to the
// single-query scan, list for list, for full and subset stores, queries
// with different selections, and requests that ask for nothing.
func TestSearchDenseManyEqualsSearchDense(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 500, 16
	vecs := make([]float32, rows*dim)
	for i := range vecs {
		vecs[i] = r.Float32() - 0.5
	}
	// Ties: two identical rows, so the doc-id tie-break is exercised.
	copy(vecs[7*dim:8*dim], vecs[3*dim:4*dim])
	docs := make([]int32, 0, rows/2)
	for d := 0; d < rows; d += 2 {
		docs = append(docs, int32(d))
	}
	subVecs := make([]float32, 0, len(docs)*dim)
	for _, d := range docs {
		subVecs = append(subVecs, vecs[int(d)*dim:(int(d)+1)*dim]...)
	}
	stores := map[string]*Store{
		"full":   NewStore(vecs, rows, dim),
		"subset": newSubsetStore(subVecs, dim, docs, rows),
	}
	mkClass := func(mod int) []uint8 {
		c := make([]uint8, rows)
		for i := range c {
			c[i] = uint8((i * 7 / (mod + 1)) % 3) // 0 (neither), 1, 2
		}
		return c
	}
	var qs [][]float32
	var bs []*retrieval.Batch
	for i := 0; i < 6; i++ {
		qs = append(qs, vecs[(i*37%rows)*dim:(i*37%rows+1)*dim])
		reqs := []retrieval.Request{{K: 5 + i}, {K: 3}}
		switch i {
		case 2:
			reqs = reqs[:1] // no neighbour request
		case 4:
			reqs[1].K = 0 // a request asking for nothing
		}
		bs = append(bs, &retrieval.Batch{Requests: reqs, Class: mkClass(i)})
	}
	for name, s := range stores {
		got, err := s.SearchDenseMany(context.Background(), qs, bs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range qs {
			want, _ := s.SearchDense(context.Background(), qs[i], bs[i])
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("%s query %d:\n one pass %v\n   single %v", name, i, got[i], want)
			}
		}
	}
	if _, err := stores["full"].SearchDenseMany(context.Background(), qs, bs[:2]); err == nil {
		t.Error("mismatched queries and batches accepted")
	}
}
