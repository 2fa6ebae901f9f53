package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/extract/lean4export"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	// The expression tables are most of the heap and never garbage:
	// collecting at half the default growth keeps peak RSS near them (560 MB
	// instead of 730 MB on a 24.6M-expression export) for a few percent more
	// CPU. The binary decides this, not the package.
	register(newCommand("import lean4export", "lean4export NDJSON → workspace tables", help{"--library NAME --ws WS FILE.ndjson",
		"Streams a lean4export export (format 3.x, `lake env lean4export Mathlib > mathlib.ndjson`) into\n" +
			"declarations.parquet: every constant with the constants of its type as statement dependencies and those of\n" +
			"its value as proof dependencies; compiler auxiliaries are inlined, not rows. The export has no source text,\n" +
			"docstrings or modules: signatures are printed from the kernel types without notation."}, runImportLean4export).
		withGC(gcSetting{percent: 50}))
}

// importLean4exportOptions are the flags of `driftkit import lean4export`.
type importLean4exportOptions struct {
	stage stageFlags
	lib   libraryFlags
}

func (o *importLean4exportOptions) AddFlags(fs *flag.FlagSet) {
	o.lib.AddFlags(fs)
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "tables")
}

func (o *importLean4exportOptions) Validate(args []string) error {
	if o.stage.WS == "" || o.lib.Library == "" || len(args) != 1 {
		return usagef("--ws, --library and one export file are required")
	}
	return nil
}

func runImportLean4export(ctx context.Context, o *importLean4exportOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	path := args[0]
	if _, err := os.Stat(path); err != nil {
		return err // before creating the workspace
	}
	ws, err := workspace.Open(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := lean4export.Import(ctx, ws, path, lean4export.Options{Library: o.lib.Library, Revision: o.lib.revision(env), Force: o.stage.Force})
	if err != nil {
		return err
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	if st.WarningCount > len(st.Warnings) {
		fmt.Fprintf(env.Stderr, "warning: … %d more malformed records skipped\n", st.WarningCount-len(st.Warnings))
	}
	rate := 0.0
	if s := st.Elapsed.Seconds(); s > 0 {
		rate = float64(st.Lines) / s
	}
	fmt.Fprintf(env.Stdout, "import lean4export: %d lines (%d expressions, %d names) in %.1fs (%.0f lines/s): %d declarations, %d auxiliary constants inlined, %d unsafe skipped, into %s\n",
		st.Lines, st.Exprs, st.Names, st.Elapsed.Seconds(), rate, st.Declarations, st.Auxiliary, st.Unsafe, o.stage.WS)
	fmt.Fprintf(env.Stdout, "  exporter %s %s, format %s, Lean %s\n", st.Meta.Exporter.Name, st.Meta.Exporter.Version, st.Meta.Format.Version, st.Meta.Lean.Version)
	return nil
}
