package drift

import (
	"fmt"
	"io"

	"github.com/driftkit/driftkit/retrieval"
)

// Summary is summary.json: what a run measured over its benchmark.
type Summary struct {
	Bench    string `json:"bench"`
	Protocol string `json:"protocol"`
	// Items in the benchmark; Finished have a record (all, once a run
	// completes); OK and Failed split them. Failed items count in every
	// denominator below (as retrieving nothing and formalizing nothing).
	Items    int `json:"items"`
	Finished int `json:"finished"`
	OK       int `json:"ok"`
	Failed   int `json:"failed"`
	// Extracted counts the items with at least one formalization from which
	// a Lean statement was extracted, Statements the samples with one: an
	// item is "ok" when its pipeline ran, even if the model never wrote a
	// Lean block.
	Extracted  int `json:"extracted"`
	Statements int `json:"statements"`

	Retrieval *RetrievalSummary `json:"retrieval,omitempty"`

	MeanSubQueries    float64 `json:"mean_sub_queries"`
	MeanPremises      float64 `json:"mean_premises"`
	MeanIllustrations float64 `json:"mean_illustrations"`

	// Samples is n. Verification says how samples were checked; when it
	// was skipped, the rates below are null, never zero or one. With one
	// sample the @n rates are null too: they would only repeat @1.
	Samples      int      `json:"samples"`
	Verification string   `json:"verification"`
	TC1          *float64 `json:"tc_at_1"`
	TCn          *float64 `json:"tc_at_n"`
	// BEq+ rates are over the items with a reference statement
	// (BEqItems); null when none has one or no checker ran.
	BEq1     *float64 `json:"beq_plus_at_1"`
	BEqn     *float64 `json:"beq_plus_at_n"`
	BEqItems int      `json:"beq_items"`

	PromptTokensPerItem     float64 `json:"prompt_tokens_per_item"`
	CompletionTokensPerItem float64 `json:"completion_tokens_per_item"`
	CostPerItemUSD          float64 `json:"cost_per_item_usd"`
	CostUSD                 float64 `json:"cost_usd"`
	// MeanItemSeconds is an item's wall time from start to record;
	// MeanRetrieveMs and MeanIllustrateMs the runner's offline stages.
	MeanItemSeconds  float64 `json:"mean_item_seconds"`
	MeanRetrieveMs   float64 `json:"mean_retrieve_ms"`
	MeanIllustrateMs float64 `json:"mean_illustrate_ms"`

	Run      RunStats       `json:"run"`
	Settings map[string]any `json:"settings,omitempty"`
}

// RunStats describe the last invocation (a resumed run skips what earlier
// ones finished).
type RunStats struct {
	Ran           int     `json:"ran"`
	SkippedOK     int     `json:"skipped_ok"`
	SkippedFailed int     `json:"skipped_failed"`
	Retried       int     `json:"retried"`
	Failed        int     `json:"failed"`
	WallSeconds   float64 `json:"wall_seconds"`
	Usage         Usage   `json:"usage"`
}

// RetrievalSummary scores each item's premise set against its gold
// premises with retrieval.ScoreAt — the scorer of `driftkit eval
// retrieval` — at k = the size of the set (the paper's set precision,
// recall and F1; for no-decompose that is top-k), macro-averaged.
type RetrievalSummary struct {
	Scoring string  `json:"scoring"`
	Items   int     `json:"items"`
	MeanK   float64 `json:"mean_k"`
	P       float64 `json:"precision"`
	R       float64 `json:"recall"`
	F1      float64 `json:"f1"`
	// GoldTotal and GoldInCorpus say whether the corpus can match the gold.
	GoldTotal    int `json:"gold_total"`
	GoldInCorpus int `json:"gold_in_corpus"`
}

