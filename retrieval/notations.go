package retrieval

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/workspace"
)

// The library's own notation declarations (extract's notations.parquet:
// `notation`, `infix…`, `prefix`, `postfix`, simple `macro_rules`) map a
// symbol to the constants it stands for: ℝ≥0∞ → ENNReal, '' → Set.image,
// =O[ → Asymptotics.IsBigO, ∆ → symmDiff. An index keeps them in the
// "notations" column group (AddNotations); theorem search reads a query's
// symbols through them (NotationHeads): the names of the constants join
// the query's name words, and the constants themselves form the notation
// list (Weights.Notation). An index built from a workspace without the
// table, or before it existed, has an empty group: nothing is added.

// AddNotations fills the notations group from a workspace's notation
// rows: one entry per row a query can mean — its symbol (queryNotation),
// the atoms after it (≡ … [ZMOD … ] is Int.ModEq, ≡ … [MOD … ] Nat.ModEq)
// and its first head that is a constant (a document of the table, or a
// dotted name starting with a capital, as Max.max of core Lean). A query
// opens no namespace, so a local notation (visible in its file only) is
// dropped, and so is a scoped one that redefines what the symbol means
// elsewhere: a symbol of Lean's core (the naming guide's: ≤, •, ∑) or one
// another visible notation maps to another constant (∞ is ENNReal's,
// OnePoint's, ContDiff's; ∫ is the integral, not the scoped Grothendieck
// construction). Of the atoms after the symbol, only those with a letter
// ([ZMOD, ᵥ) are kept: a query seldom writes a binder's punctuation as the
// notation does (∫ x, f x ∂μ as $\int f(x)\,dx$). It returns the number
// of entries kept. c's names must be built.
func (c *TableColumns) AddNotations(rows []workspace.Notation) int {
	type entry struct{ sym, atoms, head, scope string }
	var es []entry
	heads := map[string][]string{} // symbol → the heads of every visible row
	for i := range rows {
		r := &rows[i]
		if r.Scope == "local" || !queryNotation(r.Symbol) {
			continue
		}
		for _, h := range r.Heads {
			if c.isConstant(h) {
				e := entry{r.Symbol, letterAtoms(r.Atoms), h, r.Scope}
				if !slices.Contains(heads[e.sym], h) {
					heads[e.sym] = append(heads[e.sym], h)
				}
				es = append(es, e)
				break
			}
		}
	}
	core := map[string]bool{}
	for _, e := range tables().symbols {
		core[e.sym] = true
	}
	es = slices.DeleteFunc(es, func(e entry) bool {
		return e.scope == "scoped" && (core[e.sym] || len(heads[e.sym]) > 1)
	})
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.sym, b.sym), strings.Compare(a.atoms, b.atoms), strings.Compare(a.head, b.head))
	})
	es = slices.CompactFunc(es, func(a, b entry) bool { return a.sym == b.sym && a.atoms == b.atoms && a.head == b.head })
	var syms, atoms, hs flat.StringsBuilder
	for _, e := range es {
		syms.Add(e.sym)
		atoms.Add(e.atoms)
		hs.Add(e.head)
	}
	c.NotationSymbols, c.NotationAtoms, c.NotationHeads = syms.Strings(), atoms.Strings(), hs.Strings()
	return len(es)
}

// letterAtoms are the atoms after the first that hold a letter, joined by
// atomSep.
func letterAtoms(atoms []string) string {
	var out []string
	for _, a := range atoms[min(1, len(atoms)):] {
		if strings.ContainsFunc(a, unicode.IsLetter) {
			out = append(out, a)
		}
	}
	return strings.Join(out, atomSep)
}

// atomSep separates a notation entry's atoms.
const atomSep = "\x1f"

// isConstant reports whether a notation's head names a constant rather
// than one of the notation's variables (μ, R, term).
func (c *TableColumns) isConstant(h string) bool {
	if h == "" || strings.ContainsAny(h, " \t\n") {
		return false
	}
	if c.Names.Find(h) >= 0 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(h)
	return strings.Contains(h, ".") && unicode.IsUpper(r)
}

