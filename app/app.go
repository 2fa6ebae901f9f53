// Package app is the application layer shared by the driftkit command and
// the server: it opens a workspace's parts the way every command does — the
// index with its projection head and its query encoder, the chat client,
// the Lean backend — so that `driftkit search` and `driftkit serve` (and
// the commands that move here later) wire them identically and rank alike.
//
// It holds no process-wide state: no flags, no signals, no globals. The
// caller owns what it opens and closes it with the returned function.
package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
)

// ErrConfig is wrapped by errors about a configuration that cannot work (a
// malformed base URL, a workspace given twice): the command maps it to a
// usage error (exit 2).
var ErrConfig = errors.New("bad configuration")

// OpenIndex opens WS/index with o (OpenIndexAt with the recorded endpoint).
func OpenIndex(ctx context.Context, wsDir string, o index.OpenOptions) (*index.Index, func(), error) {
	return OpenIndexAt(ctx, wsDir, o, "")
}

// OpenIndexAt opens WS/index with o: the one place every command and the
// server open an index. The query encoder comes from the registry
// (index.NewEncoder) through the manifest's spec (model, prefixes); an
// encoder of a remote model reaches the endpoint the index was built with,
// or embedURL when given (QueryEndpoint), with OPENAI_API_KEY only if that
// is OPENAI_BASE_URL's host — unless o already has an encoder or skips
// dense search. The dense backend is the one the manifest records
// (index.DenseSpec), reading its secrets from the environment. The
// projection head in WS/head is applied unless o.NoHead. The returned
// function closes the index and the encoder's clients; call it after the
// last search.
func OpenIndexAt(ctx context.Context, wsDir string, o index.OpenOptions, embedURL string) (*index.Index, func(), error) {
	closeEp := func() {}
	if o.Endpoint == nil {
		o.Endpoint, closeEp = QueryEndpoint(llm.ConfigFromEnv(), embedURL)
	}
	if o.DenseEnv.Getenv == nil {
		o.DenseEnv.Getenv = DenseEnv(nil).Getenv
	}
	ix, err := index.Open(ctx, wsDir, &o)
	if err != nil {
		closeEp()
		return nil, nil, err
	}
	return ix, func() { ix.Close(); closeEp() }, nil
}

// WorkspaceSpec names a workspace to serve: --ws DIR or --ws NAME=DIR.
type WorkspaceSpec struct {
	Name, Dir string
}

var specName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ParseWorkspaceSpec reads "DIR" (named after the folder) or "NAME=DIR".
func ParseWorkspaceSpec(s string) (WorkspaceSpec, error) {
	name, dir, ok := strings.Cut(s, "=")
	if !ok {
		dir = s
		name = filepath.Base(filepath.Clean(s))
		// A folder name that is not a usable name (".", "/", spaces) gets a
		// plain one.
		name = strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '-'
		}, name)
		if !specName.MatchString(name) {
			name = "ws"
		}
	}
	if dir == "" {
		return WorkspaceSpec{}, fmt.Errorf("%w: --ws %q: no folder", ErrConfig, s)
	}
	if !specName.MatchString(name) {
		return WorkspaceSpec{}, fmt.Errorf("%w: --ws %q: the name %q must be letters, digits, '_', '.' or '-' (at most 64)", ErrConfig, s, name)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return WorkspaceSpec{}, fmt.Errorf("%w: --ws %q: %s is not a folder", ErrConfig, s, dir)
	}
	return WorkspaceSpec{Name: name, Dir: dir}, nil
}

// ParseWorkspaceSpecs reads several --ws values; names must be unique.
func ParseWorkspaceSpecs(values []string) ([]WorkspaceSpec, error) {
	seen := map[string]string{}
	var out []WorkspaceSpec
	for _, v := range values {
		sp, err := ParseWorkspaceSpec(v)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[sp.Name]; dup {
			return nil, fmt.Errorf("%w: two workspaces are named %q (%s and %s): name them with --ws NAME=DIR", ErrConfig, sp.Name, prev, sp.Dir)
		}
		seen[sp.Name] = sp.Dir
		out = append(out, sp)
	}
	return out, nil
}

// ServeIndexOptions are the index options a server uses: every search
// goes through the in-memory BM25 postings and, unless NoHead, the
// workspace's projection head, as `driftkit search` does by default; each
// generation is warmed as it is loaded (index.OpenOptions.Warm).
func ServeIndexOptions(noHead bool) index.OpenOptions {
	return index.OpenOptions{NoHead: noHead, Warm: true}
}

// OpenChat makes the chat client of the model endpoint lc describes (runs
// use it); it validates the configuration first. lc.Model "" means no
// endpoint is configured: nil and no error.
func OpenChat(lc llm.Config) (*llm.Client, error) {
	if err := lc.Finalize(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if lc.Model == "" {
		return nil, nil
	}
	return llm.New(lc)
}

// OpenLean starts the Lean backend o describes: the one place the commands
// and the server start one. o naming no backend or several wraps
// lean.ErrBadOptions; a backend that does not work lean.ErrUnavailable.
// Callers for which Lean is optional (the runs: verification skipped and
// recorded so) test o.Configured first.
func OpenLean(ctx context.Context, o lean.Options) (lean.Checker, error) {
	return lean.Open(ctx, o)
}
