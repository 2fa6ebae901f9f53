package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/extract/jixia"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("import jixia", "jixia .decl.json + .sym.json → workspace tables", help{"(--decl FILE.decl.json --sym FILE.sym.json … | --dir DIR) --library NAME --ws WS",
		"Loads jixia's declaration and symbol output (jixia -d X.decl.json -s X.sym.json X.lean, one pair per\n" +
			"module) into declarations.parquet and modules.parquet, the tables extract writes: declarations as written\n" +
			"with statement dependencies from the elaborated type's references and proof dependencies from the value's.\n" +
			"Pairs are matched in order; module names come from the file names (Mathlib.Logic.Basic.decl.json), or\n" +
			"from paths relative to --dir. --src gives the source root, for lines, code, imports and module docs."}, runImportJixia))
}

// importJixiaOptions are the flags of `driftkit import jixia`.
type importJixiaOptions struct {
	stage stageFlags
	lib   libraryFlags
	Decls multiFlag
	Syms  multiFlag
	Dir   string
	Src   string
}

func (o *importJixiaOptions) AddFlags(fs *flag.FlagSet) {
	fs.Var(&o.Decls, "decl", "jixia declaration output (-d), repeatable")
	fs.Var(&o.Syms, "sym", "jixia symbol output (-s) of the same module, repeatable, in the same order")
	fs.StringVar(&o.Dir, "dir", "", "folder of X.decl.json + X.sym.json pairs (module names from relative paths)")
	fs.StringVar(&o.Src, "src", "", "source root the modules live under (optional)")
	o.lib.AddFlags(fs)
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "tables")
}

func (o *importJixiaOptions) Validate(args []string) error {
	if o.stage.WS == "" || o.lib.Library == "" || (len(o.Decls) == 0 && o.Dir == "") {
		return usagef("--ws, --library and --decl/--sym pairs or --dir are required")
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if len(o.Decls) != len(o.Syms) {
		return fmt.Errorf("%w: %d --decl files but %d --sym files (give one of each per module)", errUsage, len(o.Decls), len(o.Syms))
	}
	return nil
}

// pairs are the --decl/--sym pairs and those found in --dir, each file
// checked to exist (before the workspace is created).
func (o *importJixiaOptions) pairs() ([]jixia.Pair, error) {
	var pairs []jixia.Pair
	for i := range o.Decls {
		pairs = append(pairs, jixia.Pair{Decl: o.Decls[i], Sym: o.Syms[i], Module: jixia.ModuleFromFile(o.Decls[i], "")})
	}
	if o.Dir != "" {
		more, err := jixia.PairsInDir(o.Dir)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, more...)
	}
	for _, p := range pairs {
		for _, f := range []string{p.Decl, p.Sym} {
			if _, err := os.Stat(f); err != nil {
				return nil, err
			}
		}
	}
	return pairs, nil
}

func runImportJixia(ctx context.Context, o *importJixiaOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	pairs, err := o.pairs()
	if err != nil {
		return err
	}
	ws, err := workspace.Open(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := jixia.Import(ctx, ws, pairs, jixia.Options{Library: o.lib.Library, Revision: o.lib.revision(env), Src: o.Src, Force: o.stage.Force})
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
		st.Modules, st.Declarations, st.Written, st.Generated, st.Auxiliary, st.WarningCount, o.stage.WS)
	if st.NoSource > 0 {
		fmt.Fprintf(env.Stdout, "  %d modules without source: their rows have no lines\n", st.NoSource)
	}
	return nil
}
