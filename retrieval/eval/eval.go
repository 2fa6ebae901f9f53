// Package eval scores any retrieval.Searcher on a benchmark of statements
// with gold premises: P@k, R@k, F1@k, nDCG@k and MRR, under a named
// protocol (leave-one-out, hold-out-module, unseen), so that every backend
// is measured by the same code. It also holds the frozen tune/held-out
// split of the shared benchmarks (split.go).
package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/internal/leanname"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
)

// BenchItem is one benchmark line (the format of ../shared/benchmarks:
// ConNF and ProofNet as released by RAutoformalizer, and testdata/bench.jsonl).
type BenchItem struct {
	InformalStmt string   `json:"informal_stmt"`
	FormalStmt   string   `json:"formal_stmt"`
	Gold         []string `json:"mathlib_dependencies"`
	FullName     string   `json:"full_name"`
	Line         int      `json:"-"`
}

// ReadBench parses a JSON-lines benchmark. Blank lines are skipped; a line
// without informal_stmt is an error naming the line, and so is a file
// without any item.
func ReadBench(r io.Reader, path string) ([]BenchItem, error) {
	return ReadItems(r, path, "JSON lines with informal_stmt and mathlib_dependencies", func(line int, b []byte) (BenchItem, error) {
		var it BenchItem
		if err := json.Unmarshal(b, &it); err != nil {
			return BenchItem{}, fmt.Errorf("%w: want one JSON object per line (informal_stmt, mathlib_dependencies, full_name): %v", ErrBench, err)
		}
		if strings.TrimSpace(it.InformalStmt) == "" {
			return BenchItem{}, fmt.Errorf("%w: no informal_stmt", ErrBench)
		}
		if strings.TrimSpace(it.FullName) == "" {
			// Without it, the item's own declaration is neither excluded
			// from its results nor from the voting pool: a silently
			// flattering score.
			return BenchItem{}, fmt.Errorf("%w: no full_name (the item's own declaration, never returned for it)", ErrBench)
		}
		// names as Lean prints them, however the file spells them
		it.FullName = leanname.Canonical(strings.TrimSpace(it.FullName))
		for i, g := range it.Gold {
			it.Gold[i] = leanname.Canonical(strings.TrimSpace(g))
		}
		it.Line = line
		return it, nil
	})
}

// ReadBenchFile reads a benchmark file.
func ReadBenchFile(path string) ([]BenchItem, error) { return ReadFile(path, ReadBench) }

// Metrics at one cutoff k, averaged over queries (macro). F1 is the mean of
// the per-query F1 values (0 when a query has no hit in its top k). The
// scorer is retrieval.ScoreAt, shared with the DRIFT runner.
type Metrics = retrieval.Metrics

// Report is the result of Retrieval.
type Report struct {
	Bench     string    `json:"bench"`
	Queries   int       `json:"queries"`
	Skipped   int       `json:"skipped_no_gold"`
	GoldTotal int       `json:"gold_total"`
	GoldInIdx int       `json:"gold_in_index"`
	Config    Config    `json:"config"`
	MRR       float64   `json:"mrr"`
	AtK       []Metrics `json:"at_k"`
}

// Config records what an evaluation used.
type Config struct {
	Encoder         string         `json:"encoder"`
	EncoderFallback bool           `json:"encoder_fallback"`
	Mode            retrieval.Mode `json:"mode"`
	// Profile is the ranking profile mode best used (resolved from auto).
	Profile    retrieval.Profile  `json:"profile,omitempty"`
	Candidates string             `json:"candidates"`
	Inputs     string             `json:"inputs"`
	Protocol   string             `json:"protocol,omitempty"`
	Weights    *retrieval.Weights `json:"weights,omitempty"`
	// Head is the projection head applied to dense candidate scores, if any.
	Head *head.Info `json:"head,omitempty"`
	// Split names the half of the benchmark scored ("tune", "held-out"),
	// "" for all of it.
	Split string `json:"split,omitempty"`
}

// PerItem is one line of --per-item output.
type PerItem struct {
	FullName string `json:"full_name"`
	// Line is the item's line in the benchmark file (its position in a
	// JSON array), Query its informal statement, the text searched: a
	// notebook shows the worst queries by what they asked.
	Line   int      `json:"line"`
	Query  string   `json:"query"`
	Gold   []string `json:"gold"`
	Ranked []string `json:"ranked"`
	Misses []string `json:"misses"`
}

// ModuleLister is implemented by corpora that can list a module's theorems
// (its declarations that are not premise candidates), which the
// hold-out-module protocol excludes.
type ModuleLister interface {
	ModuleMembers(module string) []string
}

