package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
)

func init() {
	register(&command{name: "index", short: "dense vectors, BM25 and usage graph → index/", run: runIndex})
}

func runIndex(ctx context.Context, args []string) error {
	fs := newFlags("index", "--ws WS [--encoder hash|openai] [flags]",
		"Renders one document per declaration and writes WS/index/: manifest.json, docs.parquet,\n"+
			"vectors.npy (float32, NumPy v1), a bleve BM25 index and usage.parquet.\n"+
			"The default encoder is the built-in offline hash encoder (a fallback, labelled as such);\n"+
			"--encoder openai uses any OpenAI-compatible /v1/embeddings endpoint (OPENAI_BASE_URL, OPENAI_API_KEY).")
	wsDir := fs.String("ws", "", "workspace folder")
	enc := fs.String("encoder", index.EncoderHash, "hash (built in, offline) or openai")
	dim := fs.Int("dim", index.DefaultHashDim, "hash encoder dimension")
	model := fs.String("model", "bge-m3", "embedding model (openai encoder)")
	baseURL := fs.String("base-url", "", "endpoint base URL (default $OPENAI_BASE_URL)")
	batch := fs.Int("batch", 64, "texts per /v1/embeddings request (openai encoder)")
	conc := fs.Int("concurrency", 4, "requests in flight (openai encoder)")
	maxChars := fs.Int("max-chars", 8000, "truncate documents to this many characters before embedding (openai encoder)")
	force := fs.Bool("force", false, "replace index files the manifest does not know")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" {
		fs.Usage()
		return errUsage
	}
	ws, err := dataset.Open(*wsDir)
	if err != nil {
		return err
	}
	opts := index.BuildOptions{HashDim: *dim, Force: *force, BatchSize: *batch}
	switch *enc {
	case index.EncoderHash:
	case index.EncoderOpenAI:
		cfg := index.OpenAIConfigFromEnv()
		if *baseURL != "" {
			cfg.BaseURL = *baseURL
		}
		cfg.Model, cfg.BatchSize, cfg.Concurrency, cfg.MaxChars = *model, *batch, *conc, *maxChars
		e, err := index.NewOpenAIEncoder(ctx, cfg)
		if err != nil {
			return err
		}
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
	fmt.Printf("indexed %d documents (%d premise candidates), encoder %s, %d dims → %s [%s]\n",
		st.Docs, st.PremiseDocs, label, st.Dims, ws.Path(dataset.IndexDir), strings.Join(ph, ", "))
	return nil
}

// parseWeights reads a --weights JSON object over the defaults.
func parseWeights(s string) (*index.Weights, error) {
	if s == "" {
		return nil, nil
	}
	w := index.DefaultWeights
	if strings.HasPrefix(s, "@") {
		b, err := os.ReadFile(s[1:])
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return nil, fmt.Errorf("--weights: %w", err)
	}
	return &w, nil
}
