package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/workspace"
)

// tablesLock is the workspace lock of declarations.parquet and
// modules.parquet, which extract and the importers take (workspace.ResTables).
const tablesLock = string(workspace.ResTables)

func init() {
	// Fewer collections while the tables grow, but well under 2 GiB (Mathlib).
	register(newCommand("extract", "Lean sources → declarations.parquet, modules.parquet", help{"--src DIR [--src DIR[=NAME] …] --library NAME [--revision REV] --ws WS",
		"Reads Lean 4 sources (no elaboration) and writes one row per declaration, including generated ones\n" +
			"(constructors, projections, to_additive twins, aliases, where-auxiliaries), with statement and proof\n" +
			"dependencies resolved against the declarations of every --src. The first --src is the project and takes\n" +
			"--library; later ones (dependencies such as the Mathlib a project pins) are named DIR=NAME or by folder."}, runExtract).
		withGC(gcSetting{percent: 300, limit: 1400 << 20}))
}

// extractOptions are the flags of `driftkit extract`.
type extractOptions struct {
	stage      stageFlags
	Sources    multiFlag
	Library    string
	Revision   string
	Workers    int
	Naming     string
	Variables  string
	LeanVer    string
	CPUProfile string
	Report     string
}

func (o *extractOptions) AddFlags(fs *flag.FlagSet) {
	fs.Var(&o.Sources, "src", "source folder, repeatable; DIR or DIR=NAME (e.g. …/Mathlib next to Mathlib.lean)")
	fs.StringVar(&o.Library, "library", "", "library name of the first source (default: its folder name)")
	fs.StringVar(&o.Revision, "revision", "", "revision of the first source (default: git commit, else a .revision file)")
	o.stage.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "tables")
	fs.IntVar(&o.Workers, "workers", 0, "parallel workers (default GOMAXPROCS)")
	fs.StringVar(&o.Naming, "naming", "", "JSON file of to_additive/to_dual word tables extending (or replacing) Mathlib's (see README)")
	fs.StringVar(&o.Variables, "variables", "auto", "section variables in theorem statements: auto (from lean-toolchain), signature, body")
	fs.StringVar(&o.LeanVer, "lean-version", "", "Lean version the sources are written for, e.g. 4.7.0 (default: each source's lean-toolchain); chooses how anonymous instances are named (≤ 4.7 or ≥ 4.8 rules) and the default --variables")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
	fs.StringVar(&o.Report, "report", "", "write the unresolved identifiers, classified per library and module, to this JSON file (and a summary to stdout)")
}

