package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("eval", &command{name: "retrieval", short: "retrieval metrics on a benchmark", run: runEvalRetrieval})
}

func runEvalRetrieval(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval retrieval", "--ws WS --bench FILE [--k 1,5,10,20,100] [--json] [--per-item FILE]",
		"Runs each benchmark item's informal_stmt as a query (never returning or counting the item's own\n"+
			"declaration, full_name) and reports P@k, R@k, F1@k, nDCG@k and MRR against mathlib_dependencies.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withJSON, "")
	var qf queryFlags
	qf.AddFlags(fs)
	qf.AddProfileFlag(fs, "premise", "ranking profile of mode best: premise (dependency retrieval, also with --all-kinds), theorem, or auto (theorem with --all-kinds)")
	bench := fs.String("bench", "", "benchmark JSONL (informal_stmt, mathlib_dependencies, full_name)")
	ks := fs.String("k", "1,5,10,20,100", "cutoffs")
	perItem := fs.String("per-item", "", "write one JSON line per query to this file")
	useFormal := fs.Bool("use-formal", false, "also give the searcher formal_stmt (not available when autoformalizing)")
	holdOut := fs.Bool("hold-out-module", false, "stricter: also exclude the other theorems of the query's own module (siblings)")
	unseen := fs.String("unseen", "", "inductive protocol: exclude every theorem of this benchmark JSONL (its full_names, normally --bench itself)\nfrom every query, as if all were new (default: leave-one-out)")
	split := fs.String("split", "", "score one half of the benchmark: tune or held-out ("+eval.SplitRule+"); default all")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if sf.WS == "" || *bench == "" {
		return usagef(fs, "--ws and --bench are required")
	}
	var kl []int
	for _, f := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k <= 0 {
			return fmt.Errorf("%w: --k %q: %q is not a cutoff (want whole numbers ≥ 1, comma-separated)", errUsage, *ks, f)
		}
		kl = append(kl, k)
	}
	if err := checkOutputFile("--per-item", *perItem); err != nil {
		return err
	}
	qo, err := qf.resolve()
	if err != nil {
		return err
	}
	m := qo.Mode
	half, err := eval.ParseSplit(*split)
	if err != nil {
		return fmt.Errorf("%w: --split: %v", errUsage, err)
	}
	items, err := eval.ReadBenchFile(*bench)
	if err != nil {
		return err
	}
	items = eval.Split(items, half)
	var unseenNames []string
	if *unseen != "" {
		u, err := eval.ReadBenchFile(*unseen)
		if err != nil {
			return err
		}
		for _, it := range u {
			if it.FullName != "" {
				unseenNames = append(unseenNames, it.FullName)
			}
		}
	}
	ctx = sf.context(ctx)
	ix, closeIx, err := openIndexWith(ctx, sf.WS, qo.Open)
	if err != nil {
		return err
	}
	defer closeIx()
	man := ix.Manifest()
	opts := eval.Options{Ks: kl, Mode: m, Profile: qo.Profile, AllKinds: qo.AllKinds, UseFormal: *useFormal, HoldOutModule: *holdOut, Unseen: unseenNames,
		Weights: qo.Weights, BenchLabel: *bench, Split: half, Encoder: man.Encoder, EncoderFallback: man.EncoderFallback, Head: ix.Head()}
	var pf *workspace.AtomicFile
	if *perItem != "" {
		pf, err = workspace.CreateAtomic(*perItem)
		if err != nil {
			return err
		}
		defer pf.Abort()
		enc := json.NewEncoder(pf)
		opts.PerItem = func(p eval.PerItem) error { return enc.Encode(p) }
	}
	rep, err := eval.Retrieval(ctx, ix, ix, items, opts)
	if err != nil {
		return err
	}
	// All-zero metrics from a benchmark that cannot match the corpus would
	// look like a result; they are an error.
	switch {
	case rep.Queries == 0:
		return fmt.Errorf("%s: no item has gold premises (mathlib_dependencies); %d skipped", *bench, rep.Skipped)
	case rep.GoldInIdx == 0:
		return fmt.Errorf("%s: none of its %d gold premises is a declaration indexed in %s (wrong workspace for this benchmark?)",
			*bench, rep.GoldTotal, sf.WS)
	}
	if pf != nil {
		if err := pf.Commit(); err != nil {
			return err
		}
	}
	return sf.report(env.Stdout, rep, rep.WriteTable)
}
