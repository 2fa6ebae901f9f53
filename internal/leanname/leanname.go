// Package leanname is driftkit's one convention for Lean declaration names.
//
// A name is stored and answered in Lean's own `Name.toString` form: its
// components joined by dots, a component written «like this» only when it
// is not an identifier (`«term_≋_»`, `«1st»`); a keyword component is plain
// (`FirstOrder.Language.Ultraproduct.structure`), as Lean prints it.
// Canonical turns any spelling into that form (`Ultraproduct.«structure»`
// → `Ultraproduct.structure`), so lookups accept either. Paste is the
// form to paste into Lean source, where a keyword component needs «»
// (`Ultraproduct.«structure»`); Components splits a name into its raw
// components (the LeanSearch shape).
package leanname

import (
	"strings"
	"unicode/utf8"
)

// IsLetterLike follows Lean 4's isLetterLike (Greek, Coptic, letter-like
// symbols such as ℝ, mathematical alphanumerics).
func IsLetterLike(c rune) bool {
	return (0x3b1 <= c && c <= 0x3c9 && c != 0x3bb) ||
		(0x391 <= c && c <= 0x3a9 && c != 0x3a0 && c != 0x3a3) ||
		(0x3ca <= c && c <= 0x3fb) ||
		(0x1f00 <= c && c <= 0x1ffe) ||
		(0x2100 <= c && c <= 0x214f) ||
		(0x1d49c <= c && c <= 0x1d59f)
}

// IsSubScriptAlnum follows Lean 4's isSubScriptAlnum (₀…₉, ₐ…, ᵢ…).
func IsSubScriptAlnum(c rune) bool {
	return (0x2080 <= c && c <= 0x2089) || (0x2090 <= c && c <= 0x209c) || (0x1d62 <= c && c <= 0x1d6a)
}

func isASCIIAlpha(c rune) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// IsIdFirst reports whether c can start a Lean identifier.
func IsIdFirst(c rune) bool { return isASCIIAlpha(c) || c == '_' || IsLetterLike(c) }

// IsIdRest reports whether c can continue a Lean identifier.
func IsIdRest(c rune) bool {
	return isASCIIAlpha(c) || ('0' <= c && c <= '9') || c == '_' || c == '\'' || c == '!' || c == '?' ||
		IsLetterLike(c) || IsSubScriptAlnum(c)
}

// isIdent reports whether s is one identifier component (no escape needed).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if i == 0 && !IsIdFirst(c) || i > 0 && !IsIdRest(c) {
			return false
		}
	}
	return true
}

// Components splits a name into its components, unescaped: dots inside
// «…» do not split (`Foo.«a.b».c` → Foo, a.b, c). An unterminated « runs
// to the end of the name.
func Components(name string) []string {
	var out []string
	var b strings.Builder
	esc := false
	for _, c := range name {
		switch {
		case c == '«' && !esc:
			esc = true
		case c == '»' && esc:
			esc = false
		case c == '.' && !esc:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteRune(c)
		}
	}
	return append(out, b.String())
}

// Canonical is Lean's Name.toString of a name however it is written: «»
// only around components that are not identifiers.
func Canonical(name string) string {
	if plain(name) {
		return name
	}
	return join(Components(name), nil)
}

// plain reports whether every component of name is an identifier or a
// number written without «» (the name is its own Canonical form).
func plain(name string) bool {
	start := true
	digits := false
	for _, c := range name {
		switch {
		case c == '.':
			if start {
				return false
			}
			start, digits = true, false
		case start:
			if '0' <= c && c <= '9' {
				digits = true
			} else if !idFirst(c) {
				return false
			}
			start = false
		case digits:
			if c < '0' || c > '9' {
				return false
			}
		case !idRest(c):
			return false
		}
	}
	return !start
}

// asciiId holds IsIdFirst (bit 1) and IsIdRest (bit 2) of the ASCII
// characters: extract spells every name and dependency of a table through
// plain, and the comparisons of IsIdFirst/IsIdRest per character were
// most of its cost.
var asciiId = func() (t [utf8.RuneSelf]uint8) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		if IsIdFirst(c) {
			t[c] |= 1
		}
		if IsIdRest(c) {
			t[c] |= 2
		}
	}
	return t
}()

func idFirst(c rune) bool {
	if c < utf8.RuneSelf {
		return asciiId[c]&1 != 0
	}
	return IsIdFirst(c)
}

func idRest(c rune) bool {
	if c < utf8.RuneSelf {
		return asciiId[c]&2 != 0
	}
	return IsIdRest(c)
}

// Paste is the name as Lean source spells it: Canonical, with keyword
// components (structure, fun, at, …) escaped too.
func Paste(name string) string {
	return join(Components(name), keywords)
}

func join(parts []string, escapeToo map[string]bool) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		if p == "" || (isIdent(p) || isNumber(p)) && !escapeToo[p] || strings.ContainsRune(p, '»') {
			b.WriteString(p)
			continue
		}
		b.WriteString("«" + p + "»")
	}
	return b.String()
}

// isNumber: a numeric component (Lean's Name.num prints bare).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Equal reports whether two spellings name the same declaration.
func Equal(a, b string) bool { return a == b || Canonical(a) == Canonical(b) }

// Valid reports whether s is a plausible name: non-empty valid UTF-8
// without empty components.
func Valid(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, p := range Components(s) {
		if p == "" {
			return false
		}
	}
	return true
}

// keywords are Lean tokens that are also identifier-shaped: a name
// component spelled like one must be escaped in source.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`abbrev at attribute axiom binder_predicate by calc class def deriving do else end
example export extends fun have if import in inductive infix infixl infixr init instance lemma let local macro
macro_rules match mutual namespace noncomputable notation open opaque partial postfix prefix private protected
public scoped section set_option show structure syntax termination_by then theorem universe variable where with
decreasing_by omit include suffices from this using return for unless mut try elab elab_rules Type Sort Prop
fun λ forall exists nomatch nofun irreducible_def`) {
		m[k] = true
	}
	return m
}()
