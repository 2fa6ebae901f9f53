package retrieval

import (
	"math"
	"slices"
	"testing"
)

func TestScoreAt(t *testing.T) {
	gold := map[string]bool{"A": true, "B": true, "C": true, "D": true}
	for _, c := range []struct {
		name      string
		ranked    []string
		k         int
		p, r, f1  float64
		ndcgAbove float64
	}{
		{"set of two, one right", []string{"A", "X"}, 2, 0.5, 0.25, 1.0 / 3, 0},
		{"all right", []string{"A", "B", "C", "D"}, 4, 1, 1, 1, 0.999},
		{"cutoff beyond list", []string{"A"}, 5, 0.2, 0.25, 2 * 0.2 * 0.25 / 0.45, 0},
		{"no hit", []string{"X", "Y"}, 2, 0, 0, 0, 0},
		{"empty set", nil, 0, 0, 0, 0, 0},
	} {
		m := ScoreAt(c.ranked, gold, c.k)
		if math.Abs(m.P-c.p) > 1e-9 || math.Abs(m.R-c.r) > 1e-9 || math.Abs(m.F1-c.f1) > 1e-9 || m.NDCG < c.ndcgAbove {
			t.Errorf("%s: got %+v, want P %.3f R %.3f F1 %.3f", c.name, m, c.p, c.r, c.f1)
		}
		if math.IsNaN(m.P) || math.IsNaN(m.NDCG) {
			t.Errorf("%s: NaN in %+v", c.name, m)
		}
	}
	if m := ScoreAt([]string{"A"}, nil, 1); m.P != 0 || m.R != 0 {
		t.Errorf("empty gold: %+v", m)
	}
}

func TestGoldPremises(t *testing.T) {
	got := GoldPremises([]string{"A", "Self", "B", "A"}, "Self")
	if !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("got %v", got)
	}
	if got := GoldPremises(nil, ""); got == nil || len(got) != 0 {
		t.Errorf("want empty non-nil, got %#v", got)
	}
}
