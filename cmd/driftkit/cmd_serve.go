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
	"strings"
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
	register(newCommand("serve", "HTTP API, search page, LeanSearch-compatible endpoint, DRIFT and ToMap runs", help{"--ws WS [--ws NAME=WS …] [--addr :8080] [flags]",
		"Serves one or several workspaces over HTTP: the search page at /, declaration pages, the JSON API\n" +
			"(/api/search, /api/decl/NAME, /api/drift/context, runs; see /api/openapi.json), POST /search for\n" +
			"Mathlib's #leansearch (set LEANSEARCHCLIENT_LEANSEARCH_API_URL=http://HOST:PORT/search), /healthz,\n" +
			"/readyz and /metrics. Each index is opened once, read-only, with its projection head, as `search`\n" +
			"opens it. SIGHUP (or POST /api/admin/reload from this machine) picks up a rebuilt index without a\n" +
			"restart; SIGTERM/SIGINT stop accepting, finish searches in flight and cancel runs.\n" +
			"DRIFT and ToMap runs need a model endpoint (--model, --base-url or OPENAI_BASE_URL, OPENAI_API_KEY);\n" +
			"Lean checks need a backend (--repl, --kimina or --lean), else verification is recorded as skipped."}, runServe))
}

// serveOptions are the flags of `driftkit serve`.
type serveOptions struct {
	WS         multiFlag
	Addr       string
	Runs       string
	NoHead     bool
	EmbedURL   string
	MaxRuns    int
	ReqTimeout time.Duration
	RunTimeout time.Duration
	MaxBody    int64
	MaxQuery   int
	LogJSON    bool
	Quiet      bool
	LLM        llm.Config
	Augment    bool
	Agents     tomap.AgentFlags
	Lean       lean.Options

	specs []app.WorkspaceSpec // --ws, parsed
}

