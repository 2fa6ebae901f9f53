package tomap

import (
	"fmt"
	"io"
	"strings"

	"github.com/driftkit/driftkit/llm"
)

// Estimate is a dry run's forecast for one variant over the selected
// problems: "expected" assumes every answer is usable at once and (for
// ToMap) that all rounds run; "max" assumes every conversation uses all its
// retries. Tokens are estimated from the rendered prompts (about four bytes
// a token) and typical answer sizes per unit; the unit count is the
// reference proof graph's when the benchmark has one.
type Estimate struct {
	Variant                       string
	Problems                      int
	Calls, MaxCalls               int
	LeanChecks, MaxLeanChecks     int
	PromptTokens, MaxPromptTokens int64
	OutputTokens, MaxOutputTokens int64
	CostUSD, MaxCostUSD           float64
	PricesKnown                   bool
}

// Typical answer sizes in tokens.
const (
	estUnitJSON    = 90  // one unit of a decomposition
	estRubric      = 250 // judge answer
	estStatement   = 60  // a formalized statement
	estProof       = 120 // a tactic proof
	estVerdict     = 60  // SF answer
	estFeedback    = 150 // a retry's feedback message
	estContextUnit = 45  // one earlier statement in a context
)

// EstimateUnits guesses a problem's unit count: the reference graph's, else
// one unit per ~80 bytes of proof (ProofFlowBench's average), within 2..16.
func EstimateUnits(p *Problem) int {
	if p.ReferenceUnits > 0 {
		return p.ReferenceUnits
	}
	return min(max(len(p.Proof)/80+1, 2), 16)
}

type estAcc struct {
	e      *Estimate
	prices func(*Agent) llm.Prices
}

// conv adds a conversation of up to n answers whose first prompt is base
// tokens and whose answers are out tokens each.
func (a *estAcc) conv(ag *Agent, base, out, n int) {
	pr := a.prices(ag)
	a.e.Calls++
	a.e.PromptTokens += int64(base)
	a.e.OutputTokens += int64(out)
	a.e.CostUSD += pr.Cost(int64(base), int64(out))
	for k := 0; k < n; k++ {
		p := base + k*(out+estFeedback)
		a.e.MaxCalls++
		a.e.MaxPromptTokens += int64(p)
		a.e.MaxOutputTokens += int64(out)
		a.e.MaxCostUSD += pr.Cost(int64(p), int64(out))
	}
}

// EstimateRun forecasts calls, Lean checks, tokens and cost per variant. It
// renders the real prompts; nothing is requested. Without a Checker (a
// --no-lean run) there are no Lean checks to count.
func EstimateRun(cfg Config, problems []Problem) []Estimate {
	cfg = cfg.WithDefaults()
	pr := cfg.Prompts
	tok := llm.EstimateTokens
	prices := func(ag *Agent) llm.Prices {
		if ag == nil || ag.Client == nil {
			return llm.Prices{}
		}
		return ag.Client.Config().Prices
	}
	var out []Estimate
	for _, v := range cfg.Variants {
		e := Estimate{Variant: v.Name(), Problems: len(problems)}
		acc := &estAcc{e: &e, prices: prices}
		for i := range problems {
			p := &problems[i]
			u := EstimateUnits(p)
			pd := problemData{Theorem: p.Theorem, Proof: p.Proof, FormalStatement: p.FormalStatement}
			ag := cfg.Agents
			decomp := estUnitJSON * u
			code := u * (estStatement + estProof)
			if v.Method == MethodEnd2End {
				base := tok(pr.System(RoleEnd2End)) + tok(pr.render("end2end", struct {
					problemData
					Header string
				}{pd, cfg.Header}))
				acc.conv(ag.Prover, base, code, 1+cfg.E2ERetries)
				if cfg.Checker != nil {
					e.LeanChecks++
					e.MaxLeanChecks += 1 + cfg.E2ERetries
				}
			} else {
				seeds := cfg.Seeds
				if v.Method == MethodProofFlow {
					seeds = 1
				}
				dbase := tok(pr.System(RoleDecomposer)) + tok(pr.render("decompose", pd))
				jbase := tok(pr.System(RoleJudge)) + tok(pr.render("judge", struct {
					problemData
					Candidate string
				}{pd, ""})) + decomp
				for k := 0; k < seeds; k++ {
					acc.conv(ag.Decomposer, dbase, decomp, 1+cfg.DecomposeRetries)
					if v.Method == MethodToMap {
						acc.conv(ag.Judge, jbase, estRubric, 2)
					}
				}
				if v.Method == MethodToMap {
					rbase := tok(pr.System(RoleRewriter)) + dbase - tok(pr.System(RoleDecomposer)) + decomp + estRubric
					for r := 0; r < v.Rounds; r++ {
						acc.conv(ag.Decomposer, rbase, decomp, 1+cfg.DecomposeRetries)
						acc.conv(ag.Judge, jbase, estRubric, 2)
					}
				}
				fsys, psys := tok(pr.System(RoleFormalizer)), tok(pr.System(RoleProver))
				for k := 0; k < u; k++ {
					fbase := fsys + tok(p.Theorem) + tok(cfg.Header) + k*estContextUnit + estUnitJSON + 60
					acc.conv(ag.Formalizer, fbase, estStatement, 1+cfg.FormalizerRetries)
					pbase := psys + tok(p.Theorem) + tok(p.Proof) + k*estContextUnit + estUnitJSON + estStatement + 60
					acc.conv(ag.Prover, pbase, estProof, 1+cfg.ProverRetries)
				}
				if cfg.Checker != nil {
					e.LeanChecks += 2*u + 1
					e.MaxLeanChecks += u*(1+cfg.FormalizerRetries) + u*(1+cfg.ProverRetries) + 1
				}
			}
			sbase := tok(pr.System(RoleSF)) + tok(pr.render("sf", struct {
				problemData
				Code string
			}{pd, ""})) + code
			acc.conv(ag.SF, sbase, estVerdict, 2)
		}
		for _, ag := range []*Agent{cfg.Agents.Decomposer, cfg.Agents.Formalizer, cfg.Agents.Prover, cfg.Agents.Judge, cfg.Agents.SF} {
			if p := prices(ag); p.Prompt > 0 || p.Completion > 0 {
				e.PricesKnown = true
			}
		}
		out = append(out, e)
	}
	return out
}

