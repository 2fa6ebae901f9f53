package tomap

import (
	"fmt"
	"strings"
	"time"
)

// Rate is a count out of a total; Value is nil when the total is 0 (or the
// metric does not apply, as SC when verification was skipped).
type Rate struct {
	Count int      `json:"count"`
	Total int      `json:"total"`
	Value *float64 `json:"value"`
}

func (r *Rate) add(b *bool) {
	if b == nil {
		return
	}
	r.Total++
	if *b {
		r.Count++
	}
}

func (r *Rate) close() {
	if r.Total > 0 {
		r.Value = ptr(float64(r.Count) / float64(r.Total))
	}
}

// Mean is an average over the problems where a metric applies.
type Mean struct {
	N     int      `json:"n"`
	Value *float64 `json:"value"`
	sum   float64
}

func (m *Mean) add(x float64) { m.N++; m.sum += x }
func (m *Mean) addp(x *float64) {
	if x != nil {
		m.add(*x)
	}
}
func (m *Mean) close() {
	if m.N > 0 {
		m.Value = ptr(m.sum / float64(m.N))
	}
}

// VariantSummary is one row of the results table. Rates and means are over
// the variant's finished problems (status done); Errors counts problems
// whose calls failed for good (rerun to retry them).
type VariantSummary struct {
	Variant  string `json:"variant"`
	Method   Method `json:"method"`
	Rounds   int    `json:"rounds,omitempty"`
	Problems int    `json:"problems"` // selected
	Finished int    `json:"finished"` // status done
	Errors   int    `json:"errors"`
	Pending  int    `json:"pending"` // no result yet

	SC      Rate `json:"sc"`
	SF      Rate `json:"sf"`
	SCAndSF Rate `json:"sc_and_sf"`

	FormalizedRate Mean `json:"formalized_rate"`
	ProvedRate     Mean `json:"proved_rate"`
	WallSeconds    Mean `json:"wall_seconds"`
	OutputTokens   Mean `json:"output_tokens"`
	PromptTokens   Mean `json:"prompt_tokens"`
	CostUSD        Mean `json:"cost_usd"`
	RoundsUsed     Mean `json:"rounds_used"`
	LeanCalls      Mean `json:"lean_calls"`
	ModelCalls     Mean `json:"model_calls"`
	Units          Mean `json:"units"`

	GateCommits           int `json:"gate_commits,omitempty"`
	DecompositionFailures int `json:"decomposition_failures,omitempty"`
	JudgeFailures         int `json:"judge_failures,omitempty"`
	SFJudgeFailures       int `json:"sf_judge_failures,omitempty"`
	// SFJudged counts the finished problems whose Lean code got an SF
	// verdict; with none, SF and SC∧SF are null (n/a), not 0.
	SFJudged      int `json:"sf_judged"`
	LeanUnchecked int `json:"lean_unchecked,omitempty"`
}

// Summary is summary.json.
type Summary struct {
	// Protocol says what the numbers are: benchmark, selection, models,
	// Lean backend, settings. Quote it with any number.
	Protocol      string            `json:"protocol"`
	PromptVersion string            `json:"prompt_version"`
	PromptHash    string            `json:"prompt_hash"`
	Verification  string            `json:"verification"`
	LeanLabel     string            `json:"lean,omitempty"`
	Fingerprint   string            `json:"fingerprint"`
	Models        map[string]string `json:"models,omitempty"`
	Settings      map[string]any    `json:"settings"`
	Problems      int               `json:"problems"`
	Variants      []VariantSummary  `json:"variants"`
	// Spend is what the journals record as actually requested (each call
	// once, however many methods used its answer), over every run into
	// this folder.
	Spend     Spend     `json:"spend"`
	Generated time.Time `json:"generated"`
}

