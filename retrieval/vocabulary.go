package retrieval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/driftkit/driftkit/internal/jsonfile"
)

// Theorem search meets a vocabulary gap: a mathematician writes "the
// product of two primes", "at most", "n!", while a Lean library names the
// same things mul, prod, le, factorial. A Vocabulary bridges it with a
// table of everyday words, phrases and symbols → the words a library and
// its informalizations use. It is opt-in (search, eval search and serve
// take --vocabulary FILE; testdata/search/vocabulary-everyday.json is the
// one written for Mathlib): a table written by hand fits the queries of
// whoever wrote it, so no such table is a default (issue #25).

// Vocabulary is a loaded phrase table; nil is the empty vocabulary. It is
// read-only once loaded and safe for concurrent use.
type Vocabulary struct {
	phrases   map[string][]string
	notation  []notationEntry
	maxPhrase int
	id        string
}

// ErrVocabulary is wrapped by errors about a vocabulary file.
var ErrVocabulary = errors.New("bad search vocabulary file")

// vocabularyFile is the file format of LoadVocabulary.
type vocabularyFile struct {
	About    string              `json:"about"`
	Phrases  map[string][]string `json:"phrases"`
	Notation map[string][]string `json:"notation"`
}

// LoadVocabulary reads a vocabulary file: a JSON object with "phrases"
// (lower-cased words or phrases of single-space-separated words → words
// added to the query), "notation" (symbols, matched anywhere in the query
// → words) and an optional "about". A key that cannot match (upper case,
// extra spaces, a stopword alone) or an empty word is an error naming it.
func LoadVocabulary(path string) (*Vocabulary, error) {
	var f vocabularyFile
	if err := jsonfile.ReadStrict(path, &f, ErrVocabulary, `a JSON object with "phrases" and "notation", each mapping a key to a list of words`); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := NewVocabulary(f.Phrases, f.Notation)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	v.id = hex.EncodeToString(sum[:8])
	return v, nil
}

// NewVocabulary makes a vocabulary of phrases and notation (see
// LoadVocabulary); the maps are copied.
func NewVocabulary(phrases, notation map[string][]string) (*Vocabulary, error) {
	v := &Vocabulary{phrases: map[string][]string{}, maxPhrase: 1}
	for k, ws := range phrases {
		if k != strings.ToLower(k) || strings.Join(strings.Fields(k), " ") != k || queryStopwords[k] {
			return nil, fmt.Errorf("%w: phrase %q cannot match a query (want lower case, single spaces, not a stopword alone)", ErrVocabulary, k)
		}
		if slices.Contains(ws, "") {
			return nil, fmt.Errorf("%w: phrase %q lists an empty word", ErrVocabulary, k)
		}
		v.phrases[k] = slices.Clone(ws)
		v.maxPhrase = max(v.maxPhrase, strings.Count(k, " ")+1)
	}
	for sym, ws := range notation {
		if strings.TrimSpace(sym) == "" || slices.Contains(ws, "") {
			return nil, fmt.Errorf("%w: notation %q: want a symbol and non-empty words", ErrVocabulary, sym)
		}
		v.notation = append(v.notation, notationEntry{sym, slices.Clone(ws)})
	}
	slices.SortFunc(v.notation, func(a, b notationEntry) int {
		if la, lb := utf8.RuneCountInString(a.sym), utf8.RuneCountInString(b.sym); la != lb {
			return lb - la // longest symbols first
		}
		return strings.Compare(a.sym, b.sym)
	})
	return v, nil
}

// ID identifies a loaded vocabulary's content (the file's SHA-256 prefix;
// "" for nil and for one made by NewVocabulary).
func (v *Vocabulary) ID() string {
	if v == nil {
		return ""
	}
	return v.id
}

// queryStopwords are dropped before the vocabulary is looked up.
var queryStopwords = map[string]bool{"a": true, "an": true, "the": true, "is": true, "are": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "its": true, "it": true, "that": true, "this": true, "as": true, "by": true,
	"every": true, "any": true, "all": true, "some": true, "each": true, "then": true, "if": true, "be": true, "has": true,
	"have": true, "their": true, "them": true, "one": true, "two": true, "always": true}

// Expand returns the vocabulary words of text (phrases and notation) that
// text does not already contain, space-separated, each once: what theorem
// search adds to a query so that everyday wording meets the library's. A
// nil vocabulary adds nothing.
func (v *Vocabulary) Expand(text string) string {
	if v == nil {
		return ""
	}
	lower := strings.ToLower(text)
	var words []string
	Words(lower, func(w string, _, _ int) { words = append(words, strings.Trim(w, "'")) })
	have := map[string]bool{}
	for _, w := range words {
		have[w] = true
	}
	var out []string
	add := func(xs []string) {
		for _, x := range xs {
			if !have[strings.ToLower(x)] {
				have[strings.ToLower(x)] = true
				out = append(out, x)
			}
		}
	}
	for i := 0; i < len(words); {
		n := 0
		for l := min(v.maxPhrase, len(words)-i); l >= 1; l-- {
			if l == 1 && queryStopwords[words[i]] {
				break
			}
			if xs, ok := v.phrases[strings.Join(words[i:i+l], " ")]; ok {
				add(xs)
				n = l
				break
			}
		}
		i += max(n, 1)
	}
	for _, e := range v.notation {
		if strings.Contains(text, e.sym) {
			add(e.words)
		}
	}
	return strings.Join(out, " ")
}

type notationEntry struct {
	sym   string
	words []string
}
