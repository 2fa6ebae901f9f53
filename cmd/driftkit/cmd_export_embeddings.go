package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index/embeddings"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("export embeddings", "documents and vectors as one Parquet table", help{"--ws WS",
		"Writes WS/" + embeddings.File + " from the current index: name, kind, module, library, revision,\n" +
			"informal_source, text (the document the vector embeds) and vector (fixed-size list of float32),\n" +
			"in row groups, with the encoder spec in the file's key-value metadata (driftkit.encoder_spec).\n" +
			"Loads in pyarrow, DuckDB, Hugging Face datasets and LanceDB as it is."}, runExportEmbeddings))
}

// exportEmbeddingsOptions are the flags of `driftkit export embeddings`.
type exportEmbeddingsOptions struct {
	stage    stageFlags
	RowGroup int
}

func (o *exportEmbeddingsOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "a table")
	fs.IntVar(&o.RowGroup, "row-group-rows", 0, "rows per Parquet row group (0: about 64 MiB per group)")
}

func (o *exportEmbeddingsOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if o.RowGroup < 0 {
		return usagef("--row-group-rows %d (want 0 or more)", o.RowGroup)
	}
	return nil
}

func runExportEmbeddings(ctx context.Context, o *exportEmbeddingsOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := embeddings.Export(ctx, ws, embeddings.Options{RowGroupRows: o.RowGroup, Force: o.stage.Force, DenseEnv: app.DenseEnv(nil)})
	if err != nil {
		return err
	}
	label := st.Encoder
	if st.Fallback {
		label += " (offline fallback encoder, not a neural model)"
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d rows × %d dims in %d row groups (%d bytes), encoder %s, index %s\n",
		st.Path, st.Rows, st.Dims, st.RowGroups, st.Bytes, label, st.Generation)
	return nil
}
