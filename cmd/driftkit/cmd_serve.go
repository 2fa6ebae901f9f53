package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/serve"
	"github.com/driftkit/driftkit/serve/tomap"
)

func init() {
	register(newCommand("serve", "HTTP API, search page, LeanSearch-compatible endpoint, Lean tools' protocols, MCP, DRIFT and ToMap runs", help{"--ws WS [--ws NAME=WS …] [--addr 127.0.0.1:8080] [--token T] [--public-url URL] [flags]",
		"Serves one or several workspaces over HTTP: the search page at /, declaration pages, the JSON API\n" +
			"(/api/search, /api/decl/NAME, /api/drift/context, runs; see /api/openapi.json), POST /search for\n" +
			"Mathlib's #leansearch (set LEANSEARCHCLIENT_LEANSEARCH_API_URL=http://HOST:PORT/search), Lean's premise\n" +
			"selector (premiseSelection.apiBaseUrl http://HOST:PORT/premises), #statesearch (/statesearch/api/search),\n" +
			"Lean Finder (/leanfinder), MCP over streamable HTTP (/mcp), /healthz,\n" +
			"/readyz and /metrics. Each index is opened once, read-only, with its projection head, as `search`\n" +
			"opens it. SIGHUP (or POST /api/admin/reload from this machine) picks up a rebuilt index without a\n" +
			"restart; SIGTERM/SIGINT stop accepting, finish searches in flight and cancel runs.\n" +
			"DRIFT and ToMap runs need a model endpoint (--model, --base-url or OPENAI_BASE_URL, OPENAI_API_KEY);\n" +
			"Lean checks need a backend (--repl, --kimina or --lean), else verification is recorded as skipped."}, runServe))
}

// serveTokenEnv names the environment variable --token defaults to.
const serveTokenEnv = "DRIFTKIT_TOKEN"

// serveOptions are the flags of `driftkit serve`.
type serveOptions struct {
	WS            multiFlag
	Addr          string
	Token         string
	PublicURL     string
	Runs          string
	NoHead        bool
	EmbedURL      string
	MaxRuns       int
	ReqTimeout    time.Duration
	RunTimeout    time.Duration
	MaxBody       int64
	MaxQuery      int
	LogJSON       bool
	Quiet         bool
	LLM           llm.Config
	Augment       bool
	AugmentWait   time.Duration
	AugmentPrompt string
	Vocabulary    string
	Agents        tomap.AgentFlags
	Lean          lean.Options
	CPUProfile    string

	specs []app.WorkspaceSpec // --ws, parsed
}

func (o *serveOptions) AddFlags(fs *flag.FlagSet) {
	fs.Var(&o.WS, "ws", "workspace folder, or NAME=folder; repeat to serve several (the first is the default)")
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "listen address (default: this machine only; another address wants --token)")
	fs.StringVar(&o.Token, "token", os.Getenv(serveTokenEnv), "bearer token that starting, cancelling and listing runs and reloading need from any address\n"+
		"(default $"+serveTokenEnv+", which keeps it out of the process list; without a token those are allowed from loopback clients only)")
	fs.StringVar(&o.PublicURL, "public-url", "", "the server's address as clients reach it (http(s)://HOST[:PORT][/PATH]): accepted as Host and Origin, and the base of\n"+
		"absolute links (LeanSearch doc_url; without it links are relative)")
	fs.StringVar(&o.Runs, "runs", "", "folder recording runs (runs.jsonl) and their files (default: nothing kept)")
	fs.BoolVar(&o.NoHead, "no-head", false, "ignore the workspaces' trained projection heads")
	addEmbedURLFlag(fs, &o.EmbedURL)
	fs.IntVar(&o.MaxRuns, "max-runs", 2, "DRIFT/ToMap runs in flight at most (more answer 429)")
	fs.DurationVar(&o.ReqTimeout, "request-timeout", 30*time.Second, "bound of one search, declaration or context request")
	fs.DurationVar(&o.RunTimeout, "run-timeout", 30*time.Minute, "bound of one run")
	fs.Int64Var(&o.MaxBody, "max-body", 1<<20, "request body cap in bytes")
	fs.IntVar(&o.MaxQuery, "max-query", 4096, "query and statement cap in bytes")
	fs.BoolVar(&o.LogJSON, "log-json", false, "log as JSON lines (default: text) on stderr")
	fs.BoolVar(&o.Quiet, "quiet", false, "log errors only (no line per request)")
	o.LLM = llm.ConfigFromEnv()
	o.LLM.RegisterFlags(fs)
	addVocabularyFlag(fs, &o.Vocabulary)
	fs.DurationVar(&o.AugmentWait, "augment-wait", serve.DefaultAugmentWait, "with --augment: how long a search waits for its rewrite before it is answered without (the rewrite goes on and is cached)")
	fs.BoolVar(&o.Augment, "augment", false, "rewrite every theorem search (search page, #leansearch endpoint) with the chat model --model first;\n"+
		"answers cached in each workspace's "+augment.CacheName+"; a failing model leaves the raw query")
	addAugmentPromptFlag(fs, &o.AugmentPrompt)
	o.Agents.Register(fs)
	o.Lean.AddFlags(fs)
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
}

