package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/drift"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("drift", "DRIFT: decompose, retrieve, illustrate, formalize (and evaluate on a benchmark)", help{
		"--ws WS (--context-only \"statement\" | --bench FILE --model M --out DIR) [flags]",
		"Runs DRIFT over the workspace's index: an LLM decomposes each informal statement into sub-queries\n" +
			"(concept, predicted Lean form), each is searched as `driftkit search` does (same ranking and head),\n" +
			"the union of their best premises is illustrated by up to m library theorems that use them (greedy\n" +
			"coverage over the usage graph), and the model writes the Lean statement, checked by Lean (typecheck\n" +
			"with sorry, BEq+ against the reference) when a backend is given.\n\n" +
			"--bench evaluates a benchmark (ProofNet, ConNF, miniF2F-style JSONL): records.jsonl (one record per\n" +
			"item as it finishes; a rerun continues), items.jsonl and summary.json in --out.\n" +
			"--context-only prints the formalization context of one statement without any LLM."}, runDrift))
}

// driftOptions are the flags of `driftkit drift`.
type driftOptions struct {
	WS           string
	Bench        string
	Out          string
	ContextOnly  bool
	JSON         bool
	LLM          llm.Config
	Lean         lean.Options
	rank         rankFlags // --mode, --weights, --no-head
	PerQuery     int
	TopK         int
	Illustrate   int
	Samples      int
	Temperature  float64
	Seed         int
	Repair       int
	MaxTokens    int
	DecMaxTokens int
	DecModel     string
	NoDecompose  bool
	NoIllustrate bool
	NoRetrieval  bool
	Oracle       bool
	ExcludeBench bool
	Header       string
	Limit        int
	Jobs         int
	RetryFailed  bool
	Self         string

	query queryOptions // the ranking flags, resolved
	// benchFlags are the chat client's and the Lean backend's flags: a
	// --context-only run uses neither.
	benchFlags []string
}

func (o *driftOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.WS, "ws", "", "workspace folder (with an index)")
	fs.StringVar(&o.Bench, "bench", "", "benchmark JSONL to evaluate")
	fs.StringVar(&o.Out, "out", "", "output folder of a --bench run; with --context-only, a file to write the context to")
	fs.BoolVar(&o.ContextOnly, "context-only", false, "offline: print the formalization context (premises + illustrations) of the statement given as argument; no LLM")
	fs.BoolVar(&o.JSON, "json", false, "with --context-only: JSON instead of text")
	o.LLM = llm.ConfigFromEnv()
	o.benchFlags = flagsAdded(fs, func() {
		o.LLM.RegisterFlags(fs)
		o.Lean.AddFlags(fs)
	})
	fs.IntVar(&o.PerQuery, "per-query", 1, "premises kept per sub-query (the paper: 1, the union of best premises)")
	fs.IntVar(&o.TopK, "top-k", 5, "premises of the whole-statement retrieval (--no-decompose, --context-only)")
	fs.IntVar(&o.Illustrate, "illustrations", 3, "most illustrative theorems (m)")
	fs.IntVar(&o.Samples, "samples", 1, "formalizations per item (n of TC@n, BEq+@n)")
	fs.Float64Var(&o.Temperature, "temperature", 0.7, "sampling temperature of formalizations")
	fs.IntVar(&o.Seed, "seed", 42, "seed of the first sample (then seed+1, …); decomposition uses it at temperature 0")
	fs.IntVar(&o.Repair, "repair", 0, "repair rounds feeding Lean's errors back to the formalizer")
	fs.IntVar(&o.MaxTokens, "max-tokens", 2048, "completion token limit of a formalization")
	fs.StringVar(&o.DecModel, "decompose-model", "", "chat model for decomposition (default --model)")
	fs.IntVar(&o.DecMaxTokens, "decompose-max-tokens", 1024, "completion token limit of a decomposition (small local models may need fewer to stop rambling, verbose ones more)")
	fs.BoolVar(&o.NoDecompose, "no-decompose", false, "ablation: retrieve top --top-k with the whole statement (the DPR baseline)")
	fs.BoolVar(&o.NoIllustrate, "no-illustrate", false, "ablation: no illustrative theorems")
	fs.BoolVar(&o.NoRetrieval, "no-retrieval", false, "ablation: zero-shot (no premises, no illustrations)")
	fs.BoolVar(&o.Oracle, "oracle", false, "ablation: the gold premises (mathlib_dependencies) instead of retrieval")
	fs.BoolVar(&o.ExcludeBench, "exclude-bench", false, "hold every benchmark theorem out of retrieval and illustration (not only each item's own)")
	fs.StringVar(&o.Header, "header", "", "Lean header for items without one (e.g. \"import Mathlib\")")
	fs.IntVar(&o.Limit, "limit", 0, "evaluate only the first N items (0: all); a later run without it continues")
	fs.IntVar(&o.Jobs, "jobs", 0, "items in flight (default twice --concurrency)")
	fs.BoolVar(&o.RetryFailed, "retry-failed", false, "also redo items that failed for a content reason (unusable decomposition)")
	o.rank.AddFlags(fs, rankMode|rankWeights|rankNoHead|rankEmbedURL)
	fs.StringVar(&o.Self, "self", "", "with --context-only: the statement's own declaration, never shown")
}

