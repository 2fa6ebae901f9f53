package main

import (
	"context"
	"fmt"

	"github.com/driftkit/driftkit/index/embeddings"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("export", &command{name: "embeddings", short: "documents and vectors as one Parquet table", run: runExportEmbeddings})
}

func runExportEmbeddings(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("export embeddings", "--ws WS",
		"Writes WS/"+embeddings.File+" from the current index: name, kind, module, library, revision,\n"+
			"informal_source, text (the document the vector embeds) and vector (fixed-size list of float32),\n"+
			"in row groups, with the encoder spec in the file's key-value metadata (driftkit.encoder_spec).\n"+
			"Loads in pyarrow, DuckDB, Hugging Face datasets and LanceDB as it is.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce, "a table")
	rowGroup := fs.Int("row-group-rows", 0, "rows per Parquet row group (0: about 64 MiB per group)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.requireWS(fs); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *rowGroup < 0 {
		return usagef(fs, "--row-group-rows %d (want 0 or more)", *rowGroup)
	}
	ctx = sf.context(ctx)
	ws, err := workspace.OpenExisting(sf.WS)
	if err != nil {
		return err
	}
	st, err := embeddings.Export(ctx, ws, embeddings.Options{RowGroupRows: *rowGroup, Force: sf.Force})
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