// Summarize aggregates outcomes per variant.
func Summarize(cfg Config, problems int, outcomes []*Outcome) *Summary {
	cfg = cfg.WithDefaults()
	s := &Summary{Protocol: cfg.Protocol, PromptVersion: cfg.Prompts.Version, PromptHash: cfg.Prompts.Hash(),
		Verification: "skipped", Models: cfg.Models, Problems: problems, Generated: time.Now().UTC(),
		Settings: map[string]any{"pool": cfg.Pool, "seeds": cfg.Seeds, "gate": *cfg.Gate, "decompose_retries": cfg.DecomposeRetries,
			"formalizer_retries": cfg.FormalizerRetries, "prover_retries": cfg.ProverRetries, "end2end_retries": cfg.E2ERetries,
			"header": cfg.Header}}
	if cfg.Checker != nil {
		s.Verification = cfg.Checker.Backend()
		s.LeanLabel = cfg.LeanLabel
	}
	s.Fingerprint = cfg.Fingerprint()
	by := map[string]*VariantSummary{}
	for _, v := range cfg.Variants {
		vs := &VariantSummary{Variant: v.Name(), Method: v.Method, Problems: problems}
		if v.Method == MethodToMap {
			vs.Rounds = v.Rounds
		}
		by[v.Name()] = vs
	}
	for _, o := range outcomes {
		vs := by[o.Variant]
		if vs == nil {
			continue
		}
		if o.Status != "done" {
			vs.Errors++
			continue
		}
		vs.Finished++
		vs.SC.add(o.SC)
		vs.SF.add(o.SF)
		vs.SCAndSF.add(o.SCAndSF)
		vs.FormalizedRate.addp(o.FormalizedRate)
		vs.ProvedRate.addp(o.ProvedRate)
		vs.WallSeconds.add(o.WallSeconds)
		vs.OutputTokens.add(float64(o.CompletionTokens))
		vs.PromptTokens.add(float64(o.PromptTokens))
		vs.CostUSD.add(o.CostUSD)
		vs.RoundsUsed.add(float64(o.RoundsUsed))
		vs.LeanCalls.add(float64(o.LeanCalls))
		vs.ModelCalls.add(float64(o.Calls))
		if o.Units > 0 {
			vs.Units.add(float64(o.Units))
		}
		if o.CommittedBy == "gate" {
			vs.GateCommits++
		}
		if o.Failure == "decomposition" {
			vs.DecompositionFailures++
		}
		if o.Evolution != nil {
			for _, c := range o.Evolution.Candidates {
				if c.JudgeFailed {
					vs.JudgeFailures++
				}
			}
		}
		if o.SFFailed {
			vs.SFJudgeFailures++
		} else if o.Code != "" {
			vs.SFJudged++
		}
		vs.LeanUnchecked += o.LeanUnchecked
	}
	for _, v := range cfg.Variants {
		vs := by[v.Name()]
		vs.Pending = vs.Problems - vs.Finished - vs.Errors
		for _, r := range []*Rate{&vs.SC, &vs.SF, &vs.SCAndSF} {
			r.close()
		}
		if vs.SFJudged == 0 {
			// Nothing was judged: a rate of unfaithful-by-default
			// outcomes would read as a measurement.
			vs.SF.Value, vs.SCAndSF.Value = nil, nil
		}
		for _, m := range []*Mean{&vs.FormalizedRate, &vs.ProvedRate, &vs.WallSeconds, &vs.OutputTokens, &vs.PromptTokens,
			&vs.CostUSD, &vs.RoundsUsed, &vs.LeanCalls, &vs.ModelCalls, &vs.Units} {
			m.close()
		}
		s.Variants = append(s.Variants, *vs)
	}
	return s
}

func fmtRate(r Rate) string {
	if r.Value == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f (%d/%d)", *r.Value, r.Count, r.Total)
}

func fmtMean(m Mean, prec int) string {
	if m.Value == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, *m.Value)
}

