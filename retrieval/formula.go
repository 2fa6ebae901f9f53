package retrieval

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Formula search: a query written with variables only (`|a + b| ≤ |a| +
// |b|`, $(A \cup B)^c = A^c \cap B^c$) has no word BM25 or the name signal
// can find its answer by, but its *layout* — the symbols in order, each run
// of words one placeholder — is the layout of the statement it asks for:
// `_ ∣ _ * _ → _ ∣ _ ∨ _ ∣ _`. index writes, per declaration, the n-grams of
// its statement's layout (FormulaStatement, FormulaGrams) as postings
// (formula.dk), and theorem search ranks a query's layout (FormulaQuery)
// against them with BM25 as a first-stage list (the "formula" signal). Both
// sides go through the same tokenizer (formulaTokens); a query's LaTeX is
// read as Lean's characters first (NormalizeLaTeX and a few LaTeX layouts
// Lean writes otherwise: A^c is Aᶜ, \frac{a}{b} is a / b, \|x\| is ‖x‖).

// FormulaGramMin and FormulaGramMax are the n of the n-grams a layout is
// indexed by.
const (
	FormulaGramMin = 2
	FormulaGramMax = 3
)

// formulaHole stands for a run of words (identifiers, numerals other
// than 0 and 1, applications of one to another).
const formulaHole = "_"

// formulaDigraphs are ASCII spellings of Lean's symbols.
var formulaDigraphs = []struct{ from, to string }{
	{"<->", "↔"}, {"->", "→"}, {"<=", "≤"}, {">=", "≥"}, {"!=", "≠"}, {"=>", "↦"}, {"/\\", "∧"}, {"\\/", "∨"},
}

// formulaDropped are characters that carry no layout: coercion arrows
// (a query seldom writes them, elaborated statements often do), @.
const formulaDropped = "↑⇑↥@"

// isFormulaWordRune reports whether r belongs to a word: letters (Greek
// and ℝ ℕ included: variables and types), digits, subscripts, and the
// characters of Lean identifiers (_ . ' ! ?).
func isFormulaWordRune(r rune) bool {
	switch {
	case r == '_' || r == '.' || r == '\'' || r == '!' || r == '?':
		return true
	case isSubscript(r):
		return true
	case unicode.Is(unicode.Lm, r), r >= 0x2070 && r <= 0x207f, r == '²' || r == '³' || r == '¹':
		return false // superscripts: ᶜ ᵀ ᵒᵖ ⁻¹ ⁺ are operators
	case unicode.IsLetter(r), unicode.IsDigit(r):
		return true
	}
	return false
}

// isSubscript reports whether r is a subscript letter or digit (x₁, aᵢ).
func isSubscript(r rune) bool { return r >= 0x2080 && r <= 0x209c || r >= 0x1d62 && r <= 0x1d6a }

// isFormulaBracket reports whether r opens or closes a group (brackets,
// absolute values, norms, floors) or separates (a comma): a token of its
// own.
func isFormulaBracket(r rune) bool {
	return strings.ContainsRune("()[]{}⟨⟩⦃⦄⟦⟧⌊⌋⌈⌉|‖,;", r)
}

