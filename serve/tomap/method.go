package tomap

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
)

// Method is a way to formalize a proof on this runner.
type Method string

const (
	// MethodToMap evolves decompositions under rubric judges, gates, then
	// executes the committed one.
	MethodToMap Method = "tomap"
	// MethodProofFlow executes one decomposition, no evolution: the
	// ProofFlow protocol (DAG → lemma formalizer → prover, with retries).
	MethodProofFlow Method = "proofflow"
	// MethodEnd2End translates the whole proof into one Lean file with
	// self-repair rounds.
	MethodEnd2End Method = "end2end"
)

// Variant is a method with its round budget (ToMap only).
type Variant struct {
	Method Method
	Rounds int
}

// Name is the variant's label in results: "proofflow", "end2end",
// "tomap-r<T>".
func (v Variant) Name() string {
	if v.Method == MethodToMap {
		return "tomap-r" + strconv.Itoa(v.Rounds)
	}
	return string(v.Method)
}

// Outcome is one method's result on one problem: the paper's metrics plus
// the full trace.
type Outcome struct {
	Problem string `json:"problem"`
	Variant string `json:"variant"`
	Method  Method `json:"method"`
	Rounds  int    `json:"rounds,omitempty"`
	// Status "done", or "error" when a call failed for good (the endpoint or
	// the Lean backend gave up); a rerun retries errored problems, replaying
	// every journalled call.
	Status string `json:"status"`
	// Fingerprint identifies the settings the outcome was made under; a
	// run recomputes outcomes whose fingerprint differs from its own.
	Fingerprint string `json:"fingerprint"`
	Error       string `json:"error,omitempty"`
	// Failure names a method-level failure that still counts as a result:
	// "decomposition" (no valid decomposition after the retries),
	// "no_lean_code" (end2end produced no well-formed code).
	Failure string `json:"failure,omitempty"`
	// Verification is the Lean backend that checked the code, or "skipped":
	// then SC, the formalized and proved rates are null — never true.
	Verification string `json:"verification"`

	// SC: the assembled file passes Lean with no sorry (and, for the
	// decomposition methods, every unit was formalized and proved).
	SC *bool `json:"sc"`
	// SF: the semantic-faithfulness judge's verdict on the final Lean code.
	SF       *bool  `json:"sf"`
	SFReason string `json:"sf_reason,omitempty"`
	SFFailed bool   `json:"sf_failed,omitempty"`
	SCAndSF  *bool  `json:"sc_and_sf"`

	Units           int      `json:"units"`
	UnitsFormalized *int     `json:"units_formalized"`
	UnitsProved     *int     `json:"units_proved"`
	FormalizedRate  *float64 `json:"formalized_rate"`
	ProvedRate      *float64 `json:"proved_rate"`

	// WallSeconds is the sum of the durations of the calls this method made
	// for the problem (model calls including llm's retries, Lean checks
	// excluding queueing): the wall time of the problem run alone. Calls
	// answered from the journal count with their recorded durations.
	WallSeconds float64 `json:"wall_seconds"`
	Spend
	// RoundsUsed: ToMap's evolution rounds run; end2end's repair rounds;
	// 0 for ProofFlow.
	RoundsUsed  int     `json:"rounds_used"`
	CommittedBy string  `json:"committed_by,omitempty"`
	Committed   *Vector `json:"committed_scores,omitempty"`
	// CPUSeconds is left to the benchmark: problems share the process.

	Evolution *Evolution `json:"evolution,omitempty"`
	Execution *Execution `json:"execution,omitempty"`
	End2End   *E2E       `json:"end2end,omitempty"`
	// Code is the final Lean file (header included).
	Code     string    `json:"code,omitempty"`
	Finished time.Time `json:"finished"`
}

