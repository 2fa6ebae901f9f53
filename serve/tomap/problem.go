package tomap

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Problem is one input x = (theorem, proof) in natural language, with an
// optional formal statement (miniF2F-style inputs) the last unit must match.
type Problem struct {
	// Key identifies the problem in journals, results and file names:
	// "<origin>/<id>" for ProofFlowBench, the name (or id) for JSONL.
	Key             string `json:"key"`
	Theorem         string `json:"theorem"`
	Proof           string `json:"proof"`
	FormalStatement string `json:"formal_statement,omitempty"`
	// ReferenceUnits is the length of the benchmark's reference proof graph
	// (0 if none); only dry-run estimates use it.
	ReferenceUnits int `json:"reference_units,omitempty"`
	// Line is where the problem starts in its file.
	Line int `json:"line"`
	// Restored counts LaTeX backslashes put back (see RestoreLaTeX).
	Restored int `json:"restored,omitempty"`
}

// RestoreLaTeX puts back LaTeX backslashes that JSON escaping ate: in
// ProofFlowBench (24 of 184 items) "\frac" was written as the JSON escape
// "\f" plus "rac", so the text holds a form feed where the backslash and
// the f were; likewise "\b" (backspace: \binom, \beta), "\v" (vertical
// tab: \vphi), and a tab or carriage return directly before a letter
// (\tfrac, \times, \to, \rightarrow). It returns the text and how many
// it restored. A tab or CR not followed by a letter is kept.
func RestoreLaTeX(s string) (string, int) {
	if !strings.ContainsAny(s, "\f\b\v\t\r") {
		return s, 0
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		letter := next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z'
		switch {
		case c == '\f':
			b.WriteString(`\f`)
			n++
		case c == '\b':
			b.WriteString(`\b`)
			n++
		case c == '\v':
			b.WriteString(`\v`)
			n++
		case c == '\t' && letter:
			b.WriteString(`\t`)
			n++
		case c == '\r' && letter:
			b.WriteString(`\r`)
			n++
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), n
}

// ErrInput is wrapped by every problem with a benchmark file.
var ErrInput = errors.New("bad benchmark input")

// InputError names the place in a benchmark file that could not be used.
type InputError struct {
	Path string
	Line int // 1-based; 0 when the whole file is at fault
	Item int // 1-based item of a JSON array; 0 for JSONL
	Err  error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Item > 0 {
		fmt.Fprintf(&b, " (item %d)", e.Item)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// maxInputErrors bounds how many bad items one error reports.
const maxInputErrors = 10

// ReadProblems reads a benchmark file: a JSON array of ProofFlowBench items
// (nl_theorem, nl_proof, origin, id, proof_graph) or JSON lines in the
// miniF2F style (an informal statement, an informal proof, optionally a
// formal statement, and a name). Every bad item is reported (up to ten,
// each with its line); a file with any bad item yields no problems, so a
// benchmark is never silently shortened. Keys must be unique.
func ReadProblems(path string) ([]Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseProblems(path, data)
}

// ParseProblems is ReadProblems on bytes already read; path names them in errors.
func ParseProblems(path string, data []byte) ([]Problem, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return nil, &InputError{Path: path, Err: fmt.Errorf("%w: empty file, want a JSON array (ProofFlowBench) or JSON lines", ErrInput)}
	}
	var ps []Problem
	var errs []error
	if trimmed[0] == '[' {
		ps, errs = parseArray(path, data)
	} else {
		ps, errs = parseLines(path, data)
	}
	seen := map[string]int{}
	for _, p := range ps {
		if first, dup := seen[p.Key]; dup {
			errs = append(errs, &InputError{Path: path, Line: p.Line, Err: fmt.Errorf("%w: key %q also used at line %d", ErrInput, p.Key, first)})
			continue
		}
		seen[p.Key] = p.Line
	}
	if len(errs) > 0 {
		if len(errs) > maxInputErrors {
			n := len(errs)
			errs = append(errs[:maxInputErrors], fmt.Errorf("… and %d more", n-maxInputErrors))
		}
		return nil, errors.Join(errs...)
	}
	if len(ps) == 0 {
		return nil, &InputError{Path: path, Err: fmt.Errorf("%w: no problems", ErrInput)}
	}
	return ps, nil
}

// benchItem is one ProofFlowBench entry.
type benchItem struct {
	Origin     *string           `json:"origin"`
	ID         json.RawMessage   `json:"id"`
	NLTheorem  *string           `json:"nl_theorem"`
	NLProof    *string           `json:"nl_proof"`
	ProofGraph []json.RawMessage `json:"proof_graph"`
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// idString renders a JSON id (number or string) for a key.
func idString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", errors.New("empty id")
		}
		return strings.TrimSpace(s), nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err == nil {
		if _, err := strconv.ParseFloat(n.String(), 64); err == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("id %s is neither a string nor a number", clip(string(raw), 40))
}

func parseArray(path string, data []byte) ([]Problem, []error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	bad := func(line, item int, format string, args ...any) error {
		return &InputError{Path: path, Line: line, Item: item, Err: fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, []error{bad(1, 0, "want a JSON array")}
	}
	var ps []Problem
	var errs []error
	for item := 1; dec.More(); item++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ps, append(errs, bad(lineAt(data, dec.InputOffset()), item, "not JSON: %v", err))
		}
		line := lineAt(data, dec.InputOffset()-int64(len(raw)))
		var it benchItem
		if err := json.Unmarshal(raw, &it); err != nil {
			errs = append(errs, bad(line, item, "not a ProofFlowBench item: %v", err))
			continue
		}
		p, err := it.problem()
		if err != nil {
			errs = append(errs, bad(line, item, "%v", err))
			continue
		}
		p.Line = line
		ps = append(ps, p)
	}
	if _, err := dec.Token(); err != nil {
		errs = append(errs, bad(lineAt(data, dec.InputOffset()), 0, "unterminated JSON array: %v", err))
	} else if _, err := dec.Token(); err != io.EOF {
		errs = append(errs, bad(lineAt(data, dec.InputOffset()), 0, "text after the JSON array"))
	}
	return ps, errs
}

func (it *benchItem) problem() (Problem, error) {
	var p Problem
	switch {
	case it.Origin == nil || strings.TrimSpace(*it.Origin) == "":
		return p, errors.New("origin missing or empty (ProofFlowBench items have origin, id, nl_theorem, nl_proof)")
	case len(it.ID) == 0 || string(it.ID) == "null":
		return p, errors.New("id missing")
	case it.NLTheorem == nil || strings.TrimSpace(*it.NLTheorem) == "":
		return p, errors.New("nl_theorem missing or empty")
	case it.NLProof == nil || strings.TrimSpace(*it.NLProof) == "":
		return p, errors.New("nl_proof missing or empty")
	}
	id, err := idString(it.ID)
	if err != nil {
		return p, err
	}
	thm, n1 := RestoreLaTeX(strings.TrimSpace(*it.NLTheorem))
	proof, n2 := RestoreLaTeX(strings.TrimSpace(*it.NLProof))
	return Problem{
		Key:            strings.TrimSpace(*it.Origin) + "/" + id,
		Theorem:        thm,
		Proof:          proof,
		ReferenceUnits: len(it.ProofGraph),
		Restored:       n1 + n2,
	}, nil
}

// Field names accepted in JSON lines, first match wins. miniF2F exports and
// their descendants spell them differently.
var (
	statementFields = []string{"informal_statement", "informal_stmt", "nl_theorem", "natural_language_statement", "informal_prefix"}
	proofFields     = []string{"informal_proof", "nl_proof", "natural_language_proof"}
	formalFields    = []string{"formal_statement", "formal_stmt"}
	nameFields      = []string{"name", "problem_name", "full_name", "id"}
)

func parseLines(path string, data []byte) ([]Problem, []error) {
	var ps []Problem
	var errs []error
	line := 0
	for len(data) > 0 {
		line++
		var b []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			b, data = data[:i], data[i+1:]
		} else {
			b, data = data, nil
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		p, err := parseLine(b)
		if err != nil {
			errs = append(errs, &InputError{Path: path, Line: line, Err: fmt.Errorf("%w: %v", ErrInput, err)})
			continue
		}
		p.Line = line
		ps = append(ps, p)
	}
	return ps, errs
}

func parseLine(b []byte) (Problem, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Problem{}, fmt.Errorf("not a JSON object: %v", err)
	}
	str := func(names []string) (string, string, error) {
		for _, n := range names {
			raw, ok := m[n]
			if !ok || string(raw) == "null" {
				continue
			}
			if n == "id" {
				s, err := idString(raw)
				return s, n, err
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", n, fmt.Errorf("%s is not a string", n)
			}
			if strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s), n, nil
			}
		}
		return "", "", nil
	}
	var p Problem
	var field string
	var err error
	if p.Theorem, field, err = str(statementFields); err != nil {
		return p, err
	}
	if field == "informal_prefix" {
		p.Theorem = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(p.Theorem, "/--"), "-/"))
	}
	if p.Proof, _, err = str(proofFields); err != nil {
		return p, err
	}
	if p.FormalStatement, _, err = str(formalFields); err != nil {
		return p, err
	}
	if p.Key, _, err = str(nameFields); err != nil {
		return p, err
	}
	switch {
	case p.Theorem == "":
		return p, fmt.Errorf("no informal statement (one of %s)", strings.Join(statementFields, ", "))
	case p.Proof == "":
		return p, fmt.Errorf("no informal proof (one of %s): ToMap formalizes a proof", strings.Join(proofFields, ", "))
	case p.Key == "":
		return p, fmt.Errorf("no name (one of %s)", strings.Join(nameFields, ", "))
	}
	return p, nil
}

// FileName is a file-system-safe, collision-free name for a problem key:
// the key with unsafe bytes replaced, plus a short hash of the key.
func FileName(key string) string {
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 80 {
			break
		}
	}
	h := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s-%x", strings.Trim(b.String(), "."), h[:4])
}

// Split returns "dev" or "test" for a key: a fixed half of any benchmark by
// the key's hash, so that gate, pool and round settings are tuned on one
// half and reported on the other.
func Split(key string) string {
	h := sha256.Sum256([]byte("driftkit-tomap-split\x00" + key))
	if h[0]&1 == 0 {
		return "dev"
	}
	return "test"
}
