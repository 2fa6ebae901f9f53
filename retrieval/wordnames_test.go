package retrieval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestWordNameTokens(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Learnt from Mathlib's docstrings, not written: the table's
		// strongest pairs.
		{"p divides a times b", "dvd"},
		{"the derivative of the sine", "deriv"},
		{"kernel of a linear map", "ker"},
		// A word the query already holds is not added again.
		{"the product prod", ""},
		{"", ""},
	} {
		got := strings.Fields(WordNameTokens(tc.in))
		for _, w := range strings.Fields(tc.want) {
			if !slices.Contains(got, w) {
				t.Errorf("WordNameTokens(%q) = %q, want it to hold %q", tc.in, got, w)
			}
		}
		if tc.want == "" && len(got) > 0 && tc.in == "" {
			t.Errorf("WordNameTokens(%q) = %q, want nothing", tc.in, got)
		}
		if tc.in == "the product prod" && slices.Contains(got, "prod") {
			t.Errorf("WordNameTokens(%q) repeats prod: %q", tc.in, got)
		}
	}
}

// TestWordNamesFile checks the embedded table: keys a query can match,
// tokens that are name tokens (lower case, no spaces), no notation (the
// learnt symbol table was measured and left out), and an about line that
// says where it comes from.
func TestWordNamesFile(t *testing.T) {
	var f vocabularyFile
	if err := json.Unmarshal(wordNamesJSON, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Phrases) < 500 || len(f.Notation) != 0 || !strings.Contains(f.About, "internal/tools/wordnames") || !strings.Contains(f.About, "tune") {
		t.Fatalf("word-names.json: %d phrases, %d notation, about %q", len(f.Phrases), len(f.Notation), f.About)
	}
	for w, toks := range f.Phrases {
		if len(toks) == 0 || len(toks) > 3 {
			t.Errorf("%q → %q: want 1 to 3 tokens", w, toks)
		}
		for _, tok := range toks {
			if tok != nameToken(tok) || strings.ContainsAny(tok, " .") {
				t.Errorf("%q → %q: not a normalised name token", w, tok)
			}
		}
	}
	if _, err := NewVocabulary(f.Phrases, f.Notation); err != nil {
		t.Fatal(err)
	}
}

// TestQueryViewWordNames: off by default; with WordNames the table's tokens
// join the name signal's words.
func TestQueryViewWordNames(t *testing.T) {
	w := TheoremWeights()
	w.Symbols = false
	if _, extra := (*Table)(nil).QueryView("every prime that divides a product", &w, nil); w.WordNames || extra != "" {
		t.Errorf("theorem defaults: WordNames %v, extra %q; want off (neutral on the held-out half and the second sets)", w.WordNames, extra)
	}
	w.WordNames = true
	_, extra := (*Table)(nil).QueryView("every prime that divides a product", &w, nil)
	if !slices.Contains(strings.Fields(extra), "dvd") {
		t.Errorf("WordNames on: extra %q, want dvd among it", extra)
	}
}