func (o *extractOptions) Validate(args []string) error {
	if len(o.Sources) == 0 || o.stage.WS == "" {
		return usagef("--src and --ws are required")
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if err := checkOutputFile("--report", o.Report); err != nil {
		return err
	}
	for _, s := range o.Sources {
		// check the sources before creating the workspace
		if _, err := os.Stat(extract.ParseSourceArg(s).Dir); err != nil {
			return fmt.Errorf("source %s: %w", s, err)
		}
	}
	return nil
}

// extractOptions is the extract.Options of the flags, with the --naming
// tables loaded.
func (o *extractOptions) extractOptions(env *Env) (extract.Options, error) {
	opts := extract.Options{Workers: o.Workers, Force: o.stage.Force, Report: o.Report != "", NamingFile: o.Naming}
	if o.Naming != "" {
		var err error
		if opts.Naming, err = extract.LoadNaming(o.Naming); err != nil {
			return opts, err
		}
	}
	if os.Getenv("DRIFTKIT_DEBUG_UNRESOLVED") != "" {
		opts.Debug = env.Stderr
	}
	for i, s := range o.Sources {
		src := extract.ParseSourceArg(s)
		if i == 0 {
			if o.Library != "" {
				src.Library = o.Library
			}
			src.Revision = o.Revision
		}
		src.VariableRule = o.Variables
		src.LeanVersion = o.LeanVer
		opts.Sources = append(opts.Sources, src)
	}
	return opts, nil
}

func runExtract(ctx context.Context, o *extractOptions, env *Env, args []string) error {
	opts, err := o.extractOptions(env) // before the workspace is created
	if err != nil {
		return err
	}
	ws, err := workspace.Open(o.stage.WS)
	if err != nil {
		return err
	}
	ctx = o.stage.context(ctx)
	stop, err := cpuProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	res, err := extract.Run(ctx, ws, opts)
	if err != nil {
		return err
	}
	printExtractWarnings(env, res)
	if res.Report != nil {
		f, err := workspace.CreateAtomic(o.Report)
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
	if o.stage.JSON {
		return writeJSON(env.Stdout, extractReport(res, o.Report))
	}
	printExtractResult(env, res, o.Report)
	return nil
}

// printExtractWarnings lists parse errors and sources without a revision
// on stderr.
func printExtractWarnings(env *Env, res *extract.Result) {
	for _, e := range res.Errors {
		fmt.Fprintf(env.Stderr, "warning: %v\n", e)
	}
	if res.ErrorCount > len(res.Errors) {
		fmt.Fprintf(env.Stderr, "warning: … %d more parse errors (see modules.parquet errors column)\n", res.ErrorCount-len(res.Errors))
	}
	for _, d := range res.Duplicates {
		if d.Origin == "written" && d.KeptOrigin == "written" {
			fmt.Fprintf(env.Stderr, "warning: %s:%d: %s is declared again (first at %s:%d); the row is not written\n",
				d.Path, d.Line, d.Name, d.KeptPath, d.KeptLine)
		}
	}
	for _, s := range res.Sources {
		if s.RevisionUnknown() {
			fmt.Fprintf(env.Stderr, "warning: source %s is not in a git checkout and has no .revision file: its revision is recorded as %q (give --revision)\n",
				s.Dir, extract.UnknownRevision)
		}
	}
}

// extractReport is extract's --json report.
func extractReport(res *extract.Result, report string) map[string]any {
	phases := map[string]float64{}
	for k, v := range res.Phases {
		phases[k] = v.Seconds()
	}
	var sources []map[string]string
	for _, s := range res.Sources {
		sources = append(sources, map[string]string{"dir": s.Dir, "library": s.Library, "revision": s.Revision})
	}
	return map[string]any{"files": res.Files, "declarations": res.Declarations, "modules": res.Modules,
		"parse_errors": res.ErrorCount, "unresolved": res.Unresolved, "duplicates_dropped": res.DuplicatesDropped,
		"duplicates": res.Duplicates, "instance_name_fallbacks": res.InstanceNameFallbacks, "sources": sources, "phase_seconds": phases, "report": report}
}

// printExtractResult is extract's text report.
func printExtractResult(env *Env, res *extract.Result, report string) {
	fmt.Fprintf(env.Stdout, "extract: %d files, %d declarations, %d parse errors, %d unresolved identifiers\n",
		res.Files, res.Declarations, res.ErrorCount, res.Unresolved)
	if res.DuplicatesDropped > 0 {
		by := map[string]int{}
		for _, d := range res.Duplicates {
			by[d.Origin+" (kept: "+d.KeptOrigin+")"]++
		}
		fmt.Fprintf(env.Stdout, "  %d rows dropped as duplicate names, by how they were named:", res.DuplicatesDropped)
		for _, k := range slices.Sorted(maps.Keys(by)) {
			fmt.Fprintf(env.Stdout, " %s %d;", k, by[k])
		}
		fmt.Fprintln(env.Stdout)
	}
	if ts := res.TwinSigs; ts.Twins > 0 {
		fmt.Fprintf(env.Stdout, "  %d to_additive/to_dual twins: %d signatures translated, %d with nothing to translate, %d kept as the source's (not translatable exactly)\n",
			ts.Twins, ts.Translated, ts.Unchanged, ts.Kept)
		if len(ts.KeptBy) > 0 {
			fmt.Fprint(env.Stdout, "    kept by reason:")
			for _, r := range slices.Sorted(maps.Keys(ts.KeptBy)) {
				fmt.Fprintf(env.Stdout, " %s %d;", r, ts.KeptBy[r])
			}
			fmt.Fprintln(env.Stdout)
		}
	}
	if res.InstanceNameFallbacks > 0 {
		fmt.Fprintf(env.Stdout, "  %d anonymous instances named past a name their module does not see (their approximated names collide)\n", res.InstanceNameFallbacks)
	}
	for _, s := range res.Sources {
		fmt.Fprintf(env.Stdout, "  source %s: library %s, revision %s\n", s.Dir, s.Library, s.Revision)
	}
	fmt.Fprintf(env.Stdout, "  phases: read %.2fs, parse %.2fs, resolve %.2fs, write %.2fs\n", res.Phases["read"].Seconds(),
		res.Phases["parse"].Seconds(), res.Phases["resolve"].Seconds(), res.Phases["write"].Seconds())
	if res.Report != nil {
		fmt.Fprintln(env.Stdout)
		res.Report.WriteSummary(env.Stdout, 10, 25)
		fmt.Fprintf(env.Stdout, "full report: %s\n", report)
	}
}
