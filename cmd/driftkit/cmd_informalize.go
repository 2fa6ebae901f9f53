package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("informalize", "declarations → informal.parquet (LLM or template)", help{"--ws WS [--model M | --provider template] [flags]",
		"Writes an informal name and statement for each declaration, dependencies first, through an\n" +
			"OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, --model) or the offline template\n" +
			"fallback. Answers are journalled as they arrive; a rerun continues where a crash stopped and,\n" +
			"after the library changed, redoes only declarations whose own prompt inputs or whose statement\n" +
			"dependencies' formal inputs changed (--refresh-dependents: also those whose dependencies were\n" +
			"re-worded)."}, runInformalize))
}

// informalizeOptions are the flags of `driftkit informalize`.
type informalizeOptions struct {
	stage      stageFlags
	Provider   string
	LLM        llm.Config
	Vocabulary string
	Kinds      string
	Modules    string
	Limit      int
	DryRun     bool
	Refresh    bool
	Repairs    int
	MaxTokens  int
	BatchOut   string
	BatchIn    string
	Submit     bool
	Poll       time.Duration

	chatFlags []string // the chat client's (--model, --base-url, …)
}

func (o *informalizeOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "an informal.parquet")
	fs.StringVar(&o.Provider, "provider", "", "openai or template (default: openai when --model is given, else template)")
	o.LLM = llm.ConfigFromEnv()
	o.chatFlags = flagsAdded(fs, func() { o.LLM.RegisterFlags(fs) })
	fs.StringVar(&o.Vocabulary, "vocabulary", "", "template provider: JSON file of name words, namespaces, class words and types extending (or replacing) Mathlib's (see README)")
	fs.StringVar(&o.Kinds, "kinds", "", "comma-separated declaration kinds to informalize (default all)")
	fs.StringVar(&o.Modules, "modules", "", "comma-separated module name prefixes to informalize (default all)")
	fs.IntVar(&o.Limit, "limit", 0, "informalize at most this many declarations (0: all)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print how many declarations each reuse rule would redo and what it would cost; request and write nothing")
	fs.BoolVar(&o.Refresh, "refresh-dependents", false, "also redo declarations whose dependencies' informal text changed (the full cascade; default: only own or dependencies' formal inputs)")
	fs.IntVar(&o.Repairs, "repairs", 2, "times a bad answer is retried with a repair instruction")
	fs.IntVar(&o.MaxTokens, "max-tokens", 512, "completion token limit per answer")
	fs.StringVar(&o.BatchOut, "batch-out", "", "write OpenAI Batch API JSONL shards for the next wave into DIR instead of calling the endpoint")
	fs.StringVar(&o.BatchIn, "batch-in", "", "ingest a Batch API / vllm run-batch output FILE into the journal")
	fs.BoolVar(&o.Submit, "submit", false, "send the batch waves through the endpoint's Batch API and poll until done")
	fs.DurationVar(&o.Poll, "poll", 30*time.Second, "with --submit: the batch status poll interval")
}

// flagNeeds: the template provider asks no model, so the chat client's
// flags, --repairs and --max-tokens would be ignored with it; --poll is
// the wait between --submit's status requests.
func (o *informalizeOptions) flagNeeds() []flagNeed {
	prov := app.InformalOptions{Provider: o.Provider, Chat: o.LLM}.ResolveProvider()
	return []flagNeed{
		{flags: append([]string{"repairs", "max-tokens"}, o.chatFlags...), holds: prov != app.ProviderTemplate, needs: "--provider openai"},
		{flags: []string{"poll"}, holds: o.Submit, needs: "--submit"},
	}
}

func (o *informalizeOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if err := o.LLM.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	_, err := parseKinds(o.Kinds)
	return err
}

func runInformalize(ctx context.Context, o *informalizeOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	po := app.InformalOptions{Provider: o.Provider, Chat: o.LLM, Vocabulary: o.Vocabulary, Repairs: o.Repairs, MaxTokens: o.MaxTokens,
		Batch: o.BatchOut != "" || o.BatchIn != "" || o.Submit}
	prov, closeProv, err := app.OpenInformalizer(po)
	if err != nil {
		return usageOf(err)
	}
	defer closeProv()
	opts := informalize.Options{
		Kinds: splitList(o.Kinds), Modules: splitList(o.Modules), Limit: o.Limit, DryRun: o.DryRun, Force: o.stage.Force,
		RefreshDependents: o.Refresh, Prices: o.LLM.Prices, Out: env.Stdout, Provider: prov,
		Params: map[string]any{"provider": po.ResolveProvider(), "model": o.LLM.Model, "kinds": o.Kinds, "modules": o.Modules, "limit": o.Limit,
			"refresh_dependents": o.Refresh,
			"concurrency":        o.LLM.Concurrency, "batch_out": o.BatchOut, "batch_in": o.BatchIn, "submit": o.Submit, "vocabulary": o.Vocabulary},
	}
	var rep *informalize.Report
	switch {
	case o.Submit:
		rep, err = informalize.Submit(ctx, ws, opts, informalize.BatchOptions{Dir: o.BatchOut, Poll: o.Poll})
	case o.BatchOut != "":
		rep, err = informalize.BatchOut(ctx, ws, opts, o.BatchOut)
	case o.BatchIn != "":
		rep, err = informalize.BatchIn(ctx, ws, opts, o.BatchIn)
	default:
		rep, err = informalize.Run(ctx, ws, opts)
	}
	if rep != nil && !o.DryRun {
		fmt.Fprintln(env.Stdout, rep.Summary())
	}
	if err == nil && rep != nil && rep.Failed > 0 && rep.Requested+rep.Reused+rep.Resumed == 0 {
		err = errors.New("every selected declaration failed")
	}
	return err
}
