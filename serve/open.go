package serve

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/serve/tomap"
)

// Setup is what a server opens: its workspaces (each index with its head
// and query encoder), the chat model of query augmentation and runs, the
// ToMap agents, the Lean backend, and its limits. Open opens every part
// through app, as the commands do, so `driftkit serve` and `driftkit
// search` rank alike and reach the same endpoints.
type Setup struct {
	// Workspaces to serve; the first is the default.
	Workspaces []app.WorkspaceSpec
	// NoHead ignores the workspaces' trained projection heads.
	NoHead bool
	// EmbedURL overrides the embeddings endpoint the indexes recorded, for
	// the query encoders of indexes of remote models ("": the recorded one).
	EmbedURL string
	// Vocabulary, when set, expands every search (opt-in phrase table,
	// --vocabulary; nil: none).
	Vocabulary *retrieval.Vocabulary
	// Augment rewrites every theorem search with Chat's model first
	// (answers cached in each workspace's augment.CacheName).
	Augment bool
	// AugmentWait is how long a search waits for its rewrite before it is
	// answered without (the rewrite goes on and is cached); 0: 5s.
	AugmentWait time.Duration
	// AugmentPrompt is the augmentation prompt's version
	// (augment.PromptVersions; "": augment.PromptVersion).
	AugmentPrompt string
	// Chat is the chat endpoint of runs and augmentation, before
	// llm.Config.Finalize; no model: runs are off (and Augment refused).
	Chat llm.Config
	// Agents are ToMap's per-role models over Chat (nil: every role uses
	// Chat's model).
	Agents *tomap.AgentFlags
	// Lean is the backend of runs' checks (none configured: verification is
	// skipped and recorded so). Its Logf receives the backend's warnings.
	Lean lean.Options
	// LeanLabel names the Lean project in ToMap's records.
	LeanLabel string
	// RunsDir receives runs.jsonl and the runs' files ("": nothing kept).
	RunsDir string
	Limits  Limits
	Log     *slog.Logger
	// RunLog receives the ToMap runner's warnings (nil: Log).
	RunLog *slog.Logger
	// Token and PublicURL are Options'.
	Token, PublicURL string
	// Out receives one line per opened part (workspace, augmentation,
	// runs); nil discards them.
	Out io.Writer
}

// Open opens what s describes and makes the server. An unusable
// configuration (a malformed endpoint, augmentation without a model, a
// workspace named twice) wraps app.ErrConfig; a bad Lean backend choice
// lean.ErrBadOptions. The returned function closes everything Open opened
// (after the server has stopped); on error Open has closed it already.
func Open(ctx context.Context, s Setup) (*Server, func(), error) {
	if s.Out == nil {
		s.Out = io.Discard
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	var c closers
	srv, err := open(ctx, s, &c)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	return srv, c.close, nil
}

func open(ctx context.Context, s Setup, c *closers) (*Server, error) {
	chat, err := augmentChat(s)
	if err != nil {
		return nil, err
	}
	if chat != nil {
		c.add(chat.Close)
	}
	workspaces, err := openWorkspaces(ctx, s, chat, c)
	if err != nil {
		return nil, err
	}
	runs, err := openRuns(ctx, s, c)
	if err != nil {
		return nil, err
	}
	return New(Options{Workspaces: workspaces, Runs: runs, Log: s.Log, Limits: s.Limits, Token: s.Token, PublicURL: s.PublicURL, Vocabulary: s.Vocabulary})
}

// closers are what Open opened, closed in reverse order.
type closers []func()

func (c *closers) add(f func()) { *c = append(*c, f) }

func (c *closers) close() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
	*c = nil
}

// DefaultAugmentWait is how long a served search waits for its rewrite:
// LeanSearch clients (and people) expect an answer in seconds, a CPU model
// may take longer; the rewrite still lands in the cache.
const DefaultAugmentWait = 5 * time.Second

// augmentChat is the chat client of query augmentation (nil without
// Augment): one for every workspace, with few retries and short attempts,
// for a search waits for its rewrite.
func augmentChat(s Setup) (*llm.Client, error) {
	if !s.Augment {
		return nil, nil
	}
	ac := s.Chat
	ac.MaxRetries, ac.RequestTimeout = 2, min(20*time.Second, s.Limits.withDefaults().RequestTimeout)
	chat, err := app.OpenChat(ac)
	if err != nil {
		return nil, err
	}
	if chat == nil {
		return nil, fmt.Errorf("%w: --augment needs a chat model (--model, with OPENAI_BASE_URL or --base-url)", app.ErrConfig)
	}
	return chat, nil
}

