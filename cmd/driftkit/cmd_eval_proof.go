package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/retrieval/proof"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("eval proof", "premise selection from a goal, measured on the library itself", help{"--ws WS --split tune|held-out [--protocol statement|steps] [--max N] [--proof-weights JSON] [--bench-out FILE] [--json]",
		"Inductive protocol: modules are split in two halves (" + eval.SplitRule + ", applied to the module name);\n" +
			"for theorems of the chosen half the query is the statement as a goal, the gold answers its proof\n" +
			"dependencies; the theorem and its module's later declarations are hidden and only declarations its module\n" +
			"imports (or that precede it) are candidates. Reports R@10, R@32 and nDCG@10 of the proof profile (goal\n" +
			"text alone, and with the statement's constants as pp.fullNames prints them) and of today's engine asked\n" +
			"with the statement. Tune on --split tune, report --split held-out. --bench-out writes the items as a\n" +
			"benchmark for `eval retrieval` (informal_stmt = formal_stmt = statement, mathlib_dependencies = proof deps).\n" +
			"--protocol steps: one query per premise group — the proof dependencies one top-level tactic step of the\n" +
			"theorem's proof names — asked with the goal at that step (hypotheses the earlier steps' `have`s added, the\n" +
			"step's own proposition for have/suffices/show); metrics are averaged over the groups (of the --max theorems)."}, runEvalProof))
}

// evalProofOptions are the flags of `driftkit eval proof`.
type evalProofOptions struct {
	stage    stageFlags
	Split    string
	Protocol string
	Max      int
	LocalNew bool
	Weights  string
	BenchOut string

	weights proof.Weights
}

func (o *evalProofOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	fs.StringVar(&o.Split, "split", "", "which half of the modules: tune or held-out (required)")
	fs.StringVar(&o.Protocol, "protocol", "statement", "statement (the statement as the goal, gold = its proof dependencies) or steps (a query per tactic step's premise group)")
	fs.BoolVar(&o.LocalNew, "local-as-new", false, "send the theorem's module's earlier declarations as new premises (as Lean's client sends its file's) instead of indexed candidates")
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
	if o.Protocol != "statement" && o.Protocol != "steps" {
		return usagef("--protocol: want statement or steps, got %q", o.Protocol)
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
	Split    string `json:"split"`
	Protocol string `json:"protocol"`
	// LocalAsNew: the module's earlier declarations were new premises.
	LocalAsNew bool `json:"local_as_new"`
	// Theorems is how many theorems the items come from (steps: fewer
	// than the items).
	Theorems int           `json:"theorems"`
	Rule     string        `json:"rule"`
	Weights  proof.Weights `json:"weights"`
	Scores   []proof.Score `json:"scores"`
}

func (r *proofReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "split: %s half of the modules (%s, on the module name); protocol %s, %d theorems, local declarations as new premises: %v\n", r.Split, r.Rule, r.Protocol, r.Theorems, r.LocalAsNew)
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
	items := proof.Items(g, rows, proof.ItemOptions{Max: o.Max, LocalAsNew: o.LocalNew,
		InHalf: func(m string) bool { return eval.HalfOf(m) == o.Split }})
	if len(items) == 0 {
		return fmt.Errorf("%s: no theorem of the %s half has an importable proof dependency", o.stage.WS, o.Split)
	}
	theorems := len(items)
	if o.Protocol == "steps" {
		code, err := readCode(ws.Path(workspace.DeclarationsFile), items)
		if err != nil {
			return err
		}
		if items = proof.StepItems(g, items, func(n string) string { return code[n] }); len(items) == 0 {
			return fmt.Errorf("%s: no proof step of the %s half's theorems names an importable premise", o.stage.WS, o.Split)
		}
	}
	if err := writeProofBench(o.BenchOut, items); err != nil {
		return err
	}
	ix, closeIx, err := openIndexWith(ctx, o.stage.WS, index.OpenOptions{NoHead: true}, "")
	if err != nil {
		return err
	}
	defer closeIx()
	rep := &proofReport{Split: o.Split, Protocol: o.Protocol, LocalAsNew: o.LocalNew, Theorems: theorems, Rule: eval.SplitRule, Weights: o.weights}
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
	dense := &newDense{vecs: map[string][]float32{}}
	if e, ok := ix.(interface{ Encoder() index.Encoder }); ok {
		dense.enc = e.Encoder()
	}
	profile := func(withConsts bool) proof.Ranker {
		return func(ctx context.Context, it *proof.Item, k int) ([]string, error) {
			q := proof.Query{Goal: it.Goal, K: k, Candidate: it.Candidate, Exclude: it.Exclude, Weights: w}
			var err error
			if q.New, err = dense.score(ctx, it.Goal, it.New); err != nil {
				return nil, err
			}
			if withConsts {
				q.Constants = it.Constants
			}
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

// readCode reads the code of the items' theorems (the one column the
// graph does not keep).
func readCode(path string, items []proof.Item) (map[string]string, error) {
	want := map[string]bool{}
	for _, it := range items {
		want[it.Name] = true
	}
	code := map[string]string{}
	type row struct {
		Name string `parquet:"name"`
		Code string `parquet:"code"`
	}
	err := workspace.EachRow(path, func(r *row) error {
		if _, seen := code[r.Name]; want[r.Name] && !seen {
			code[strings.Clone(r.Name)] = strings.Clone(r.Code)
		}
		return nil
	})
	return code, err
}

// newDense scores an item's new premises by encoder similarity to the
// goal, as the server does (the vectors of a text are computed once).
type newDense struct {
	enc  index.Encoder
	vecs map[string][]float32
}

func (d *newDense) score(ctx context.Context, goal string, nps []proof.NewPremise) ([]proof.NewPremise, error) {
	if len(nps) == 0 || d.enc == nil {
		return nps, nil
	}
	texts := []string{goal}
	for _, np := range nps {
		if _, ok := d.vecs[np.Decl]; !ok {
			texts = append(texts, np.Decl)
		}
	}
	vecs, err := d.enc.Encode(ctx, texts)
	if err != nil {
		return nil, err
	}
	for i, t := range texts[1:] {
		d.vecs[t] = vecs[i+1]
	}
	out := slices.Clone(nps)
	for i := range out {
		out[i].Dense = proof.Cosine(vecs[0], d.vecs[out[i].Decl])
	}
	return out, nil
}
