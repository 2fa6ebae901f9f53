package leantext

import (
	"slices"
	"testing"
)

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

func TestKeywordClasses(t *testing.T) {
	for _, c := range []struct {
		word string
		in   Class
		not  Class
	}{
		{"theorem", Decl | Statement | Reserved, Command | Modifier | SoftCommand},
		{"irreducible_def", Decl, Statement | Reserved},
		{"namespace", Command | Reserved, Decl},
		{"open", SoftCommand | Reserved, Command},
		{"scoped", SoftCommand | Modifier, Reserved},
		{"noncomputable", Modifier | Reserved, Decl},
		{"fun", Reserved, Decl | Command},
		{"irreducible", 0, Command}, // an attribute, not a command
		{"Nat", 0, Decl | Command | SoftCommand | Modifier | Statement | Reserved},
	} {
		for b := Class(1); b <= Reserved; b <<= 1 {
			if c.in&b != 0 && !Is(c.word, b) {
				t.Errorf("%q is not of class %b", c.word, b)
			}
			if c.not&b != 0 && Is(c.word, b) {
				t.Errorf("%q is of class %b", c.word, b)
			}
		}
	}
}

// TestWords: the statement keywords a reader searches a text for are the
// table's, theorem, lemma and example; a class's list holds its words only.
func TestWords(t *testing.T) {
	if got, want := Words(Statement), []string{"example", "lemma", "theorem"}; !slices.Equal(got, want) {
		t.Errorf("Words(Statement) = %q, want %q", got, want)
	}
	mods := Words(Modifier)
	for _, w := range []string{"private", "protected", "noncomputable", "nonrec", "unsafe", "partial", "scoped", "local"} {
		if !slices.Contains(mods, w) {
			t.Errorf("Words(Modifier) = %q lacks %q", mods, w)
		}
	}
	for _, w := range mods {
		if !Is(w, Modifier) {
			t.Errorf("Words(Modifier) lists %q, which is no modifier", w)
		}
	}
}
