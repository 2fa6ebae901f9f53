package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/internal/jsonfile"
)

// Naming holds the word tables by which extract guesses the names of the
// declarations that Mathlib's to_additive and to_dual attributes generate
// (mul_one → add_zero, Iio → Ioi). The tables are Mathlib's conventions;
// DefaultNaming returns them, and a library with other conventions (its own
// multiplicative/additive vocabulary, another order-dual attribute) loads a
// file that extends or replaces them (LoadNaming). A Naming is read-only
// once extraction starts and safe for concurrent use then.
type Naming struct {
	// Additive translates words of a multiplicative name (mul → add,
	// one → zero); a word mapped to itself is kept.
	Additive map[string]string `json:"additive"`
	// AdditiveNames translates whole names before the word rules
	// (IsSquare → Even).
	AdditiveNames map[string]string `json:"additive_names"`
	// Dual translates order-theoretic words to their duals (bot → top).
	Dual map[string]string `json:"dual"`
	// KeepNamespaces are namespace components never translated (Set in
	// Set.mul_mem stays Set).
	KeepNamespaces []string `json:"keep_namespaces"`
	// Abbreviations replace a pair of words of a translated additive name
	// by one ([zero, le, nonneg]: mabs_of_one_le → abs_of_nonneg).
	Abbreviations [][3]string `json:"abbreviations"`
	// Rewrites are replacements applied to a translated additive name, in
	// order (CommAdd → AddComm: Mathlib writes AddCommMonoid).
	Rewrites [][2]string `json:"rewrites"`

	// additiveDict and dualDict, when set, are the library's own guessName
	// dictionaries (libraryNaming): names are then guessed as Mathlib's
	// guessName guesses them (AdditiveNames still first), not by the word
	// tables above. Read-only, shared by clones.
	additiveDict, dualDict *guessDict
}

// mathlibNaming is Mathlib's tables, built once and never changed.
var mathlibNaming = sync.OnceValue(func() *Naming {
	return &Naming{
		Additive:       additiveWords,
		AdditiveNames:  map[string]string{"IsSquare": "Even", "isSquare": "even"},
		Dual:           dualWords,
		KeepNamespaces: []string{"Prod", "Pi", "Function", "Set", "Finset", "List", "Multiset", "Nat", "Int", "Fin", "Option"},
		Abbreviations:  orderAbbreviations,
		Rewrites:       [][2]string{{"CommAdd", "AddComm"}, {"commAdd", "addComm"}},
	}
})

// DefaultNaming returns a copy of Mathlib's tables, the default of
// Options.Naming; the caller may change it.
func DefaultNaming() *Naming { return mathlibNaming().clone() }

func (n *Naming) clone() *Naming {
	return &Naming{Additive: maps.Clone(n.Additive), AdditiveNames: maps.Clone(n.AdditiveNames), Dual: maps.Clone(n.Dual),
		KeepNamespaces: slices.Clone(n.KeepNamespaces), Abbreviations: slices.Clone(n.Abbreviations), Rewrites: slices.Clone(n.Rewrites),
		additiveDict: n.additiveDict, dualDict: n.dualDict}
}

// namingFile is the file LoadNaming reads.
type namingFile struct {
	// Extends is "mathlib" (the default: entries are added to Mathlib's
	// tables, replacing a word's translation) or "none" (the file is the
	// whole table).
	Extends string `json:"extends"`
	Naming
}

// ErrNaming is wrapped by errors about a naming file.
var ErrNaming = errors.New("bad naming file")

