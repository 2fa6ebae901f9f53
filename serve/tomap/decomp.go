package tomap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/driftkit/driftkit/internal/leantext"
)

// Unit is one proof unit: a local claim the Formalizer states as a lemma
// named ID and the Prover proves.
type Unit struct {
	ID          string   `json:"id"`
	Claim       string   `json:"claim"`
	Variables   []string `json:"variables"`
	Assumptions []string `json:"assumptions"`
	Deps        []string `json:"depends_on"`
	Hints       string   `json:"hints"`
}

// Decomposition is an ordered list of units whose dependencies form a DAG
// ending in the theorem (the last unit). Valid reports whether it is one.
type Decomposition struct {
	Units []Unit `json:"units"`
}

// DecompositionSchema is the answer shape of the Decomposer and Rewriter.
const DecompositionSchema = `{"units": [{"id": "...", "claim": "...", "variables": ["..."], "assumptions": ["..."], "depends_on": ["..."], "hints": "..."}]}`

// Limits on a decomposition, so one runaway answer cannot cost a hundred
// formalizer calls.
const (
	MaxUnits    = 40
	maxClaimLen = 4000
	maxIDLen    = 64
)

// Sentinel errors of Validate, matched with errors.Is through *DAGError.
var (
	ErrEmpty      = errors.New("no units")
	ErrTooMany    = errors.New("too many units")
	ErrBadID      = errors.New("id is not a Lean identifier")
	ErrDuplicate  = errors.New("duplicate id")
	ErrEmptyClaim = errors.New("empty claim")
	ErrUnknownDep = errors.New("dependency on an unknown unit")
	ErrSelfDep    = errors.New("unit depends on itself")
	ErrCycle      = errors.New("dependency cycle")
	ErrForwardRef = errors.New("forward reference")
	ErrUnused     = errors.New("unit not used by any later unit")
)

// DAGError is one problem of a decomposition: which unit (by id and 0-based
// position), what is wrong (a sentinel above) and a sentence for the model.
type DAGError struct {
	Unit   string
	Index  int
	Err    error
	Detail string
}

func (e *DAGError) Error() string {
	if e.Unit == "" {
		return fmt.Sprintf("%v: %s", e.Err, e.Detail)
	}
	return fmt.Sprintf("unit %q (#%d): %v: %s", e.Unit, e.Index+1, e.Err, e.Detail)
}

func (e *DAGError) Unwrap() error { return e.Err }

