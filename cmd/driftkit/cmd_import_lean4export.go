package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/driftkit/driftkit/extract/lean4export"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("import", &command{name: "lean4export", short: "lean4export NDJSON → workspace tables", run: runImportLean4export})
}

func runImportLean4export(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("import lean4export", "--library NAME --ws WS FILE.ndjson",
		"Streams a lean4export export (format 3.x, `lake env lean4export Mathlib > mathlib.ndjson`) into\n"+
			"declarations.parquet: every constant with the constants of its type as statement dependencies and those of\n"+
			"its value as proof dependencies; compiler auxiliaries are inlined, not rows. The export has no source text,\n"+
			"docstrings or modules: signatures are printed from the kernel types without notation.")
	lib := fs.String("library", "", "library name of the rows")
	rev := fs.String("revision", "", "revision of the library")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce, "tables")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx = sf.context(ctx)
	if sf.WS == "" || *lib == "" || fs.NArg() != 1 {
		return usagef(fs, "--ws, --library and one export file are required")
	}
	path := fs.Arg(0)
	if _, err := os.Stat(path); err != nil {
		return err // before creating the workspace
	}
	if os.Getenv("GOGC") == "" {
		// The expression tables are most of the heap and never garbage:
		// collecting at half the default growth keeps peak RSS near them
		// (560 MB instead of 730 MB on a 24.6M-expression export) for a few
		// percent more CPU. The binary decides this, not the package.
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	ws, err := workspace.Open(sf.WS)
	if err != nil {
		return err
	}
	st, err := lean4export.Import(ctx, ws, path, lean4export.Options{Library: *lib, Revision: importRevision(env, *rev), Force: sf.Force})
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
		st.Lines, st.Exprs, st.Names, st.Elapsed.Seconds(), rate, st.Declarations, st.Auxiliary, st.Unsafe, sf.WS)
	fmt.Fprintf(env.Stdout, "  exporter %s %s, format %s, Lean %s\n", st.Meta.Exporter.Name, st.Meta.Exporter.Version, st.Meta.Format.Version, st.Meta.Lean.Version)
	return nil
}