// formulaTokens splits a text into layout tokens: each symbol (⁻¹ one
// token, ASCII digraphs read as Lean's symbols), each bracket, and one
// placeholder per run of words and spaces between two symbols; a run that
// is the numeral 0 or 1 alone stays itself. fn gets the tokens in order.
func formulaTokens(text string, fn func(tok string)) {
	inWords, lit, n := false, "", 0
	prevWord := false // the previous rune belongs to a word
	flush := func() {
		if inWords {
			if n == 1 && (lit == "0" || lit == "1") {
				fn(lit)
			} else {
				fn(formulaHole)
			}
		}
		inWords, lit, n = false, "", 0
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			prevWord = false
			continue
		case strings.ContainsRune(formulaDropped, r):
			i += size
			prevWord = false
			continue
		case isFormulaWordRune(r) && (prevWord || !strings.ContainsRune("'.!?", r)):
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isFormulaWordRune(r2) {
					break
				}
				j += s2
			}
			w := text[i:j]
			// A universe level (.{u}) after a name is not layout.
			if strings.HasPrefix(text[j:], "{") && strings.HasSuffix(w, ".") {
				if k := strings.IndexByte(text[j:], '}'); k > 0 {
					j += k + 1
				}
			}
			if !inWords {
				inWords, lit = true, w
			}
			n++
			i = j
			prevWord = true
			continue
		}
		prevWord = false
		flush()
		tok := ""
		for _, d := range formulaDigraphs {
			if strings.HasPrefix(text[i:], d.from) {
				tok, size = d.to, len(d.from)
				break
			}
		}
		if tok == "" {
			tok = text[i : i+size]
			if !isFormulaBracket(r) {
				// A run of operator characters is one token, as Lean's
				// tokenizer reads it (→+*, ⁻¹', '', ≃ₗ): subscripts
				// written against an operator belong to it.
				for j := i + size; j < len(text); {
					r2, s2 := utf8.DecodeRuneInString(text[j:])
					if unicode.IsSpace(r2) || isFormulaBracket(r2) || strings.ContainsRune(formulaDropped, r2) ||
						(isFormulaWordRune(r2) && !isSubscript(r2) && r2 != '\'') {
						break
					}
					j += s2
					tok, size = text[i:j], j-i
				}
			}
		}
		fn(tok)
		i += size
	}
	flush()
}

// FormulaLayout is text's layout tokens (formulaTokens).
func FormulaLayout(text string) []string {
	var out []string
	formulaTokens(text, func(t string) { out = append(out, t) })
	return out
}

// hasFormulaSymbol reports whether a layout holds an operator: a token that
// is not a placeholder, numeral, bracket or punctuation that prose writes
// too (, ; : - and quotes).
func hasFormulaSymbol(toks []string) bool {
	for _, t := range toks {
		switch t {
		case formulaHole, "0", "1", "(", ")", "[", "]", "{", "}", ",", ";", ":", "-", "'", "\"", "`", "⟨", "⟩":
			continue
		}
		return true
	}
	return false
}

// FormulaGrams calls fn for each n-gram (n from FormulaGramMin to
// FormulaGramMax) of a layout that holds an operator (hasFormulaSymbol),
// repeats included, tokens joined by a space. A layout without one gives
// none.
func FormulaGrams(toks []string, fn func(gram string)) {
	var b strings.Builder
	for n := FormulaGramMin; n <= FormulaGramMax; n++ {
		for i := 0; i+n <= len(toks); i++ {
			g := toks[i : i+n]
			if !hasFormulaSymbol(g) {
				continue
			}
			b.Reset()
			for j, t := range g {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(t)
			}
			fn(b.String())
		}
	}
}

var (
	formulaSpan     = regexp.MustCompile("`([^`]+)`|\\$\\$([^$]+)\\$\\$|\\$([^$]+)\\$|\\\\\\((.+?)\\\\\\)|\\\\\\[(.+?)\\\\\\]")
	latexComplement = regexp.MustCompile(`\^\s*(?:\{\s*)?(?:c|\\complement|\\mathsf\s*\{?\s*c\s*\}?)(?:\s*\})?([^A-Za-z]|$)`)
	latexTranspose  = regexp.MustCompile(`\^\s*(?:\{\s*)?(?:T|\\top|\\intercal|\\mathsf\s*\{?\s*T\s*\}?)(?:\s*\})?([^A-Za-z]|$)`)
	latexFrac       = regexp.MustCompile(`\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}`)
	latexNormBar    = regexp.MustCompile(`\\\|`)
)

// FormulaQuery is the formula a query writes, as Lean writes it: the
// contents of its backquoted and $…$ spans when it has any, else the
// whole text; LaTeX read as Lean's characters. "" when it writes no
// operator (a sentence, a name): such a query has no formula list.
func FormulaQuery(text string) string {
	var parts []string
	for _, m := range formulaSpan.FindAllStringSubmatch(text, -1) {
		for k, g := range m[1:] {
			if g != "" {
				if k > 0 { // $…$, $$…$$, \(…\), \[…\]: LaTeX
					g = formulaLaTeX(g, true)
				}
				parts = append(parts, g)
				break
			}
		}
	}
	f := strings.Join(parts, " , ")
	if len(parts) == 0 {
		f = formulaLaTeX(text, HasLaTeX(text))
	}
	if !hasFormulaSymbol(FormulaLayout(f)) {
		return ""
	}
	return f
}

