package drift

import (
	"errors"
	"strings"

	"github.com/driftkit/driftkit/internal/leantext"
)

// Errors of ExtractStatement.
var (
	ErrNoLeanBlock = errors.New("no complete ```lean code block in the answer")
	ErrNoTheorem   = errors.New("the lean block has no theorem, lemma or example")
)

// ExtractStatement takes the Lean statement out of a formalizer's answer.
// The rules, in order:
//
//  1. Fenced blocks are delimited by lines starting with ``` (up to three
//     spaces of indentation); the info string after the opening fence names
//     the language. A block without its closing fence (an answer cut by the
//     token limit) is ignored.
//  2. The last block whose language is lean or lean4 (any case) is taken;
//     if there is none, the last block without a language; otherwise the
//     answer has no statement (ErrNoLeanBlock). Text outside blocks is
//     ignored, so a model may reason before its answer.
//  3. import lines are dropped: the benchmark's header supplies the
//     imports, and Lean accepts them only at the top of a file.
//  4. The block must declare a theorem, lemma or example (ErrNoTheorem);
//     auxiliary definitions, open and variable commands before it stay.
//  5. The proof of the last such declaration is replaced by `by sorry`:
//     everything from its first `:=` outside brackets, comments and
//     strings (or from a line starting with `|`, an equation-compiler
//     proof) is cut, and ` := by sorry` is appended. A statement without
//     a proof gets the same ending.
//
// The result is what Lean checks and what BEq+ compares.
func ExtractStatement(answer string) (string, error) {
	block, ok := lastLeanBlock(answer)
	if !ok {
		return "", ErrNoLeanBlock
	}
	var kept []string
	for _, l := range strings.Split(block, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "import ") || t == "import" {
			continue
		}
		kept = append(kept, strings.TrimRight(l, " \t\r"))
	}
	code := strings.Trim(strings.Join(kept, "\n"), "\n")
	start := lastDeclStart(code)
	if start < 0 {
		return "", ErrNoTheorem
	}
	end := proofStart(code, start)
	stmt := strings.TrimRight(code[:end], " \t\n")
	return stmt + " := by sorry", nil
}

// lastLeanBlock applies rules 1 and 2.
func lastLeanBlock(answer string) (string, bool) {
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	var leanBlock, plainBlock string
	var haveLean, havePlain bool
	for i := 0; i < len(lines); i++ {
		info, ok := fence(lines[i])
		if !ok {
			continue
		}
		var body []string
		closed := false
		j := i + 1
		for ; j < len(lines); j++ {
			if inf, ok := fence(lines[j]); ok && inf == "" {
				closed = true
				break
			}
			body = append(body, lines[j])
		}
		if !closed {
			break
		}
		lang := strings.ToLower(strings.Fields(info + " x")[0])
		switch {
		case info == "":
			plainBlock, havePlain = strings.Join(body, "\n"), true
		case lang == "lean" || lang == "lean4":
			leanBlock, haveLean = strings.Join(body, "\n"), true
		}
		i = j
	}
	if haveLean {
		return leanBlock, true
	}
	return plainBlock, havePlain
}

// fence reports whether line is a code fence and returns its info string.
func fence(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, "```") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimLeft(t, "`")), true
}

// lastDeclStart is the offset of the last line-leading theorem, lemma or
// example keyword (after attributes and modifiers), or -1.
func lastDeclStart(code string) int {
	best := -1
	off := 0
	for _, l := range strings.SplitAfter(code, "\n") {
		t := l
		for {
			t = strings.TrimLeft(t, " \t")
			switch {
			case strings.HasPrefix(t, "@["):
				if k := strings.Index(t, "]"); k >= 0 {
					t = t[k+1:]
					continue
				}
			}
			if m := modifier(t); m != "" {
				t = t[len(m):]
				continue
			}
			break
		}
		if leantext.Is(firstWord(t), leantext.Statement) {
			best = off + len(l) - len(t)
		}
		off += len(l)
	}
	return best
}

// modifier returns the declaration modifier t starts with (followed by a
// space or a tab), or "".
func modifier(t string) string {
	m := firstWord(t)
	if len(m) < len(t) && (t[len(m)] == ' ' || t[len(m)] == '\t') && leantext.Is(m, leantext.Modifier) {
		return m
	}
	return ""
}

// firstWord is t up to its first blank or opening bracket.
func firstWord(t string) string {
	if i := strings.IndexAny(t, " \t\n\r{(["); i >= 0 {
		return t[:i]
	}
	return t
}

// proofStart is where the declaration starting at start stops being a
// statement: its first ":=" at bracket depth 0 outside comments and
// strings, or a line starting with "|" at depth 0; len(code) otherwise.
func proofStart(code string, start int) int {
	depth := 0
	atLineStart := false
	for i := start; i < len(code); {
		c := code[i]
		switch {
		case strings.HasPrefix(code[i:], "--"):
			nl := strings.IndexByte(code[i:], '\n')
			if nl < 0 {
				return len(code)
			}
			i += nl
			continue
		case strings.HasPrefix(code[i:], "/-"):
			i = skipBlockComment(code, i)
			continue
		case c == '"':
			i = skipString(code, i)
			continue
		case c == '\n':
			atLineStart = true
			i++
			continue
		case c == ' ' || c == '\t':
			i++
			continue
		}
		if atLineStart && c == '|' && depth == 0 {
			return i
		}
		atLineStart = false
		switch {
		case strings.HasPrefix(code[i:], ":=") && depth == 0:
			return i
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case strings.HasPrefix(code[i:], "⦃"), strings.HasPrefix(code[i:], "⟨"):
			depth++
		case strings.HasPrefix(code[i:], "⦄"), strings.HasPrefix(code[i:], "⟩"):
			depth--
		}
		i++
	}
	return len(code)
}

// skipBlockComment returns the offset after the (nested) comment at i.
func skipBlockComment(code string, i int) int {
	depth := 0
	for i < len(code) {
		switch {
		case strings.HasPrefix(code[i:], "/-"):
			depth++
			i += 2
		case strings.HasPrefix(code[i:], "-/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(code)
}

// skipString returns the offset after the string literal at i.
func skipString(code string, i int) int {
	for j := i + 1; j < len(code); j++ {
		switch code[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(code)
}
