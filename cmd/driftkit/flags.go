package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
)

// stageFlags are the flags every stage spells alike: --ws, --quiet (no
// progress display), --force (replace outputs the workspace's manifest does
// not know, on stages that write) and --json (the stage's report as JSON
// on stdout instead of text). A command registers the ones it has with
// AddFlags, so that the same flag means the same thing everywhere.
type stageFlags struct {
	WS    string
	Quiet bool
	Force bool
	JSON  bool
}

// Which common flags a command has.
const (
	withWS = 1 << iota
	withQuiet
	withForce
	withJSON
)

// AddFlags registers the flags in which on fs. force is --force's help
// (what it replaces).
func (s *stageFlags) AddFlags(fs *flag.FlagSet, which int, force string) {
	if which&withWS != 0 {
		fs.StringVar(&s.WS, "ws", "", "workspace folder")
	}
	if which&withQuiet != 0 {
		fs.BoolVar(&s.Quiet, "quiet", false, "no progress display")
	}
	if which&withForce != 0 {
		if force == "" {
			force = "outputs"
		}
		fs.BoolVar(&s.Force, "force", false, "replace "+force+" the workspace's manifest does not know")
	}
	if which&withJSON != 0 {
		fs.BoolVar(&s.JSON, "json", false, "print the report as JSON")
	}
}

// requireWS is the usage error of a command run without --ws.
func (s *stageFlags) requireWS(fs *flag.FlagSet) error {
	if s.WS == "" {
		return usagef(fs, "--ws is required")
	}
	return nil
}

// noArgs is the usage error of a command given positional arguments it
// does not take.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef(fs, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// context returns ctx without a progress reporter under --quiet.
func (s *stageFlags) context(ctx context.Context) context.Context {
	if s.Quiet {
		return progress.WithReporter(ctx, nil)
	}
	return ctx
}

// report prints v as indented JSON under --json, else calls text.
func (s *stageFlags) report(w io.Writer, v any, text func(io.Writer)) error {
	if s.JSON {
		return writeJSON(w, v)
	}
	text(w)
	return nil
}

// writeJSON prints v indented, as every --json output is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// queryFlags are the ranking flags shared by every command that runs
// queries against an index (search, eval retrieval): one definition, so the
// same flag ranks alike in each.
type queryFlags struct {
	mode, weights, engine string
	allKinds, noHead      bool
	// profile is --profile (AddProfileFlag); nil: no such flag, premise
	// retrieval.
	profile *string
}

// AddProfileFlag registers --profile with its default: "auto" where a user
// searches (search), "premise" where dependency retrieval is measured
// (eval retrieval).
func (q *queryFlags) AddProfileFlag(fs *flag.FlagSet, def, usage string) {
	q.profile = fs.String("profile", def, usage)
}

// AddFlags registers --mode, --all-kinds, --weights, --bm25-engine and
// --no-head.
func (q *queryFlags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&q.mode, "mode", string(index.ModeBest), "dense, bm25, hybrid (RRF of both) or best")
	fs.BoolVar(&q.allKinds, "all-kinds", false, "rank theorems and instances too")
	fs.StringVar(&q.weights, "weights", "", "JSON weights for mode best, or @FILE (advanced; unknown keys are refused)")
	fs.StringVar(&q.engine, "bm25-engine", "mem", "BM25 engine: mem (in-memory postings, fast) or bleve (the bleve index)")
	fs.BoolVar(&q.noHead, "no-head", false, "ignore the workspace's trained projection head (WS/head): raw dense scores")
}

// queryOptions are the parsed query flags.
type queryOptions struct {
	Mode index.Mode
	// Profile is --profile (ProfilePremise without the flag).
	Profile retrieval.Profile
	// Weights are --weights over the defaults of the profile that Profile
	// resolves to with AllKinds (nil: the defaults); weightsFor reads them
	// over another profile's.
	Weights  *index.Weights
	AllKinds bool
	weights  string
	// Open opens the index the way these queries need it.
	Open index.OpenOptions
}

// resolve checks the flags' values; a bad one is a usage error naming it.
func (q *queryFlags) resolve() (queryOptions, error) {
	if q.engine != "mem" && q.engine != "bleve" {
		return queryOptions{}, fmt.Errorf("%w: --bm25-engine %q (mem or bleve)", errUsage, q.engine)
	}
	m, err := index.ParseMode(q.mode)
	if err != nil {
		return queryOptions{}, fmt.Errorf("%w: --mode: %v", errUsage, err)
	}
	prof := retrieval.ProfilePremise
	if q.profile != nil {
		if prof, err = retrieval.ParseProfile(*q.profile); err != nil {
			return queryOptions{}, fmt.Errorf("%w: --profile: %v", errUsage, err)
		}
	}
	w, err := parseWeights(q.weights, retrieval.ResolveProfile(&retrieval.Query{Profile: prof, Filter: retrieval.Filter{AllKinds: q.allKinds}}))
	if err != nil {
		return queryOptions{}, err
	}
	return queryOptions{Mode: m, Profile: prof, Weights: w, AllKinds: q.allKinds, weights: q.weights,
		Open: index.OpenOptions{NoDense: m == index.ModeBM25, BleveBM25: q.engine == "bleve", NoHead: q.noHead}}, nil
}

// checkOutputFile refuses an output file (--per-item, --report, --out) whose
// folder does not exist, before any work: a typo in the path must not
// create folders nor lose a long run's result at its end.
func checkOutputFile(flagName, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: the folder %s does not exist", flagName, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flagName, path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s %s: %s is not a folder", flagName, path, dir)
	}
	return nil
}

// weightsFor reads --weights over profile p's defaults (nil: none given).
func (o queryOptions) weightsFor(p retrieval.Profile) (*index.Weights, error) {
	return parseWeights(o.weights, p)
}