// latexProducts are the juxtapositions of single letters a LaTeX formula
// writes for products (ab, 2mn): a lower-case word of at most three
// letters after an optional numeral, not a function's or a word's name.
var (
	latexProducts  = regexp.MustCompile(`(^|[^\\A-Za-z0-9_])([0-9]*)([a-z]{1,3})($|[^A-Za-z0-9_{(])`)
	latexSuperArg  = regexp.MustCompile(`\^\s*\{([^{}]*)\}`)
	latexApply     = regexp.MustCompile(`(\\?)([A-Za-z]+'*)\}?\(\s*([A-Za-z0-9_']+(?:\s*,\s*[A-Za-z0-9_']+)*)\s*\)`)
	latexFunctions = map[string]bool{"sin": true, "cos": true, "tan": true, "cot": true, "sec": true, "csc": true, "log": true, "exp": true, "ln": true,
		"lim": true, "ker": true, "det": true, "dim": true, "deg": true, "gcd": true, "lcm": true, "max": true, "min": true, "sup": true, "inf": true,
		"mod": true, "arg": true, "im": true, "re": true, "id": true, "tr": true, "if": true, "in": true, "is": true, "of": true, "on": true, "to": true,
		"or": true, "and": true, "the": true, "for": true, "all": true, "as": true, "at": true, "be": true, "by": true, "we": true, "dx": true, "dt": true, "dy": true}
)

// formulaLaTeX reads a formula as Lean writes it: with latex, first the
// layouts LaTeX writes otherwise (complement and transpose as
// superscripts, \frac as /, \| as ‖, ^{…} as ^ of a group, ab as a * b),
// then NormalizeLaTeX.
func formulaLaTeX(f string, latex bool) string {
	if !latex {
		return f
	}
	f = latexNormBar.ReplaceAllString(f, "‖")
	f = latexComplement.ReplaceAllString(f, "ᶜ$1")
	f = latexTranspose.ReplaceAllString(f, "ᵀ$1")
	// f(x), \gcd(m, n): an application, which Lean writes f x, gcd m n (a
	// command only when it names a function: \in(a, b) is an interval).
	f = latexApply.ReplaceAllStringFunc(f, func(m string) string {
		s := latexApply.FindStringSubmatch(m)
		if s[1] != "" && !latexFunctions[s[2]] && s[2] != "operatorname" {
			return m
		}
		return s[1] + s[2] + " " + strings.Join(strings.FieldsFunc(s[3], func(r rune) bool { return r == ',' || r == ' ' }), " ")
	})
	// Two passes: adjacent matches share their boundary character.
	for range 2 {
		f = latexProducts.ReplaceAllStringFunc(f, func(m string) string {
			s := latexProducts.FindStringSubmatch(m)
			num, letters := s[2], s[3]
			if len(num)+len(letters) < 2 || latexFunctions[letters] {
				return m
			}
			parts := strings.Split(letters, "")
			if num != "" {
				parts = append([]string{num}, parts...)
			}
			return s[1] + strings.Join(parts, " * ") + s[4]
		})
	}
	// Each pass rewrites the innermost groups; a formula nests a few deep,
	// and a bound keeps a query nested thousands deep linear (unbounded,
	// 4 KB of x^{x^{… took 0.2 s and 340 KB of \frac{ more than 10 min).
	for range latexMaxNesting {
		g := latexFrac.ReplaceAllStringFunc(f, func(m string) string {
			s := latexFrac.FindStringSubmatch(m)
			return fracPart(s[1]) + " / " + fracPart(s[2])
		})
		g = latexSuperArg.ReplaceAllStringFunc(g, func(m string) string {
			a := latexSuperArg.FindStringSubmatch(m)[1]
			if strings.Join(strings.Fields(a), "") == "-1" {
				return "⁻¹"
			}
			return "^" + fracPart(a)
		})
		if g == f {
			break
		}
		f = g
	}
	return NormalizeLaTeX(f)
}

// latexMaxNesting bounds the passes formulaLaTeX makes over nested
// \frac{…}{…} and ^{…}.
const latexMaxNesting = 8

