package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/app"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
)

func init() {
	register(&command{name: "index", short: "dense vectors, BM25 and usage graph → index/", run: runIndex})
}

func runIndex(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("index", "--ws WS [--encoder hash|openai] [flags]",
		"Renders one document per declaration and writes WS/index/: manifest.json, docs.parquet,\n"+
			"vectors.npy (float32, NumPy v1), a bleve BM25 index and usage.parquet.\n"+
			"The default encoder is the built-in offline hash encoder (a fallback, labelled as such);\n"+
			"--encoder openai uses any OpenAI-compatible /v1/embeddings endpoint (OPENAI_BASE_URL, OPENAI_API_KEY).")
	wsDir := fs.String("ws", "", "workspace folder")
	enc := fs.String("encoder", index.EncoderHash, "hash (built in, offline) or openai")
	dim := fs.Int("dim", index.DefaultHashDim, "hash encoder dimension")
	batch := fs.Int("batch", 64, "texts per /v1/embeddings request (openai encoder)")
	maxChars := fs.Int("max-chars", 8000, "truncate documents to this many characters before embedding (openai encoder)")
	lc := llm.ConfigFromEnv()
	lc.Model = "bge-m3"
	lc.RegisterFlags(fs)
	force := fs.Bool("force", false, "replace index files the manifest does not know")
	noCache := fs.Bool("no-cache", false, "embed every document: neither read nor write the embedding cache WS/embeddings/ (the hash encoder never uses it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" {
		fs.Usage()
		return fmt.Errorf("%w: --ws is required", errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	ws, err := dataset.OpenExisting(*wsDir)
	if err != nil {
		return err
	}
	opts := index.BuildOptions{HashDim: *dim, Force: *force, BatchSize: *batch, NoCache: *noCache,
		Warn: func(msg string) { fmt.Fprintln(env.Stderr, "driftkit index:", msg) }}
	switch *enc {
	case index.EncoderHash:
	case index.EncoderOpenAI:
		e, closeFn, err := newOpenAIEncoder(ctx, lc, *batch, *maxChars, 0)
		if err != nil {
			return err
		}
		defer closeFn()
		opts.Encoder = e
	default:
		return fmt.Errorf("%w: --encoder %q (hash or openai)", errUsage, *enc)
	}
	st, err := index.Build(ctx, ws, opts)
	if err != nil {
		return err
	}
	label := st.Encoder
	if st.Encoder == index.EncoderHash {
		label += " (offline fallback encoder)"
	}
	var ph []string
	for k, v := range st.Phases {
		ph = append(ph, fmt.Sprintf("%s %.1fs", k, v.Seconds()))
	}
	fmt.Fprintf(env.Stdout, "indexed %d documents (%d premise candidates), encoder %s, %d dims → %s [%s]\n",
		st.Docs, st.PremiseDocs, label, st.Dims, ws.Path(dataset.IndexDir), strings.Join(ph, ", "))
	printCacheReport(env, st.Cache)
	return nil
}

// parseWeights reads a --weights JSON object over the defaults.
func parseWeights(s string) (*index.Weights, error) {
	if s == "" {
		return nil, nil
	}
	w := retrieval.DefaultWeights()
	if strings.HasPrefix(s, "@") {
		b, err := os.ReadFile(s[1:])
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return nil, fmt.Errorf("%w: --weights: %v", errUsage, err)
	}
	return &w, nil
}

// newOpenAIEncoder is app.NewOpenAIEncoder with configuration errors as
// usage errors (exit 2).
func newOpenAIEncoder(ctx context.Context, lc llm.Config, batch, maxChars, dim int) (*index.OpenAIEncoder, func(), error) {
	e, closeFn, err := app.NewOpenAIEncoder(ctx, lc, batch, maxChars, dim)
	return e, closeFn, usageOf(err)
}

// openIndex opens WS/index for mine and train head (see app.OpenIndex). It
// ignores WS/head: hard negatives and a new head are made from the raw
// embeddings, never from a previous head.
func openIndex(ctx context.Context, wsDir string, noDense bool) (*index.Index, func(), error) {
	return openIndexWith(ctx, wsDir, index.OpenOptions{NoDense: noDense, NoHead: true})
}

// openIndexWith is app.OpenIndex with configuration errors as usage errors.
func openIndexWith(ctx context.Context, wsDir string, o index.OpenOptions) (*index.Index, func(), error) {
	ix, closeFn, err := app.OpenIndex(ctx, wsDir, o)
	return ix, closeFn, usageOf(err)
}

// usageOf turns app.ErrConfig into errUsage (exit 2), keeping the message.
func usageOf(err error) error {
	if err != nil && errors.Is(err, app.ErrConfig) {
		return fmt.Errorf("%w: %v", errUsage, strings.TrimPrefix(err.Error(), app.ErrConfig.Error()+": "))
	}
	return err
}