// LoadNaming reads a naming file: a JSON object with the fields of Naming
// and "extends" ("mathlib", the default, adds its entries to Mathlib's
// tables; "none" starts from empty tables). For example
//
//	{"additive": {"mul": "add", "unit": "addUnit"}, "keep_namespaces": ["Foo"]}
//
// Unknown fields are an error, so a misspelt table is not silently ignored.
func LoadNaming(path string) (*Naming, error) {
	var f namingFile
	if err := jsonfile.ReadStrict(path, &f, ErrNaming, "a JSON object with additive, additive_names, dual, keep_namespaces, abbreviations, rewrites, extends"); err != nil {
		return nil, err
	}
	var n *Naming
	switch f.Extends {
	case "", "mathlib":
		n = DefaultNaming()
	case "none":
		n = &Naming{Additive: map[string]string{}, AdditiveNames: map[string]string{}, Dual: map[string]string{}}
	default:
		return nil, fmt.Errorf("%s: %w: extends %q (mathlib or none)", path, ErrNaming, f.Extends)
	}
	for _, t := range []struct {
		name     string
		from, to map[string]string
	}{{"additive", f.Additive, n.Additive}, {"additive_names", f.AdditiveNames, n.AdditiveNames}, {"dual", f.Dual, n.Dual}} {
		for k, v := range t.from {
			if k == "" || v == "" || strings.ContainsAny(k+v, " \t\n.") {
				return nil, fmt.Errorf("%s: %w: %s: %q → %q: want two non-empty words without spaces or dots", path, ErrNaming, t.name, k, v)
			}
			t.to[k] = v
		}
	}
	n.KeepNamespaces = append(n.KeepNamespaces, f.KeepNamespaces...)
	for _, r := range f.Rewrites {
		if r[0] == "" {
			return nil, fmt.Errorf("%s: %w: rewrites: an empty pattern", path, ErrNaming)
		}
	}
	n.Rewrites = append(n.Rewrites, f.Rewrites...)
	for _, a := range f.Abbreviations {
		if a[0] == "" || a[1] == "" || a[2] == "" {
			return nil, fmt.Errorf("%s: %w: abbreviations: %q: want [word, word, replacement], none empty", path, ErrNaming, a)
		}
	}
	n.Abbreviations = append(n.Abbreviations, f.Abbreviations...)
	return n, nil
}

// GuessAdditive translates a multiplicative name to its additive twin word
// by word (mul_one → add_zero, Monoid.npow → AddMonoid.nsmul), an
// approximation of Mathlib's to_additive guessName.
func (n *Naming) GuessAdditive(s string) string {
	if t, ok := n.AdditiveNames[s]; ok {
		return t
	}
	if n.additiveDict != nil {
		return n.additiveDict.guessName(s)
	}
	out := translateWords(s, n.Additive)
	if out != s {
		out = n.fixAbbreviations(out)
	}
	for _, r := range n.Rewrites {
		out = strings.ReplaceAll(out, r[0], r[1])
	}
	return out
}

// GuessDual translates a name to its order dual word by word (Iio → Ioi,
// WithBot → WithTop), an approximation of Mathlib's to_dual.
func (n *Naming) GuessDual(s string) string {
	if n.dualDict != nil {
		return n.dualDict.guessName(s)
	}
	if t, ok := n.Dual[s]; ok {
		return t
	}
	return translateWords(s, n.Dual)
}

// translateNamespace translates a namespace component (Monoid → AddMonoid).
func (n *Naming) translateNamespace(s string) string {
	if slices.Contains(n.KeepNamespaces, s) {
		return s
	}
	return n.GuessAdditive(s)
}

// GuessAdditiveName is GuessAdditive with Mathlib's tables.
func GuessAdditiveName(s string) string { return mathlibNaming().GuessAdditive(s) }

// GuessDualName is GuessDual with Mathlib's tables.
func GuessDualName(s string) string { return mathlibNaming().GuessDual(s) }

// SHA256 identifies the tables' content (recorded in the manifest).
func (n *Naming) SHA256() string {
	b, _ := json.Marshal(n) // maps marshal in key order
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// naming is the run's tables: Options.Naming or Mathlib's.
func (o *Options) naming() *Naming {
	if o != nil && o.Naming != nil {
		return o.Naming
	}
	return mathlibNaming()
}