// flagNeeds: --context-only prints the context without a model, so the
// model's, Lean's and the benchmark run's flags would be ignored there, and
// --json and --self mean nothing to a --bench run; whole-statement
// retrieval reads --top-k, decomposition --per-query.
func (o *driftOptions) flagNeeds() []flagNeed {
	bench := append([]string{"samples", "temperature", "seed", "repair", "max-tokens", "decompose-model", "decompose-max-tokens",
		"exclude-bench", "limit", "jobs", "retry-failed"}, o.benchFlags...)
	return append(o.rank.needs(),
		flagNeed{flags: []string{"json", "self"}, holds: o.ContextOnly, needs: "--context-only"},
		flagNeed{flags: bench, holds: !o.ContextOnly, needs: "--bench"},
		flagNeed{flags: []string{"top-k"}, holds: o.ContextOnly || o.NoDecompose, needs: "--context-only or --no-decompose"},
		flagNeed{flags: []string{"per-query"}, holds: !o.ContextOnly && !o.NoDecompose, needs: "decomposition (--bench without --no-decompose)"})
}

func (o *driftOptions) Validate(args []string) error {
	if o.WS == "" {
		return usagef("--ws is required")
	}
	if o.ContextOnly == (o.Bench != "") {
		return fmt.Errorf("%w: give either --context-only \"statement\" or --bench FILE", errUsage)
	}
	if o.ContextOnly && strings.TrimSpace(strings.Join(args, " ")) == "" {
		return fmt.Errorf("%w: --context-only needs the statement as argument", errUsage)
	}
	if o.ContextOnly {
		if err := checkOutputFile("--out", o.Out); err != nil {
			return err
		}
	}
	if !o.ContextOnly && len(args) > 0 {
		return fmt.Errorf("%w: unexpected argument %q (the statements come from --bench)", errUsage, args[0])
	}
	var err error
	if o.query, err = o.rank.resolve(); err != nil {
		return err
	}
	for name, v := range map[string]int{"--per-query": o.PerQuery, "--top-k": o.TopK, "--samples": o.Samples, "--max-tokens": o.MaxTokens, "--decompose-max-tokens": o.DecMaxTokens} {
		if v < 1 {
			return fmt.Errorf("%w: %s %d (want at least 1)", errUsage, name, v)
		}
	}
	if o.Illustrate < 0 || o.Repair < 0 || o.Temperature < 0 || o.Limit < 0 {
		return fmt.Errorf("%w: --illustrations, --repair, --temperature and --limit must not be negative", errUsage)
	}
	return nil
}

// pipelineOptions are the drift.Options of the flags.
func (o *driftOptions) pipelineOptions() drift.Options {
	return drift.Options{Model: o.LLM.Model, DecomposeModel: o.DecModel, Mode: o.query.Mode, Weights: o.query.Weights, PerQuery: o.PerQuery,
		TopK: o.TopK, Illustrations: o.Illustrate, Samples: o.Samples, Temperature: float32(o.Temperature), Seed: o.Seed, Repair: o.Repair,
		MaxTokens: o.MaxTokens, DecomposeMaxTokens: o.DecMaxTokens, NoDecompose: o.NoDecompose, NoIllustrate: o.NoIllustrate || o.Illustrate == 0, NoRetrieval: o.NoRetrieval,
		Oracle: o.Oracle, Header: o.Header}
}

func runDrift(ctx context.Context, o *driftOptions, env *Env, args []string) error {
	ix, closeIx, err := openIndexWith(ctx, o.WS, o.query.Open, o.query.EmbedURL)
	if err != nil {
		return err
	}
	defer closeIx()
	// The index is both the searcher (the ranking and head of `driftkit
	// search`) and the corpus (entries and the usage graph).
	parts := drift.Parts{Search: ix, Corpus: ix}
	if o.ContextOnly {
		return driftContextOnly(ctx, o, env, ix, parts, strings.Join(args, " "))
	}
	return driftBench(ctx, o, env, ix, parts)
}

