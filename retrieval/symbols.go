package retrieval

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A query written in Lean notation (`p ∣ a * b`) or LaTeX ($p \mid ab$)
// names its operations by symbols, which BM25 does not index (its words are
// letters and digits), while a Mathlib name spells them: dvd, mul, le. Two
// tables taken from outside driftkit bridge the gap (retrieval/data,
// README.md there for sources and licences):
//
//   - Lean's input abbreviations (the editor's \mid → ∣ table, npm
//     @leanprover/unicode-input), which read a LaTeX command as the
//     character Lean writes, plus the few LaTeX commands whose LaTeX
//     meaning differs from Lean's abbreviation (\int is ∫, not ℤ) or that
//     Lean's table lacks (\lor, \land, \implies): latexMeanings;
//   - the "Names of symbols" tables of Mathlib's naming conventions (∣ →
//     dvd, ≤ → le, ⁻¹ → inv), which give each symbol the words Mathlib's
//     names use for it.
//
// NormalizeLaTeX applies the first, SymbolWords the second.

//go:embed data/lean-abbreviations.json
var leanAbbreviationsJSON []byte

//go:embed data/naming-symbols.json
var namingSymbolsJSON []byte

// latexMeanings are LaTeX commands read by their LaTeX meaning: where Lean's
// abbreviation means another character (\int → ℤ, \equiv → ≃, \cdot → ·)
// or has none (\lor, \land, \implies, \pmod). "" drops the command (layout
// and font commands; their arguments stay).
var latexMeanings = map[string]string{
	"int": "∫", "iint": "∬", "oint": "∮", "equiv": "≡", "lor": "∨", "land": "∧", "implies": "→", "impliedby": "←",
	"cdot": "*", "ast": "*", "div": "/", "lVert": "‖", "rVert": "‖", "pmod": "mod", "bmod": "mod", "mod": "mod",
	"left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "",
	"displaystyle": "", "textstyle": "", "limits": "", "nolimits": "", "operatorname": "", "mathrm": "", "mathbf": "",
	"mathit": "", "mathsf": "", "mathcal": "", "mathfrak": "", "mathscr": "", "text": "", "textrm": "", "textbf": "",
	"emph": "", "quad": "", "qquad": "", "frac": "", "dfrac": "", "tfrac": "",
}

// symbolTables are the parsed data files.
type symbolTables struct {
	abbrev map[string]string
	// symbols are the naming guide's entries, longest symbol first.
	symbols []notationEntry
}

var tables = sync.OnceValue(func() *symbolTables {
	t := &symbolTables{}
	if err := json.Unmarshal(leanAbbreviationsJSON, &t.abbrev); err != nil {
		panic("retrieval/data/lean-abbreviations.json: " + err.Error())
	}
	var f struct {
		Symbols map[string][]string `json:"symbols"`
	}
	if err := json.Unmarshal(namingSymbolsJSON, &f); err != nil {
		panic("retrieval/data/naming-symbols.json: " + err.Error())
	}
	for s, ws := range f.Symbols {
		t.symbols = append(t.symbols, notationEntry{s, ws})
	}
	slices.SortFunc(t.symbols, func(a, b notationEntry) int {
		if la, lb := utf8.RuneCountInString(a.sym), utf8.RuneCountInString(b.sym); la != lb {
			return lb - la
		}
		return strings.Compare(a.sym, b.sym)
	})
	return t
})

var (
	latexCmd     = regexp.MustCompile(`\\([A-Za-z]+|[,;:! |{}$\\])`)
	latexMathbb  = regexp.MustCompile(`\\mathbb\s*\{?\s*([A-Za-z])\s*\}?`)
	latexInverse = regexp.MustCompile(`\^\s*\{\s*-\s*1\s*\}`)
)

// HasLaTeX reports whether text holds a LaTeX command (a backslash before
// a letter).
func HasLaTeX(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\\' && (text[i+1] >= 'a' && text[i+1] <= 'z' || text[i+1] >= 'A' && text[i+1] <= 'Z') {
			return true
		}
	}
	return false
}

// NormalizeLaTeX rewrites the LaTeX commands of text as the characters Lean
// writes for them: \mathbb{R} → ℝ, ^{-1} → ⁻¹, a command of latexMeanings
// by its meaning, any other by Lean's input abbreviation, and a command
// neither knows by its name (\sin → sin). Math delimiters ($) become
// spaces. Text without a backslash is returned as it is.
func NormalizeLaTeX(text string) string {
	if !strings.Contains(text, "\\") {
		return text
	}
	ab := tables().abbrev
	text = latexMathbb.ReplaceAllStringFunc(text, func(m string) string {
		l := latexMathbb.FindStringSubmatch(m)[1]
		if s, ok := ab[l]; ok && !strings.Contains(s, "$") {
			return " " + s + " "
		}
		return " " + l + " "
	})
	text = latexInverse.ReplaceAllString(text, "⁻¹")
	text = latexCmd.ReplaceAllStringFunc(text, func(m string) string {
		name := m[1:]
		if s, ok := latexMeanings[name]; ok {
			return " " + s + " "
		}
		if len(name) == 1 && !unicode.IsLetter(rune(name[0])) {
			return " " // spacing (\, \;), escaped braces and dollars
		}
		if s, ok := ab[name]; ok && !strings.Contains(s, "$") {
			return " " + s + " "
		}
		return " " + name + " "
	})
	return strings.NewReplacer("$", " ", "{", " ", "}", " ").Replace(text)
}

// SymbolWords returns the words Mathlib's names use for the symbols of text
// (the naming guide's tables), space-separated, each once, in the tables'
// order. A symbol made of letters or punctuation is counted only where it
// is notation: an ASCII operator (+ - * / ^ < >) standing alone or between
// two operands (a*b, x^2), a digit 0 or 1 standing alone; other symbols
// anywhere.
func SymbolWords(text string) string {
	var out []string
	seen := map[string]bool{}
	for _, e := range tables().symbols {
		if !hasSymbol(text, e.sym) {
			continue
		}
		for _, w := range e.words {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return strings.Join(out, " ")
}

// hasSymbol reports whether text holds sym as notation (SymbolWords).
func hasSymbol(text, sym string) bool {
	if len(sym) != 1 || sym[0] >= utf8.RuneSelf {
		return strings.Contains(text, sym)
	}
	c := sym[0]
	for i := 0; i < len(text); i++ {
		if text[i] != c {
			continue
		}
		before, after := prevRune(text, i), nextRune(text, i+1)
		switch {
		case c == '0' || c == '1':
			if !isOperand(before) && !isOperand(after) && before != '.' && after != '.' {
				return true
			}
		case isSpaceOrBracket(before) && isSpaceOrBracket(after):
			return true
		case c == '-':
			// a - b, -x (negation after a space or bracket)
			if isSpaceOrBracket(before) && isOperand(after) {
				return true
			}
		case isOperand(before) && isOperand(after), isOperand(before) && isSpaceOrBracket(after) && c != '/', isSpaceOrBracket(before) && isOperand(after) && c != '/':
			return true
		}
	}
	return false
}

func prevRune(s string, i int) rune {
	if i == 0 {
		return ' '
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

func nextRune(s string, i int) rune {
	if i >= len(s) {
		return ' '
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isOperand(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isSpaceOrBracket(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("()[]{}`$,", r)
}