// openWorkspaces opens each workspace once (app.OpenIndex: index, head,
// query encoder), shared by every request, with an augmenter and its cache
// when chat is set.
func openWorkspaces(ctx context.Context, s Setup, chat *llm.Client, c *closers) ([]*Workspace, error) {
	var out []*Workspace
	for _, sp := range s.Workspaces {
		ix, closeIx, err := app.OpenIndexAt(ctx, sp.Dir, app.ServeIndexOptions(s.NoHead), s.EmbedURL)
		if err != nil {
			return nil, fmt.Errorf("workspace %s (%s): %w", sp.Name, sp.Dir, err)
		}
		c.add(closeIx)
		w, err := NewWorkspace(sp.Name, sp.Dir, IndexOf(ix))
		if err != nil {
			return nil, err
		}
		c.add(func() { w.Close() })
		out = append(out, w)
		if chat != nil {
			cache, err := augment.OpenCache(augment.CachePath(sp.Dir), func(msg string) { s.Log.Warn(msg, "workspace", sp.Name) })
			if err != nil {
				return nil, fmt.Errorf("workspace %s: %w", sp.Name, err)
			}
			c.add(func() { cache.Close() })
			// The rewrite gets at most two thirds of a request's time, so the
			// search itself still fits.
			if w.Augment, err = augment.New(augment.Options{Chat: chat, Model: chat.Config().Model, Cache: cache,
				Timeout: s.Limits.withDefaults().RequestTimeout * 2 / 3, Wait: cmp.Or(s.AugmentWait, DefaultAugmentWait), Version: s.AugmentPrompt}); err != nil {
				return nil, err
			}
			c.add(w.Augment.Close)
			fmt.Fprintf(s.Out, "workspace %s: theorem searches augmented by %s\n", sp.Name, w.Augment.Label())
		}
		a := w.Index.About()
		fmt.Fprintf(s.Out, "workspace %s: %s, %d documents, %d declarations, encoder %s%s\n", sp.Name, sp.Dir, a.Docs, w.Decls().Len(),
			EncoderLabel(a), map[bool]string{true: ", projection head", false: ""}[a.Head != nil])
	}
	return out, nil
}

// openRuns wires the run endpoints: DRIFT's offline context always; DRIFT
// runs through the chat client of s.Chat, ToMap through the agents, both
// with the Lean backend, as `driftkit drift` and `driftkit tomap`; runs are
// off (with the reason) without a model. The API key stays inside the
// clients: nothing here prints it.
func openRuns(ctx context.Context, s Setup, c *closers) (*RunConfig, error) {
	rc := &RunConfig{Dir: s.RunsDir, Context: DriftContext()}
	lc := s.Chat
	if err := lc.Finalize(); err != nil {
		return nil, fmt.Errorf("%w: %v", app.ErrConfig, err)
	}
	var ck lean.Checker
	if s.Lean.Configured() {
		var err error
		if ck, err = app.OpenLean(ctx, s.Lean); err != nil {
			return nil, err
		}
		c.add(func() { ck.Close() })
	}
	if lc.Model == "" {
		rc.Unavailable = "no model: give --model (and --base-url or OPENAI_BASE_URL)"
		return rc, nil
	}
	agentFlags := s.Agents
	if agentFlags == nil { // the defaults of the flags
		agentFlags = &tomap.AgentFlags{}
		agentFlags.Register(flag.NewFlagSet("agents", flag.ContinueOnError))
	}
	runLog := s.RunLog
	if runLog == nil {
		runLog = s.Log
	}
	agents, models, closeAgents, err := agentFlags.Build(lc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", app.ErrConfig, err)
	}
	c.add(closeAgents)
	chat, err := app.OpenChat(lc)
	if err != nil {
		return nil, err
	}
	c.add(chat.Close)
	rc.Drift = DriftRunners(DriftConfig{Chat: chat, Model: lc.Model, Lean: ck})
	rc.ToMap = ToMapRunners(tomap.Config{Agents: agents, Models: models, Checker: ck, LeanLabel: s.LeanLabel,
		Log: runLog})
	leanLabel := "none (verification skipped)"
	if ck != nil {
		leanLabel = ck.Backend()
	}
	fmt.Fprintf(s.Out, "runs: model %s at %s; Lean %s\n", lc.Model, strings.Join(lc.BaseURLs, ","), leanLabel)
	return rc, nil
}

// RunsUnavailable is why the run endpoints are off ("" when runs are on).
func (s *Server) RunsUnavailable() string {
	if s.opts.Runs == nil {
		return "no runs configured"
	}
	if s.opts.Runs.Drift == nil && s.opts.Runs.ToMap == nil {
		return s.opts.Runs.Unavailable
	}
	return ""
}
