package lean

import (
	"strings"
)

// SorryWarning is the text of the warning Lean prints for every declaration
// that uses `sorry`. Backends without a `sorries` list (the one-shot `lean
// --json`) find sorries by it alone.
const SorryWarning = "declaration uses 'sorry'"

// judge sets Pass and Complete from the messages and sorries: Pass when no
// message is an error, Complete when Pass and nothing uses sorry (neither a
// `sorries` entry nor Lean's "declaration uses 'sorry'" warning — the REPL
// lists only tactic-mode sorries, so the warning is the reliable signal).
func (r *Result) judge() {
	r.Pass = r.Error == "" && !hasError(r.Messages)
	r.Complete = r.Pass && len(r.Sorries) == 0 && !hasSorryWarning(r.Messages)
}

func hasError(ms []Message) bool {
	for _, m := range ms {
		if m.Severity == "error" {
			return true
		}
	}
	return false
}

func hasSorryWarning(ms []Message) bool {
	for _, m := range ms {
		if m.Severity == "warning" && strings.Contains(m.Data, SorryWarning) {
			return true
		}
	}
	return false
}

// normSeverity maps Lean's spellings onto the REPL's: `lean --json` says
// "information" where the REPL says "info".
func normSeverity(s string) string {
	if s == "information" {
		return "info"
	}
	return s
}

// CodeLine converts a line of a position in this result into a line of
// Snippet.Code (1-based), whatever the backend did with the header. A result
// whose CodeLine0 is unset counts as positions relative to Code.
func (r *Result) CodeLine(line int) int {
	if r.CodeLine0 <= 1 {
		return line
	}
	return line - (r.CodeLine0 - 1)
}

// Failed is the short reason a result did not pass, for logs: the error
// that kept Lean from judging, else the first error message.
func (r *Result) Failed() string {
	if r.Error != "" {
		return r.Error
	}
	for _, m := range r.Messages {
		if m.Severity == "error" {
			return firstLine(m.Data)
		}
	}
	if !r.Complete {
		return "uses sorry"
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// shiftLines moves every position of r down by n lines (n may be negative).
func (r *Result) shiftLines(n int) {
	if n == 0 {
		return
	}
	for i := range r.Messages {
		r.Messages[i].Pos.Line += n
		if p := r.Messages[i].EndPos; p != nil {
			q := *p
			q.Line += n
			r.Messages[i].EndPos = &q
		}
	}
	for i := range r.Sorries {
		r.Sorries[i].Pos.Line += n
		if p := r.Sorries[i].EndPos; p != nil {
			q := *p
			q.Line += n
			r.Sorries[i].EndPos = &q
		}
	}
}