// Options configure Retrieval.
type Options struct {
	Ks   []int
	Mode retrieval.Mode
	// Profile is the ranking profile (default auto: premise retrieval,
	// or theorem search with AllKinds).
	Profile   retrieval.Profile
	AllKinds  bool
	UseFormal bool // pass formal_stmt as Query.Formal (not a realistic input for autoformalization)
	// HoldOutModule is a stricter protocol: the other theorems (non-premise
	// declarations) of the query's own module (file) are excluded too, so
	// neither neighbour votes nor the usage prior see the query's siblings,
	// as if the query opened a new file. Premises stay candidates. The
	// corpus must be a ModuleLister.
	HoldOutModule bool
	// Unseen is the inductive protocol: every benchmark theorem named here
	// (normally all of the benchmark's full_names) is excluded from every
	// query — never returned, never a voting neighbour, not counted in the
	// usage prior — as if all of them were new theorems. The default,
	// leave-one-out, excludes only the query's own declaration, so a
	// benchmark theorem can vote for another's premises (ConNF's library
	// holds all its benchmark theorems, and most share gold sets).
	Unseen  []string
	Weights *retrieval.Weights
	PerItem func(PerItem) error
	// BenchLabel names the benchmark in the report; Split its half.
	BenchLabel string
	Split      string
	// Encoder, EncoderFallback and Head describe the searcher for the
	// report (the caller knows what it opened).
	Encoder         string
	EncoderFallback bool
	Head            *head.Info
	// Progress, when not nil, is told of each item done (nil: a progress
	// bar on ctx's progress.Reporter).
	Progress func(done int)
}

// Protocol names the evaluation protocol of o.
func (o *Options) Protocol() string {
	var p []string
	switch {
	case len(o.Unseen) > 0:
		p = append(p, "unseen: every benchmark theorem removed from the voting pool and the usage graph")
	default:
		p = append(p, "leave-one-out: the query's own declaration excluded")
	}
	if o.HoldOutModule {
		p = append(p, "theorems of the query's module held out")
	}
	return strings.Join(p, "; ")
}

