package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"
)

// dot3 is vek32.Dot bit for bit: the dense scores, and so every ranking,
// do not depend on which of them scored a row.
func TestDot3IsVekDotBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 31, 32, 64, 100, 256, 384, 768, 1024} {
		for trial := range 200 {
			vs := make([][]float32, 4)
			for i := range vs {
				vs[i] = make([]float32, n)
				scale := float32(math.Pow(10, float64(rng.IntN(7)-3)))
				for j := range vs[i] {
					vs[i][j] = (rng.Float32()*2 - 1) * scale
				}
			}
			if trial%3 == 0 {
				for _, v := range vs {
					normalizeForTest(v)
				}
			}
			var out [3]float32
			dot3(vs[0], vs[1], vs[2], vs[3], &out)
			for i := range 3 {
				if want := vek32.Dot(vs[3], vs[i]); math.Float32bits(out[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d trial %d row %d: dot3 %v (%08x), vek32.Dot %v (%08x)", n, trial, i, out[i], math.Float32bits(out[i]), want, math.Float32bits(want))
				}
			}
		}
	}
}

func normalizeForTest(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(s))
	}
}

// BenchmarkDot3 compares the three-row kernel with three vek32.Dot calls
// over rows of a 256-dimensional store.
func BenchmarkDot3(b *testing.B) {
	for _, rows := range []int{300, 3000, 30000} {
		b.Run(fmt.Sprint(rows), func(b *testing.B) { benchDot3(b, rows) })
	}
}

func benchDot3(b *testing.B, rows int) {
	const dim = 256
	vecs := make([]float32, rows*dim)
	for i := range vecs {
		vecs[i] = rand.Float32() - 0.5
	}
	q := vecs[:dim]
	var out [3]float32
	b.Run("dot3", func(b *testing.B) {
		for b.Loop() {
			for r := 0; r+3 <= rows; r += 3 {
				dot3(vecs[r*dim:(r+1)*dim], vecs[(r+1)*dim:(r+2)*dim], vecs[(r+2)*dim:(r+3)*dim], q, &out)
			}
		}
	})
	b.Run("vek32", func(b *testing.B) {
		for b.Loop() {
			for r := 0; r+3 <= rows; r += 3 {
				out[0] = vek32.Dot(q, vecs[r*dim:(r+1)*dim])
				out[1] = vek32.Dot(q, vecs[(r+1)*dim:(r+2)*dim])
				out[2] = vek32.Dot(q, vecs[(r+2)*dim:(r+3)*dim])
			}
		}
	})
}