// Markdown renders the summary as the paper's table plus the run's
// bookkeeping.
func (s *Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ToMap runner summary\n\n")
	fmt.Fprintf(&b, "Protocol: %s\n\n", s.Protocol)
	fmt.Fprintf(&b, "Lean verification: %s", s.Verification)
	if s.LeanLabel != "" {
		fmt.Fprintf(&b, " (%s)", s.LeanLabel)
	}
	if s.Verification == "skipped" {
		b.WriteString(" — SC and the formalized/proved rates are not measured (n/a), never counted as passed")
	}
	fmt.Fprintf(&b, "\n\nPrompts %s (%s). Settings: pool %v, seeds %v, gate %v, retries decompose/formalize/prove/end2end %v/%v/%v/%v.\n\n",
		s.PromptVersion, s.PromptHash, s.Settings["pool"], s.Settings["seeds"], s.Settings["gate"],
		s.Settings["decompose_retries"], s.Settings["formalizer_retries"], s.Settings["prover_retries"], s.Settings["end2end_retries"])
	b.WriteString("| variant | finished | SC | SF | SC∧SF | formalized | proved | wall s/problem | output tok/problem | rounds used | Lean calls | model calls |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range s.Variants {
		fin := fmt.Sprintf("%d/%d", v.Finished, v.Problems)
		if v.Errors > 0 {
			fin += fmt.Sprintf(" (%d errors)", v.Errors)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Variant, fin,
			fmtRate(v.SC), fmtRate(v.SF), fmtRate(v.SCAndSF), fmtMean(v.FormalizedRate, 3), fmtMean(v.ProvedRate, 3),
			fmtMean(v.WallSeconds, 1), fmtMean(v.OutputTokens, 0), fmtMean(v.RoundsUsed, 2), fmtMean(v.LeanCalls, 1), fmtMean(v.ModelCalls, 1))
	}
	b.WriteString("\nwall s/problem: the sum of the durations of the problem's model calls and Lean checks (the problem run alone). ")
	b.WriteString("Calls the methods share (the same request: ProofFlow's decomposition is ToMap's first seed; the executor on a decomposition two variants committed) are made once and counted for each.\n\n")
	var notes []string
	for _, v := range s.Variants {
		var parts []string
		if v.GateCommits > 0 {
			parts = append(parts, fmt.Sprintf("%d committed by the gate", v.GateCommits))
		}
		if v.DecompositionFailures > 0 {
			parts = append(parts, fmt.Sprintf("%d without a valid decomposition", v.DecompositionFailures))
		}
		if v.JudgeFailures > 0 {
			parts = append(parts, fmt.Sprintf("%d candidates the rubric judge could not score", v.JudgeFailures))
		}
		if v.SFJudgeFailures > 0 {
			parts = append(parts, fmt.Sprintf("%d SF verdicts missing (counted unfaithful)", v.SFJudgeFailures))
		}
		if v.SFJudged == 0 && v.Finished > 0 {
			parts = append(parts, "SF n/a: no formalization got a verdict (nothing formalized, or the judge never answered)")
		}
		if v.LeanUnchecked > 0 {
			parts = append(parts, fmt.Sprintf("%d Lean checks that did not run (timeouts, crashed workers)", v.LeanUnchecked))
		}
		if v.Pending > 0 {
			parts = append(parts, fmt.Sprintf("%d problems not finished", v.Pending))
		}
		if len(parts) > 0 {
			notes = append(notes, fmt.Sprintf("- %s: %s", v.Variant, strings.Join(parts, "; ")))
		}
	}
	if len(notes) > 0 {
		b.WriteString(strings.Join(notes, "\n"))
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Requested over all runs into this folder: %d model calls, %d prompt + %d output tokens, $%.4f; %d Lean checks.\n",
		s.Spend.FreshCalls, s.Spend.PromptTokens, s.Spend.CompletionTokens, s.Spend.CostUSD, s.Spend.FreshLeanCalls)
	return b.String()
}
