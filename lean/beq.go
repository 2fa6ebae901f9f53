package lean

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// BEq+ — is a candidate formal statement equivalent to the reference?
//
// The metric is BEq+ of Poiroux, Weiss, Kunčak and Bosselut, "Reliable
// Evaluation and Benchmarks for Statement Autoformalization" (EMNLP 2025),
// as implemented in LeanInteract's examples/beq_plus.py (the code DRIFT's
// BEq+@k numbers come from). It refines BEq (Liu et al., "Rethinking and
// Improving Autoformalization: Towards a Faithful Metric and a Dependency
// Retrieval-based Approach", ICLR 2025, the RAutoformalizer paper), which
// asks an LLM prover for each direction, and BEq_L (Poiroux et al., 2024,
// "Improving Autoformalization using Type Checking"), which tries `exact?`
// only: BEq+ tries a fixed set of deterministic tactic scripts instead.
//
// For each direction — the candidate from the reference, the reference from
// the candidate — one Lean text states the "base" theorem with `:= sorry`
// and the "reformulated" theorem to prove, then tries in order:
//
//	0. `sorry`            the pair must elaborate (else: ill-typed)
//	1. `exact?`           proved if its "Try this:" suggestion uses the base theorem
//	2. `assumption`       if this alone proves the target, the target is trivial:
//	                      the direction does NOT count (as in the reference)
//	3. `apply base` + P_apply
//	4. `have : <base conclusion> := by apply_rules [base]; P_apply` then P_have
//	5. `convert (config := .unfoldSameFun) base using k` + P_apply, k = 0…4
//
// every proof preceded by `intros` and `symm_saturate` (Mathlib), where, for
// a tactic list T, P_T is
//
//	all_goals intros
//	first | ((all_goals try t1) ; … ; (all_goals try tn)) | (all_goals ((try t1) ; … ; (try tn)))
//
// with T_apply = tauto, simp_all_arith!, noncomm_ring, exact? and T_have =
// tauto, simp_all_arith!, exact? using this. A try succeeds when no error
// and no sorry is reported from the reformulated theorem's first line on.
// A try that times out or cannot be checked fails. Both directions proved:
// equivalent; one: one-direction; none: not-proved.
//
// Deviations from the reference, all on the side of fewer false positives
// or of plain correctness: (a) step 0 also fails when the base statement
// has errors (the reference looks only below the reformulated theorem);
// (b) the reference's guard "skip step 4 when P_have proves the target
// without the hypothesis" never fires there — its text glues `by` and
// `all_goals` into one identifier, so the guard always fails to parse — and
// is omitted here, which is what the reference does in effect; (c) the
// conclusion for step 4 is read from the base theorem's own signature,
// not from its prelude; (d) sorries are also recognised by Lean's
// "declaration uses 'sorry'" warning, so backends without a `sorries` list
// (`lean --json`) judge the same.

// BEqOutcome is the verdict on a pair.
type BEqOutcome string

const (
	Equivalent   BEqOutcome = "equivalent"
	OneDirection BEqOutcome = "one-direction"
	NotProved    BEqOutcome = "not-proved"
)

// BEqPair is one comparison. Headers hold imports, opens and definitions the
// statements need; Header is shared by both, RefHeader and CandHeader are
// added to it for one side each; all are merged (MergeHeaders).
type BEqPair struct {
	ID                            string
	Ref, Cand                     string
	Header, RefHeader, CandHeader string
}

// BEqOptions tune BEq+. The zero value is the reference's configuration.
type BEqOptions struct {
	// Timeout bounds each Lean check (default 60s, the reference's).
	Timeout time.Duration
	// ApplyTactics and HaveTactics replace T_apply and T_have (newer Lean
	// spells `simp_all_arith!` as `simp_all +arith +decide`).
	ApplyTactics, HaveTactics []string
	// ConvertDepth is the largest k of `convert … using k` (default 4).
	ConvertDepth int
	// Parallel bounds the pairs BEqPlusAll checks at once (default 4).
	Parallel int
}

