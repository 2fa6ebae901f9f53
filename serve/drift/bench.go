package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/internal/leanname"
	"github.com/driftkit/driftkit/retrieval/eval"
)

// Item is one benchmark statement to formalize.
type Item struct {
	// Key names the item in records and in the journal: full_name, else
	// problem_name, else name, else "line N"; repeated keys get "#N" (the
	// line) appended so that every item of a file has its own.
	Key string `json:"key"`
	// Line is the 1-based line of the item in its file.
	Line int `json:"line"`
	// Informal is the statement to formalize.
	Informal string `json:"informal"`
	// Reference is the reference formal statement ("" when the benchmark
	// has none): the target of BEq+.
	Reference string `json:"reference,omitempty"`
	// Header is the Lean text the statement is checked after (imports,
	// opens); "" means the runner's default header.
	Header string `json:"header,omitempty"`
	// Gold are the gold premises (mathlib_dependencies), nil when unknown.
	Gold []string `json:"gold,omitempty"`
	// Self is the item's own declaration in the library (full_name), never
	// retrieved nor used as an illustration ("" when the item has none).
	Self string `json:"self,omitempty"`
}

// benchLine is what ReadBench understands: ProofNet and ConNF as released
// by RAutoformalizer (informal_stmt, formal_stmt, header,
// mathlib_dependencies, full_name), miniF2F-style lines (formal_statement,
// informal_prefix, name) and testdata/bench.jsonl.
type benchLine struct {
	InformalStmt      string   `json:"informal_stmt"`
	InformalStatement string   `json:"informal_statement"`
	InformalPrefix    string   `json:"informal_prefix"`
	FormalStmt        string   `json:"formal_stmt"`
	FormalStatement   string   `json:"formal_statement"`
	Header            string   `json:"header"`
	Gold              []string `json:"mathlib_dependencies"`
	FullName          string   `json:"full_name"`
	ProblemName       string   `json:"problem_name"`
	Name              string   `json:"name"`
}

// ErrBench and BenchError are retrieval/eval's: a benchmark file's
// problems are reported the same way by every reader of benchmarks.
var ErrBench = eval.ErrBench

// BenchError names the benchmark file and line at fault.
type BenchError = eval.BenchError

// ReadBench parses a JSON-lines benchmark. Blank lines are skipped. A line
// that is not a JSON object, or has no informal statement, is an error
// naming the line: a benchmark with holes would give numbers over a
// different set of items than the file claims.
func ReadBench(r io.Reader, path string) ([]Item, error) {
	seen := map[string]int{}
	return eval.ReadItems(r, path, "JSON lines with informal_stmt", func(line int, b []byte) (Item, error) {
		var bl benchLine
		if err := json.Unmarshal(b, &bl); err != nil {
			return Item{}, fmt.Errorf("%w: want one JSON object per line (informal_stmt, formal_stmt, header, mathlib_dependencies, full_name): %v", ErrBench, err)
		}
		it := Item{Line: line, Header: bl.Header, Gold: bl.Gold, Self: leanname.Canonical(strings.TrimSpace(bl.FullName))}
		for i, g := range it.Gold {
			it.Gold[i] = leanname.Canonical(strings.TrimSpace(g))
		}
		it.Informal = strings.TrimSpace(firstNonEmpty(bl.InformalStmt, bl.InformalStatement, docComment(bl.InformalPrefix)))
		if it.Informal == "" {
			return Item{}, fmt.Errorf("%w: no informal statement (informal_stmt, informal_statement or informal_prefix)", ErrBench)
		}
		it.Reference = strings.TrimSpace(firstNonEmpty(bl.FormalStmt, bl.FormalStatement))
		it.Key = strings.TrimSpace(firstNonEmpty(bl.FullName, bl.ProblemName, bl.Name))
		if it.Key == "" {
			it.Key = "line " + strconv.Itoa(line)
		}
		for _, dup := seen[it.Key]; dup; _, dup = seen[it.Key] {
			it.Key += "#" + strconv.Itoa(line)
		}
		seen[it.Key] = line
		return it, nil
	})
}

// ReadBenchFile reads a benchmark file.
func ReadBenchFile(path string) ([]Item, error) { return eval.ReadFile(path, ReadBench) }

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// docComment strips the /-- … -/ of a miniF2F informal_prefix.
func docComment(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "/--")
	s = strings.TrimPrefix(s, "/-")
	s = strings.TrimSuffix(s, "-/")
	return strings.TrimSpace(s)
}
