package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/workspace"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// tablesLock is the workspace lock of declarations.parquet and
// modules.parquet, which extract and the importers take (workspace.ResTables).
const tablesLock = string(workspace.ResTables)

func init() {
	// Fewer collections while the tables grow, but well under 2 GiB (Mathlib).
	register(&command{name: "extract", short: "Lean sources → declarations.parquet, modules.parquet", run: runExtract,
		gc: &gcSetting{percent: 300, limit: 1400 << 20}})
}

func runExtract(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("extract", "--src DIR [--src DIR[=NAME] …] --library NAME [--revision REV] --ws WS",
		"Reads Lean 4 sources (no elaboration) and writes one row per declaration, including generated ones\n"+
			"(constructors, projections, to_additive twins, aliases, where-auxiliaries), with statement and proof\n"+
			"dependencies resolved against the declarations of every --src. The first --src is the project and takes\n"+
			"--library; later ones (dependencies such as the Mathlib a project pins) are named DIR=NAME or by folder.")
	var srcs multiFlag
	fs.Var(&srcs, "src", "source folder, repeatable; DIR or DIR=NAME (e.g. …/Mathlib next to Mathlib.lean)")
	lib := fs.String("library", "", "library name of the first source (default: its folder name)")
	rev := fs.String("revision", "", "revision of the first source (default: git commit, else a .revision file)")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "tables")
	workers := fs.Int("workers", 0, "parallel workers (default GOMAXPROCS)")
	naming := fs.String("naming", "", "JSON file of to_additive/to_dual word tables extending (or replacing) Mathlib's (see README)")
	vars := fs.String("variables", "auto", "section variables in theorem statements: auto (from lean-toolchain), signature, body")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (pprof) to this file")
	report := fs.String("report", "", "write the unresolved identifiers, classified per library and module, to this JSON file (and a summary to stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(srcs) == 0 || sf.WS == "" {
		return usagef(fs, "--src and --ws are required")
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := checkOutputFile("--report", *report); err != nil {
		return err
	}
	for _, s := range srcs {
		// check the sources before creating the workspace
		if _, err := os.Stat(extract.ParseSourceArg(s).Dir); err != nil {
			return fmt.Errorf("source %s: %w", s, err)
		}
	}
	var names *extract.Naming
	if *naming != "" { // before the workspace is created
		var err error
		if names, err = extract.LoadNaming(*naming); err != nil {
			return err
		}
	}
	ws, err := workspace.Open(sf.WS)
	if err != nil {
		return err
	}
	opts := extract.Options{Workers: *workers, Force: sf.Force, Report: *report != "", Naming: names, NamingFile: *naming}
	ctx = sf.context(ctx)
	if os.Getenv("DRIFTKIT_DEBUG_UNRESOLVED") != "" {
		opts.Debug = env.Stderr
	}
	for i, s := range srcs {
		src := extract.ParseSourceArg(s)
		if i == 0 {
			if *lib != "" {
				src.Library = *lib
			}
			src.Revision = *rev
		}
		src.VariableRule = *vars
		opts.Sources = append(opts.Sources, src)
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := extract.Run(ctx, ws, opts)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		fmt.Fprintf(env.Stderr, "warning: %v\n", e)
	}
	if res.ErrorCount > len(res.Errors) {
		fmt.Fprintf(env.Stderr, "warning: … %d more parse errors (see modules.parquet errors column)\n", res.ErrorCount-len(res.Errors))
	}
	for _, s := range res.Sources {
		if s.RevisionUnknown() {
			fmt.Fprintf(env.Stderr, "warning: source %s is not in a git checkout and has no .revision file: its revision is recorded as %q (give --revision)\n",
				s.Dir, extract.UnknownRevision)
		}
	}
	if res.Report != nil {
		f, err := workspace.CreateAtomic(*report)
		if err != nil {
			return err
		}
		defer f.Abort()
		if err := res.Report.WriteJSON(f); err != nil {
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	if sf.JSON {
		phases := map[string]float64{}
		for k, v := range res.Phases {
			phases[k] = v.Seconds()
		}
		var sources []map[string]string
		for _, s := range res.Sources {
			sources = append(sources, map[string]string{"dir": s.Dir, "library": s.Library, "revision": s.Revision})
		}
		return writeJSON(env.Stdout, map[string]any{"files": res.Files, "declarations": res.Declarations, "modules": res.Modules,
			"parse_errors": res.ErrorCount, "unresolved": res.Unresolved, "duplicates_dropped": res.DuplicatesDropped,
			"sources": sources, "phase_seconds": phases, "report": *report})
	}
	fmt.Fprintf(env.Stdout, "extract: %d files, %d declarations, %d parse errors, %d unresolved identifiers\n",
		res.Files, res.Declarations, res.ErrorCount, res.Unresolved)
	if res.DuplicatesDropped > 0 {
		fmt.Fprintf(env.Stdout, "  %d generated rows dropped: their approximated names collide with another row\n", res.DuplicatesDropped)
	}
	for _, s := range res.Sources {
		fmt.Fprintf(env.Stdout, "  source %s: library %s, revision %s\n", s.Dir, s.Library, s.Revision)
	}
	fmt.Fprintf(env.Stdout, "  phases: read %.2fs, parse %.2fs, resolve %.2fs, write %.2fs\n", res.Phases["read"].Seconds(),
		res.Phases["parse"].Seconds(), res.Phases["resolve"].Seconds(), res.Phases["write"].Seconds())
	if res.Report != nil {
		fmt.Fprintln(env.Stdout)
		res.Report.WriteSummary(env.Stdout, 10, 25)
		fmt.Fprintf(env.Stdout, "full report: %s\n", *report)
	}
	return nil
}
