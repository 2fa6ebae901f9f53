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

// NewOpenAIEncoder wires an llm.Client (retries, rate limits, timeouts) into
// an index.OpenAIEncoder for model lc.Model; cfg gives batch size,
// truncation, dimension (0 probes the endpoint) and roles (prefixes).
// The returned function closes the client.
func NewOpenAIEncoder(ctx context.Context, lc llm.Config, cfg index.OpenAIConfig) (*index.OpenAIEncoder, func(), error) {
	if err := lc.Finalize(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	c, err := llm.New(lc)
	if err != nil {
		return nil, nil, err
	}
	cfg.Model, cfg.BaseURL, cfg.Concurrency = lc.Model, strings.Join(c.Config().BaseURLs, ","), c.Config().Concurrency
	e, err := index.NewOpenAIEncoder(ctx, Embedder(c, lc.Model), cfg)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, c.Close, nil
}

// Embedder adapts an llm.Client to index.Embedder and
// index.InputTypeEmbedder for model.
func Embedder(c *llm.Client, model string) index.Embedder { return embedder{c, model} }

type embedder struct {
	c     *llm.Client
	model string
}

func (e embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedInputType(ctx, "", texts)
}

func (e embedder) EmbedInputType(ctx context.Context, inputType string, texts []string) ([][]float32, error) {
	v, _, err := e.c.EmbedAs(ctx, llm.EmbeddingBody{Model: e.model, Input: texts, InputType: inputType})
	return v, err
}

// ErrNoEndpoint is wrapped when an index of a remote embeddings model
// records no endpoint and none was given.
var ErrNoEndpoint = errors.New("no embeddings endpoint")

// QueryEndpoints are the embeddings endpoints a query encoder for m uses:
// override (a flag) when given, else the endpoint the index was built with
// (its manifest), else OPENAI_BASE_URL for an index that records none.
// Never the default OpenAI endpoint unless the index was built there: a
// local user's queries stay on the server that embedded their library.
func QueryEndpoints(m *index.Manifest, override string) ([]string, error) {
	for _, s := range []string{override, m.EncoderSpec.BaseURL, m.BaseURL, os.Getenv("OPENAI_BASE_URL")} {
		if urls := llm.SplitURLs(s); len(urls) > 0 {
			return urls, nil
		}
	}
	return nil, fmt.Errorf("%w: %w: the index (model %q) records no embeddings endpoint: give --embed-base-url", ErrConfig, ErrNoEndpoint, m.Model)
}

// OpenIndex opens WS/index with o (OpenIndexAt with no endpoint override).
func OpenIndex(ctx context.Context, wsDir string, o index.OpenOptions) (*index.Index, func(), error) {
	return OpenIndexAt(ctx, wsDir, o, "")
}

// OpenIndexAt opens WS/index with o. For an index built with an
// OpenAI-compatible embeddings model, the query encoder is the manifest's
// (model, prefixes) over the endpoint QueryEndpoints picks, with the
// OPENAI_API_KEY only if that endpoint is the key's host (llm.Config's
// KeyScope) — unless o already has an encoder or an embedder, or skips
// dense search. The projection head in WS/head is applied unless o.NoHead.
// The returned function closes the index and the encoder's client; call it
// after the last search.
func OpenIndexAt(ctx context.Context, wsDir string, o index.OpenOptions, embedURL string) (*index.Index, func(), error) {
	m, err := index.ReadManifest(wsDir)
	if err != nil {
		return nil, nil, err
	}
	opts := &o
	closeFn := func() {}
	if m.Encoder == index.EncoderOpenAI && !o.NoDense && !o.VectorsOnly && o.Encoder == nil && o.Embedder == nil {
		lc := llm.ConfigFromEnv()
		lc.Model = m.Model
		if lc.BaseURLs, err = QueryEndpoints(m, embedURL); err != nil {
			return nil, nil, err
		}
		if err := lc.Validate(); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c, err := llm.New(lc)
		if err != nil {
			return nil, nil, err
		}
		opts.Embedder, closeFn = Embedder(c, m.Model), c.Close
	}
	ix, err := index.Open(wsDir, opts)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return ix, func() { ix.Close(); closeFn() }, nil
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
// workspace's projection head, as `driftkit search` does by default.
func ServeIndexOptions(noHead bool) index.OpenOptions {
	return index.OpenOptions{NoHead: noHead}
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

// OpenLean starts the Lean backend o describes, or returns nil when no
// backend flag was given (verification is then skipped and recorded as
// skipped by the runners).
func OpenLean(ctx context.Context, o lean.Options) (lean.Checker, error) {
	if !o.Configured() {
		return nil, nil
	}
	return lean.Open(ctx, o)
}
