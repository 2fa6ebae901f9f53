package retrieval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// everyday is the opt-in vocabulary written for Mathlib.
func everyday(t testing.TB) *Vocabulary {
	v, err := LoadVocabulary(filepath.Join("..", "testdata", "search", "vocabulary-everyday.json"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestExpand(t *testing.T) {
	v := everyday(t)
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
		if got := v.Expand(tc.in); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var none *Vocabulary
	if got := none.Expand("log of a product"); got != "" || none.ID() != "" {
		t.Errorf("nil vocabulary expands to %q", got)
	}
	if v.ID() == "" {
		t.Error("a loaded vocabulary has no ID")
	}
}

// A key Expand could never match, an empty word, an unknown field or bad
// JSON is an error naming the file.
func TestLoadVocabularyErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"upper", `{"phrases": {"Product": ["mul"]}}`, `phrase "Product" cannot match`},
		{"spaces", `{"phrases": {"at  most": ["le"]}}`, `phrase "at  most" cannot match`},
		{"stopword", `{"phrases": {"the": ["x"]}}`, `phrase "the" cannot match`},
		{"empty word", `{"notation": {"∣": ["dvd", ""]}}`, `notation "∣"`},
		{"unknown field", `{"phrase": {}}`, `unknown field`},
		{"syntax", "{\n\"phrases\": {,}}", `:2:`},
	} {
		path := filepath.Join(dir, tc.name+".json")
		os.WriteFile(path, []byte(tc.body), 0o644)
		_, err := LoadVocabulary(path)
		if !errors.Is(err, ErrVocabulary) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %q naming the file", tc.name, err, tc.want)
		}
	}
}

func FuzzExpand(f *testing.F) {
	v := everyday(f)
	f.Add("log of a product is the sum of the logs")
	f.Add("a ∣ b → a ≤ b, n! and e^x")
	f.Fuzz(func(t *testing.T, s string) {
		// Expand is deterministic (the notation order is fixed) and never panics.
		out := v.Expand(s)
		if again := v.Expand(s); again != out {
			t.Fatalf("Expand(%q) not deterministic: %q then %q", s, out, again)
		}
	})
}
