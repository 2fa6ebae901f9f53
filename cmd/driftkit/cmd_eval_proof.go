package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/retrieval/proof"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("eval proof", "premise selection from a goal, measured on the library itself", help{"--ws WS --split tune|held-out [--max N] [--proof-weights JSON] [--bench-out FILE] [--json]",
		"Inductive protocol: modules are split in two halves (" + eval.SplitRule + ", applied to the module name);\n" +
			"for theorems of the chosen half the query is the statement as a goal, the gold answers its proof\n" +
			"dependencies; the theorem and its module's later declarations are hidden and only declarations its module\n" +
			"imports (or that precede it) are candidates. Reports R@10, R@32 and nDCG@10 of the proof profile (goal\n" +
			"text alone, and with the statement's constants as pp.fullNames prints them) and of today's engine asked\n" +
			"with the statement. Tune on --split tune, report --split held-out. --bench-out writes the items as a\n" +
			"benchmark for `eval retrieval` (informal_stmt = formal_stmt = statement, mathlib_dependencies = proof deps)."}, runEvalProof))
}

// evalProofOptions are the flags of `driftkit eval proof`.
type evalProofOptions struct {
	stage    stageFlags
	Split    string
	Max      int
	Weights  string
	BenchOut string

	weights proof.Weights
}

func (o *evalProofOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	fs.StringVar(&o.Split, "split", "", "which half of the modules: tune or held-out (required)")
	fs.IntVar(&o.Max, "max", 400, "items (a fixed sample: the first by SHA-1 of the theorem name; 0: all)")
	fs.StringVar(&o.Weights, "proof-weights", "", "JSON object overriding proof-profile weights (see retrieval/proof.Weights)")
	fs.StringVar(&o.BenchOut, "bench-out", "", "also write the items as a benchmark JSONL for `eval retrieval`")
}

func (o *evalProofOptions) Validate(args []string) error {
	if o.stage.WS == "" {
		return usagef("--ws is required")
	}
	if o.Split != eval.SplitTune && o.Split != eval.SplitHeldOut {
		return usagef("--split: want tune or held-out, got %q", o.Split)
	}
	if o.Max < 0 {
		return usagef("--max: want ≥ 0")
	}
	o.weights = proof.DefaultWeights()
	if o.Weights != "" {
		if err := json.Unmarshal([]byte(o.Weights), &o.weights); err != nil {
			return usagef("--proof-weights: %v", err)
		}
	}
	return checkOutputFile("--bench-out", o.BenchOut)
}

// proofReport is what `eval proof` prints.
type proofReport struct {
	Split   string        `json:"split"`
	Rule    string        `json:"rule"`
	Weights proof.Weights `json:"weights"`
	Scores  []proof.Score `json:"scores"`
}

func (r *proofReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "split: %s half of the modules (%s, on the module name)\n", r.Split, r.Rule)
	proof.WriteScores(w, r.Scores)
}

func runEvalProof(ctx context.Context, o *evalProofOptions, env *Env, args []string) error {
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	rows, err := workspace.ReadTable[proof.EvalRow](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		return err
	}
	mods, err := workspace.ReadTable[proof.ModuleRow](ws.Path(workspace.ModulesFile))
	if err != nil {
		return err
	}
	base := make([]proof.Row, len(rows))
	for i := range rows {
		base[i] = rows[i].Row
	}
	g := proof.New(base, mods)
	items := proof.Items(g, rows, proof.ItemOptions{Max: o.Max,
		InHalf: func(m string) bool { return eval.HalfOf(m) == o.Split }})
	if len(items) == 0 {
		return fmt.Errorf("%s: no theorem of the %s half has an importable proof dependency", o.stage.WS, o.Split)
	}
	if err := writeProofBench(o.BenchOut, items); err != nil {
		return err
	}
	ix, closeIx, err := openIndexWith(ctx, o.stage.WS, index.OpenOptions{NoHead: true}, "")
	if err != nil {
		return err
	}
	defer closeIx()
	rep := &proofReport{Split: o.Split, Rule: eval.SplitRule, Weights: o.weights}
	for _, r := range proofRankers(ix, g, &o.weights) {
		s, err := proof.Evaluate(ctx, r.name, items, r.rank)
		if err != nil {
			return err
		}
		rep.Scores = append(rep.Scores, s)
	}
	return o.stage.report(env.Stdout, rep, rep.WriteText)
}

type namedRanker struct {
	name string
	rank proof.Ranker
}

// proofRankers are the rankers `eval proof` compares.
func proofRankers(ix retrieval.Searcher, g *proof.Graph, w *proof.Weights) []namedRanker {
	profile := func(withConsts bool) proof.Ranker {
		return func(ctx context.Context, it *proof.Item, k int) ([]string, error) {
			q := proof.Query{Goal: it.Goal, K: k, Candidate: it.Candidate, Exclude: it.Exclude, Weights: w}
			if withConsts {
				q.Constants = it.Constants
			}
			var err error
			if q.Similar, err = proofSimilar(ctx, ix, it.Goal, w.Depth, it.ExcludeNames); err != nil {
				return nil, err
			}
			return hitNames(g.Rank(&q)), nil
		}
	}
	engine := func(ctx context.Context, it *proof.Item, k int) ([]string, error) {
		hits, err := ix.Search(ctx, retrieval.Query{Text: it.Statement, Formal: it.Statement, K: 400, Mode: retrieval.ModeBest,
			Profile: retrieval.ProfilePremise, Filter: retrieval.Filter{AllKinds: true, Exclude: it.ExcludeNames}})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, h := range hits {
			if id, ok := g.ID(h.Name); ok && it.Candidate(id) && len(out) < k {
				out = append(out, h.Name)
			}
		}
		return out, nil
	}
	return []namedRanker{{"proof (goal text)", profile(false)}, {"proof (goal + constants)", profile(true)},
		{"engine best/premise, statement", engine}}
}

// proofSimilar is the lexical list of the proof profile: the index's BM25
// over every kind.
func proofSimilar(ctx context.Context, s retrieval.Searcher, goal string, depth int, exclude []string) ([]string, error) {
	hits, err := s.Search(ctx, retrieval.Query{Text: goal, K: depth, Mode: retrieval.ModeBM25,
		Filter: retrieval.Filter{AllKinds: true, Exclude: exclude}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out, nil
}

func hitNames(hits []proof.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// writeProofBench writes the items as an `eval retrieval` benchmark.
func writeProofBench(path string, items []proof.Item) error {
	f, err := createJSONLines(path)
	if err != nil || f == nil {
		return err
	}
	defer f.Abort()
	for _, it := range items {
		gold := slices.Clone(it.Gold)
		if err := f.Encode(eval.BenchItem{InformalStmt: it.Statement, FormalStmt: it.Statement, Gold: gold, FullName: it.Name}); err != nil {
			return err
		}
	}
	return f.Commit()
}
