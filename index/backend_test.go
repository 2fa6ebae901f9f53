package index_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
)

// bruteForce is a second dense backend written from the contract alone:
// every selected document scored with a plain loop, sorted, cut.
type bruteForce struct {
	vecs  [][]float32
	calls atomic.Int64
}

func (b *bruteForce) Dim() int { return len(b.vecs[0]) }

func (b *bruteForce) SearchDense(_ context.Context, q []float32, batch *retrieval.Batch) ([][]retrieval.Scored, error) {
	b.calls.Add(1)
	out := make([][]retrieval.Scored, len(batch.Requests))
	for i, r := range batch.Requests {
		if r.K <= 0 {
			continue
		}
		var all []retrieval.Scored
		for doc, c := range batch.Class {
			if int(c) == i+1 {
				var s float32
				for j := range q {
					s += q[j] * b.vecs[doc][j]
				}
				all = append(all, retrieval.Scored{Doc: doc, Score: s})
			}
		}
		slices.SortStableFunc(all, func(x, y retrieval.Scored) int {
			switch {
			case x.Score > y.Score:
				return -1
			case x.Score < y.Score:
				return 1
			}
			return x.Doc - y.Doc
		})
		out[i] = all[:min(r.K, len(all))]
	}
	return out, nil
}

// A second DenseBackend plugs in through OpenOptions.WrapDense without any
// change to search or evaluation code, and scores the same as the built-in
// store (float sums in another order may only swap exact near-ties, which
// the fixture has none of).
func TestToyDenseBackendPlugsIn(t *testing.T) {
	dir := fixtureWS(t)
	gen, _ := index.CurrentDir(dir)
	flat, rows, dim, err := index.ReadNPY(filepath.Join(gen, index.VectorsName))
	if err != nil {
		t.Fatal(err)
	}
	toy := &bruteForce{}
	for r := range rows {
		toy.vecs = append(toy.vecs, flat[r*dim:(r+1)*dim])
	}
	ix, err := index.Open(context.Background(), dir, &index.OpenOptions{WrapDense: func(retrieval.DenseBackend) (retrieval.DenseBackend, error) { return toy, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ref := openFixture(t)
	items, err := eval.ReadBenchFile("testdata/bench.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []retrieval.Mode{retrieval.ModeDense, retrieval.ModeBest} {
		var got, want []eval.PerItem
		o := eval.Options{Mode: m, Progress: func(int) {}}
		o.PerItem = func(p eval.PerItem) error { got = append(got, p); return nil }
		rt, err := eval.Retrieval(context.Background(), ix, ix, items, o)
		if err != nil {
			t.Fatal(err)
		}
		o.PerItem = func(p eval.PerItem) error { want = append(want, p); return nil }
		rr, err := eval.Retrieval(context.Background(), ref, ref, items, o)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) || rt.MRR != rr.MRR {
			t.Errorf("%s: the brute-force backend ranks differently from the store (MRR %v vs %v)", m, rt.MRR, rr.MRR)
		}
	}
	if toy.calls.Load() == 0 {
		t.Fatal("the toy backend was never asked")
	}
}
