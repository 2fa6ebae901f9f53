package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
)

func init() {
	registerSub("eval", &command{name: "retrieval", short: "retrieval metrics on a benchmark", run: runEvalRetrieval})
}

func runEvalRetrieval(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval retrieval", "--ws WS --bench FILE [--k 1,5,10,20,100] [--json] [--per-item FILE]",
		"Runs each benchmark item's informal_stmt as a query (never returning or counting the item's own\n"+
			"declaration, full_name) and reports P@k, R@k, F1@k, nDCG@k and MRR against mathlib_dependencies.")
	wsDir := fs.String("ws", "", "workspace folder")
	bench := fs.String("bench", "", "benchmark JSONL (informal_stmt, mathlib_dependencies, full_name)")
	ks := fs.String("k", "1,5,10,20,100", "cutoffs")
	asJSON := fs.Bool("json", false, "print JSON")
	perItem := fs.String("per-item", "", "write one JSON line per query to this file")
	mode := fs.String("mode", string(index.ModeBest), "dense, bm25, hybrid or best")
	allKinds := fs.Bool("all-kinds", false, "rank theorems and instances too")
	useFormal := fs.Bool("use-formal", false, "also give the searcher formal_stmt (not available when autoformalizing)")
	holdOut := fs.Bool("hold-out-module", false, "stricter: also exclude the other theorems of the query's own module (siblings)")
	weights := fs.String("weights", "", "JSON weights for mode best (advanced)")
	engine := fs.String("bm25-engine", "mem", "BM25 engine: mem (in-memory postings, fast) or bleve (the bleve index)")
	noHead := fs.Bool("no-head", false, "ignore the workspace's trained projection head (WS/head): raw dense scores")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" || *bench == "" {
		fs.Usage()
		return fmt.Errorf("%w: --ws and --bench are required", errUsage)
	}
	if *engine != "mem" && *engine != "bleve" {
		return fmt.Errorf("%w: --bm25-engine %q (mem or bleve)", errUsage, *engine)
	}
	var kl []int
	for _, s := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k <= 0 {
			return fmt.Errorf("%w: --k %q", errUsage, *ks)
		}
		kl = append(kl, k)
	}
	m, err := index.ParseMode(*mode)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	w, err := parseWeights(*weights)
	if err != nil {
		return err
	}
	items, err := index.ReadBenchFile(*bench)
	if err != nil {
		return err
	}
	ix, closeIx, err := openIndexWith(ctx, *wsDir, index.OpenOptions{NoDense: m == index.ModeBM25, BleveBM25: *engine == "bleve", NoHead: *noHead})
	if err != nil {
		return err
	}
	defer closeIx()
	opts := index.EvalOptions{Ks: kl, Mode: m, AllKinds: *allKinds, UseFormal: *useFormal, HoldOutModule: *holdOut, Weights: w, BenchLabel: *bench}
	var pf *dataset.AtomicFile
	if *perItem != "" {
		pf, err = dataset.CreateAtomic(*perItem)
		if err != nil {
			return err
		}
		defer pf.Abort()
		enc := json.NewEncoder(pf)
		opts.PerItem = func(p index.PerItem) error { return enc.Encode(p) }
	}
	rep, err := index.EvalRetrieval(ctx, ix, items, opts)
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
			*bench, rep.GoldTotal, *wsDir)
	}
	if pf != nil {
		if err := pf.Commit(); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.WriteTable(env.Stdout)
	return nil
}
