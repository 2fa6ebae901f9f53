package mine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/driftkit/driftkit/internal/leanname"
	"github.com/driftkit/driftkit/internal/leantext"
	"github.com/driftkit/driftkit/retrieval/eval"
)

// ErrBenchmark and BenchError are retrieval/eval's: a benchmark file's
// problems are reported the same way by every reader of benchmarks (Line 0:
// the file as a whole, a JSON array).
var ErrBenchmark = eval.ErrBench

// BenchError reports a problem in a benchmark file at a line.
type BenchError = eval.BenchError

// BenchItem is what decontamination compares against: a benchmark item's
// names, normalised formal statement and normalised informal statement (any
// may be empty).
type BenchItem struct {
	Line     int
	Names    []string
	Formal   string
	Informal string
}

// benchRecord holds the fields of the benchmark formats in
// shared/benchmarks: ProofNet/ConNF items (full_name, problem_name,
// formal_stmt, informal_stmt), RAutoformalizer library rows (full_name) and
// ProofFlowBench (nl_theorem).
type benchRecord struct {
	FullName     string `json:"full_name"`
	ProblemName  string `json:"problem_name"`
	FormalStmt   string `json:"formal_stmt"`
	InformalStmt string `json:"informal_stmt"`
	NLTheorem    string `json:"nl_theorem"`
}

func (r *benchRecord) item(line int) (BenchItem, bool) {
	it := BenchItem{Line: line, Formal: NormaliseStatement(r.FormalStmt)}
	for _, n := range []string{r.FullName, r.ProblemName} {
		if n = leanname.Canonical(strings.TrimSpace(n)); n != "" && !contains(it.Names, n) {
			it.Names = append(it.Names, n)
		}
	}
	inf := r.InformalStmt
	if inf == "" {
		inf = r.NLTheorem
	}
	it.Informal = NormaliseText(inf)
	return it, len(it.Names) > 0 || it.Formal != "" || it.Informal != ""
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// ReadBenchmark reads a benchmark file: JSON lines (one item per line) or a
// JSON array of items. Lines that are not JSON objects are errors naming the
// line; items with none of the known fields are skipped.
func ReadBenchmark(path string) ([]BenchItem, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBenchmark(path, b)
}

// ParseBenchmark is ReadBenchmark on bytes; path only names the file in errors.
func ParseBenchmark(path string, b []byte) ([]BenchItem, error) {
	trim := bytes.TrimSpace(b)
	if len(trim) > 0 && trim[0] == '[' {
		var recs []json.RawMessage
		if err := json.Unmarshal(trim, &recs); err != nil {
			return nil, &BenchError{Path: path, Err: fmt.Errorf("%w: not a JSON array of items: %v", ErrBenchmark, err)}
		}
		var out []BenchItem
		for i, raw := range recs {
			var r benchRecord
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, &BenchError{Path: path, Line: 0, Err: fmt.Errorf("%w: item %d: %v", ErrBenchmark, i, err)}
			}
			if it, ok := r.item(i + 1); ok {
				out = append(out, it)
			}
		}
		return out, nil
	}
	var out []BenchItem
	_, err := eval.ReadLines(bytes.NewReader(b), path, func(line int, l []byte) error {
		var r benchRecord
		if err := json.Unmarshal(bytes.TrimSpace(l), &r); err != nil {
			return fmt.Errorf("%w: %v", ErrBenchmark, err)
		}
		if it, ok := r.item(line); ok {
			out = append(out, it)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NormaliseStatement reduces a formal statement to a comparison key: leading
// attributes (@[…]), modifiers, the keyword and the declaration name are
// dropped, as is everything from the first top-level ":=" (the proof), and
// all whitespace is removed. A source signature ("binders : type") and a
// benchmark's "theorem name binders : type := sorry" give the same key.
func NormaliseStatement(s string) string {
	s = strings.TrimSpace(s)
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if strings.HasPrefix(s, "@[") {
			if end := matchClose(s, 1); end > 0 {
				s = s[end+1:]
				continue
			}
			return ""
		}
		if strings.HasPrefix(s, "/--") {
			if end := strings.Index(s, "-/"); end > 0 {
				s = s[end+2:]
				continue
			}
		}
		w, rest := firstWord(s)
		switch {
		case leantext.Is(w, leantext.Modifier):
			s = rest
			continue
		case leantext.Is(w, leantext.Decl):
			s = rest
			if w != "example" {
				_, s = firstWord(strings.TrimLeftFunc(s, unicode.IsSpace))
			}
		}
		break
	}
	s = cutProof(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// firstWord splits off a leading identifier-like word (up to a space or a
// binder bracket).
func firstWord(s string) (string, string) {
	i := strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("([{⦃:", r)
	})
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// matchClose returns the index of the bracket closing the one at open, or -1.
func matchClose(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// cutProof drops everything from the first ":=" outside brackets.
func cutProof(s string) string {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ':':
			if depth <= 0 && s[i+1] == '=' {
				return s[:i]
			}
		}
	}
	return s
}

// NormaliseText lowercases and collapses whitespace, for comparing informal
// statements.
func NormaliseText(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Decontaminator drops pairs that match benchmark items. It is safe for
// concurrent use after construction.
type Decontaminator struct {
	files    []string
	names    map[string]int // name → file index
	formal   map[string]int
	informal map[string]int
	items    []int
}

// NewDecontaminator reads the benchmark files.
func NewDecontaminator(paths []string) (*Decontaminator, error) {
	d := &Decontaminator{files: paths, names: map[string]int{}, formal: map[string]int{}, informal: map[string]int{},
		items: make([]int, len(paths))}
	for i, p := range paths {
		items, err := ReadBenchmark(p)
		if err != nil {
			return nil, err
		}
		d.items[i] = len(items)
		for _, it := range items {
			for _, n := range it.Names {
				d.names[n] = i
			}
			if it.Formal != "" {
				d.formal[it.Formal] = i
			}
			if it.Informal != "" {
				d.informal[it.Informal] = i
			}
		}
	}
	return d, nil
}

// Match says whether a theorem (by name, its signature, or the query text)
// matches a benchmark item, which file, and how ("name", "statement",
// "informal").
func (d *Decontaminator) Match(theorem, signature, query string) (file string, how string, ok bool) {
	if d == nil {
		return "", "", false
	}
	// benchmark names are canonical; a table written before names were
	// (Foo.«structure») is matched too
	if i, ok := d.names[leanname.Canonical(theorem)]; ok {
		return d.files[i], "name", true
	}
	if k := NormaliseStatement(signature); k != "" {
		if i, ok := d.formal[k]; ok {
			return d.files[i], "statement", true
		}
	}
	if k := NormaliseText(query); k != "" {
		if i, ok := d.informal[k]; ok {
			return d.files[i], "informal", true
		}
	}
	return "", "", false
}

// Items returns how many items each file had, in the order given.
func (d *Decontaminator) Items() []int { return d.items }
