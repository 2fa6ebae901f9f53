package retrieval

import (
	"testing"
	"unicode"
)

// The ASCII tables of the tokenizer's fast paths agree with the rune
// functions they stand for, on every ASCII byte (#29).
func TestASCIITablesMatchRuneClasses(t *testing.T) {
	for c := range 128 {
		r := rune(c)
		want := 4
		switch {
		case unicode.IsUpper(r):
			want = 1
		case unicode.IsDigit(r):
			want = 2
		case unicode.IsLetter(r):
			want = 3
		}
		if got := asciiClass(byte(c)); got != want {
			t.Errorf("asciiClass(%q) = %d, want %d", r, got, want)
		}
		if got, want := isWordRuneAt(r), isWordRune(r); got != want {
			t.Errorf("isWordRuneAt(%q) = %v, want %v", r, got, want)
		}
	}
}
