package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(&command{name: "informalize", short: "declarations → informal.parquet (LLM or template)", run: runInformalize})
}

func runInformalize(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("informalize", "--ws WS [--model M | --provider template] [flags]",
		"Writes an informal name and statement for each declaration, dependencies first, through an\n"+
			"OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, --model) or the offline template\n"+
			"fallback. Answers are journalled as they arrive; a rerun continues where a crash stopped and,\n"+
			"after the library changed, redoes only declarations whose own prompt inputs or whose statement\n"+
			"dependencies' formal inputs changed (--refresh-dependents: also those whose dependencies were\n"+
			"re-worded).")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce, "an informal.parquet")
	provider := fs.String("provider", "", "openai or template (default: openai when --model is given, else template)")
	cfg := llm.ConfigFromEnv()
	cfg.RegisterFlags(fs)
	vocab := fs.String("vocabulary", "", "template provider: JSON file of name words, namespaces, class words and types extending (or replacing) Mathlib's (see README)")
	kinds := fs.String("kinds", "", "comma-separated declaration kinds to informalize (default all)")
	modules := fs.String("modules", "", "comma-separated module name prefixes to informalize (default all)")
	limit := fs.Int("limit", 0, "informalize at most this many declarations (0: all)")
	dry := fs.Bool("dry-run", false, "print how many declarations each reuse rule would redo and what it would cost; request and write nothing")
	refresh := fs.Bool("refresh-dependents", false, "also redo declarations whose dependencies' informal text changed (the full cascade; default: only own or dependencies' formal inputs)")
	repairs := fs.Int("repairs", 2, "times a bad answer is retried with a repair instruction")
	maxTokens := fs.Int("max-tokens", 512, "completion token limit per answer")
	batchOut := fs.String("batch-out", "", "write OpenAI Batch API JSONL shards for the next wave into DIR instead of calling the endpoint")
	batchIn := fs.String("batch-in", "", "ingest a Batch API / vllm run-batch output FILE into the journal")
	submit := fs.Bool("submit", false, "send the batch waves through the endpoint's Batch API and poll until done")
	poll := fs.Duration("poll", 30*time.Second, "batch status poll interval with --submit")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.requireWS(fs); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	ctx = sf.context(ctx)
	if err := cfg.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	for _, k := range splitList(*kinds) {
		if !slices.Contains(workspace.Kinds, k) {
			return fmt.Errorf("--kinds: unknown kind %q (one of %s): %w", k, strings.Join(workspace.Kinds, ", "), errUsage)
		}
	}
	ws, err := workspace.OpenExisting(sf.WS)
	if err != nil {
		return err
	}
	po := app.InformalOptions{Provider: *provider, Chat: cfg, Vocabulary: *vocab, Repairs: *repairs, MaxTokens: *maxTokens,
		Batch: *batchOut != "" || *batchIn != "" || *submit}
	prov, closeProv, err := app.OpenInformalizer(po)
	if err != nil {
		return usageOf(err)
	}
	defer closeProv()
	*provider = po.ResolveProvider()
	opts := informalize.Options{
		Kinds: splitList(*kinds), Modules: splitList(*modules), Limit: *limit, DryRun: *dry, Force: sf.Force,
		RefreshDependents: *refresh, Prices: cfg.Prices, Out: env.Stdout, Provider: prov,
		Params: map[string]any{"provider": *provider, "model": cfg.Model, "kinds": *kinds, "modules": *modules, "limit": *limit,
			"refresh_dependents": *refresh,
			"concurrency":        cfg.Concurrency, "batch_out": *batchOut, "batch_in": *batchIn, "submit": *submit, "vocabulary": *vocab},
	}
	var rep *informalize.Report
	switch {
	case *submit:
		rep, err = informalize.Submit(ctx, ws, opts, informalize.BatchOptions{Dir: *batchOut, Poll: *poll})
	case *batchOut != "":
		rep, err = informalize.BatchOut(ctx, ws, opts, *batchOut)
	case *batchIn != "":
		rep, err = informalize.BatchIn(ctx, ws, opts, *batchIn)
	default:
		rep, err = informalize.Run(ctx, ws, opts)
	}
	if rep != nil && !*dry {
		fmt.Fprintln(env.Stdout, rep.Summary())
	}
	if err == nil && rep != nil && rep.Failed > 0 && rep.Requested+rep.Reused+rep.Resumed == 0 {
		err = errors.New("every selected declaration failed")
	}
	return err
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