var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// Validate checks that d is a usable decomposition and returns every
// problem found (errors.Join of *DAGError), or nil. The rules: at least one
// unit and at most MaxUnits; ids distinct Lean identifiers; non-empty
// claims; dependencies name existing units; no cycles (reported with the
// cycle's path); no forward references (a unit depends only on units listed
// before it); every unit but the last is used by a later unit.
func (d *Decomposition) Validate() error {
	var errs []error
	add := func(u string, i int, err error, format string, args ...any) {
		errs = append(errs, &DAGError{Unit: u, Index: i, Err: err, Detail: fmt.Sprintf(format, args...)})
	}
	n := len(d.Units)
	if n == 0 {
		add("", -1, ErrEmpty, "a decomposition needs at least the theorem as its last unit")
		return errors.Join(errs...)
	}
	if n > MaxUnits {
		add("", -1, ErrTooMany, "%d units, at most %d", n, MaxUnits)
		return errors.Join(errs...)
	}
	pos := make(map[string]int, n)
	for i, u := range d.Units {
		switch {
		case !identRE.MatchString(u.ID) || len(u.ID) > maxIDLen:
			add(u.ID, i, ErrBadID, "use letters, digits and underscores, starting with a letter (at most %d characters)", maxIDLen)
		case leantext.Is(u.ID, leantext.Reserved):
			add(u.ID, i, ErrBadID, "%q is a Lean keyword", u.ID)
		}
		if j, dup := pos[u.ID]; dup {
			add(u.ID, i, ErrDuplicate, "also the id of unit #%d", j+1)
		} else {
			pos[u.ID] = i
		}
		if strings.TrimSpace(u.Claim) == "" {
			add(u.ID, i, ErrEmptyClaim, "every unit states a claim")
		} else if len(u.Claim) > maxClaimLen {
			add(u.ID, i, ErrEmptyClaim, "claim of %d characters, at most %d", len(u.Claim), maxClaimLen)
		}
	}
	// Edges between known units; unknown and self dependencies are reported
	// on their own.
	adj := make([][]int, n)
	for i, u := range d.Units {
		seen := map[string]bool{}
		for _, dep := range u.Deps {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			j, ok := pos[dep]
			switch {
			case dep == u.ID:
				add(u.ID, i, ErrSelfDep, "a unit cannot use its own claim")
			case !ok:
				add(u.ID, i, ErrUnknownDep, "no unit has the id %q", dep)
			default:
				adj[i] = append(adj[i], j)
			}
		}
	}
	cyclic := map[int]bool{}
	for _, cyc := range findCycles(adj) {
		names := make([]string, 0, len(cyc)+1)
		for _, k := range cyc {
			names = append(names, d.Units[k].ID)
			cyclic[k] = true
		}
		names = append(names, d.Units[cyc[0]].ID)
		add(d.Units[cyc[0]].ID, cyc[0], ErrCycle, "%s", strings.Join(names, " → "))
	}
	for i, u := range d.Units {
		for _, j := range adj[i] {
			if j > i && !(cyclic[i] && cyclic[j]) {
				add(u.ID, i, ErrForwardRef, "depends on %q, which comes later (#%d); list units in dependency order", d.Units[j].ID, j+1)
			}
		}
	}
	used := make([]bool, n)
	for i := range d.Units {
		for _, j := range adj[i] {
			if j < i {
				used[j] = true
			}
		}
	}
	for i := 0; i < n-1; i++ {
		if !used[i] && d.Units[i].ID != "" {
			add(d.Units[i].ID, i, ErrUnused, "no later unit depends on it; drop it or make the later unit that uses it say so")
		}
	}
	return errors.Join(errs...)
}

// findCycles returns one cycle (as unit indices in dependency order) per
// strongly connected component that has one, found by depth-first search.
func findCycles(adj [][]int) [][]int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(adj))
	var stack []int
	var out [][]int
	var visit func(int)
	visit = func(v int) {
		color[v] = grey
		stack = append(stack, v)
		for _, w := range adj[v] {
			switch color[w] {
			case white:
				visit(w)
			case grey:
				// w is on the stack: the cycle is stack[w's position:].
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k] == w {
						out = append(out, append([]int(nil), stack[k:]...))
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[v] = black
	}
	for v := range adj {
		if color[v] == white {
			visit(v)
		}
	}
	return out
}

// ParseDecomposition reads a Decomposer or Rewriter answer strictly and
// validates it. A format error wraps ErrBadAnswer; a DAG error is an
// errors.Join of *DAGError.
func ParseDecomposition(content string) (Decomposition, error) {
	var d Decomposition
	var raw struct {
		Units *[]Unit `json:"units"`
	}
	if err := decodeStrict(content, &raw); err != nil {
		return d, err
	}
	if raw.Units == nil {
		return d, badf("units missing")
	}
	d.Units = *raw.Units
	for i := range d.Units {
		u := &d.Units[i]
		u.ID = strings.TrimSpace(u.ID)
		u.Claim = strings.TrimSpace(u.Claim)
		u.Hints = strings.TrimSpace(u.Hints)
		for k := range u.Deps {
			u.Deps[k] = strings.TrimSpace(u.Deps[k])
		}
	}
	return d, d.Validate()
}

// JSON is the decomposition as shown to models: indented, in the answer schema.
func (d *Decomposition) JSON() string {
	b, _ := json.MarshalIndent(d, "", "  ")
	return string(b)
}

// Hash identifies a decomposition's content (for dedup and file names).
func (d *Decomposition) Hash() string {
	b, _ := json.Marshal(d)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// problems lists the messages of a Validate error for the feedback prompt.
func problems(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		out = append(out, e.Error())
	}
	walk(err)
	return out
}
