package train

import (
	"context"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// BenchmarkStep is one optimisation step at the benchmark shape:
// 1024 → 256, 64 queries × 4 passages. One epoch over 100k pairs is
// 100000/64 = 1563 steps.
func BenchmarkStep(b *testing.B) {
	const bs, g, in, out = 64, 4, 1024, 256
	r := rand.New(rand.NewPCG(1, 2))
	bt := randomBatch(r, bs, g, in, true)
	w := initWeights(r, in, out)
	m, err := newModel(tensor.Float32, bs, bs*g, in, out, false, 0.02, w, w, 1e-3)
	if err != nil {
		b.Fatal(err)
	}
	defer m.close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.step(bt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)*100000/bs, "s/epoch100k")
}

// BenchmarkEpoch100k trains one full epoch over 100k synthetic pairs
// (1024 → 256) including batch assembly and the two validation passes
// (2,000 valid queries against 20k documents). Run it alone:
// go test -run '^$' -bench Epoch100k -benchtime 1x ./train/
func BenchmarkEpoch100k(b *testing.B) {
	const in, nDocs, nTrain, nValid = 1024, 20000, 100000, 2000
	r := rand.New(rand.NewPCG(5, 6))
	d := &Data{InDim: in, NumDocs: nDocs, Docs: make([]float32, nDocs*in)}
	for i := range d.Docs {
		d.Docs[i] = float32(r.NormFloat64())
	}
	mk := func(n int) []Example {
		ex := make([]Example, n)
		for i := range ex {
			q := make([]float32, in)
			for j := range q {
				q[j] = float32(r.NormFloat64())
			}
			neg := make([]int32, 15)
			for j := range neg {
				neg[j] = int32(r.IntN(nDocs))
			}
			ex[i] = Example{Query: q, Pos: []int32{int32(r.IntN(nDocs)), int32(r.IntN(nDocs))}, Neg: neg}
		}
		return ex
	}
	d.Train, d.Valid = mk(nTrain), mk(nValid)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Train(context.Background(), d, Options{OutDim: 256, Epochs: 1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.Seconds, "s/epoch")
	}
}