// fracPart is one side of a fraction: bare when it is one word, else in
// parentheses.
func fracPart(s string) string {
	s = strings.TrimSpace(s)
	plain := s != ""
	for _, r := range s {
		plain = plain && isFormulaWordRune(r)
	}
	if plain {
		return s
	}
	return "(" + s + ")"
}

// FormulaStatement is the formula of a declaration's signature (binders,
// then `:` and its type) as a query would write it: the types of its
// explicit hypotheses whose layout holds an operator, then its type, joined
// by →. Comments are dropped; instance and implicit binders are not
// hypotheses a query writes.
func FormulaStatement(signature string) string {
	sig := stripLeanComments(signature)
	var parts []string
	i := 0
	for i < len(sig) {
		r, size := utf8.DecodeRuneInString(sig[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			continue
		case r == ':' && !strings.HasPrefix(sig[i:], ":="):
			parts = append(parts, strings.TrimSpace(sig[i+1:]))
			return strings.Join(parts, " → ")
		case r == '(' || r == '⦃' || r == '{' || r == '[' || r == '⟨':
			j := matchBracket(sig, i)
			if j < 0 {
				return strings.Join(parts, " → ")
			}
			if r == '(' || r == '⦃' {
				inner := sig[i+size : j]
				if k := topLevelColon(inner); k >= 0 {
					ty := inner[k+1:]
					if d := strings.Index(ty, ":="); d >= 0 {
						ty = ty[:d] // a default value
					}
					if ty = strings.TrimSpace(ty); isHypothesis(inner[:k], ty) {
						parts = append(parts, ty)
					}
				}
			}
			_, cs := utf8.DecodeRuneInString(sig[j:])
			i = j + cs
			continue
		}
		// A binder without brackets (a structure field's `name : type`):
		// the rest after the first top-level colon.
		if k := topLevelColon(sig[i:]); k >= 0 {
			parts = append(parts, strings.TrimSpace(sig[i+k+1:]))
		}
		return strings.Join(parts, " → ")
	}
	return strings.Join(parts, " → ")
}

// isHypothesis reports whether an explicit binder (names : ty) is a
// hypothesis a query would write: named as Mathlib's naming conventions
// name hypotheses (h, hf, h₁), or of a type whose layout holds a relation
// or an operator other than the arrow of a function type.
func isHypothesis(names, ty string) bool {
	fs := strings.Fields(names)
	hyp := len(fs) > 0
	for _, n := range fs {
		hyp = hyp && strings.HasPrefix(n, "h")
	}
	if hyp {
		return true
	}
	for _, t := range FormulaLayout(ty) {
		if t != "→" && hasFormulaSymbol([]string{t}) {
			return true
		}
	}
	return false
}

// stripLeanComments drops /- … -/ (nested) and -- … line comments.
func stripLeanComments(s string) string {
	if !strings.Contains(s, "/-") && !strings.Contains(s, "--") {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "/-"):
			depth++
			i++
		case depth > 0 && strings.HasPrefix(s[i:], "-/"):
			depth--
			i++
			b.WriteByte(' ')
		case depth > 0:
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// formulaClose maps an opening bracket to its closing one.
var formulaClose = map[rune]rune{'(': ')', '[': ']', '{': '}', '⦃': '⦄', '⟨': '⟩'}

// matchBracket returns the index of the bracket closing the one at s[i]
// (brackets of every kind nested), -1 when none.
func matchBracket(s string, i int) int {
	var stack []rune
	for j := i; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		if c, ok := formulaClose[r]; ok {
			stack = append(stack, c)
		} else if len(stack) > 0 && r == stack[len(stack)-1] {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j
			}
		}
		j += size
	}
	return -1
}

// topLevelColon returns the index of s's first ':' outside brackets that
// is not ':=', -1 when none.
func topLevelColon(s string) int {
	depth := 0
	for j := 0; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case formulaClose[r] != 0:
			depth++
		case r == ')' || r == ']' || r == '}' || r == '⦄' || r == '⟩':
			depth--
		case r == ':' && depth == 0 && !strings.HasPrefix(s[j:], ":="):
			return j
		}
		j += size
	}
	return -1
}