func (o *serveOptions) Validate(args []string) error {
	switch {
	case len(o.WS) == 0:
		return usagef("--ws is required")
	case len(args) > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
	case o.MaxRuns < 1 || o.MaxBody < 1024 || o.MaxQuery < 16 || o.ReqTimeout <= 0 || o.RunTimeout <= 0:
		return fmt.Errorf("%w: --max-runs ≥ 1, --max-body ≥ 1024, --max-query ≥ 16 and positive timeouts, please", errUsage)
	}
	var err error
	o.specs, err = app.ParseWorkspaceSpecs(o.WS)
	return usageOf(err)
}

// logger is the server's log: text or JSON lines on stderr, errors only
// under --quiet.
func (o *serveOptions) logger(env *Env) *slog.Logger {
	level := slog.LevelInfo
	if o.Quiet {
		level = slog.LevelError
	}
	var h slog.Handler = slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level})
	if o.LogJSON {
		h = slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level})
	}
	return slog.New(h)
}

func runServe(ctx context.Context, o *serveOptions, env *Env, args []string) error {
	log := o.logger(env)
	stop, err := cpuProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	lo := o.Lean
	lo.Logf = func(format string, args ...any) { fmt.Fprintf(env.Stderr, format+"\n", args...) }
	vocab, err := loadVocabulary(o.Vocabulary)
	if err != nil {
		return err
	}
	s, closeSrv, err := serve.Open(ctx, serve.Setup{Workspaces: o.specs, NoHead: o.NoHead, EmbedURL: o.EmbedURL, Vocabulary: vocab, Augment: o.Augment, AugmentWait: o.AugmentWait, AugmentPrompt: o.AugmentPrompt, Chat: o.LLM,
		Agents: &o.Agents, Lean: lo, LeanLabel: leanLabel(o.Lean), RunsDir: o.Runs, Log: log, Out: env.Stdout, Token: o.Token, PublicURL: o.PublicURL,
		RunLog: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Limits: serve.Limits{MaxBody: o.MaxBody, MaxQuery: o.MaxQuery, RequestTimeout: o.ReqTimeout, MaxRuns: o.MaxRuns, RunTimeout: o.RunTimeout}})
	if err != nil {
		return usageOf(err)
	}
	defer closeSrv()
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	url := "http://" + l.Addr().String()
	if host, port, err := net.SplitHostPort(l.Addr().String()); err == nil && (host == "::" || host == "0.0.0.0") {
		url = "http://localhost:" + port
	}
	if !serve.LoopbackAddr(l.Addr()) && o.Token == "" {
		fmt.Fprintf(env.Stdout, "warning: listening on %s, reachable from other machines, without --token: anyone there can search; "+
			"runs and reloads stay allowed from this machine only\n", l.Addr())
	}
	fmt.Fprintf(env.Stdout, "serving on %s (search page %s/, API %s/api/openapi.json)\n", url, url, url)
	fmt.Fprintf(env.Stdout, "for Mathlib's #leansearch: export LEANSEARCHCLIENT_LEANSEARCH_API_URL=%s/search\n", url)
	fmt.Fprintf(env.Stdout, "for Lean's premise selector (hammer, grind +suggestions): set_option premiseSelection.apiBaseUrl \"%s/premises\"\n", url)
	fmt.Fprintf(env.Stdout, "for #statesearch: export LEANSEARCHCLIENT_LEANSTATESEARCH_API_URL=%s/statesearch/api/search; MCP clients: %s/mcp\n", url, url)
	if why := s.RunsUnavailable(); why != "" {
		fmt.Fprintf(env.Stdout, "DRIFT and ToMap runs: off (%s); the DRIFT context (/api/drift/context, /drift) works offline\n", why)
	}
	defer reloadOnHUP(ctx, s, log)()
	err = s.Serve(ctx, l)
	fmt.Fprintln(env.Stdout, "stopped")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// reloadOnHUP starts a reload of the server's indexes on SIGHUP (in the
// background, as POST /api/admin/reload: the log and GET
// /api/admin/reload say how it ended) until ctx ends (main cancels it on
// SIGTERM/SIGINT); the returned function stops listening.
func reloadOnHUP(ctx context.Context, s *serve.Server, log *slog.Logger) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for {
			select {
			case <-hup:
				st := s.StartReload()
				log.Info("reload on SIGHUP started", "id", st.ID)
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { signal.Stop(hup) }
}

// flagNeeds: the chat flags also serve DRIFT and ToMap runs, but the
// rewrite's own settings only matter with --augment.
func (o *serveOptions) flagNeeds() []flagNeed {
	return []flagNeed{{flags: []string{"augment-prompt", "augment-wait"}, holds: o.Augment, needs: "--augment"}}
}
