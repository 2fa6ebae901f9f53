package leantext

import "testing"

func TestTopIndex(t *testing.T) {
	for _, c := range []struct {
		s    string
		r    rune
		want int
	}{
		{"(x : ℕ) : x = x", ':', len("(x : ℕ) ")},
		{"{s : Set α} := foo", ':', -1},
		{"⟨a, b⟩ : p ↔ q", ':', len("⟨a, b⟩ ")},
		{"(h : a ↔ b) : p ↔ q", '↔', len("(h : a ↔ b) : p ")},
		{"no colon here", ':', -1},
	} {
		if got := TopIndex(c.s, c.r); got != c.want {
			t.Errorf("TopIndex(%q, %q) = %d, want %d", c.s, c.r, got, c.want)
		}
	}
}
