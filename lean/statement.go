package lean

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/internal/leantext"
)

// Statement is a formal statement taken apart for BEq+: the text before it,
// its signature (binders and type, as written) and its conclusion (the type
// after the top-level colon). Any proof it came with is dropped.
type Statement struct {
	// Prelude is the text before the last theorem/lemma/example of the
	// input (auxiliary definitions, `open … in`), kept verbatim.
	Prelude string
	// Name is the declared name ("" for an example); Universes its
	// explicit universe parameters (".{u v}"), kept when renaming.
	Name, Universes string
	// Signature is everything between the name and the proof: binders,
	// the top-level colon, the type.
	Signature string
	// Conclusion is the type after the top-level colon.
	Conclusion string
}

// ErrStatement is wrapped when a text holds no theorem statement to compare.
var ErrStatement = errors.New("not a theorem statement")

// StatementError says what was wrong with which statement.
type StatementError struct {
	Text   string // the statement's first line
	Reason string
}

func (e *StatementError) Error() string {
	return fmt.Sprintf("%s: %s (in %q)", ErrStatement, e.Reason, e.Text)
}

func (e *StatementError) Unwrap() error { return ErrStatement }

// statementWords are the keywords a formal statement starts with
// (theorem, lemma, example: internal/leantext's Statement class).
var statementWords = leantext.Words(leantext.Statement)

// ParseStatement reads the last `theorem`, `lemma` or `example` of text
// (outside comments and strings): what stands before it is the prelude, its
// name and any proof (`:= …` at bracket depth 0 that does not belong to a
// `let`/`have` in the type) are cut off. This follows LeanInteract's
// clean_last_theorem_string, on which the BEq+ reference is built.
func ParseStatement(text string) (Statement, error) {
	m := mask(text)
	kw, at := -1, ""
	for _, w := range statementWords {
		for i := 0; ; {
			j := strings.Index(m[i:], w)
			if j < 0 {
				break
			}
			j += i
			if wordAt(m, j, w) && j+len(w) < len(m) && unicode.IsSpace(rune(m[j+len(w)])) && j > kw {
				kw, at = j, w
			}
			i = j + 1
		}
	}
	if kw < 0 {
		return Statement{}, &StatementError{Text: firstLine(strings.TrimSpace(text)), Reason: "no theorem, lemma or example"}
	}
	st := Statement{Prelude: trimModifiers(text[:kw])}
	i := kw + len(at)
	for i < len(m) && unicode.IsSpace(rune(m[i])) {
		i++
	}
	if at != "example" {
		j := i
		if strings.HasPrefix(m[j:], "«") {
			if k := strings.Index(m[j:], "»"); k >= 0 {
				j += k + len("»")
			}
		}
		for j < len(m) {
			r, size := utf8.DecodeRuneInString(m[j:])
			if unicode.IsSpace(r) || r == ':' || r == '(' || r == '{' || r == '[' || r == '⦃' {
				break
			}
			if r == '.' && strings.HasPrefix(m[j:], ".{") {
				break
			}
			j += size
		}
		st.Name = text[i:j]
		if st.Name == "" {
			return Statement{}, &StatementError{Text: firstLine(strings.TrimSpace(text[kw:])), Reason: "no name after " + at}
		}
		i = j
		if strings.HasPrefix(m[i:], ".{") {
			if k := strings.IndexByte(m[i:], '}'); k >= 0 {
				st.Universes = text[i : i+k+1]
				i += k + 1
			}
		}
	}
	end := proofStart(m, i)
	st.Signature = strings.TrimSpace(trimSpaceLines(stripComments(text[i:end])))
	c := topColon(mask(st.Signature))
	if c < 0 {
		return Statement{}, &StatementError{Text: firstLine(strings.TrimSpace(text[kw:])), Reason: "no type (no top-level colon)"}
	}
	st.Conclusion = strings.TrimSpace(st.Signature[c+1:])
	if strings.TrimSpace(mask(st.Conclusion)) == "" {
		return Statement{}, &StatementError{Text: firstLine(strings.TrimSpace(text[kw:])), Reason: "empty type"}
	}
	return st, nil
}

// trimModifiers drops the doc comment, attributes and modifiers that stood
// before the declaration keyword; they belong to the old declaration.
func trimModifiers(prelude string) string {
	for {
		t := strings.TrimRight(prelude, " \t\r\n")
		m := mask(t)
		switch {
		case strings.HasSuffix(m, "]"):
			depth := 0
			k := len(m) - 1
			for ; k >= 0; k-- {
				if m[k] == ']' {
					depth++
				} else if m[k] == '[' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if k > 0 && m[k-1] == '@' {
				prelude = t[:k-1]
				continue
			}
			return prelude
		case strings.HasSuffix(t, "-/"):
			if k := strings.LastIndex(t, "/--"); k >= 0 && strings.TrimSpace(m[k:]) == "" {
				prelude = t[:k]
				continue
			}
			return prelude
		}
		// A modifier (all lowercase letters) ending m belongs to the
		// declaration, not the prelude.
		j := len(m)
		for j > 0 && m[j-1] >= 'a' && m[j-1] <= 'z' {
			j--
		}
		mod := m[j:]
		if !leantext.Is(mod, leantext.Modifier) || !wordAt(m, j, mod) {
			return prelude
		}
		prelude = t[:len(t)-len(mod)]
	}
}

// proofStart is the offset in masked text m, from i on, where the proof
// begins: the first `:=` at bracket depth 0 that is not the value of a
// `let`/`have` in the type, or a top-level `where` after the type; len(m)
// when there is none. (A proof by pattern matching, `| pat => …`, is not
// recognised: `|x|` at the start of a line is as likely an absolute value.)
func proofStart(m string, i int) int {
	depth, pending := 0, 0
	seenColon := false
	for k := i; k < len(m); {
		r, size := utf8.DecodeRuneInString(m[k:])
		switch {
		case isOpen(r):
			depth++
		case isClose(r):
			depth--
		case depth == 0 && r == ':' && strings.HasPrefix(m[k:], ":="):
			if pending > 0 {
				pending--
				k += 2
				continue
			}
			return k
		case depth == 0 && r == ':':
			seenColon = true
		case depth == 0 && (wordAt(m, k, "let") || wordAt(m, k, "have") || wordAt(m, k, "haveI") || wordAt(m, k, "letI")):
			pending++
		case depth == 0 && seenColon && wordAt(m, k, "where"):
			return k
		}
		k += size
	}
	return len(m)
}

// topColon is the offset of the first ':' at bracket depth 0 that does not
// start ":=", or -1.
func topColon(m string) int {
	depth := 0
	for k, r := range m {
		switch {
		case isOpen(r):
			depth++
		case isClose(r):
			depth--
		case depth == 0 && r == ':' && !strings.HasPrefix(m[k:], ":="):
			return k
		}
	}
	return -1
}

// trimSpaceLines drops trailing spaces of every line (left by comments).
func trimSpaceLines(s string) string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " \t\r")
	}
	return strings.Join(ls, "\n")
}
