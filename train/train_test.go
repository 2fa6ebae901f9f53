package train

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// synthetic makes a corpus where a query is a fixed random linear map of its
// positive documents plus noise: raw cosine ranks badly, a learned asymmetric
// head ranks well.
func synthetic(seed uint64, in, nDocs, nTrain, nValid, nPos, nNeg int) *Data {
	r := rand.New(rand.NewPCG(seed, 1))
	mix := make([]float32, in*in)
	for i := range mix {
		mix[i] = float32(r.NormFloat64())
	}
	d := &Data{InDim: in, NumDocs: nDocs, Docs: make([]float32, nDocs*in)}
	for i := range d.Docs {
		d.Docs[i] = float32(r.NormFloat64())
	}
	mk := func(n int, id string) []Example {
		out := make([]Example, n)
		for k := range out {
			ex := Example{ID: id, Query: make([]float32, in)}
			for len(ex.Pos) < nPos {
				p := int32(r.IntN(nDocs))
				if !slices.Contains(ex.Pos, p) {
					ex.Pos = append(ex.Pos, p)
				}
			}
			for _, p := range ex.Pos {
				doc := d.Docs[int(p)*in : (int(p)+1)*in]
				for i := 0; i < in; i++ {
					var s float32
					for j := 0; j < in; j++ {
						s += mix[i*in+j] * doc[j]
					}
					ex.Query[i] += s
				}
			}
			for i := range ex.Query {
				ex.Query[i] += 0.3 * float32(r.NormFloat64())
			}
			for len(ex.Neg) < nNeg {
				c := int32(r.IntN(nDocs))
				if !slices.Contains(ex.Pos, c) && !slices.Contains(ex.Neg, c) {
					ex.Neg = append(ex.Neg, c)
				}
			}
			out[k] = ex
		}
		return out
	}
	d.Train = mk(nTrain, "train")
	d.Valid = mk(nValid, "valid")
	return d
}

func TestTrainLearnsHiddenMap(t *testing.T) {
	for _, c := range []struct {
		name    string
		in, out int
		tied    bool
	}{
		{"separate 16→16", 16, 16, false},
		{"separate 16→8", 16, 8, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := synthetic(1, c.in, 300, 1500, 200, 2, 8)
			var logged []LogEntry
			res, err := Train(context.Background(), d, Options{OutDim: c.out, Tied: c.tied, Temperature: 0.1, LearnRate: 0.01,
				BatchSize: 32, Epochs: 8, Patience: 3, Seed: 7}, func(e LogEntry) { logged = append(logged, e) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("baseline R@5 %.3f, initial %.3f, best %.3f (epoch %d), %s", res.BaselineRecall, res.InitialRecall, res.BestRecall, res.BestEpoch, res.StopReason)
			if res.BestRecall < 0.5 || res.BestRecall < res.BaselineRecall+0.3 {
				t.Errorf("head did not learn: best R@5 %.3f, baseline %.3f", res.BestRecall, res.BaselineRecall)
			}
			if len(logged) != len(res.Log) || len(logged) < 2 || logged[0].Step != 0 {
				t.Errorf("log: %d callbacks, %d entries", len(logged), len(res.Log))
			}
			if len(res.Q) != c.in*c.out || len(res.D) != c.in*c.out {
				t.Errorf("weights: %d, %d values", len(res.Q), len(res.D))
			}
			for _, e := range res.Log[1:] {
				if e.TrainLoss <= 0 {
					t.Errorf("epoch %d: train loss %v", e.Epoch, e.TrainLoss)
				}
			}
		})
	}
}

func TestTrainDeterministic(t *testing.T) {
	run := func() *Result {
		d := synthetic(2, 8, 50, 100, 20, 1, 3)
		res, err := Train(context.Background(), d, Options{OutDim: 4, BatchSize: 10, Epochs: 2, Seed: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if !slices.Equal(a.Q, b.Q) || !slices.Equal(a.D, b.D) {
		t.Fatal("same seed, different weights")
	}
}

func TestTrainErrors(t *testing.T) {
	d := synthetic(3, 8, 50, 10, 5, 1, 3)
	d.Valid = nil
	if _, err := Train(context.Background(), d, Options{}, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("no valid: err = %v", err)
	}
	d = synthetic(3, 8, 50, 10, 5, 1, 3)
	d.Train[0].Pos = []int32{99}
	if _, err := Train(context.Background(), d, Options{}, nil); err == nil {
		t.Error("out-of-range positive accepted")
	}
	d = synthetic(3, 8, 50, 100, 5, 1, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, d, Options{BatchSize: 10}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestFillBatchMasksOtherPositives(t *testing.T) {
	d := synthetic(4, 4, 20, 4, 1, 1, 2)
	// queries 0 and 1 share document 5 as a positive; query 0 also has 6.
	d.Train[0].Pos = []int32{5, 6}
	d.Train[1].Pos = []int32{5}
	d.Train[0].Neg = []int32{1, 2}
	d.Train[1].Neg = []int32{6, 3}
	r := rand.New(rand.NewPCG(1, 1))
	const g = 3
	bt := newBatch(2, 2*g, 4)
	docs := make([]int32, 2*g)
	fillBatch(r, d, []int{0, 1}, g, bt, docs)
	p := 2 * g
	for i := 0; i < 2; i++ {
		if bt.y[i*p+i*g] != 1 {
			t.Fatalf("query %d: target not at its group start", i)
		}
		for j, doc := range docs {
			masked := bt.mask[i*p+j] != 0
			want := j != i*g && slices.Contains(d.Train[i].Pos, doc)
			if masked != want {
				t.Errorf("query %d passage %d (doc %d): masked=%v want %v", i, j, doc, masked, want)
			}
		}
	}
	if !slices.Contains(docs[g:], 6) {
		t.Fatalf("query 1's negative 6 missing from %v", docs)
	}
}

func TestTopK(t *testing.T) {
	v := []float32{0.1, 0.9, 0.5, 0.9, -1, 0.7}
	if got := topK(v, 3); !slices.Equal(got, []int{1, 3, 5}) {
		t.Fatalf("topK = %v", got)
	}
	if got := topK(v, 10); len(got) != len(v) {
		t.Fatalf("topK beyond length = %v", got)
	}
}