// WriteEstimates prints a dry run's table.
func WriteEstimates(w io.Writer, es []Estimate) {
	var b strings.Builder
	b.WriteString("dry run: nothing was requested or written\n")
	fmt.Fprintf(&b, "%-12s %8s %17s %17s %25s %21s", "variant", "problems", "model calls", "Lean checks", "prompt tokens", "output tokens")
	priced := false
	for _, e := range es {
		priced = priced || e.PricesKnown
	}
	if priced {
		fmt.Fprintf(&b, " %21s", "cost USD")
	}
	b.WriteString("\n")
	var tot Estimate
	for _, e := range es {
		fmt.Fprintf(&b, "%-12s %8d %17s %17s %25s %21s", e.Variant, e.Problems,
			fmt.Sprintf("%d (≤%d)", e.Calls, e.MaxCalls), fmt.Sprintf("%d (≤%d)", e.LeanChecks, e.MaxLeanChecks),
			fmt.Sprintf("%d (≤%d)", e.PromptTokens, e.MaxPromptTokens), fmt.Sprintf("%d (≤%d)", e.OutputTokens, e.MaxOutputTokens))
		if priced {
			fmt.Fprintf(&b, " %21s", fmt.Sprintf("%.2f (≤%.2f)", e.CostUSD, e.MaxCostUSD))
		}
		b.WriteString("\n")
		tot.Calls += e.Calls
		tot.MaxCalls += e.MaxCalls
		tot.PromptTokens += e.PromptTokens
		tot.MaxPromptTokens += e.MaxPromptTokens
		tot.OutputTokens += e.OutputTokens
		tot.MaxOutputTokens += e.MaxOutputTokens
		tot.CostUSD += e.CostUSD
		tot.MaxCostUSD += e.MaxCostUSD
	}
	if len(es) > 1 {
		fmt.Fprintf(&b, "%-12s %8s %17s %17s %25s %21s", "total", "", fmt.Sprintf("%d (≤%d)", tot.Calls, tot.MaxCalls), "",
			fmt.Sprintf("%d (≤%d)", tot.PromptTokens, tot.MaxPromptTokens), fmt.Sprintf("%d (≤%d)", tot.OutputTokens, tot.MaxOutputTokens))
		if priced {
			fmt.Fprintf(&b, " %21s", fmt.Sprintf("%.2f (≤%.2f)", tot.CostUSD, tot.MaxCostUSD))
		}
		b.WriteString("\n")
	}
	b.WriteString("expected: every answer usable at once, every ToMap round run; ≤: every retry used. Calls the variants share\n")
	b.WriteString("(ProofFlow's decomposition is ToMap's first seed) are made once but counted in each row.\n")
	io.WriteString(w, b.String())
}
