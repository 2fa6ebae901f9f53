package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// refLoss is a plain-Go float64 implementation of the objective documented on
// model, used to check the graph's forward pass and, by finite differences,
// its gradients.
func refLoss(bt *batch, b, p, in, out int, tau float64, wq, wd []float64) float64 {
	proj := func(x []float32, rows int, w []float64) [][]float64 {
		z := make([][]float64, rows)
		for r := 0; r < rows; r++ {
			z[r] = make([]float64, out)
			for j := 0; j < out; j++ {
				var s float64
				for i := 0; i < in; i++ {
					s += float64(x[r*in+i]) * w[i*out+j]
				}
				z[r][j] = s
			}
			var n float64
			for _, v := range z[r] {
				n += v * v
			}
			n = math.Sqrt(n + 1e-12)
			for j := range z[r] {
				z[r][j] /= n
			}
		}
		return z
	}
	zq, zp := proj(bt.xq, b, wq), proj(bt.xp, p, wd)
	var total float64
	for i := 0; i < b; i++ {
		var sumExp, tgt float64
		for j := 0; j < p; j++ {
			var c float64
			for k := 0; k < out; k++ {
				c += zq[i][k] * zp[j][k]
			}
			s := c/tau - 1/tau + float64(bt.mask[i*p+j])
			sumExp += math.Exp(s)
			tgt += float64(bt.y[i*p+j]) * s
		}
		total += math.Log(sumExp) - tgt
	}
	return total / float64(b)
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// randomBatch makes a batch with group size g: query i's target is passage
// i*g; one extra in-batch positive per query is masked when mask is true.
func randomBatch(r *rand.Rand, b, g, in int, mask bool) *batch {
	p := b * g
	bt := newBatch(b, p, in)
	for i := range bt.xq {
		bt.xq[i] = float32(r.NormFloat64())
	}
	for i := range bt.xp {
		bt.xp[i] = float32(r.NormFloat64())
	}
	for i := 0; i < b; i++ {
		bt.y[i*p+i*g] = 1
		if mask {
			j := ((i + 1) % b) * g
			bt.mask[i*p+j] = maskValue
		}
	}
	return bt
}

func TestGradientsMatchFiniteDifferences(t *testing.T) {
	cases := []struct {
		name          string
		b, g, in, out int
		tied, mask    bool
		tau           float64
	}{
		{"separate", 3, 2, 5, 4, false, false, 0.5},
		{"tied", 3, 3, 4, 3, true, false, 0.5},
		{"masked", 4, 2, 5, 3, false, true, 0.5},
		// a low temperature makes the softmax peaked: the regime of real training
		{"tau 0.05", 3, 2, 6, 4, false, true, 0.05},
		{"one query", 1, 4, 3, 2, false, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(c.b*100+c.g)))
			bt := randomBatch(r, c.b, c.g, c.in, c.mask)
			q0 := make([]float32, c.in*c.out)
			d0 := make([]float32, c.in*c.out)
			for i := range q0 {
				q0[i] = float32(r.NormFloat64())
				d0[i] = float32(r.NormFloat64())
			}
			if c.tied {
				d0 = q0
			}
			m, err := newModel(tensor.Float64, c.b, c.b*c.g, c.in, c.out, c.tied, c.tau, q0, d0, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer m.close()
			loss, err := m.forward(bt)
			if err != nil {
				t.Fatal(err)
			}
			want := refLoss(bt, c.b, c.b*c.g, c.in, c.out, c.tau, f64(q0), f64(d0))
			if math.Abs(loss-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("forward loss %v, reference %v", loss, want)
			}
			gq, gd, err := m.grads()
			if err != nil {
				t.Fatal(err)
			}
			// Central differences on the float64 reference. Weights were
			// rounded to float32 when the graph was built, so the reference
			// starts from exactly the same point.
			wq, wd := f64(q0), f64(d0)
			fd := func(w []float64, i int) float64 {
				const h = 1e-5
				old := w[i]
				w[i] = old + h
				lp := refLoss(bt, c.b, c.b*c.g, c.in, c.out, c.tau, wq, wdOrQ(c.tied, wq, wd))
				w[i] = old - h
				lm := refLoss(bt, c.b, c.b*c.g, c.in, c.out, c.tau, wq, wdOrQ(c.tied, wq, wd))
				w[i] = old
				return (lp - lm) / (2 * h)
			}
			check := func(name string, got []float32, w []float64) {
				var maxRel float64
				nonzero := 0
				for i := range w {
					num := fd(w, i)
					// getDense converts to float32: compare at that precision.
					diff := math.Abs(float64(got[i]) - num)
					rel := diff / math.Max(1e-3, math.Abs(num))
					if rel > maxRel {
						maxRel = rel
					}
					if math.Abs(num) > 1e-6 {
						nonzero++
					}
				}
				if nonzero == 0 {
					t.Fatalf("%s: all finite-difference gradients are zero: the check would prove nothing", name)
				}
				if maxRel > 1e-3 {
					t.Errorf("%s: gradient differs from finite differences (max relative error %.2g)", name, maxRel)
				}
			}
			check("dL/dWq", gq, wq)
			if !c.tied {
				check("dL/dWd", gd, wd)
			}
		})
	}
}