func (o *serveOptions) AddFlags(fs *flag.FlagSet) {
	fs.Var(&o.WS, "ws", "workspace folder, or NAME=folder; repeat to serve several (the first is the default)")
	fs.StringVar(&o.Addr, "addr", ":8080", "listen address")
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
	fs.BoolVar(&o.Augment, "augment", false, "rewrite every theorem search (search page, #leansearch endpoint) with the chat model --model first;\n"+
		"answers cached in each workspace's "+augment.CacheName+"; a failing model leaves the raw query")
	o.Agents.Register(fs)
	o.Lean.AddFlags(fs)
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
	chat, closeChat, err := o.augmentChat()
	if err != nil {
		return err
	}
	defer closeChat()
	workspaces, closeWS, err := openServeWorkspaces(ctx, o, env, chat)
	if err != nil {
		return err
	}
	defer closeWS()
	runs, closeRuns, err := serveRuns(ctx, env, o.LLM, &o.Agents, o.Lean, o.Runs)
	if err != nil {
		return err
	}
	defer closeRuns()
	s, err := serve.New(serve.Options{Workspaces: workspaces, Runs: runs, Log: log, Limits: serve.Limits{
		MaxBody: o.MaxBody, MaxQuery: o.MaxQuery, RequestTimeout: o.ReqTimeout, MaxRuns: o.MaxRuns, RunTimeout: o.RunTimeout}})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	url := "http://" + l.Addr().String()
	if host, port, err := net.SplitHostPort(l.Addr().String()); err == nil && (host == "::" || host == "0.0.0.0") {
		url = "http://localhost:" + port
	}
	fmt.Fprintf(env.Stdout, "serving on %s (search page %s/, API %s/api/openapi.json)\n", url, url, url)
	fmt.Fprintf(env.Stdout, "for Mathlib's #leansearch: export LEANSEARCHCLIENT_LEANSEARCH_API_URL=%s/search\n", url)
	if runs.Drift == nil && runs.ToMap == nil {
		fmt.Fprintf(env.Stdout, "DRIFT and ToMap runs: off (%s); the DRIFT context (/api/drift/context, /drift) works offline\n", runs.Unavailable)
	}
	defer reloadOnHUP(ctx, s, log)()
	err = s.Serve(ctx, l)
	fmt.Fprintln(env.Stdout, "stopped")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// reloadOnHUP reloads the server's indexes on SIGHUP until ctx ends (main
// cancels it on SIGTERM/SIGINT); the returned function stops listening.
func reloadOnHUP(ctx context.Context, s *serve.Server, log *slog.Logger) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for {
			select {
			case <-hup:
				if _, err := s.Reload(); err != nil {
					log.Error("reload on SIGHUP", "err", err)
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { signal.Stop(hup) }
}

// augmentChat is the chat client of --augment (nil without it): one for
// every workspace, with few retries and short attempts, for a search waits
// for its rewrite.
func (o *serveOptions) augmentChat() (*llm.Client, func(), error) {
	if !o.Augment {
		return nil, func() {}, nil
	}
	ac := o.LLM
	ac.MaxRetries, ac.RequestTimeout = 2, min(20*time.Second, o.ReqTimeout)
	if err := ac.Finalize(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if ac.Model == "" {
		return nil, nil, fmt.Errorf("%w: --augment needs a chat model (--model, with OPENAI_BASE_URL or --base-url)", errUsage)
	}
	chat, err := llm.New(ac)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return chat, chat.Close, nil
}

// openServeWorkspaces opens each --ws once (index, head, encoder), shared
// by every request, with an augmenter and its cache per workspace when chat
// is set. The returned function closes them all.
func openServeWorkspaces(ctx context.Context, o *serveOptions, env *Env, chat *llm.Client) ([]*serve.Workspace, func(), error) {
	var workspaces []*serve.Workspace
	var closers []func()
	closeAll := func() {
		for _, w := range workspaces {
			w.Close()
		}
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for _, sp := range o.specs {
		ix, closeIx, err := openIndexWith(ctx, sp.Dir, app.ServeIndexOptions(o.NoHead), o.EmbedURL)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("workspace %s (%s): %w", sp.Name, sp.Dir, err)
		}
		closers = append(closers, closeIx)
		w, err := serve.NewWorkspace(sp.Name, sp.Dir, serve.IndexOf(ix))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		workspaces = append(workspaces, w)
		if chat != nil {
			cache, err := augment.OpenCache(augment.CachePath(sp.Dir))
			if err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("workspace %s: %w", sp.Name, err)
			}
			closers = append(closers, func() { cache.Close() })
			// The rewrite gets at most two thirds of a request's time, so the
			// search itself still fits.
			if w.Augment, err = augment.New(augment.Options{Chat: chat, Model: chat.Config().Model, Cache: cache, Timeout: o.ReqTimeout * 2 / 3}); err != nil {
				closeAll()
				return nil, nil, err
			}
			fmt.Fprintf(env.Stdout, "workspace %s: theorem searches augmented by %s\n", sp.Name, w.Augment.Label())
		}
		a := w.Index.About()
		fmt.Fprintf(env.Stdout, "workspace %s: %s, %d documents, %d declarations, encoder %s%s\n", sp.Name, sp.Dir, a.Docs, w.Decls().Len(),
			serve.EncoderLabel(a), map[bool]string{true: ", projection head", false: ""}[a.Head != nil])
	}
	return workspaces, closeAll, nil
}

// serveRuns wires the run endpoints: DRIFT's offline context always; DRIFT
// runs through the chat client of --model, ToMap through the same agents,
// both with the Lean backend of the shared flags, as `driftkit drift` and
// `driftkit tomap`; runs are off (with the reason) without a model. The API key stays inside the clients: nothing here prints it.
func serveRuns(ctx context.Context, env *Env, lc llm.Config, af *tomap.AgentFlags, lo lean.Options, dir string) (*serve.RunConfig, func(), error) {
	rc := &serve.RunConfig{Dir: dir, Context: serve.DriftContext()}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	if err := lc.Finalize(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	var ck lean.Checker
	if lo.Configured() {
		c, err := openLean(ctx, env, lo)
		if err != nil {
			return nil, nil, err
		}
		ck = c
		closers = append(closers, func() { c.Close() })
	}
	if lc.Model == "" {
		rc.Unavailable = "no model: give --model (and --base-url or OPENAI_BASE_URL)"
		return rc, closeAll, nil
	}
	agents, models, closeAgents, err := af.Build(lc)
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("%v: %w", err, errUsage)
	}
	closers = append(closers, closeAgents)
	chat, err := app.OpenChat(lc)
	if err != nil {
		closeAll()
		return nil, nil, usageOf(err)
	}
	closers = append(closers, chat.Close)
	rc.Drift = serve.DriftRunners(serve.DriftConfig{Chat: chat, Model: lc.Model, Lean: ck})
	rc.ToMap = serve.ToMapRunners(tomap.Config{Agents: agents, Models: models, Checker: ck, LeanLabel: leanLabel(lo),
		Log: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	leanLabel := "none (verification skipped)"
	if ck != nil {
		leanLabel = ck.Backend()
	}
	fmt.Fprintf(env.Stdout, "runs: model %s at %s; Lean %s\n", lc.Model, strings.Join(lc.BaseURLs, ","), leanLabel)
	return rc, closeAll, nil
}
