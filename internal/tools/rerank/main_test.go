package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// toy is two queries of three candidates, two features: the gold is the
// candidate with the larger first feature, whatever the second says.
func toy() []example {
	return []example{
		{x: [][]float64{{0.2, 1}, {0.9, 0}, {0.1, 0.5}}, y: []float64{0, 1, 0}, ngold: 1},
		{x: [][]float64{{0.8, 0.3}, {0.3, 1}, {0.0, 0.2}}, y: []float64{1, 0, 0}, ngold: 1},
		{x: [][]float64{{0.1, 1}, {0.2, 0}}, y: []float64{0, 0}, ngold: 1}, // no gold: skipped
	}
}

// softmaxLoss's gradient is its loss's: central differences at a point
// agree with it to 1e-6 (the bias, which cancels, gets none).
func TestSoftmaxLossGradient(t *testing.T) {
	exs := toy()
	theta := []float64{0.7, -0.4, 0.3}
	g := make([]float64, len(theta))
	softmaxLoss(theta, exs, 1e-3, g)
	for i := range theta {
		const h = 1e-6
		up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
		up[i] += h
		down[i] -= h
		num := (softmaxLoss(up, exs, 1e-3, nil) - softmaxLoss(down, exs, 1e-3, nil)) / (2 * h)
		if math.Abs(num-g[i]) > 1e-6 {
			t.Errorf("d loss / d theta[%d]: gradient %.8f, central difference %.8f", i, g[i], num)
		}
	}
	if g[2] != 0 {
		t.Errorf("bias gradient %v, want 0 (it cancels in a softmax)", g[2])
	}
}

// Trained with the listwise loss, the toy's model ranks each gold first.
func TestSoftmaxFitRanksGoldFirst(t *testing.T) {
	exs := toy()
	theta := make([]float64, 3)
	adam(theta, make([]bool, 3), func(g, th []float64) float64 { return softmaxLoss(th, exs, 1e-3, g) }, 500)
	for q, ex := range exs[:2] {
		best, bi := math.Inf(-1), -1
		for i, x := range ex.x {
			if s := theta[0]*x[0] + theta[1]*x[1]; s > best {
				best, bi = s, i
			}
		}
		if ex.y[bi] != 1 {
			t.Errorf("query %d: candidate %d first (weights %v)", q, bi, theta)
		}
	}
}

// -exclude skips a training item that is a benchmark item, by id or by
// its query case folded.
func TestBenchItemsExcluded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"Mathlib.A/0","query":"The Kernel of a map","gold":["ker"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	skip, err := benchItems(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		it   item
		want bool
	}{
		{item{ID: "Mathlib.A/0", Query: "other words"}, true},
		{item{ID: "Mathlib.B/3", Query: "the KERNEL of a Map"}, true},
		{item{ID: "Mathlib.B/4", Query: "the kernel of a linear map"}, false},
	} {
		if got := skip(c.it); got != c.want {
			t.Errorf("%+v skipped: %v, want %v", c.it, got, c.want)
		}
	}
	if skip, err := benchItems(""); skip != nil || err != nil {
		t.Errorf("no -exclude: %v, %v", skip != nil, err)
	}
}
