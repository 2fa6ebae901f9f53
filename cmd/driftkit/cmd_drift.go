package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/serve/drift"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(&command{name: "drift", short: "DRIFT: decompose, retrieve, illustrate, formalize (and evaluate on a benchmark)", run: runDrift})
}

func runDrift(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("drift", "--ws WS (--context-only \"statement\" | --bench FILE --model M --out DIR) [flags]",
		"Runs DRIFT over the workspace's index: an LLM decomposes each informal statement into sub-queries\n"+
			"(concept, predicted Lean form), each is searched as `driftkit search` does (same ranking and head),\n"+
			"the union of their best premises is illustrated by up to m library theorems that use them (greedy\n"+
			"coverage over the usage graph), and the model writes the Lean statement, checked by Lean (typecheck\n"+
			"with sorry, BEq+ against the reference) when a backend is given.\n\n"+
			"--bench evaluates a benchmark (ProofNet, ConNF, miniF2F-style JSONL): records.jsonl (one record per\n"+
			"item as it finishes; a rerun continues), items.jsonl and summary.json in --out.\n"+
			"--context-only prints the formalization context of one statement without any LLM.")
	wsDir := fs.String("ws", "", "workspace folder (with an index)")
	bench := fs.String("bench", "", "benchmark JSONL to evaluate")
	out := fs.String("out", "", "output folder of a --bench run; with --context-only, a file to write the context to")
	contextOnly := fs.Bool("context-only", false, "offline: print the formalization context (premises + illustrations) of the statement given as argument; no LLM")
	asJSON := fs.Bool("json", false, "with --context-only: JSON instead of text")
	cfg := llm.ConfigFromEnv()
	cfg.RegisterFlags(fs)
	var lo lean.Options
	lo.AddFlags(fs)
	perQuery := fs.Int("per-query", 1, "premises kept per sub-query (the paper: 1, the union of best premises)")
	topK := fs.Int("top-k", 5, "premises of the whole-statement retrieval (--no-decompose, --context-only)")
	m := fs.Int("illustrations", 3, "most illustrative theorems (m)")
	samples := fs.Int("samples", 1, "formalizations per item (n of TC@n, BEq+@n)")
	temperature := fs.Float64("temperature", 0.7, "sampling temperature of formalizations")
	seed := fs.Int("seed", 42, "seed of the first sample (then seed+1, …); decomposition uses it at temperature 0")
	repair := fs.Int("repair", 0, "repair rounds feeding Lean's errors back to the formalizer")
	maxTokens := fs.Int("max-tokens", 2048, "completion token limit of a formalization")
	decModel := fs.String("decompose-model", "", "chat model for decomposition (default --model)")
	noDecompose := fs.Bool("no-decompose", false, "ablation: retrieve top --top-k with the whole statement (the DPR baseline)")
	noIllustrate := fs.Bool("no-illustrate", false, "ablation: no illustrative theorems")
	noRetrieval := fs.Bool("no-retrieval", false, "ablation: zero-shot (no premises, no illustrations)")
	oracle := fs.Bool("oracle", false, "ablation: the gold premises (mathlib_dependencies) instead of retrieval")
	excludeBench := fs.Bool("exclude-bench", false, "hold every benchmark theorem out of retrieval and illustration (not only each item's own)")
	header := fs.String("header", "", "Lean header for items without one (e.g. \"import Mathlib\")")
	limit := fs.Int("limit", 0, "evaluate only the first N items (0: all); a later run without it continues")
	jobs := fs.Int("jobs", 0, "items in flight (default twice --concurrency)")
	retryFailed := fs.Bool("retry-failed", false, "also redo items that failed for a content reason (unusable decomposition)")
	mode := fs.String("mode", string(index.ModeBest), "search mode: dense, bm25, hybrid or best (as driftkit search)")
	weights := fs.String("weights", "", "JSON weights for mode best (advanced)")
	noHead := fs.Bool("no-head", false, "ignore the workspace's trained projection head (as driftkit search --no-head)")
	self := fs.String("self", "", "with --context-only: the statement's own declaration, never shown")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" {
		return usagef(fs, "--ws is required")
	}
	if *contextOnly == (*bench != "") {
		return fmt.Errorf("%w: give either --context-only \"statement\" or --bench FILE", errUsage)
	}
	if *contextOnly && strings.TrimSpace(strings.Join(fs.Args(), " ")) == "" {
		return fmt.Errorf("%w: --context-only needs the statement as argument", errUsage)
	}
	if *contextOnly {
		if err := checkOutputFile("--out", *out); err != nil {
			return err
		}
	}
	if !*contextOnly && fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (the statements come from --bench)", errUsage, fs.Arg(0))
	}
	md, err := index.ParseMode(*mode)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	w, err := parseWeights(*weights, retrieval.ProfilePremise)
	if err != nil {
		return err
	}
	opts := drift.Options{Model: cfg.Model, DecomposeModel: *decModel, Mode: md, Weights: w, PerQuery: *perQuery, TopK: *topK,
		Illustrations: *m, Samples: *samples, Temperature: float32(*temperature), Seed: *seed, Repair: *repair, MaxTokens: *maxTokens,
		NoDecompose: *noDecompose, NoIllustrate: *noIllustrate, NoRetrieval: *noRetrieval, Oracle: *oracle, Header: *header}
	if *m == 0 {
		opts.NoIllustrate = true
	}
	for name, v := range map[string]int{"--per-query": *perQuery, "--top-k": *topK, "--samples": *samples} {
		if v < 1 {
			return fmt.Errorf("%w: %s %d (want at least 1)", errUsage, name, v)
		}
	}
	if *m < 0 || *repair < 0 || *temperature < 0 || *limit < 0 {
		return fmt.Errorf("%w: --illustrations, --repair, --temperature and --limit must not be negative", errUsage)
	}

	ix, closeIx, err := openIndexWith(ctx, *wsDir, index.OpenOptions{NoDense: md == index.ModeBM25, NoHead: *noHead})
	if err != nil {
		return err
	}
	defer closeIx()
	// The index is both the searcher (the ranking and head of `driftkit
	// search`) and the corpus (entries and the usage graph).
	parts := drift.Parts{Search: ix, Corpus: ix}
	labels := func(w io.Writer) {
		if ix.Manifest().EncoderFallback && md != index.ModeBM25 {
			fmt.Fprintln(w, "# dense vectors from the offline hash encoder (fallback)")
		}
		if h := ix.Head(); h != nil && md != index.ModeBM25 {
			fmt.Fprintf(w, "# projection head %s (%s → %d dims) on dense candidate scores\n", h.ID, h.Encoder, h.OutDim)
		}
	}

	if *contextOnly {
		p, err := drift.New(parts, opts)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		co, err := p.BuildContextOnly(ctx, strings.Join(fs.Args(), " "), *header, *self)
		if err != nil {
			return err
		}
		dst := env.Stdout
		var af *workspace.AtomicFile
		if *out != "" {
			if af, err = workspace.CreateAtomic(*out); err != nil {
				return err
			}
			defer af.Abort()
			dst = af
		}
		if *asJSON {
			enc := json.NewEncoder(dst)
			enc.SetIndent("", "  ")
			if err := enc.Encode(map[string]any{"context": co, "encoder": ix.Manifest().Encoder, "encoder_fallback": ix.Manifest().EncoderFallback,
				"mode": md, "head": ix.Head()}); err != nil {
				return err
			}
		} else {
			labels(dst)
			co.WriteText(dst)
		}
		if af != nil {
			if err := af.Commit(); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "wrote the formalization context of %d premises and %d illustrations to %s\n", len(co.Context.Premises), len(co.Context.Illustrations), *out)
		}
		return nil
	}

	if *out == "" {
		return fmt.Errorf("%w: --bench needs --out DIR", errUsage)
	}
	if cfg.Model == "" {
		return fmt.Errorf("%w: --bench needs --model (the chat model at OPENAI_BASE_URL / --base-url)", errUsage)
	}
	if err := cfg.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	benchBytes, err := os.ReadFile(*bench)
	if err != nil {
		return err
	}
	items, err := drift.ReadBench(strings.NewReader(string(benchBytes)), *bench)
	if err != nil {
		return err
	}
	if *excludeBench {
		for _, it := range items {
			if it.Self != "" {
				opts.Exclude = append(opts.Exclude, it.Self)
			}
		}
	}
	if *limit > 0 && *limit < len(items) {
		items = items[:*limit]
	}
	client, err := llm.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	parts.Chat = client
	if lo.Configured() {
		checker, err := openLean(ctx, env, lo)
		if err != nil {
			return err
		}
		defer checker.Close()
		parts.Lean, parts.BEq = checker, drift.LeanBEq{Checker: checker}
	}
	p, err := drift.New(parts, opts)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	eff := p.Options()
	sum := sha256.Sum256(benchBytes)
	settings := map[string]any{
		"model": cfg.Model, "decompose_model": eff.DecomposeModel, "protocol": eff.Protocol(), "per_query": eff.PerQuery, "top_k": eff.TopK,
		"illustrations": eff.Illustrations, "samples": eff.Samples, "temperature": eff.Temperature, "seed": eff.Seed, "repair": eff.Repair,
		"max_tokens": eff.MaxTokens, "header": eff.Header, "exclude_bench": *excludeBench, "prompts": eff.Prompts.Version,
		"prompts_sha256": eff.Prompts.SHA256, "bench_sha256": hex.EncodeToString(sum[:]), "verification": p.Verification(),
		"search": map[string]any{"mode": md, "weights": w, "encoder": ix.Manifest().Encoder, "encoder_fallback": ix.Manifest().EncoderFallback,
			"corpus_sha256": ix.Manifest().CorpusSHA256, "head": ix.Head()},
	}
	if *jobs <= 0 {
		*jobs = 2 * client.Config().Concurrency
	}
	labels(env.Stdout)
	fmt.Fprintf(env.Stdout, "drift: %d items of %s, %s; model %s; verification %s\n", len(items), *bench, eff.Protocol(), cfg.Model, p.Verification())
	s, err := drift.Run(ctx, p, items, drift.RunOptions{Dir: *out, Bench: *bench, Jobs: *jobs, Settings: settings, RetryFailed: *retryFailed, Out: env.Stdout})
	if err != nil {
		return err
	}
	s.WriteText(env.Stdout)
	fmt.Fprintf(env.Stdout, "records in %s/%s, summary in %s/%s\n", *out, drift.ItemsFile, *out, drift.SummaryFile)
	if s.OK == 0 {
		return fmt.Errorf("every item failed (first reasons in %s/%s)", *out, drift.ItemsFile)
	}
	return nil
}