// Retrieval runs every benchmark item as a query on s (excluding the item's
// own declaration, which is never returned nor counted, and whatever the
// protocol excludes) and averages P@k, R@k, F1@k, nDCG@k and MRR over the
// items with at least one gold premise. The gold is never passed to the
// searcher. c is the corpus s ranks (for the gold coverage count and the
// hold-out-module protocol).
func Retrieval(ctx context.Context, s retrieval.Searcher, c retrieval.Corpus, items []BenchItem, o Options) (*Report, error) {
	if len(o.Ks) == 0 {
		o.Ks = []int{1, 5, 10, 20, 100}
	}
	maxK := 100
	for _, k := range o.Ks {
		maxK = max(maxK, k)
	}
	rep := &Report{Bench: o.BenchLabel, AtK: make([]Metrics, len(o.Ks))}
	rep.Config = Config{Encoder: o.Encoder, EncoderFallback: o.EncoderFallback, Mode: o.Mode,
		Candidates: "premise kinds (no theorems, no instances)", Inputs: "informal_stmt", Weights: o.Weights, Head: o.Head, Split: o.Split}
	if o.Mode == "" {
		rep.Config.Mode = retrieval.ModeBest
	}
	if rep.Config.Mode == retrieval.ModeBest {
		rep.Config.Profile = retrieval.ResolveProfile(&retrieval.Query{Profile: o.Profile, Filter: retrieval.Filter{AllKinds: o.AllKinds}})
		if o.Weights == nil {
			w := retrieval.ProfileWeights(rep.Config.Profile)
			rep.Config.Weights = &w
		}
	}
	if o.AllKinds {
		rep.Config.Candidates = "all kinds"
	}
	if o.UseFormal {
		rep.Config.Inputs = "informal_stmt + formal_stmt"
	}
	rep.Config.Protocol = o.Protocol()
	var modules ModuleLister
	if o.HoldOutModule {
		var ok bool
		if modules, ok = c.(ModuleLister); !ok {
			return nil, fmt.Errorf("the hold-out-module protocol needs a corpus that lists module members (%T does not)", c)
		}
	}
	for i := range o.Ks {
		rep.AtK[i].K = o.Ks[i]
	}
	progressFn := o.Progress
	if progressFn == nil {
		bar := progress.Start(ctx, "eval retrieval", int64(len(items)))
		defer bar.Finish()
		progressFn = bar.Add
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gold := dedupe(it.Gold, it.FullName)
		if len(gold) == 0 {
			rep.Skipped++
			progressFn(1)
			continue
		}
		q := retrieval.Query{Text: it.InformalStmt, K: maxK, Mode: o.Mode, Profile: o.Profile, Filter: retrieval.Filter{AllKinds: o.AllKinds}, Weights: o.Weights}
		if it.FullName != "" {
			q.Filter.Exclude = []string{it.FullName}
			if d, ok := c.Lookup(it.FullName); ok && o.HoldOutModule && d.Module != "" {
				q.Filter.Exclude = append(q.Filter.Exclude, modules.ModuleMembers(d.Module)...)
			}
		}
		q.Filter.Exclude = append(q.Filter.Exclude, o.Unseen...)
		if o.UseFormal {
			q.Formal = it.FormalStmt
		}
		hits, err := s.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("item at line %d (%s): %w", it.Line, it.FullName, err)
		}
		ranked := make([]string, 0, len(hits))
		for _, h := range hits {
			if h.Name != it.FullName {
				ranked = append(ranked, h.Name)
			}
		}
		rep.Queries++
		rep.GoldTotal += len(gold)
		for _, g := range gold {
			if _, ok := c.Lookup(g); ok {
				rep.GoldInIdx++
			}
		}
		gs := map[string]bool{}
		for _, g := range gold {
			gs[g] = true
		}
		for i, r := range ranked {
			if gs[r] {
				rep.MRR += 1 / float64(i+1)
				break
			}
		}
		for i, k := range o.Ks {
			m := scoreAt(ranked, gs, k)
			rep.AtK[i].P += m.P
			rep.AtK[i].R += m.R
			rep.AtK[i].F1 += m.F1
			rep.AtK[i].NDCG += m.NDCG
		}
		if o.PerItem != nil {
			top := ranked[:min(100, len(ranked))]
			var miss []string
			in := map[string]bool{}
			for _, r := range top {
				in[r] = true
			}
			for _, g := range gold {
				if !in[g] {
					miss = append(miss, g)
				}
			}
			if miss == nil {
				miss = []string{}
			}
			if err := o.PerItem(PerItem{FullName: it.FullName, Line: it.Line, Query: it.InformalStmt, Gold: gold, Ranked: top, Misses: miss}); err != nil {
				return nil, err
			}
		}
		progressFn(1)
	}
	if rep.Queries > 0 {
		n := float64(rep.Queries)
		rep.MRR /= n
		for i := range rep.AtK {
			rep.AtK[i].P /= n
			rep.AtK[i].R /= n
			rep.AtK[i].F1 /= n
			rep.AtK[i].NDCG /= n
		}
	}
	return rep, nil
}

// dedupe removes repeats and the query's own name from the gold list.
func dedupe(gold []string, self string) []string { return retrieval.GoldPremises(gold, self) }

// scoreAt computes one query's metrics at cutoff k.
func scoreAt(ranked []string, gold map[string]bool, k int) Metrics {
	return retrieval.ScoreAt(ranked, gold, k)
}

// WriteTable prints the report as an aligned text table (percentages).
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "bench %s: %d queries (%d without gold skipped), %d gold premises (%d in index)\n",
		r.Bench, r.Queries, r.Skipped, r.GoldTotal, r.GoldInIdx)
	fb := ""
	if r.Config.EncoderFallback {
		fb = " (offline fallback)"
	}
	mode := string(r.Config.Mode)
	if r.Config.Profile != "" {
		mode += ", profile " + string(r.Config.Profile)
	}
	fmt.Fprintf(w, "encoder %s%s, mode %s, candidates: %s, inputs: %s\n", r.Config.Encoder, fb, mode, r.Config.Candidates, r.Config.Inputs)
	if h := r.Config.Head; h != nil {
		fmt.Fprintf(w, "projection head %s (%s → %d dims, mix %.2f) on dense candidate scores\n", h.ID, h.Encoder, h.OutDim, h.Mix)
	}
	if r.Config.Protocol != "" {
		fmt.Fprintf(w, "protocol: %s\n", r.Config.Protocol)
	}
	if r.Config.Split != "" {
		fmt.Fprintf(w, "split: %s half (%s)\n", r.Config.Split, SplitRule)
	}
	fmt.Fprintf(w, "%6s %8s %8s %8s %8s\n", "k", "P@k", "R@k", "F1@k", "nDCG@k")
	for _, m := range r.AtK {
		fmt.Fprintf(w, "%6d %8.2f %8.2f %8.2f %8.2f\n", m.K, 100*m.P, 100*m.R, 100*m.F1, 100*m.NDCG)
	}
	fmt.Fprintf(w, "MRR %.4f\n", r.MRR)
}
