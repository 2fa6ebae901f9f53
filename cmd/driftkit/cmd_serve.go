package main

import (
	"context"
	"errors"
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
	register(&command{name: "serve", short: "HTTP API, search page, LeanSearch-compatible endpoint, DRIFT and ToMap runs", run: runServe})
}

func runServe(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("serve", "--ws WS [--ws NAME=WS …] [--addr :8080] [flags]",
		"Serves one or several workspaces over HTTP: the search page at /, declaration pages, the JSON API\n"+
			"(/api/search, /api/decl/NAME, /api/drift/context, runs; see /api/openapi.json), POST /search for\n"+
			"Mathlib's #leansearch (set LEANSEARCHCLIENT_LEANSEARCH_API_URL=http://HOST:PORT/search), /healthz,\n"+
			"/readyz and /metrics. Each index is opened once, read-only, with its projection head, as `search`\n"+
			"opens it. SIGHUP (or POST /api/admin/reload from this machine) picks up a rebuilt index without a\n"+
			"restart; SIGTERM/SIGINT stop accepting, finish searches in flight and cancel runs.\n"+
			"DRIFT and ToMap runs need a model endpoint (--model, --base-url or OPENAI_BASE_URL, OPENAI_API_KEY);\n"+
			"Lean checks need a backend (--repl, --kimina or --lean), else verification is recorded as skipped.")
	var wss multiFlag
	fs.Var(&wss, "ws", "workspace folder, or NAME=folder; repeat to serve several (the first is the default)")
	addr := fs.String("addr", ":8080", "listen address")
	runsDir := fs.String("runs", "", "folder recording runs (runs.jsonl) and their files (default: nothing kept)")
	noHead := fs.Bool("no-head", false, "ignore the workspaces' trained projection heads")
	maxRuns := fs.Int("max-runs", 2, "DRIFT/ToMap runs in flight at most (more answer 429)")
	reqTimeout := fs.Duration("request-timeout", 30*time.Second, "bound of one search, declaration or context request")
	runTimeout := fs.Duration("run-timeout", 30*time.Minute, "bound of one run")
	maxBody := fs.Int64("max-body", 1<<20, "request body cap in bytes")
	maxQuery := fs.Int("max-query", 4096, "query and statement cap in bytes")
	logJSON := fs.Bool("log-json", false, "log as JSON lines (default: text) on stderr")
	quiet := fs.Bool("quiet", false, "log errors only (no line per request)")
	lc := llm.ConfigFromEnv()
	lc.RegisterFlags(fs)
	augmentOn := fs.Bool("augment", false, "rewrite every theorem search (search page, #leansearch endpoint) with the chat model --model first;\n"+
		"answers cached in each workspace's "+augment.CacheName+"; a failing model leaves the raw query")
	var agentFlags tomap.AgentFlags
	agentFlags.Register(fs)
	var lo lean.Options
	lo.AddFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case len(wss) == 0:
		return usagef(fs, "--ws is required")
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case *maxRuns < 1 || *maxBody < 1024 || *maxQuery < 16 || *reqTimeout <= 0 || *runTimeout <= 0:
		return fmt.Errorf("%w: --max-runs ≥ 1, --max-body ≥ 1024, --max-query ≥ 16 and positive timeouts, please", errUsage)
	}
	specs, err := app.ParseWorkspaceSpecs(wss)
	if err != nil {
		return usageOf(err)
	}
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelError
	}
	var h slog.Handler = slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level})
	if *logJSON {
		h = slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level})
	}
	log := slog.New(h)

	// Query augmentation: one chat client, a cache per workspace.
	var chat *llm.Client
	var augModel string
	if *augmentOn {
		ac := lc
		// A search waits for its rewrite: few retries, short attempts.
		ac.MaxRetries, ac.RequestTimeout = 2, min(20*time.Second, *reqTimeout)
		if err := ac.Finalize(); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if ac.Model == "" {
			return fmt.Errorf("%w: --augment needs a chat model (--model, with OPENAI_BASE_URL or --base-url)", errUsage)
		}
		augModel = ac.Model
		if chat, err = llm.New(ac); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		defer chat.Close()
	}

	// Workspaces: each index once, shared by every request.
	var workspaces []*serve.Workspace
	defer func() {
		for _, w := range workspaces {
			w.Close()
		}
	}()
	for _, sp := range specs {
		ix, closeIx, err := openIndexWith(ctx, sp.Dir, app.ServeIndexOptions(*noHead))
		if err != nil {
			return fmt.Errorf("workspace %s (%s): %w", sp.Name, sp.Dir, err)
		}
		defer closeIx()
		w, err := serve.NewWorkspace(sp.Name, sp.Dir, serve.IndexOf(ix))
		if err != nil {
			return err
		}
		workspaces = append(workspaces, w)
		if chat != nil {
			cache, err := augment.OpenCache(augment.CachePath(sp.Dir))
			if err != nil {
				return fmt.Errorf("workspace %s: %w", sp.Name, err)
			}
			defer cache.Close()
			// The rewrite gets at most two thirds of a request's time, so the
			// search itself still fits.
			if w.Augment, err = augment.New(augment.Options{Chat: chat, Model: augModel, Cache: cache, Timeout: *reqTimeout * 2 / 3}); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "workspace %s: theorem searches augmented by %s\n", sp.Name, w.Augment.Label())
		}
		a := w.Index.About()
		fmt.Fprintf(env.Stdout, "workspace %s: %s, %d documents, %d declarations, encoder %s%s\n", sp.Name, sp.Dir, a.Docs, w.Decls().Len(),
			serve.EncoderLabel(a), map[bool]string{true: ", projection head", false: ""}[a.Head != nil])
	}

	runs, closeRuns, err := serveRuns(ctx, env, lc, &agentFlags, lo, *runsDir)
	if err != nil {
		return err
	}
	defer closeRuns()
	s, err := serve.New(serve.Options{Workspaces: workspaces, Runs: runs, Log: log, Limits: serve.Limits{
		MaxBody: *maxBody, MaxQuery: *maxQuery, RequestTimeout: *reqTimeout, MaxRuns: *maxRuns, RunTimeout: *runTimeout}})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *addr)
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

	// SIGHUP reloads; SIGTERM/SIGINT cancel ctx (main) and Serve shuts down.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
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
	err = s.Serve(ctx, l)
	fmt.Fprintln(env.Stdout, "stopped")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
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