// E2E is the end-to-end baseline's trace.
type E2E struct {
	Attempts Attempts     `json:"attempts"`
	Code     string       `json:"code,omitempty"` // without header
	Check    *lean.Result `json:"check,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// runVariant runs one variant on the session's problem. A returned error is
// a failed call (or ctx); method-level failures are in the Outcome.
func (s *session) runVariant(ctx context.Context, v Variant) (*Outcome, error) {
	s.variant = v.Name()
	s.t = &Spend{}
	o := &Outcome{Problem: s.p.Key, Variant: v.Name(), Method: v.Method, Status: "done", Verification: "skipped", Fingerprint: s.r.fingerprint}
	if v.Method == MethodToMap {
		o.Rounds = v.Rounds
	}
	if s.verified() {
		o.Verification = s.r.cfg.Checker.Backend()
	}
	var err error
	switch v.Method {
	case MethodEnd2End:
		err = s.end2end(ctx, o)
	default:
		err = s.decomposeAndExecute(ctx, v, o)
	}
	if err != nil {
		return nil, err
	}
	if o.Code != "" {
		verdict, failed, err := s.judgeSF(ctx, body(o.Code, s.r.header))
		if err != nil {
			return nil, err
		}
		o.SF, o.SFReason, o.SFFailed = ptr(verdict.Faithful), verdict.Reason, failed
	} else {
		o.SF, o.SFReason = ptr(false), "nothing formalized to judge"
	}
	if o.SC != nil {
		o.SCAndSF = ptr(*o.SC && *o.SF)
	}
	o.Spend = *s.t
	o.WallSeconds = s.t.ModelSeconds + s.t.LeanSeconds
	o.Finished = time.Now().UTC()
	return o, nil
}

func (s *session) decomposeAndExecute(ctx context.Context, v Variant, o *Outcome) error {
	ec := evolveConfig{Rounds: v.Rounds, Pool: s.r.cfg.Pool, Seeds: s.r.cfg.Seeds, Gate: *s.r.cfg.Gate, Judge: v.Method == MethodToMap}
	if v.Method == MethodProofFlow {
		ec.Seeds = 1
	}
	ev, c, err := s.evolve(ctx, ec)
	o.Evolution = ev
	if err != nil {
		return err
	}
	o.RoundsUsed = ev.RoundsUsed
	o.CommittedBy = ev.CommittedBy
	if c == nil {
		o.Failure = "decomposition"
		if s.verified() {
			o.SC = ptr(false)
			o.UnitsFormalized, o.UnitsProved = ptr(0), ptr(0)
			o.FormalizedRate, o.ProvedRate = ptr(0.0), ptr(0.0)
		}
		return nil
	}
	if v.Method == MethodToMap {
		o.Committed = ptr(c.Rubric.Scores)
	}
	ex, err := s.execute(ctx, c.Decomposition)
	o.Execution = ex
	if err != nil {
		return err
	}
	o.Units = len(c.Decomposition.Units)
	if anyStatement(ex.Units) {
		o.Code = ex.File
	}
	if s.verified() {
		nf, np := 0, 0
		for _, u := range ex.Units {
			if u.Formalized {
				nf++
			}
			if u.Proved {
				np++
			}
		}
		o.UnitsFormalized, o.UnitsProved = ptr(nf), ptr(np)
		o.FormalizedRate = ptr(float64(nf) / float64(o.Units))
		o.ProvedRate = ptr(float64(np) / float64(o.Units))
		o.SC = ptr(np == o.Units && ex.Check != nil && ex.Check.Pass && ex.Check.Complete)
	}
	return nil
}

// end2end is the whole-proof baseline: one Lean file, self-repaired with
// Lean's errors up to 1+E2ERetries answers.
func (s *session) end2end(ctx context.Context, o *Outcome) error {
	pr := s.r.prompts
	data := struct {
		problemData
		Header string
	}{s.problemData(), s.r.header}
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleEnd2End)}, {Role: "user", Content: pr.render("end2end", data)}}
	e := &E2E{}
	o.End2End = e
	code, res, _, err := s.converse(ctx, leanConversation{role: RoleEnd2End, agent: s.r.cfg.Agents.Prover, step: "end2end",
		retries: s.r.cfg.E2ERetries, schema: LeanSchema, what: "the file is not accepted", id: s.p.Key, complete: true,
		parse: ParseLeanFile}, msgs, &e.Attempts)
	e.Code, e.Check = code, res
	o.RoundsUsed = e.Attempts.Count - 1
	if err != nil {
		return err
	}
	if e.Code == "" {
		o.Failure = "no_lean_code"
	} else {
		o.Code = s.r.header + "\n\n" + e.Code + "\n"
	}
	if s.verified() {
		o.SC = ptr(e.Check != nil && e.Check.Pass && e.Check.Complete)
	}
	return nil
}

// judgeSF asks the semantic-faithfulness judge about code (without header):
// strict JSON, repaired once. failed reports that no usable verdict came;
// the verdict is then false (never counted as faithful).
func (s *session) judgeSF(ctx context.Context, code string) (v Verdict, failed bool, err error) {
	pr := s.r.prompts
	data := struct {
		problemData
		Code string
	}{s.problemData(), code}
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleSF)}, {Role: "user", Content: pr.render("sf", data)}}
	var last error
	for a := 1; a <= 2; a++ {
		content, err := s.chat(ctx, RoleSF, s.r.cfg.Agents.SF, fmt.Sprintf("sf/%s/a%d", shortHash(code), a), msgs, 0)
		if err != nil {
			return Verdict{}, false, err
		}
		v, perr := ParseVerdict(content)
		if perr == nil {
			return v, false, nil
		}
		last = perr
		msgs = append(msgs, llm.Message{Role: "assistant", Content: content},
			llm.Message{Role: "user", Content: pr.render("repair", map[string]string{"Problem": perr.Error(), "Schema": VerdictSchema})})
	}
	return Verdict{Faithful: false, Reason: "the judge gave no usable verdict: " + strings.TrimSpace(last.Error())}, true, nil
}

func shortHash(s string) string { return leanKey("", lean.Snippet{Code: s})[:16] }