// driftContextOnly is --context-only: the formalization context of one
// statement, printed or written to --out, without any model.
func driftContextOnly(ctx context.Context, o *driftOptions, env *Env, ix *index.Index, parts drift.Parts, statement string) error {
	p, err := drift.New(parts, o.pipelineOptions())
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	co, err := p.BuildContextOnly(ctx, statement, o.Header, o.Self)
	if err != nil {
		return err
	}
	dst := env.Stdout
	var af *workspace.AtomicFile
	if o.Out != "" {
		if af, err = workspace.CreateAtomic(o.Out); err != nil {
			return err
		}
		defer af.Abort()
		dst = af
	}
	if o.JSON {
		enc := json.NewEncoder(dst)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"context": co, "encoder": ix.Manifest().Encoder, "encoder_fallback": ix.Manifest().EncoderFallback,
			"mode": o.query.Mode, "head": ix.Head()}); err != nil {
			return err
		}
	} else {
		printIndexLabels(dst, ix, o.query.Mode)
		co.WriteText(dst)
	}
	if af == nil {
		return nil
	}
	if err := af.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote the formalization context of %d premises and %d illustrations to %s\n", len(co.Context.Premises), len(co.Context.Illustrations), o.Out)
	return nil
}

// driftBench is --bench: every item through the pipeline, records and a
// summary in --out (a rerun continues).
func driftBench(ctx context.Context, o *driftOptions, env *Env, ix *index.Index, parts drift.Parts) error {
	if o.Out == "" {
		return fmt.Errorf("%w: --bench needs --out DIR", errUsage)
	}
	if o.LLM.Model == "" {
		return fmt.Errorf("%w: --bench needs --model (the chat model at OPENAI_BASE_URL / --base-url)", errUsage)
	}
	if err := o.LLM.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	benchBytes, err := os.ReadFile(o.Bench)
	if err != nil {
		return err
	}
	items, err := drift.ReadBench(strings.NewReader(string(benchBytes)), o.Bench)
	if err != nil {
		return err
	}
	opts := o.pipelineOptions()
	if o.ExcludeBench {
		for _, it := range items {
			if it.Self != "" {
				opts.Exclude = append(opts.Exclude, it.Self)
			}
		}
	}
	if o.Limit > 0 && o.Limit < len(items) {
		items = items[:o.Limit]
	}
	client, err := app.OpenChat(o.LLM)
	if err != nil {
		return usageOf(err)
	}
	defer client.Close()
	parts.Chat = client
	if o.Lean.Configured() {
		checker, err := openLean(ctx, env, o.Lean)
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
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = 2 * client.Config().Concurrency
	}
	eff := p.Options()
	printIndexLabels(env.Stdout, ix, o.query.Mode)
	fmt.Fprintf(env.Stdout, "drift: %d items of %s, %s; model %s; verification %s\n", len(items), o.Bench, eff.Protocol(), o.LLM.Model, p.Verification())
	s, err := drift.Run(ctx, p, items, drift.RunOptions{Dir: o.Out, Bench: o.Bench, Jobs: jobs, Settings: o.settings(p, ix, benchBytes),
		RetryFailed: o.RetryFailed, Out: env.Stdout})
	if err != nil {
		return err
	}
	s.WriteText(env.Stdout)
	fmt.Fprintf(env.Stdout, "records in %s/%s, summary in %s/%s\n", o.Out, drift.ItemsFile, o.Out, drift.SummaryFile)
	if s.OK == 0 {
		return fmt.Errorf("every item failed (first reasons in %s/%s)", o.Out, drift.ItemsFile)
	}
	return nil
}

// settings are what a --bench run records: a rerun with other settings
// into the same --out is refused (drift.ErrSettingsChanged).
func (o *driftOptions) settings(p *drift.Pipeline, ix *index.Index, benchBytes []byte) map[string]any {
	eff := p.Options()
	sum := sha256.Sum256(benchBytes)
	return map[string]any{
		"model": o.LLM.Model, "decompose_model": eff.DecomposeModel, "protocol": eff.Protocol(), "per_query": eff.PerQuery, "top_k": eff.TopK,
		"illustrations": eff.Illustrations, "samples": eff.Samples, "temperature": eff.Temperature, "seed": eff.Seed, "repair": eff.Repair,
		"max_tokens": eff.MaxTokens, "decompose_max_tokens": eff.DecomposeMaxTokens, "header": eff.Header, "exclude_bench": o.ExcludeBench, "prompts": eff.Prompts.Version,
		"prompts_sha256": eff.Prompts.SHA256, "bench_sha256": hex.EncodeToString(sum[:]), "verification": p.Verification(),
		"search": map[string]any{"mode": o.query.Mode, "weights": o.query.Weights, "encoder": ix.Manifest().Encoder, "encoder_fallback": ix.Manifest().EncoderFallback,
			"corpus_sha256": ix.Manifest().CorpusSHA256, "head": ix.Head()},
	}
}
