package informalize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ErrBadAnswer is wrapped by every reason ParseAnswer rejects a model answer.
var ErrBadAnswer = errors.New("bad answer")

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
	return a, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncate(s, n)
}