// Summarize computes the summary of the records (one per finished item) of
// a benchmark of total items.
func Summarize(recs []*Record, total int, p *Pipeline, o RunOptions) *Summary {
	s := &Summary{Bench: o.Bench, Protocol: p.opts.Protocol(), Items: total, Finished: len(recs), Samples: p.opts.Samples,
		Verification: p.Verification(), Settings: o.Settings}
	if len(recs) == 0 {
		return s
	}
	n := float64(len(recs))
	var rs RetrievalSummary
	var tc1, tcn, beq1, beqn int
	var retr, illu, secs float64
	for _, r := range recs {
		if r.Status == "ok" {
			s.OK++
		} else {
			s.Failed++
		}
		extracted := false
		for _, smp := range r.Samples {
			if smp.Statement != "" {
				s.Statements++
				extracted = true
			}
		}
		if extracted {
			s.Extracted++
		}
		s.MeanSubQueries += float64(len(r.SubQueries))
		s.MeanPremises += float64(len(r.Premises))
		s.MeanIllustrations += float64(len(r.Illustrations))
		s.PromptTokensPerItem += float64(r.Usage.PromptTokens)
		s.CompletionTokensPerItem += float64(r.Usage.CompletionTokens)
		s.CostUSD += r.Usage.CostUSD
		retr += r.RetrieveSeconds
		illu += r.IllustrateSeconds
		secs += r.Seconds
		if gold := retrieval.GoldPremises(r.Gold, r.Self); len(gold) > 0 && !p.opts.NoRetrieval {
			set := make([]string, len(r.Premises))
			for i, pr := range r.Premises {
				set[i] = pr.Name
			}
			gs := map[string]bool{}
			for _, g := range gold {
				gs[g] = true
				rs.GoldTotal++
				if p.corpus != nil {
					if _, ok := p.corpus.Lookup(g); ok {
						rs.GoldInCorpus++
					}
				}
			}
			m := retrieval.ScoreAt(set, gs, len(set))
			rs.Items++
			rs.MeanK += float64(len(set))
			rs.P += m.P
			rs.R += m.R
			rs.F1 += m.F1
		}
		if r.Reference != "" {
			s.BEqItems++
		}
		for i, smp := range r.Samples {
			if smp.Typechecks {
				if i == 0 {
					tc1++
				}
				tcn++
				break
			}
		}
		for i, smp := range r.Samples {
			if smp.Equivalent() {
				if i == 0 {
					beq1++
				}
				beqn++
				break
			}
		}
	}
	s.MeanSubQueries /= n
	s.MeanPremises /= n
	s.MeanIllustrations /= n
	s.PromptTokensPerItem /= n
	s.CompletionTokensPerItem /= n
	s.CostPerItemUSD = s.CostUSD / n
	s.MeanItemSeconds = secs / n
	s.MeanRetrieveMs = 1000 * retr / n
	s.MeanIllustrateMs = 1000 * illu / n
	if rs.Items > 0 {
		k := float64(rs.Items)
		rs.MeanK, rs.P, rs.R, rs.F1 = rs.MeanK/k, rs.P/k, rs.R/k, rs.F1/k
		rs.Scoring = "premise set vs gold (mathlib_dependencies without the item's own name), retrieval.ScoreAt at k = |set| as in eval retrieval, macro-averaged; " + s.Protocol
		s.Retrieval = &rs
	}
	if p.lean != nil {
		s.TC1, s.TCn = ratio(tc1, len(recs)), ratio(tcn, len(recs))
		if p.beq != nil && s.BEqItems > 0 {
			s.BEq1, s.BEqn = ratio(beq1, s.BEqItems), ratio(beqn, s.BEqItems)
		}
	}
	if s.Samples <= 1 {
		s.TCn, s.BEqn = nil, nil
	}
	return s
}

func ratio(a, b int) *float64 {
	x := float64(a) / float64(b)
	return &x
}

// WriteText prints the summary as a few aligned lines.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "drift on %s: %d items (%d ok, %d failed); a Lean statement extracted for %d of %d finished items (%d of their samples); protocol: %s\n",
		s.Bench, s.Items, s.OK, s.Failed, s.Extracted, s.Finished, s.Statements, s.Protocol)
	if r := s.Retrieval; r != nil {
		fmt.Fprintf(w, "retrieval (%d items with gold, mean |set| %.2f): P %.2f  R %.2f  F1 %.2f  (gold in corpus: %d of %d)\n",
			r.Items, r.MeanK, 100*r.P, 100*r.R, 100*r.F1, r.GoldInCorpus, r.GoldTotal)
	}
	fmt.Fprintf(w, "mean sub-queries %.2f, premises %.2f, illustrations %.2f\n", s.MeanSubQueries, s.MeanPremises, s.MeanIllustrations)
	pct := func(x *float64) string {
		if x == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", 100**x)
	}
	fmt.Fprintf(w, "verification: %s\n", s.Verification)
	if s.Samples > 1 {
		fmt.Fprintf(w, "TC@1 %s  TC@%d %s  BEq+@1 %s  BEq+@%d %s  (BEq+ over %d items with a reference)\n",
			pct(s.TC1), s.Samples, pct(s.TCn), pct(s.BEq1), s.Samples, pct(s.BEqn), s.BEqItems)
	} else {
		fmt.Fprintf(w, "TC@1 %s  BEq+@1 %s  (one sample: @n is n/a; BEq+ over %d items with a reference)\n",
			pct(s.TC1), pct(s.BEq1), s.BEqItems)
	}
	fmt.Fprintf(w, "per item: %.0f prompt + %.0f completion tokens, $%.5f, %.2f s (retrieval %.1f ms, illustration %.1f ms)\n",
		s.PromptTokensPerItem, s.CompletionTokensPerItem, s.CostPerItemUSD, s.MeanItemSeconds, s.MeanRetrieveMs, s.MeanIllustrateMs)
	fmt.Fprintf(w, "this run: %d items run (%d failed), %d skipped as finished (%d ok, %d failed), %d retried; wall %.1f s; total cost $%.4f\n",
		s.Run.Ran, s.Run.Failed, s.Run.SkippedOK+s.Run.SkippedFailed, s.Run.SkippedOK, s.Run.SkippedFailed, s.Run.Retried, s.Run.WallSeconds, s.CostUSD)
}
