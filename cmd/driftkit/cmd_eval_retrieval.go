package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/retrieval/eval"
)

func init() {
	register(newCommand("eval retrieval", "retrieval metrics on a benchmark", help{"--ws WS --bench FILE [--k 1,5,10,20,100] [--json] [--per-item FILE]",
		"Runs each benchmark item's informal_stmt as a query (never returning or counting the item's own\n" +
			"declaration, full_name) and reports P@k, R@k, F1@k, nDCG@k and MRR against mathlib_dependencies."}, runEvalRetrieval))
}

// evalRetrievalOptions are the flags of `driftkit eval retrieval`.
type evalRetrievalOptions struct {
	stage     stageFlags
	rank      rankFlags
	Bench     string
	Ks        string
	PerItem   string
	UseFormal bool
	HoldOut   bool
	Unseen    string
	Split     string

	ks    []int        // --k
	query queryOptions // the ranking flags, resolved
	half  string       // --split
}

func (o *evalRetrievalOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withJSON, "")
	o.rank.AddFlags(fs, rankAll&^rankVocab) // premise retrieval reads no vocabulary
	o.rank.AddProfileFlag(fs, "premise", "ranking profile of mode best: premise (dependency retrieval, also with --all-kinds), theorem, or auto (theorem with --all-kinds)")
	fs.StringVar(&o.Bench, "bench", "", "benchmark JSONL (informal_stmt, mathlib_dependencies, full_name)")
	fs.StringVar(&o.Ks, "k", "1,5,10,20,100", "cutoffs")
	fs.StringVar(&o.PerItem, "per-item", "", "write one JSON line per query to this file")
	fs.BoolVar(&o.UseFormal, "use-formal", false, "also give the searcher formal_stmt (not available when autoformalizing)")
	fs.BoolVar(&o.HoldOut, "hold-out-module", false, "stricter: also exclude the other theorems of the query's own module (siblings)")
	fs.StringVar(&o.Unseen, "unseen", "", "inductive protocol: exclude every theorem of this benchmark JSONL (its full_names, normally --bench itself)\nfrom every query, as if all were new (default: leave-one-out)")
	fs.StringVar(&o.Split, "split", "", "score one half of the benchmark: tune or held-out ("+eval.SplitRule+"); default all")
}

func (o *evalRetrievalOptions) Validate(args []string) error {
	if o.stage.WS == "" || o.Bench == "" {
		return usagef("--ws and --bench are required")
	}
	for _, f := range strings.Split(o.Ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k <= 0 {
			return fmt.Errorf("%w: --k %q: %q is not a cutoff (want whole numbers ≥ 1, comma-separated)", errUsage, o.Ks, f)
		}
		o.ks = append(o.ks, k)
	}
	if err := checkOutputFile("--per-item", o.PerItem); err != nil {
		return err
	}
	var err error
	if o.query, err = o.rank.resolve(); err != nil {
		return err
	}
	if o.half, err = eval.ParseSplit(o.Split); err != nil {
		return fmt.Errorf("%w: --split: %v", errUsage, err)
	}
	return nil
}

func runEvalRetrieval(ctx context.Context, o *evalRetrievalOptions, env *Env, args []string) error {
	items, err := eval.ReadBenchFile(o.Bench)
	if err != nil {
		return err
	}
	items = eval.Split(items, o.half)
	var unseenNames []string
	if o.Unseen != "" {
		u, err := eval.ReadBenchFile(o.Unseen)
		if err != nil {
			return err
		}
		for _, it := range u {
			if it.FullName != "" {
				unseenNames = append(unseenNames, it.FullName)
			}
		}
	}
	ctx = o.stage.context(ctx)
	ix, closeIx, err := openIndexWith(ctx, o.stage.WS, o.query.Open, o.query.EmbedURL)
	if err != nil {
		return err
	}
	defer closeIx()
	man := ix.Manifest()
	qo := o.query
	opts := eval.Options{Ks: o.ks, Mode: qo.Mode, Profile: qo.Profile, AllKinds: qo.AllKinds, UseFormal: o.UseFormal, HoldOutModule: o.HoldOut, Unseen: unseenNames,
		Weights: qo.Weights, BenchLabel: o.Bench, Split: o.half, Encoder: man.Encoder, EncoderFallback: man.EncoderFallback, Head: ix.Head()}
	pf, err := createJSONLines(o.PerItem)
	if err != nil {
		return err
	}
	defer pf.Abort()
	if pf != nil {
		opts.PerItem = func(p eval.PerItem) error { return pf.Encode(p) }
	}
	rep, err := eval.Retrieval(ctx, ix, ix, items, opts)
	if err != nil {
		return err
	}
	// All-zero metrics from a benchmark that cannot match the corpus would
	// look like a result; they are an error.
	switch {
	case rep.Queries == 0:
		return fmt.Errorf("%s: no item has gold premises (mathlib_dependencies); %d skipped", o.Bench, rep.Skipped)
	case rep.GoldInIdx == 0:
		return fmt.Errorf("%s: none of its %d gold premises is a declaration indexed in %s (wrong workspace for this benchmark?)",
			o.Bench, rep.GoldTotal, o.stage.WS)
	}
	if err := pf.Commit(); err != nil {
		return err
	}
	return o.stage.report(env.Stdout, rep, rep.WriteTable)
}

func (o *evalRetrievalOptions) flagNeeds() []flagNeed { return o.rank.needs() }
