package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/serve"
)

func init() {
	register(newCommand("mcp", "MCP server over stdio: search, declarations, premises for a goal, DRIFT context", help{"--ws WS [--ws NAME=WS …] [--no-head] [--embed-url URL] [--vocabulary FILE]",
		"Serves the workspaces to an MCP client (Claude Code, Codex, an agent) over stdin/stdout: the tools search,\n" +
			"get_declaration, dependencies, used_by, premises_for_goal, drift_context and workspaces, all read-only.\n" +
			"Logs go to stderr. `driftkit serve` offers the same tools over streamable HTTP at /mcp.\n" +
			"Claude Code: claude mcp add driftkit -- driftkit mcp --ws /path/to/ws"}, runMCP))
}

// mcpOptions are the flags of `driftkit mcp`.
type mcpOptions struct {
	WS         multiFlag
	NoHead     bool
	EmbedURL   string
	ReqTimeout time.Duration
	Vocabulary string

	specs []app.WorkspaceSpec
}

func (o *mcpOptions) AddFlags(fs *flag.FlagSet) {
	fs.Var(&o.WS, "ws", "workspace folder, or NAME=folder; repeat to serve several (the first is the default)")
	fs.BoolVar(&o.NoHead, "no-head", false, "ignore the workspaces' trained projection heads")
	addEmbedURLFlag(fs, &o.EmbedURL)
	fs.DurationVar(&o.ReqTimeout, "request-timeout", 30*time.Second, "bound of one search, declaration or context request")
	addVocabularyFlag(fs, &o.Vocabulary)
}

func (o *mcpOptions) Validate(args []string) error {
	switch {
	case len(o.WS) == 0:
		return usagef("--ws is required")
	case len(args) > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
	case o.ReqTimeout <= 0:
		return usagef("--request-timeout must be positive")
	}
	var err error
	o.specs, err = app.ParseWorkspaceSpecs(o.WS)
	return usageOf(err)
}

func runMCP(ctx context.Context, o *mcpOptions, env *Env, args []string) error {
	// stdout carries the protocol: everything else goes to stderr.
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	vocab, err := loadVocabulary(o.Vocabulary)
	if err != nil {
		return err
	}
	s, closeSrv, err := serve.Open(ctx, serve.Setup{Workspaces: o.specs, NoHead: o.NoHead, EmbedURL: o.EmbedURL, Log: log, Out: env.Stderr,
		Limits: serve.Limits{RequestTimeout: o.ReqTimeout}, Vocabulary: vocab})
	if err != nil {
		return usageOf(err)
	}
	defer closeSrv()
	err = s.RunMCP(ctx, &mcp.IOTransport{Reader: io.NopCloser(env.stdin()), Writer: nopWriteCloser{env.Stdout}})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// nopWriteCloser lets the MCP transport close stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
