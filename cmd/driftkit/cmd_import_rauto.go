package main

import (
	"context"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/extract/rauto"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("import", &command{name: "rauto", short: "RAutoformalizer library.jsonl → workspace tables", run: runImportRauto})
}

func runImportRauto(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("import rauto", "--library FILE --ws WS",
		"Loads RAutoformalizer's library format (full_name, ptype, header with premise markers, code,\n"+
			"used_premises, def_path, pos, informalization) into declarations.parquet (statement_deps from the\n"+
			"markers), informal.parquet (provider rauto) and modules.parquet, so benchmarks run without Lean.")
	lib := fs.String("library", "", "library.jsonl to import")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce, "tables")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *lib == "" || sf.WS == "" {
		return usagef(fs, "--library and --ws are required")
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if _, err := os.Stat(*lib); err != nil {
		return err // before creating the workspace
	}
	ws, err := workspace.Open(sf.WS)
	if err != nil {
		return err
	}
	st, err := rauto.Import(ws, *lib, sf.Force)
	if err != nil {
		return err
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	fmt.Fprintf(env.Stdout, "imported %d declarations (%d statement-dependency edges), %d informal rows (provider %s), %d modules into %s\n",
		st.Declarations, st.Premises, st.Informal, rauto.Provider, st.Modules, sf.WS)
	return nil
}
