package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/extract/jixia"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("import", &command{name: "jixia", short: "jixia .decl.json + .sym.json → workspace tables", run: runImportJixia})
}

func runImportJixia(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("import jixia", "(--decl FILE.decl.json --sym FILE.sym.json … | --dir DIR) --library NAME --ws WS",
		"Loads jixia's declaration and symbol output (jixia -d X.decl.json -s X.sym.json X.lean, one pair per\n"+
			"module) into declarations.parquet and modules.parquet, the tables extract writes: declarations as written\n"+
			"with statement dependencies from the elaborated type's references and proof dependencies from the value's.\n"+
			"Pairs are matched in order; module names come from the file names (Mathlib.Logic.Basic.decl.json), or\n"+
			"from paths relative to --dir. --src gives the source root, for lines, code, imports and module docs.")
	var decls, syms multiFlag
	fs.Var(&decls, "decl", "jixia declaration output (-d), repeatable")
	fs.Var(&syms, "sym", "jixia symbol output (-s) of the same module, repeatable, in the same order")
	dir := fs.String("dir", "", "folder of X.decl.json + X.sym.json pairs (module names from relative paths)")
	src := fs.String("src", "", "source root the modules live under (optional)")
	lib := fs.String("library", "", "library name of the rows")
	rev := fs.String("revision", "", "revision of the library")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce, "tables")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx = sf.context(ctx)
	if sf.WS == "" || *lib == "" || (len(decls) == 0 && *dir == "") {
		return usagef(fs, "--ws, --library and --decl/--sym pairs or --dir are required")
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if len(decls) != len(syms) {
		return fmt.Errorf("%w: %d --decl files but %d --sym files (give one of each per module)", errUsage, len(decls), len(syms))
	}
	var pairs []jixia.Pair
	for i := range decls {
		pairs = append(pairs, jixia.Pair{Decl: decls[i], Sym: syms[i], Module: jixia.ModuleFromFile(decls[i], "")})
	}
	if *dir != "" {
		more, err := jixia.PairsInDir(*dir)
		if err != nil {
			return err
		}
		pairs = append(pairs, more...)
	}
	for _, p := range pairs {
		for _, f := range []string{p.Decl, p.Sym} {
			if _, err := os.Stat(f); err != nil {
				return err // before creating the workspace
			}
		}
	}
	ws, err := workspace.Open(sf.WS)
	if err != nil {
		return err
	}
	st, err := jixia.Import(ctx, ws, pairs, jixia.Options{Library: *lib, Revision: importRevision(env, *rev), Src: *src, Force: sf.Force})
	if err != nil {
		return err
	}
	for _, w := range st.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	if st.WarningCount > len(st.Warnings) {
		fmt.Fprintf(env.Stderr, "warning: … %d more\n", st.WarningCount-len(st.Warnings))
	}
	fmt.Fprintf(env.Stdout, "import jixia: %d modules, %d declarations (%d as written, %d generated constants), %d auxiliary references inlined, %d skipped records, into %s\n",
		st.Modules, st.Declarations, st.Written, st.Generated, st.Auxiliary, st.WarningCount, sf.WS)
	if st.NoSource > 0 {
		fmt.Fprintf(env.Stdout, "  %d modules without source: their rows have no lines\n", st.NoSource)
	}
	return nil
}

// importRevision is the revision an importer records: the one given, or
// extract.UnknownRevision with a warning — never "", which a later bump
// would take for a match (extract does the same for sources without git).
func importRevision(env *Env, rev string) string {
	if strings.TrimSpace(rev) != "" {
		return rev
	}
	fmt.Fprintf(env.Stderr, "warning: no --revision given: the rows record revision %q\n", extract.UnknownRevision)
	return extract.UnknownRevision
}