// DefaultApplyTactics returns the reference's closing tactics after apply
// and convert (a new slice each call).
func DefaultApplyTactics() []string {
	return []string{"tauto", "simp_all_arith!", "noncomm_ring", "exact?"}
}

// DefaultHaveTactics returns the reference's closing tactics after have (a
// new slice each call).
func DefaultHaveTactics() []string { return []string{"tauto", "simp_all_arith!", "exact? using this"} }

func (o BEqOptions) withDefaults() BEqOptions {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if len(o.ApplyTactics) == 0 {
		o.ApplyTactics = DefaultApplyTactics()
	}
	if len(o.HaveTactics) == 0 {
		o.HaveTactics = DefaultHaveTactics()
	}
	if o.ConvertDepth <= 0 {
		o.ConvertDepth = 4
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	return o
}

// BEqDirection is the outcome of proving one statement from the other.
type BEqDirection struct {
	Proved bool `json:"proved"`
	// Strategy is the step that proved it ("exact?", "apply", "have",
	// "convert using 2"), or why not ("ill-typed", "trivial by assumption",
	// "no tactic closed it", "unchecked").
	Strategy string `json:"strategy"`
	// Proof is the tactic script that worked (for exact?: its suggestion).
	Proof string `json:"proof,omitempty"`
	// Checks is the number of Lean checks made; Errors lists the ones Lean
	// could not judge (timeouts, dead workers), which count as failed tries.
	Checks int      `json:"checks"`
	Errors []string `json:"errors,omitempty"`
	// Messages are Lean's errors when the pair did not elaborate.
	Messages []Message `json:"messages,omitempty"`
}

// BEqResult is the verdict on one pair.
type BEqResult struct {
	ID      string     `json:"id"`
	Outcome BEqOutcome `json:"outcome"`
	// RefToCand proves the candidate from the reference; CandToRef the
	// reference from the candidate.
	RefToCand BEqDirection  `json:"ref_to_cand"`
	CandToRef BEqDirection  `json:"cand_to_ref"`
	Time      time.Duration `json:"time_ns"`
}

// BEqTask is a pair prepared for Lean: statements parsed, header merged,
// theorem names chosen clash-free. Build one with NewBEqTask; it is
// immutable and safe for concurrent use.
type BEqTask struct {
	ID        string
	Header    string
	ref, cand Statement
	// BaseName and ReformName are the names the base and the reformulated
	// theorem get in the texts.
	BaseName, ReformName string
	opts                 BEqOptions
}

// NewBEqTask parses both statements and merges the headers.
func NewBEqTask(p BEqPair, o BEqOptions) (*BEqTask, error) {
	o = o.withDefaults()
	ref, err := ParseStatement(p.Ref)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	cand, err := ParseStatement(p.Cand)
	if err != nil {
		return nil, fmt.Errorf("candidate: %w", err)
	}
	header, err := MergeHeaders(p.Header, p.RefHeader, p.CandHeader)
	if err != nil {
		return nil, err
	}
	// Declarations in the statements' preludes must not collide with the
	// header's or with each other's; an identical copy is dropped.
	known := map[string]string{}
	for _, b := range splitCommands(header) {
		if n := declName(b); n != "" {
			known[n] = normalizeBlock(b)
		}
	}
	for _, st := range []*Statement{&ref, &cand} {
		var keep []string
		for _, b := range splitCommands(st.Prelude) {
			n := declName(b)
			if n == "" {
				keep = append(keep, b)
				continue
			}
			if prev, ok := known[n]; ok {
				if prev == normalizeBlock(b) {
					continue
				}
				return nil, &ClashError{Name: n, First: firstLine(prev), Second: firstLine(normalizeBlock(b))}
			}
			known[n] = normalizeBlock(b)
			keep = append(keep, b)
		}
		if len(keep) > 0 {
			st.Prelude = strings.Join(keep, "")
			if !strings.HasSuffix(st.Prelude, "\n") {
				st.Prelude += "\n"
			}
		} else {
			st.Prelude = ""
		}
	}
	all := header + "\n" + p.Ref + "\n" + p.Cand
	t := &BEqTask{ID: p.ID, Header: header, ref: ref, cand: cand, opts: o,
		BaseName: freshName(all, "base_theorem"), ReformName: freshName(all, "reformulated_theorem")}
	return t, nil
}

// freshName is name, or name_1, name_2, … whichever text does not use.
func freshName(text, name string) string {
	cand := name
	for i := 1; containsWord(text, cand); i++ {
		cand = fmt.Sprintf("%s_%d", name, i)
	}
	return cand
}

// Text is the Lean code (on top of Header) that tries to prove one
// statement from the other with proof, and the line (1-based, in the code)
// where the reformulated theorem starts: messages from there on judge the
// try. refToCand proves the candidate from the reference.
func (t *BEqTask) Text(refToCand bool, proof string) (code string, line int) {
	base, reform := t.ref, t.cand
	if !refToCand {
		base, reform = t.cand, t.ref
	}
	first := base.Prelude + "theorem " + t.BaseName + base.Universes + " " + base.Signature + " := sorry" + "\n\n"
	line = strings.Count(first, "\n") + 1
	second := reform.Prelude + "theorem " + t.ReformName + reform.Universes + " " + reform.Signature + " := by"
	return first + second + indent("\nintros\nsymm_saturate\n"+proof, 2), line
}

// proveAll is the reference's prove_all: every tactic on every goal, then,
// failing that, all of them in sequence on each goal.
func proveAll(tactics []string) string {
	ind := make([]string, len(tactics))
	comb := make([]string, len(tactics))
	for i, t := range tactics {
		ind[i] = "(all_goals try " + t + ")"
		comb[i] = "(try " + t + ")"
	}
	return "all_goals intros\nfirst | (" + strings.Join(ind, " ; ") + ") | (all_goals (" + strings.Join(comb, " ; ") + "))"
}

// Proofs lists the tries of steps 1–5 for one direction, in order, as
// (strategy, proof) pairs; step 0's proof is "sorry".
func (t *BEqTask) Proofs(refToCand bool) [][2]string {
	base := t.ref
	if !refToCand {
		base = t.cand
	}
	pApply := proveAll(t.opts.ApplyTactics)
	pHave := proveAll(t.opts.HaveTactics)
	out := [][2]string{
		{"exact?", "exact?"},
		{"assumption", "assumption"},
		{"apply", "apply " + t.BaseName + "\n" + pApply},
		{"have", "have : " + oneLine(base.Conclusion) + " := by\n" + indent("apply_rules ["+t.BaseName+"]\n"+pApply, 2) + "\n" + pHave},
	}
	for k := 0; k <= t.opts.ConvertDepth; k++ {
		out = append(out, [2]string{fmt.Sprintf("convert using %d", k),
			fmt.Sprintf("convert (config := .unfoldSameFun) %s using %d\n%s", t.BaseName, k, pApply)})
	}
	return out
}

// oneLine joins the lines of a type: inside a tactic block a continuation
// line at the block's column would start a new tactic.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// inRange keeps what a try is judged by: positions (in code lines) that end
// at or after line; a message without an end position counts.
func inRange(r *Result, line int) (errs, sorries bool, tryThis []string) {
	for _, m := range r.Messages {
		end := m.Pos
		if m.EndPos != nil {
			end = *m.EndPos
		} else if m.Pos.Line == 0 {
			end.Line = line
		}
		if r.CodeLine(end.Line) < line {
			continue
		}
		switch {
		case m.Severity == "error":
			errs = true
		case m.Severity == "warning" && strings.Contains(m.Data, SorryWarning):
			sorries = true
		case m.Severity == "info" && strings.Contains(m.Data, "Try this:"):
			tryThis = append(tryThis, strings.TrimSpace(m.Data[strings.Index(m.Data, "Try this:")+len("Try this:"):]))
		}
	}
	for _, s := range r.Sorries {
		end := s.Pos
		if s.EndPos != nil {
			end = *s.EndPos
		}
		if s.Pos.Line == 0 || r.CodeLine(end.Line) >= line {
			sorries = true
		}
	}
	return errs, sorries, tryThis
}

// direction runs the steps for one direction, stopping at the first that
// decides it.
func (t *BEqTask) direction(ctx context.Context, c Checker, refToCand bool) (BEqDirection, error) {
	var d BEqDirection
	check := func(proof string, noRetry bool) (*Result, int, error) {
		code, line := t.Text(refToCand, proof)
		d.Checks++
		rs, err := c.Check(ctx, []Snippet{{ID: t.ID, Header: t.Header, Code: code, Timeout: t.opts.Timeout, NoRetry: noRetry}})
		if err != nil {
			return nil, 0, err
		}
		if len(rs) != 1 {
			return nil, 0, fmt.Errorf("lean: checker returned %d results for 1 snippet", len(rs))
		}
		r := &rs[0]
		if r.Error != "" {
			d.Errors = append(d.Errors, r.Error)
		}
		return r, line, nil
	}
	r, _, err := check("sorry", false)
	if err != nil {
		return d, err
	}
	if r.Error != "" {
		d.Strategy = "unchecked"
		return d, nil
	}
	if hasError(r.Messages) {
		d.Strategy = "ill-typed"
		for _, m := range r.Messages {
			if m.Severity == "error" {
				d.Messages = append(d.Messages, m)
			}
		}
		return d, nil
	}
	for _, step := range t.Proofs(refToCand) {
		r, line, err := check(step[1], true)
		if err != nil {
			return d, err
		}
		if r.Error != "" {
			continue
		}
		errs, sorries, tryThis := inRange(r, line)
		if errs || sorries {
			continue
		}
		switch step[0] {
		case "exact?":
			for _, s := range tryThis {
				if containsWord(s, t.BaseName) {
					d.Proved, d.Strategy, d.Proof = true, "exact?", s
					return d, nil
				}
			}
		case "assumption":
			d.Strategy = "trivial by assumption"
			return d, nil
		default:
			d.Proved, d.Strategy, d.Proof = true, step[0], step[1]
			return d, nil
		}
	}
	d.Strategy = "no tactic closed it"
	return d, nil
}

// Run checks both directions (concurrently) through c.
func (t *BEqTask) Run(ctx context.Context, c Checker) (BEqResult, error) {
	t0 := time.Now()
	res := BEqResult{ID: t.ID}
	var wg sync.WaitGroup
	var e1, e2 error
	wg.Add(2)
	go func() { defer wg.Done(); res.RefToCand, e1 = t.direction(ctx, c, true) }()
	go func() { defer wg.Done(); res.CandToRef, e2 = t.direction(ctx, c, false) }()
	wg.Wait()
	res.Time = time.Since(t0)
	if e1 != nil {
		return res, e1
	}
	if e2 != nil {
		return res, e2
	}
	switch {
	case res.RefToCand.Proved && res.CandToRef.Proved:
		res.Outcome = Equivalent
	case res.RefToCand.Proved || res.CandToRef.Proved:
		res.Outcome = OneDirection
	default:
		res.Outcome = NotProved
	}
	return res, nil
}

// BEqPlus decides one pair. A statement that cannot be parsed or headers
// that clash are an error; Lean's failures are outcomes.
func BEqPlus(ctx context.Context, c Checker, p BEqPair, o BEqOptions) (BEqResult, error) {
	t, err := NewBEqTask(p, o)
	if err != nil {
		return BEqResult{ID: p.ID}, err
	}
	return t.Run(ctx, c)
}

// BEqPlusAll decides many pairs, o.Parallel at a time. A pair whose text
// cannot be built gets Outcome not-proved and errs[i] set; the call's error
// is the checker's (cancelled, unavailable).
func BEqPlusAll(ctx context.Context, c Checker, pairs []BEqPair, o BEqOptions) (results []BEqResult, errs []error, err error) {
	o = o.withDefaults()
	results = make([]BEqResult, len(pairs))
	errs = make([]error, len(pairs))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			t, perr := NewBEqTask(p, o)
			if perr != nil {
				results[i] = BEqResult{ID: p.ID, Outcome: NotProved}
				errs[i] = perr
				return
			}
			r, cerr := t.Run(ctx, c)
			results[i] = r
			if cerr != nil {
				mu.Lock()
				if err == nil {
					err = cerr
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return results, errs, ctx.Err()
	}
	return results, errs, err
}
