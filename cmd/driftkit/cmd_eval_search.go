package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
)

func init() {
	register(newCommand("eval search", "theorem-search metrics on a benchmark of informal queries", help{"--ws WS --bench FILE [--profile premise,theorem] [--mode bm25,dense,hybrid,best] [--split tune|held-out] [--json]",
		"Runs each benchmark item's query (JSON lines: id, query, gold full names; testdata/search) as a user of a\n" +
			"theorem search engine would, every kind a candidate, and reports hit@1, hit@10, MRR@10, nDCG@10, P@10 and\n" +
			"R@10 for each profile and mode (the profile matters in mode best only). Every gold name is checked to be\n" +
			"in the index; --check only does that and fails on a missing name. --augment rewrites each query with a\n" +
			"chat model (--model, OPENAI_BASE_URL) first, caching the answers in the workspace."}, runEvalSearch))
}

// evalSearchOptions are the flags of `driftkit eval search`. Its --mode and
// --profile are lists (one configuration each), not the single values of
// rankFlags.
type evalSearchOptions struct {
	stage    stageFlags
	rank     rankFlags // --weights, --bm25-engine, --no-head
	augment  augmentFlags
	Bench    string
	Profiles string
	Modes    string
	Kinds    string
	Split    string
	Check    bool
	PerItem  string
	Every    int

	filter    retrieval.Filter    // --kinds
	configs   []eval.SearchConfig // --mode × --profile
	needDense bool                // a mode other than bm25
	weights   *retrieval.Weights  // --weights over the one profile's defaults
	half      string              // --split
	vocab     *retrieval.Vocabulary
}

func (o *evalSearchOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withJSON, "")
	fs.StringVar(&o.Bench, "bench", "", "theorem-search benchmark JSONL (id, query, gold, topic)")
	fs.StringVar(&o.Profiles, "profile", "premise,theorem", "comma-separated ranking profiles for mode best: premise, theorem, auto")
	fs.StringVar(&o.Modes, "mode", "bm25,dense,hybrid,best", "comma-separated modes")
	fs.StringVar(&o.Kinds, "kinds", "", "comma-separated candidate kinds (default: every kind)")
	fs.StringVar(&o.Split, "split", "", "score one half of the benchmark: tune or held-out ("+eval.SearchSplitRule+"); default all")
	fs.IntVar(&o.Every, "every", 0, "score every K-th item (of the --split half) in file order, the first included: a fixed subset\n"+
		"for a costly configuration (--augment with a local CPU model); run it with and without --augment for the pair")
	fs.BoolVar(&o.Check, "check", false, "only check that every gold name is in the index; fail naming each missing one")
	fs.StringVar(&o.PerItem, "per-item", "", "write one JSON line per query and configuration to this file")
	o.rank.AddFlags(fs, rankWeights|rankEngine|rankNoHead|rankEmbedURL|rankVocab)
	o.augment.AddFlags(fs)
}

