package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("eval", &command{name: "search", short: "theorem-search metrics on a benchmark of informal queries", run: runEvalSearch})
}

func runEvalSearch(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval search", "--ws WS --bench FILE [--profile premise,theorem] [--mode bm25,dense,hybrid,best] [--split tune|held-out] [--json]",
		"Runs each benchmark item's query (JSON lines: id, query, gold full names; testdata/search) as a user of a\n"+
			"theorem search engine would, every kind a candidate, and reports hit@1, hit@10, MRR@10, nDCG@10, P@10 and\n"+
			"R@10 for each profile and mode (the profile matters in mode best only). Every gold name is checked to be\n"+
			"in the index; --check only does that and fails on a missing name. --augment rewrites each query with a\n"+
			"chat model (--model, OPENAI_BASE_URL) first, caching the answers in the workspace.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withJSON, "")
	bench := fs.String("bench", "", "theorem-search benchmark JSONL (id, query, gold, topic)")
	profiles := fs.String("profile", "premise,theorem", "comma-separated ranking profiles for mode best: premise, theorem, auto")
	modes := fs.String("mode", "bm25,dense,hybrid,best", "comma-separated modes")
	kinds := fs.String("kinds", "", "comma-separated candidate kinds (default: every kind)")
	split := fs.String("split", "", "score one half of the benchmark: tune or held-out ("+eval.SearchSplitRule+"); default all")
	check := fs.Bool("check", false, "only check that every gold name is in the index; fail naming each missing one")
	perItem := fs.String("per-item", "", "write one JSON line per query and configuration to this file")
	weights := fs.String("weights", "", "JSON weights for mode best, over the profile's defaults (advanced)")
	engine := fs.String("bm25-engine", "mem", "BM25 engine: mem (in-memory postings, fast) or bleve (the bleve index)")
	noHead := fs.Bool("no-head", false, "ignore the workspace's trained projection head (WS/head): raw dense scores")
	aug := addAugmentFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if sf.WS == "" || *bench == "" {
		return usagef(fs, "--ws and --bench are required")
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := checkOutputFile("--per-item", *perItem); err != nil {
		return err
	}
	if *engine != "mem" && *engine != "bleve" {
		return fmt.Errorf("%w: --bm25-engine %q (mem or bleve)", errUsage, *engine)
	}
	filter := retrieval.Filter{AllKinds: true}
	if *kinds != "" {
		ks, err := parseKinds(*kinds)
		if err != nil {
			return err
		}
		filter = retrieval.Filter{Kinds: ks}
	}
	var configs []eval.SearchConfig
	var ps []retrieval.Profile
	for _, s := range splitList(*profiles) {
		p, err := retrieval.ParseProfile(s)
		if err != nil {
			return fmt.Errorf("%w: --profile: %v", errUsage, err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		ps = []retrieval.Profile{retrieval.ProfileAuto}
	}
	ms := splitList(*modes)
	if len(ms) == 0 {
		return fmt.Errorf("%w: --mode is empty", errUsage)
	}
	needDense := false
	for _, s := range ms {
		m, err := retrieval.ParseMode(s)
		if err != nil {
			return fmt.Errorf("%w: --mode: %v", errUsage, err)
		}
		needDense = needDense || m != retrieval.ModeBM25
		if m != retrieval.ModeBest {
			configs = append(configs, eval.SearchConfig{Mode: m})
			continue
		}
		for _, p := range ps {
			configs = append(configs, eval.SearchConfig{Profile: p, Mode: m})
		}
	}
	var w *retrieval.Weights
	if *weights != "" {
		if len(ps) != 1 {
			return fmt.Errorf("%w: --weights applies to one profile; give one --profile", errUsage)
		}
		var err error
		if w, err = parseWeights(*weights, retrieval.ResolveProfile(&retrieval.Query{Profile: ps[0], Filter: filter})); err != nil {
			return err
		}
	}
	half, err := eval.ParseSplit(*split)
	if err != nil {
		return fmt.Errorf("%w: --split: %v", errUsage, err)
	}
	items, err := eval.ReadSearchBenchFile(*bench)
	if err != nil {
		return err
	}
	items = eval.SplitSearch(items, half)
	ctx = sf.context(ctx)
	ix, closeIx, err := openIndexWith(ctx, sf.WS, index.OpenOptions{NoDense: !needDense || *check, BleveBM25: *engine == "bleve", NoHead: *noHead})
	if err != nil {
		return err
	}
	defer closeIx()
	if *check {
		missing := eval.CheckGold(ix, items)
		for _, m := range missing {
			fmt.Fprintf(env.Stderr, "%s:%d: item %s: gold %s is not a declaration of %s\n", *bench, m.Line, m.ID, m.Name, sf.WS)
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s: %d gold names of %d items are not in the index", *bench, len(missing), len(items))
		}
		fmt.Fprintf(env.Stdout, "%s: all gold names of %d items are in the index\n", *bench, len(items))
		return nil
	}
	man := ix.Manifest()
	opts := eval.SearchOptions{Configs: configs, Filter: &filter, Weights: w, BenchLabel: *bench, Split: half,
		Encoder: man.Encoder, EncoderFallback: man.EncoderFallback, Informal: describeSources(man.InformalSource), Head: ix.Head()}
	a, closeAug, err := aug.open(sf.WS)
	if err != nil {
		return err
	}
	defer closeAug()
	if a != nil {
		opts.Rewrite, opts.RewriteLabel = a.Rewrite, a.Label()
	}
	var pf *workspace.AtomicFile
	if *perItem != "" {
		pf, err = workspace.CreateAtomic(*perItem)
		if err != nil {
			return err
		}
		defer pf.Abort()
		enc := json.NewEncoder(pf)
		opts.PerItem = func(p eval.SearchPerItem) error { return enc.Encode(p) }
	}
	rep, err := eval.Search(ctx, ix, ix, items, opts)
	if err != nil {
		return err
	}
	if rep.GoldInIndex == 0 {
		return fmt.Errorf("%s: none of its %d gold names is a declaration indexed in %s (wrong workspace for this benchmark?)", *bench, rep.GoldTotal, sf.WS)
	}
	if pf != nil {
		if err := pf.Commit(); err != nil {
			return err
		}
	}
	return sf.report(env.Stdout, rep, rep.WriteTable)
}

// parseKinds checks a --kinds list.
func parseKinds(s string) ([]string, error) {
	ks := splitList(s)
	for _, k := range ks {
		if !slices.Contains(workspace.Kinds, k) {
			return nil, fmt.Errorf("%w: --kinds: unknown kind %q (one of %s)", errUsage, k, strings.Join(workspace.Kinds, ", "))
		}
	}
	return ks, nil
}

// describeSources summarises an index's informal sources ("template
// 170000, docstring 5000").
func describeSources(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = "none"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}
