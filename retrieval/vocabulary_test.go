package retrieval

import (
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Words and phrases; a phrase wins over its words ("at most" is
		// not "most"); stopwords alone add nothing.
		// "log" and "sum" are in the query already.
		{"log of a product is the sum of the logs", "logarithm mul prod multiplication times add addition plus"},
		{"2ab is at most a^2 + b^2", "le less than or equal sq square add plus pow power"},
		{"Number of elements", "card cardinality count"},
		{"the of a an", ""},
		// A word already in the query is not added again.
		{"the sum and the addition", "add plus"},
		// Notation.
		{"a ∣ b → a ≤ b", "dvd divides le less than or equal"},
		{"n! > 0", "factorial lt less than"},
		{"", ""},
	} {
		if got := Expand(tc.in); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The vocabulary's keys are what Expand can match: lower case, single
// spaces, no stopword alone.
func TestVocabularyKeys(t *testing.T) {
	for k, v := range Vocabulary {
		if k != strings.ToLower(k) || strings.Join(strings.Fields(k), " ") != k || queryStopwords[k] {
			t.Errorf("key %q cannot match", k)
		}
		if slices.Contains(v, "") {
			t.Errorf("key %q expands to an empty word", k)
		}
	}
}

func FuzzExpand(f *testing.F) {
	f.Add("log of a product is the sum of the logs")
	f.Add("a ∣ b → a ≤ b, n! and e^x")
	f.Fuzz(func(t *testing.T, s string) {
		// Expand is deterministic (the notation order is fixed) and never panics.
		out := Expand(s)
		if again := Expand(s); again != out {
			t.Fatalf("Expand(%q) not deterministic: %q then %q", s, out, again)
		}
	})
}
