package drift

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/driftkit/driftkit/lean"
)

// Verdict is the outcome of BEq+ between a reference and a candidate
// (lean.BEqOutcome's values).
type Verdict string

// BEq+ verdicts: both implications proved, only one, neither.
const (
	Equivalent   = Verdict(lean.Equivalent)
	OneDirection = Verdict(lean.OneDirection)
	NotProved    = Verdict(lean.NotProved)
)

// Equivalence is one BEq+ judgement.
type Equivalence struct {
	Verdict Verdict `json:"verdict,omitempty"`
	// RefToCand: the candidate was proved from the reference; CandToRef
	// the converse. Note says how (BEq+'s strategies) or why not.
	RefToCand bool   `json:"ref_to_cand,omitempty"`
	CandToRef bool   `json:"cand_to_ref,omitempty"`
	Note      string `json:"note,omitempty"`
	// Error says the pair could not be judged at all (backend failure);
	// Verdict is then empty.
	Error   string  `json:"error,omitempty"`
	Backend string  `json:"backend,omitempty"`
	Seconds float64 `json:"seconds"`
}

// EquivalenceChecker runs BEq+ (bidirectional extended definitional
// equivalence with the symbolic tactics of BEq+): can each statement be
// proved from the other, both checked after header? Implementations are
// safe for concurrent use. An error of the call means the backend is
// unusable; a pair that could not be judged is an Equivalence with Error.
type EquivalenceChecker interface {
	Equivalent(ctx context.Context, header, reference, candidate string) (Equivalence, error)
}

// Check is a Lean typecheck of one statement, as recorded.
type Check struct {
	// Pass: Lean elaborated the statement (with its `sorry` proof) without
	// an error.
	Pass bool `json:"pass"`
	// Error says Lean could not check it at all (timeout, crash); Pass is
	// then false and says nothing about the statement.
	Error    string         `json:"error,omitempty"`
	Messages []lean.Message `json:"messages,omitempty"`
	// CodeLine0 is the line of the statement's first line in the positions
	// of Messages (see lean.Result).
	CodeLine0 int     `json:"code_line0,omitempty"`
	Backend   string  `json:"backend,omitempty"`
	Seconds   float64 `json:"seconds"`
}

// maxMessages bounds what a record and a repair prompt carry of Lean's
// output.
const (
	maxMessages   = 20
	maxMessageLen = 2000
)

func typecheck(ctx context.Context, c lean.Checker, id, header, code string) (*Check, error) {
	start := time.Now()
	res, err := c.Check(ctx, []lean.Snippet{{ID: id, Header: header, Code: code}})
	if err != nil {
		return nil, fmt.Errorf("lean check: %w", err)
	}
	if len(res) != 1 {
		return nil, fmt.Errorf("lean check: %d results for one snippet", len(res))
	}
	r := res[0]
	ck := &Check{Pass: r.Checked() && r.Pass, Error: r.Error, CodeLine0: r.CodeLine0, Backend: r.Backend, Seconds: time.Since(start).Seconds()}
	if ck.Backend == "" {
		ck.Backend = c.Backend()
	}
	for _, m := range r.Messages {
		if len(ck.Messages) == maxMessages {
			break
		}
		m.Data = clip(m.Data, maxMessageLen)
		ck.Messages = append(ck.Messages, m)
	}
	return ck, nil
}

// errorLines renders the error messages of a check relative to the
// statement's own lines, for a repair prompt.
func (c *Check) errorLines() []string {
	var out []string
	for _, m := range c.Messages {
		if m.Severity != "error" {
			continue
		}
		line := m.Pos.Line
		if c.CodeLine0 > 0 {
			line = line - c.CodeLine0 + 1
		}
		out = append(out, fmt.Sprintf("line %d, column %d: %s", line, m.Pos.Column, strings.TrimSpace(m.Data)))
	}
	if len(out) == 0 && !c.Pass {
		out = append(out, "(Lean reported a failure without an error message)")
	}
	return out
}
