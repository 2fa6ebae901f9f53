package informalize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/llm"
)

// ErrBadAnswer is wrapped by every reason ParseAnswer rejects a model answer.
var ErrBadAnswer = errors.New("bad answer")

// ErrPlaceholder is wrapped (with ErrBadAnswer) by an answer that copies
// the prompt's template back ({"informal_name": "...", …}) or is too short
// to state anything: small models do this, and such text must never be
// stored as the model's.
var ErrPlaceholder = errors.New("placeholder answer")

// Answer is a parsed model answer.
type Answer struct {
	InformalName      string `json:"informal_name"`
	InformalStatement string `json:"informal_statement"`
}

// Limits on an acceptable answer.
const (
	maxNameLen      = 200
	maxStatementLen = 4000
)

// ParseAnswer parses a model's content strictly: exactly one JSON object with
// exactly the string fields informal_name and informal_statement, both
// non-empty, the name on one line; nothing before or after it except white
// space or a single Markdown code fence around it.
func ParseAnswer(content string) (Answer, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return Answer{}, fmt.Errorf("%w: empty content", ErrBadAnswer)
	}
	if strings.HasPrefix(s, "```") {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || !strings.HasSuffix(s, "```") || len(s) < nl+4 {
			return Answer{}, fmt.Errorf("%w: unterminated code fence", ErrBadAnswer)
		}
		if lang := strings.TrimSpace(s[3:nl]); lang != "" && lang != "json" {
			return Answer{}, fmt.Errorf("%w: code fence of %q, want json", ErrBadAnswer, lang)
		}
		s = strings.TrimSpace(s[nl+1 : len(s)-3])
	}
	if !utf8.ValidString(s) {
		return Answer{}, fmt.Errorf("%w: content is not valid UTF-8", ErrBadAnswer)
	}
	if !strings.HasPrefix(s, "{") {
		return Answer{}, fmt.Errorf("%w: content does not start with a JSON object: %q", ErrBadAnswer, clip(s, 60))
	}
	// LaTeX with one backslash ("\frac", "\neq") would decode into control
	// characters or fail.
	s, _ = llm.RepairJSONEscapes(s)
	dec := json.NewDecoder(strings.NewReader(s))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Answer{}, fmt.Errorf("%w: not a JSON object", ErrBadAnswer)
	}
	var a Answer
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return Answer{}, fmt.Errorf("%w: not a JSON object: %v", ErrBadAnswer, err)
		}
		k, _ := t.(string)
		var dst *string
		switch k {
		case "informal_name":
			dst = &a.InformalName
		case "informal_statement":
			dst = &a.InformalStatement
		default:
			return Answer{}, fmt.Errorf("%w: unexpected field %q", ErrBadAnswer, k)
		}
		if seen[k] {
			return Answer{}, fmt.Errorf("%w: field %q given twice", ErrBadAnswer, k)
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return Answer{}, fmt.Errorf("%w: not a JSON object: %v", ErrBadAnswer, err)
		}
		if err := json.Unmarshal(v, dst); err != nil || !bytes.HasPrefix(v, []byte(`"`)) {
			return Answer{}, fmt.Errorf("%w: field %q is not a string", ErrBadAnswer, k)
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return Answer{}, fmt.Errorf("%w: unterminated JSON object", ErrBadAnswer)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Answer{}, fmt.Errorf("%w: text after the JSON object", ErrBadAnswer)
	}
	a.InformalName = strings.TrimSpace(a.InformalName)
	a.InformalStatement = strings.TrimSpace(a.InformalStatement)
	switch {
	case a.InformalName == "":
		return Answer{}, fmt.Errorf("%w: informal_name missing or empty", ErrBadAnswer)
	case a.InformalStatement == "":
		return Answer{}, fmt.Errorf("%w: informal_statement missing or empty", ErrBadAnswer)
	case strings.ContainsAny(a.InformalName, "\n\r"):
		return Answer{}, fmt.Errorf("%w: informal_name spans several lines", ErrBadAnswer)
	case len(a.InformalName) > maxNameLen:
		return Answer{}, fmt.Errorf("%w: informal_name is %d bytes, at most %d", ErrBadAnswer, len(a.InformalName), maxNameLen)
	case len(a.InformalStatement) > maxStatementLen:
		return Answer{}, fmt.Errorf("%w: informal_statement is %d bytes, at most %d", ErrBadAnswer, len(a.InformalStatement), maxStatementLen)
	}
	if err := checkPlaceholder(a); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// minStatementWords is the fewest words a statement can state anything in
// ("Every prime is odd." has four).
const minStatementWords = 3

// checkPlaceholder rejects fields that are the prompt's placeholder copied
// back ("...", "…", "...}") or that have no words, and statements shorter
// than minStatementWords words.
func checkPlaceholder(a Answer) error {
	for _, f := range [][2]string{{"informal_name", a.InformalName}, {"informal_statement", a.InformalStatement}} {
		if letters(f[1]) < 2 {
			return fmt.Errorf("%w: %w: %s is %q, the prompt's placeholder, not a text: write the actual %s of this declaration",
				ErrBadAnswer, ErrPlaceholder, f[0], clip(f[1], 40), strings.ReplaceAll(strings.TrimPrefix(f[0], "informal_"), "_", " "))
		}
	}
	if n := len(strings.Fields(a.InformalStatement)); n < minStatementWords {
		return fmt.Errorf("%w: %w: informal_statement %q has %d words: state the declaration in a full sentence",
			ErrBadAnswer, ErrPlaceholder, clip(a.InformalStatement, 40), n)
	}
	return nil
}

// letters counts the letters of s.
func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncate(s, n)
}