func wdOrQ(tied bool, wq, wd []float64) []float64 {
	if tied {
		return wq
	}
	return wd
}

// TestMaskRemovesPassage checks that a masked passage has no influence on the loss.
func TestMaskRemovesPassage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const b, g, in, out = 2, 2, 4, 3
	bt := randomBatch(r, b, g, in, false)
	q0 := make([]float32, in*out)
	for i := range q0 {
		q0[i] = float32(r.NormFloat64())
	}
	m, err := newModel(tensor.Float64, b, b*g, in, out, true, 0.1, q0, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	bt.mask[0*b*g+3] = maskValue
	l1, err := m.forward(bt)
	if err != nil {
		t.Fatal(err)
	}
	// Changing the masked passage (row 3) must leave query 0's term unchanged;
	// query 1's target is passage 2, and passage 3 is its own negative, so
	// change only what query 0 sees by masking it for query 1 too.
	bt.mask[1*b*g+3] = maskValue
	l2, _ := m.forward(bt)
	for i := 3 * in; i < 4*in; i++ {
		bt.xp[i] += 5
	}
	l3, _ := m.forward(bt)
	if math.Abs(l2-l3) > 1e-9 {
		t.Fatalf("masked passage changed the loss: %v → %v", l2, l3)
	}
	if l1 == l2 {
		t.Fatalf("masking for query 1 did not change the loss (%v)", l1)
	}
}

// TestFloat32MatchesFloat64 checks the float32 graph used for training.
func TestFloat32MatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const b, g, in, out = 4, 4, 16, 8
	bt := randomBatch(r, b, g, in, true)
	q0 := make([]float32, in*out)
	d0 := make([]float32, in*out)
	for i := range q0 {
		q0[i] = float32(r.NormFloat64())
		d0[i] = float32(r.NormFloat64())
	}
	var losses [2]float64
	var grads [2][]float32
	for k, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		m, err := newModel(dt, b, b*g, in, out, false, 0.02, q0, d0, 0)
		if err != nil {
			t.Fatal(err)
		}
		losses[k], err = m.forward(bt)
		if err != nil {
			t.Fatal(err)
		}
		grads[k], _, _ = m.grads()
		m.close()
	}
	if math.Abs(losses[0]-losses[1]) > 1e-3*math.Max(1, losses[0]) {
		t.Fatalf("float32 loss %v, float64 %v", losses[1], losses[0])
	}
	for i := range grads[0] {
		if math.Abs(float64(grads[0][i]-grads[1][i])) > 1e-2*math.Max(1, math.Abs(float64(grads[0][i]))) {
			t.Fatalf("grad %d: float32 %v, float64 %v", i, grads[1][i], grads[0][i])
		}
	}
}
