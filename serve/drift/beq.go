package drift

import (
	"context"
	"errors"
	"time"

	"github.com/driftkit/driftkit/lean"
)

// LeanBEq is BEq+ (lean.BEqPlus, the symbolic tactics of the reference
// implementation) through a Lean Checker, as an EquivalenceChecker. Safe
// for concurrent use, as the Checker is.
type LeanBEq struct {
	Checker lean.Checker
	Options lean.BEqOptions
}

// Equivalent runs BEq+ on the pair, both after header. A pair BEq+ cannot
// even build (a statement it cannot parse, headers that clash) is judged
// not proved, with the reason in Note; only a backend failure is an error.
func (b LeanBEq) Equivalent(ctx context.Context, header, reference, candidate string) (Equivalence, error) {
	start := time.Now()
	pair := lean.BEqPair{ID: "drift", Ref: reference, Cand: candidate, Header: header}
	task, err := lean.NewBEqTask(pair, b.Options)
	if err != nil {
		return Equivalence{Verdict: NotProved, Note: err.Error(), Backend: b.Checker.Backend(), Seconds: time.Since(start).Seconds()}, nil
	}
	r, err := task.Run(ctx, b.Checker)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, lean.ErrUnavailable) {
			err = errors.Join(errLeanCheck, err)
		}
		return Equivalence{}, err
	}
	return Equivalence{Verdict: Verdict(r.Outcome), RefToCand: r.RefToCand.Proved, CandToRef: r.CandToRef.Proved,
		Note: r.RefToCand.Strategy + " / " + r.CandToRef.Strategy, Backend: b.Checker.Backend(), Seconds: time.Since(start).Seconds()}, nil
}