// queryNotation reports whether a notation symbol, found in a query, means
// the notation: not a single ASCII character (+, !, ^ are core Lean's
// operators; a scoped redefinition would misread them), and not a word or
// a variable — Latin or Greek letters and digits (with _ ! ? '), before
// any opening bracket (tactic, assert!, GL(, π, σ[, E[).
func queryNotation(sym string) bool {
	if sym == "" || strings.ContainsFunc(sym, unicode.IsSpace) {
		return false
	}
	if len(sym) == 1 {
		return false
	}
	word := false
	for _, r := range strings.TrimRight(sym, "([{_^") {
		switch {
		case unicode.IsDigit(r) || unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Greek, r):
			word = true
		case !strings.ContainsRune("_!?'", r):
			return true
		}
	}
	return !word
}

// notationMatcher finds a table's notation symbols in a text.
type notationMatcher struct {
	// byFirst maps a symbol's first rune to its entry ids, longest symbol
	// first.
	byFirst map[rune][]int
}

// notations returns the table's matcher (nil when the table has no
// notations or its group is damaged).
func (t *Table) notations() *notationMatcher {
	t.notes.once.Do(func() {
		if t.group(GroupNotations) != nil || t.c.NotationSymbols.Len() == 0 {
			return
		}
		m := &notationMatcher{byFirst: map[rune][]int{}}
		for i := range t.c.NotationSymbols.Len() {
			r, _ := utf8.DecodeRuneInString(t.c.NotationSymbols.At(i))
			m.byFirst[r] = append(m.byFirst[r], i)
		}
		for _, ids := range m.byFirst {
			slices.SortStableFunc(ids, func(a, b int) int {
				return len(t.c.NotationSymbols.At(b)) - len(t.c.NotationSymbols.At(a))
			})
		}
		t.notes.m = m
	})
	return t.notes.m
}

// notationState is a Table's matcher, built on first use.
type notationState struct {
	once sync.Once
	m    *notationMatcher
}

// NotationHeads returns the head constants of the library notations text
// holds, in order of first appearance, each once. At each position the
// longest symbol that starts there and is not cut from a longer run of
// superscripts (⁻ of ⁻¹) counts, through its entries whose other atoms
// follow in the text; matching resumes after it (ℝ≥0∞ is ENNReal, not ℝ
// then ≥). Nil without a notation table.
func (t *Table) NotationHeads(text string) []string {
	m := t.notations()
	if m == nil {
		return nil
	}
	var out []string
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		matched := 0
		for _, id := range m.byFirst[r] {
			s := t.c.NotationSymbols.At(id)
			if matched > len(s) {
				break // a longer symbol matched: its entries only
			}
			if !strings.HasPrefix(text[i:], s) || cutsScript(text[i+len(s):]) || !hasAtoms(text[i+len(s):], t.c.NotationAtoms.At(id)) {
				continue
			}
			matched = len(s)
			if h := t.c.NotationHeads.At(id); !slices.Contains(out, h) {
				out = append(out, strings.Clone(h))
			}
		}
		i += max(matched, n)
	}
	return out
}

// cutsScript reports whether rest starts with a superscript or subscript
// character, which would continue the symbol before it (⁻¹ after ⁻).
func cutsScript(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.In(r, unicode.No, unicode.Lm) || strings.ContainsRune("⁺⁻⁼⁽⁾₊₋₌₍₎", r)
}

// hasAtoms reports whether the atoms (atomSep-separated) occur in rest in
// order.
func hasAtoms(rest, atoms string) bool {
	if atoms == "" {
		return true
	}
	for a := range strings.SplitSeq(atoms, atomSep) {
		k := strings.Index(rest, a)
		if k < 0 {
			return false
		}
		rest = rest[k+len(a):]
	}
	return true
}

// notationDocs is the notation list: the candidates among the head
// constants of the query's notations, in order of appearance.
func (s *searchState) notationDocs() []int {
	var out []int
	for _, h := range s.t.NotationHeads(s.norm) {
		if d, ok := s.t.docOf(h); ok && s.cand(d) {
			out = append(out, d)
		}
	}
	return out
}
