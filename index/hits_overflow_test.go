package index

import (
	"context"
	"strings"
	"testing"
)

// TestManyQueryTokensScoreOnce: a query whose matched tokens add up to
// 65,536 or more (a long CLI or mining query) scores each document once and
// above 0 — a uint16 hit count wrapped to 0 there, scored the document 0
// and reported it a second time when a later term matched it (review).
func TestManyQueryTokensScoreOnce(t *testing.T) {
	p, err := BuildPostings(context.Background(), []string{"zeta", "omega", "kappa omega psi"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"kappa " + strings.Repeat("omega ", 65535) + "psi",
		strings.Repeat("omega ", 65536),
	} {
		seen := map[int]int{}
		if err := p.Score(q, func(d int, s float32) {
			seen[d]++
			if !(s > 0) {
				t.Errorf("doc %d scores %g", d, s)
			}
		}); err != nil {
			t.Fatal(err)
		}
		for d, n := range seen {
			if n != 1 {
				t.Errorf("doc %d reported %d times", d, n)
			}
		}
		if len(seen) != 2 {
			t.Errorf("%d documents matched, want 2 (omega, kappa omega psi)", len(seen))
		}
	}
}
