package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval/augment"
)

// augmentFlags are the query-augmentation flags of search and eval search:
// --augment, --augment-timeout and the chat client's (--model, --base-url, …).
type augmentFlags struct {
	on      bool
	timeout time.Duration
	cfg     llm.Config
}

// AddFlags registers --augment, --augment-timeout and the chat client's
// flags, whose defaults come from the environment (llm.ConfigFromEnv).
func (a *augmentFlags) AddFlags(fs *flag.FlagSet) {
	a.cfg = llm.ConfigFromEnv()
	// A search waits for its rewrite: few retries, short attempts.
	a.cfg.MaxRetries, a.cfg.RequestTimeout = 2, 20*time.Second
	fs.BoolVar(&a.on, "augment", false, "rewrite the query with a chat model first (--model, OPENAI_BASE_URL): a precise informal statement\n"+
		"and a guessed Lean statement are searched with it and fused; answers cached in WS/"+augment.CacheName)
	fs.DurationVar(&a.timeout, "augment-timeout", 30*time.Second, "longest wait for one rewrite, retries included; then the raw query is searched alone")
	a.cfg.RegisterFlags(fs)
}

// open makes the Augmenter (nil without --augment) with its cache in the
// workspace; close releases both.
func (a *augmentFlags) open(wsDir string) (*augment.Augmenter, func(), error) {
	if !a.on {
		return nil, func() {}, nil
	}
	if err := a.cfg.Finalize(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if a.cfg.Model == "" {
		return nil, nil, fmt.Errorf("%w: --augment needs a chat model (--model, with OPENAI_BASE_URL or --base-url)", errUsage)
	}
	c, err := app.OpenChat(a.cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, strings.Replace(err.Error(), app.ErrConfig.Error()+": ", "", 1))
	}
	cache, err := augment.OpenCache(augment.CachePath(wsDir))
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	aug, err := augment.New(augment.Options{Chat: c, Model: a.cfg.Model, Cache: cache, Timeout: a.timeout})
	if err != nil {
		cache.Close()
		c.Close()
		return nil, nil, err
	}
	return aug, func() { aug.Close(); cache.Close(); c.Close() }, nil
}
