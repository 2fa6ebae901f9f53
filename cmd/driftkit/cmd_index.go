package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
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
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "index files")
	enc := fs.String("encoder", index.EncoderHash, "hash (built in, offline) or openai")
	dim := fs.Int("dim", index.DefaultHashDim, "hash encoder dimension")
	batch := fs.Int("batch", 64, "texts per /v1/embeddings request (openai encoder)")
	maxChars := fs.Int("max-chars", 8000, "truncate documents to this many characters before embedding (openai encoder)")
	lc := llm.ConfigFromEnv()
	lc.Model = "bge-m3"
	lc.RegisterEmbeddingFlags(fs)
	noCache := fs.Bool("no-cache", false, "embed every document: neither read nor write the embedding cache WS/embeddings/ (the hash encoder never uses it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.requireWS(fs); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	switch {
	case *dim <= 0:
		return fmt.Errorf("%w: --dim %d (want at least 1)", errUsage, *dim)
	case *batch <= 0:
		return fmt.Errorf("%w: --batch %d (want at least 1)", errUsage, *batch)
	case *maxChars <= 0:
		return fmt.Errorf("%w: --max-chars %d (want at least 1)", errUsage, *maxChars)
	}
	ctx = sf.context(ctx)
	ws, err := workspace.OpenExisting(sf.WS)
	if err != nil {
		return err
	}
	opts := index.BuildOptions{HashDim: *dim, Force: sf.Force, BatchSize: *batch, NoCache: *noCache,
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
	phases := map[string]float64{}
	for k, v := range st.Phases {
		phases[k] = v.Seconds()
	}
	rep := map[string]any{"dir": ws.Path(workspace.IndexDir), "generation": st.Generation, "docs": st.Docs, "premise_docs": st.PremiseDocs,
		"encoder": st.Encoder, "encoder_fallback": st.Encoder == index.EncoderHash, "dims": st.Dims, "phase_seconds": phases,
		"embedding_cache": st.Cache}
	return sf.report(env.Stdout, rep, func(w io.Writer) {
		var ph []string
		for k, v := range st.Phases {
			ph = append(ph, fmt.Sprintf("%s %.1fs", k, v.Seconds()))
		}
		sort.Strings(ph)
		fmt.Fprintf(w, "indexed %d documents (%d premise candidates), encoder %s, %d dims → %s [%s]\n",
			st.Docs, st.PremiseDocs, label, st.Dims, ws.Path(workspace.IndexDir), strings.Join(ph, ", "))
		printCacheReport(env, st.Cache)
	})
}

// parseWeights reads a --weights JSON object over profile p's defaults.
func parseWeights(s string, p retrieval.Profile) (*index.Weights, error) {
	if s == "" {
		return nil, nil
	}
	w := retrieval.ProfileWeights(p)
	if strings.HasPrefix(s, "@") {
		b, err := os.ReadFile(s[1:])
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	// An unknown key (a misspelt signal) would silently keep its default.
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%w: --weights: %v (known: %s)", errUsage, strings.TrimPrefix(err.Error(), "json: "), strings.Join(weightKeys(), ", "))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: --weights: text after the JSON object", errUsage)
	}
	return &w, nil
}

// weightKeys are the JSON names of retrieval.Weights' fields.
func weightKeys() []string {
	var keys []string
	t := reflect.TypeOf(retrieval.Weights{})
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
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
