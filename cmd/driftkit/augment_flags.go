package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval/augment"
)

// augmentFlags are the query-augmentation flags of search and eval search:
// --augment, --augment-timeout, --augment-prompt and the chat client's
// (--model, --base-url, …).
type augmentFlags struct {
	on      bool
	timeout time.Duration
	prompt  string
	cfg     llm.Config
	// chatFlags are the chat client's flags (--model, --base-url, …): the
	// client exists only for --augment.
	chatFlags []string
}

// AddFlags registers --augment, --augment-timeout, --augment-prompt and the chat client's
// flags, whose defaults come from the environment (llm.ConfigFromEnv).
func (a *augmentFlags) AddFlags(fs *flag.FlagSet) {
	a.cfg = llm.ConfigFromEnv()
	// A search waits for its rewrite: few retries, short attempts.
	a.cfg.MaxRetries, a.cfg.RequestTimeout = 2, 20*time.Second
	fs.BoolVar(&a.on, "augment", false, "rewrite the query with a chat model first (--model, OPENAI_BASE_URL): a precise informal statement\n"+
		"and a guessed Lean statement are searched with it and fused; answers cached in WS/"+augment.CacheName)
	fs.DurationVar(&a.timeout, "augment-timeout", 30*time.Second, "with --augment: longest wait for one rewrite, retries included; then the raw query is searched alone")
	addAugmentPromptFlag(fs, &a.prompt)
	a.chatFlags = flagsAdded(fs, func() { a.cfg.RegisterFlags(fs) })
}

// need: every flag but --augment itself only matters with --augment.
func (a *augmentFlags) need() flagNeed {
	return flagNeed{flags: append([]string{"augment-prompt", "augment-timeout"}, a.chatFlags...), holds: a.on, needs: "--augment"}
}

// addAugmentPromptFlag registers --augment-prompt (search, eval search,
// serve). The version is part of each answer's cache key, so switching
// prompts never serves one prompt's answers for another.
func addAugmentPromptFlag(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "augment-prompt", augment.PromptVersion, "with --augment: the prompt version (one of "+strings.Join(augment.PromptVersions(), ", ")+"; retrieval/augment/prompts)")
}

// open makes the Augmenter (nil without --augment) with its cache in the
// workspace; close releases both. The cache's warnings (a torn or unusable
// line) go to stderr.
func (a *augmentFlags) open(wsDir string, stderr io.Writer) (*augment.Augmenter, func(), error) {
	if !a.on {
		return nil, func() {}, nil
	}
	if err := a.cfg.Finalize(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if a.cfg.Model == "" {
		return nil, nil, fmt.Errorf("%w: --augment needs a chat model (--model, with OPENAI_BASE_URL or --base-url)", errUsage)
	}
	if _, err := augment.LoadPrompt(a.prompt); err != nil {
		return nil, nil, fmt.Errorf("%w: --augment-prompt: %v (known: %s)", errUsage, err, strings.Join(augment.PromptVersions(), ", "))
	}
	c, err := app.OpenChat(a.cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, strings.Replace(err.Error(), app.ErrConfig.Error()+": ", "", 1))
	}
	cache, err := augment.OpenCache(augment.CachePath(wsDir), func(msg string) { fmt.Fprintln(stderr, "warning:", msg) })
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	aug, err := augment.New(augment.Options{Chat: c, Model: a.cfg.Model, Cache: cache, Timeout: a.timeout, Version: a.prompt})
	if err != nil {
		cache.Close()
		c.Close()
		return nil, nil, err
	}
	return aug, func() { aug.Close(); cache.Close(); c.Close() }, nil
}
