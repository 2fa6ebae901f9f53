package informalize

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/internal/jsonfile"
)

// Vocabulary is what the template informalizer knows of a library's words:
// how parts of names read in English (le → "less than or equal"), which
// structure a namespace stands for (Nat → "natural numbers"), how class
// names and types read. Mathlib's is the default (DefaultVocabulary); a
// library with its own naming loads a file that extends or replaces it
// (LoadVocabulary). A Vocabulary is read-only once informalization starts
// and safe for concurrent use then.
type Vocabulary struct {
	// Words reads lower-case parts of declaration names.
	Words map[string]string `json:"words"`
	// Namespaces reads namespace components (case as written).
	Namespaces map[string]string `json:"namespaces"`
	// ClassWords reads lower-case parts of class names (add → "additive").
	ClassWords map[string]string `json:"class_words"`
	// Types reads whole types, singular and plural (ℕ → natural number,
	// natural numbers).
	Types map[string][2]string `json:"types"`
	// Collections reads the head of a collection type, singular and plural
	// (Set α → "set of α").
	Collections map[string][2]string `json:"collections"`

	once sync.Once
	sum  string
}

var mathlibVocabulary = sync.OnceValue(func() *Vocabulary {
	return &Vocabulary{Words: words, Namespaces: namespaceWords, ClassWords: classWords, Types: typeWords, Collections: typeHeads}
})

// DefaultVocabulary returns a copy of Mathlib's vocabulary; the caller may
// change it.
func DefaultVocabulary() *Vocabulary {
	m := mathlibVocabulary()
	return &Vocabulary{Words: maps.Clone(m.Words), Namespaces: maps.Clone(m.Namespaces), ClassWords: maps.Clone(m.ClassWords),
		Types: maps.Clone(m.Types), Collections: maps.Clone(m.Collections)}
}

func (v *Vocabulary) orDefault() *Vocabulary {
	if v == nil {
		return mathlibVocabulary()
	}
	return v
}

// SHA256 identifies the vocabulary's content (part of the template's prompt
// version, so changing it redoes the rows it wrote). It is computed once:
// change no table after the first call.
func (v *Vocabulary) SHA256() string {
	v = v.orDefault()
	v.once.Do(func() {
		b, _ := json.Marshal(v) // maps marshal in key order
		h := sha256.Sum256(b)
		v.sum = hex.EncodeToString(h[:])
	})
	return v.sum
}

// ErrVocabulary is wrapped by errors about a vocabulary file.
var ErrVocabulary = errors.New("bad vocabulary file")

// LoadVocabulary reads a vocabulary file: a JSON object with the fields of
// Vocabulary and "extends" ("mathlib", the default, adds its entries to
// Mathlib's vocabulary, replacing a word's reading; "none" starts empty).
// For example
//
//	{"words": {"nf": "new foundations", "tangle": "tangle"},
//	 "namespaces": {"ConNF": "con-nf"},
//	 "types": {"Λ": ["type index", "type indices"]}}
//
// Unknown fields are an error, so a misspelt table is not silently ignored.
func LoadVocabulary(path string) (*Vocabulary, error) {
	var f struct {
		Extends string `json:"extends"`
		Vocabulary
	}
	if err := jsonfile.ReadStrict(path, &f, ErrVocabulary, "a JSON object with words, namespaces, class_words, types, collections, extends"); err != nil {
		return nil, err
	}
	var v *Vocabulary
	switch f.Extends {
	case "", "mathlib":
		v = DefaultVocabulary()
	case "none":
		v = &Vocabulary{Words: map[string]string{}, Namespaces: map[string]string{}, ClassWords: map[string]string{},
			Types: map[string][2]string{}, Collections: map[string][2]string{}}
	default:
		return nil, fmt.Errorf("%s: %w: extends %q (mathlib or none)", path, ErrVocabulary, f.Extends)
	}
	for _, t := range []struct {
		name     string
		from, to map[string]string
		lower    bool
	}{{"words", f.Words, v.Words, true}, {"namespaces", f.Namespaces, v.Namespaces, false}, {"class_words", f.ClassWords, v.ClassWords, true}} {
		for k, w := range t.from {
			if k == "" || strings.TrimSpace(w) == "" {
				return nil, fmt.Errorf("%s: %w: %s: %q → %q: want a name part and its non-empty reading", path, ErrVocabulary, t.name, k, w)
			}
			if t.lower && k != strings.ToLower(k) {
				return nil, fmt.Errorf("%s: %w: %s: %q: name parts are looked up in lower case", path, ErrVocabulary, t.name, k)
			}
			t.to[k] = w
		}
	}
	for _, t := range []struct {
		name     string
		from, to map[string][2]string
	}{{"types", f.Types, v.Types}, {"collections", f.Collections, v.Collections}} {
		for k, w := range t.from {
			if k == "" || strings.TrimSpace(w[0]) == "" || strings.TrimSpace(w[1]) == "" {
				return nil, fmt.Errorf("%s: %w: %s: %q: want [singular, plural], both non-empty", path, ErrVocabulary, t.name, k)
			}
			t.to[k] = w
		}
	}
	return v, nil
}
