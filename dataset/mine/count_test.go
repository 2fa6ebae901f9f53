package mine

import "testing"

// TestNegativesNone: a negative count (what `mine --negatives 0` stores)
// is none, zero the default.
func TestNegativesNone(t *testing.T) {
	for in, want := range map[int]int{0: 15, -1: 0, 4: 4} {
		o := Options{Negatives: in}
		o.fill()
		if o.Negatives != want {
			t.Errorf("Negatives %d → %d, want %d", in, o.Negatives, want)
		}
	}
}