func (o *evalSearchOptions) Validate(args []string) error {
	if o.stage.WS == "" || o.Bench == "" {
		return usagef("--ws and --bench are required")
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if o.Every < 0 {
		return usagef("--every must be at least 1")
	}
	if err := checkOutputFile("--per-item", o.PerItem); err != nil {
		return err
	}
	if err := o.rank.checkEngine(); err != nil {
		return err
	}
	o.filter = retrieval.Filter{AllKinds: true}
	if o.Kinds != "" {
		ks, err := parseKinds(o.Kinds)
		if err != nil {
			return err
		}
		o.filter = retrieval.Filter{Kinds: ks}
	}
	ps, err := o.configurations()
	if err != nil {
		return err
	}
	if o.rank.weights != "" {
		if len(ps) != 1 {
			return fmt.Errorf("%w: --weights applies to one profile; give one --profile", errUsage)
		}
		if o.weights, err = parseWeights(o.rank.weights, retrieval.ResolveProfile(&retrieval.Query{Profile: ps[0], Filter: o.filter})); err != nil {
			return err
		}
	}
	if o.half, err = eval.ParseSplit(o.Split); err != nil {
		return fmt.Errorf("%w: --split: %v", errUsage, err)
	}
	o.vocab, err = loadVocabulary(o.rank.vocab)
	return err
}

// configurations reads --profile and --mode into o.configs: each mode, and
// mode best once per profile. It returns the profiles.
func (o *evalSearchOptions) configurations() ([]retrieval.Profile, error) {
	var ps []retrieval.Profile
	for _, s := range splitList(o.Profiles) {
		p, err := retrieval.ParseProfile(s)
		if err != nil {
			return nil, fmt.Errorf("%w: --profile: %v", errUsage, err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		ps = []retrieval.Profile{retrieval.ProfileAuto}
	}
	ms := splitList(o.Modes)
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: --mode is empty", errUsage)
	}
	for _, s := range ms {
		m, err := retrieval.ParseMode(s)
		if err != nil {
			return nil, fmt.Errorf("%w: --mode: %v", errUsage, err)
		}
		o.needDense = o.needDense || m != retrieval.ModeBM25
		if m != retrieval.ModeBest {
			o.configs = append(o.configs, eval.SearchConfig{Mode: m})
			continue
		}
		for _, p := range ps {
			o.configs = append(o.configs, eval.SearchConfig{Profile: p, Mode: m})
		}
	}
	return ps, nil
}

func runEvalSearch(ctx context.Context, o *evalSearchOptions, env *Env, args []string) error {
	items, err := eval.ReadSearchBenchFile(o.Bench)
	if err != nil {
		return err
	}
	items = eval.SplitSearch(items, o.half)
	items, sample := eval.SampleEvery(items, o.Every)
	ctx = o.stage.context(ctx)
	ix, closeIx, err := openIndexWith(ctx, o.stage.WS, o.rank.openOptions(!o.needDense || o.Check), o.rank.embedURL)
	if err != nil {
		return err
	}
	defer closeIx()
	if o.Check {
		return checkSearchGold(env, o, ix, items)
	}
	man := ix.Manifest()
	opts := eval.SearchOptions{Configs: o.configs, Filter: &o.filter, Weights: o.weights, Vocabulary: o.vocab, BenchLabel: o.Bench, Split: o.half, Sample: sample,
		Encoder: man.Encoder, EncoderFallback: man.EncoderFallback, Informal: describeSources(man.InformalSource), Head: ix.Head()}
	a, closeAug, err := o.augment.open(o.stage.WS, env.Stderr)
	if err != nil {
		return err
	}
	defer closeAug()
	if a != nil {
		opts.Rewrite, opts.RewriteLabel = a.Rewrite, a.Label()
	}
	pf, err := createJSONLines(o.PerItem)
	if err != nil {
		return err
	}
	defer pf.Abort()
	if pf != nil {
		opts.PerItem = func(p eval.SearchPerItem) error { return pf.Encode(p) }
	}
	rep, err := eval.Search(ctx, ix, ix, items, opts)
	if err != nil {
		return err
	}
	if rep.GoldInIndex == 0 {
		return fmt.Errorf("%s: none of its %d gold names is a declaration indexed in %s (wrong workspace for this benchmark?)", o.Bench, rep.GoldTotal, o.stage.WS)
	}
	if err := pf.Commit(); err != nil {
		return err
	}
	return o.stage.report(env.Stdout, rep, rep.WriteTable)
}

// checkSearchGold is --check: every gold name of items must be in the
// index; each missing one is named on stderr.
func checkSearchGold(env *Env, o *evalSearchOptions, ix *index.Index, items []eval.SearchItem) error {
	missing := eval.CheckGold(ix, items)
	for _, m := range missing {
		fmt.Fprintf(env.Stderr, "%s:%d: item %s: gold %s is not a declaration of %s\n", o.Bench, m.Line, m.ID, m.Name, o.stage.WS)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %d gold names of %d items are not in the index", o.Bench, len(missing), len(items))
	}
	fmt.Fprintf(env.Stdout, "%s: all gold names of %d items are in the index\n", o.Bench, len(items))
	return nil
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

// flagNeeds: --check only looks gold names up (in the --split half,
// --every sample), so every flag of the search run would be ignored with
// it; the augmentation flags need --augment. --mode is a list here (the
// command has no rankFlags mode), so the ranking flags' needs are read
// from it: --profile, --weights and --vocabulary need best among the
// modes, --embed-base-url a mode with dense vectors, --bm25-engine one
// with BM25 (modesNeeds). --no-head is never refused (make run).
func (o *evalSearchOptions) flagNeeds() []flagNeed {
	run := append([]string{"mode", "profile", "kinds", "per-item", "json", "weights", "bm25-engine", "no-head", "embed-base-url", "vocabulary",
		"augment", "augment-prompt", "augment-timeout"}, o.augment.chatFlags...)
	needs := []flagNeed{{flags: run, holds: !o.Check, needs: "a search run (without --check)"}}
	if !o.Check {
		needs = append(needs, modesNeeds(splitList(o.Modes))...)
	}
	return append(needs, o.augment.need())
}
