package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/extract/rauto"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("import rauto", "RAutoformalizer library.jsonl → workspace tables", help{"--library FILE --ws WS",
		"Loads RAutoformalizer's library format (full_name, ptype, header with premise markers, code,\n" +
			"used_premises, def_path, pos, informalization) into declarations.parquet (statement_deps from the\n" +
			"markers), informal.parquet (provider rauto) and modules.parquet, so benchmarks run without Lean."}, runImportRauto))
}

// importRautoOptions are the flags of `driftkit import rauto`.
type importRautoOptions struct {
	stage   stageFlags
	Library string // a file, unlike the other importers' --library
}

func (o *importRautoOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Library, "library", "", "library.jsonl to import")
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "tables")
}

func (o *importRautoOptions) Validate(args []string) error {
	if o.Library == "" || o.stage.WS == "" {
		return usagef("--library and --ws are required")
	}
	return noArgs(args)
}

func runImportRauto(ctx context.Context, o *importRautoOptions, env *Env, args []string) error {
	if _, err := os.Stat(o.Library); err != nil {
		return err // before creating the workspace
	}
	ws, err := workspace.Open(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := rauto.Import(ws, o.Library, o.stage.Force)
	if err != nil {
		return err
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	fmt.Fprintf(env.Stdout, "imported %d declarations (%d statement-dependency edges), %d informal rows (provider %s), %d modules into %s\n",
		st.Declarations, st.Premises, st.Informal, rauto.Provider, st.Modules, o.stage.WS)
	return nil
}
