package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/driftkit/driftkit/internal/leantext"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/driftkit/driftkit/internal/leanname"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
)

// Source is one source root to extract: a Lean project (or a folder of it)
// with the library name and revision its rows carry.
type Source struct {
	// Dir is the folder walked for .lean files. If Dir is a library folder
	// such as …/Mathlib next to Mathlib.lean, module names keep the folder
	// name (Mathlib.Data.Nat.Basic).
	Dir      string
	Library  string
	Revision string // "" = detect (git commit, else a .revision file)

	// VariableRule selects how section variables are included in theorem
	// statements: "auto" (from lean-toolchain: Lean < 4.10 includes variables
	// mentioned in proofs), "signature" or "body".
	VariableRule string

	// LeanVersion overrides the version of Lean the source is written for
	// ("4.7.0", "v4.29.0"); "" reads the lean-toolchain file of the source
	// or a parent folder (the newest rules when there is none).
	LeanVersion string
	// InstanceNames is the algorithm anonymous instances are named with
	// (InstanceNamesV47, InstanceNamesV48), set from the Lean version.
	InstanceNames string
	// Toolchain is the Lean version used ("" if neither given nor found).
	Toolchain string

	root             string // module names are relative to this folder
	oldVariableRules bool
	// deltaDerivingOld: Lean < 4.23 names a definition's derived instances
	// after the definition (Polynomial.instGalGroup), not by the
	// instance-name generator (lean4#9800)
	deltaDerivingOld bool
}

// Options configure an extraction.
type Options struct {
	Sources []Source
	// Workers is the number of parallel workers (0 = GOMAXPROCS).
	Workers int
	// Force replaces outputs not written by a recorded run.
	Force bool
	// MaxErrors bounds how many parse errors are kept in Result.Errors (0 = 100).
	MaxErrors int
	// Report asks for Result.Unresolved's classified report (per library
	// and module: missing packages, binders, syntax, unknown names).
	Report bool
	// Naming holds the word tables of to_additive/to_dual twin names (nil:
	// Mathlib's, DefaultNaming).
	Naming *Naming
	// NamingFile is the file Naming was loaded from, recorded in the
	// manifest ("" for a Naming made in code).
	NamingFile string
	// Debug, when not nil, receives the resolver's diagnostics: the time of
	// each resolution step and the most frequent unresolved identifiers.
	Debug io.Writer
}

// Result summarises an extraction.
type Result struct {
	Files        int
	Declarations int64
	Modules      int64
	ErrorCount   int
	Errors       []error // the first MaxErrors errors, each naming file and line
	Unresolved   int64
	// DuplicatesDropped counts rows not written because another row has
	// the same full name (approximated generated names that collide);
	// Duplicates lists them.
	DuplicatesDropped int
	Duplicates        []Duplicate
	// InstanceNameFallbacks counts anonymous instances named past a name
	// their own environment does not hold, so that no two rows share a name
	// (their base name, or another's, differs from Lean's: nameFile).
	InstanceNameFallbacks int
	// TwinSigs counts to_additive/to_dual twins' signature texts translated
	// from their sources' and kept as the source's (translateTwinSigs).
	TwinSigs TwinSigStats
	Phases   map[string]time.Duration
	Sources  []Source // with detected revisions and libraries
	// Report classifies the unresolved identifiers (with Options.Report).
	Report *UnresolvedReport
}

// ErrNoSources is returned when no source root is given.
var ErrNoSources = errors.New("no source folder given")

// ParseSourceArg parses a --src value DIR or DIR=NAME.
func ParseSourceArg(s string) Source {
	if i := strings.LastIndexByte(s, '='); i > 0 {
		return Source{Dir: s[:i], Library: s[i+1:]}
	}
	return Source{Dir: s}
}

var toolchainRe = regexp.MustCompile(`(?:^|[^0-9.])4\.(\d+)`)

// prepareSource fills in the root, library, revision and variable rule.
func prepareSource(s *Source, first string) error {
	st, err := os.Stat(s.Dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", s.Dir)
	}
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return err
	}
	s.root = abs
	parent := filepath.Dir(abs)
	if _, err := os.Stat(filepath.Join(parent, filepath.Base(abs)+".lean")); err == nil {
		s.root = parent
	}
	if s.Library == "" {
		if first != "" {
			s.Library = first
		} else {
			s.Library = filepath.Base(s.root)
		}
	}
	if s.Revision == "" {
		s.Revision = detectRevision(abs)
	}
	if s.Revision == "" {
		// Recorded as unknown, never as "": a later bump compares
		// revisions, and an empty one would look like a match. The caller
		// warns (RevisionUnknown).
		s.Revision = UnknownRevision
	}
	minor := -1
	if s.LeanVersion != "" {
		s.Toolchain = s.LeanVersion
	} else {
		s.Toolchain = findToolchain(abs, s.root)
	}
	if s.Toolchain != "" {
		m := toolchainRe.FindStringSubmatch(s.Toolchain)
		if m == nil {
			return fmt.Errorf("Lean version %q: want 4.N (for example v4.29.0)", s.Toolchain)
		}
		minor, _ = strconv.Atoi(m[1])
	}
	rule := s.VariableRule
	if rule == "" || rule == "auto" {
		rule = "signature"
		if minor >= 0 && minor < 10 {
			rule = "body"
		}
	}
	s.InstanceNames = InstanceNamesV48
	if minor >= 0 {
		s.InstanceNames = instanceNamesFor(minor)
	}
	s.oldVariableRules = rule == "body"
	s.deltaDerivingOld = minor >= 0 && minor < 23
	return nil
}

// findToolchain returns the content of the lean-toolchain file in dir or
// a parent folder up to root's parent ("" if none).
func findToolchain(dir, root string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "lean-toolchain")); err == nil {
			return strings.TrimSpace(string(b))
		}
		if filepath.Dir(d) == d || d == filepath.Dir(root) {
			return ""
		}
	}
}

// UnknownRevision is the revision recorded for a source that is not in a
// git checkout and has no .revision file (nor --revision).
const UnknownRevision = "unknown"

// RevisionUnknown reports whether s's revision could not be found.
func (s Source) RevisionUnknown() bool { return s.Revision == UnknownRevision }

// detectRevision returns the git commit of the checkout containing dir, else
// the content of a .revision file in dir or a parent, else "".
func detectRevision(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			if out, err := exec.Command("git", "-C", d, "rev-parse", "HEAD").Output(); err == nil {
				return strings.TrimSpace(string(out))
			}
		}
		if b, err := os.ReadFile(filepath.Join(d, ".revision")); err == nil {
			return strings.TrimSpace(string(b))
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

type srcFile struct {
	src    *Source
	abs    string
	rel    string // relative to the source root, slash-separated
	module string
}

func walkSource(s *Source) ([]srcFile, error) {
	var out []srcFile
	err := filepath.WalkDir(s.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != s.Dir && (strings.HasPrefix(name, ".") || name == "lake-packages" || name == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".lean") || name == "lakefile.lean" {
			return nil
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(s.root, abs)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		out = append(out, srcFile{src: s, abs: abs, rel: rel, module: ModuleName(rel)})
		return nil
	})
	if err == nil && s.root != "" {
		// …/Std next to Std.lean: the library's root file (its module Std
		// imports the whole library, and others import it)
		if abs, aerr := filepath.Abs(s.Dir); aerr == nil && filepath.Dir(abs) == s.root {
			rootFile := filepath.Join(s.root, filepath.Base(abs)+".lean")
			if fi, serr := os.Stat(rootFile); serr == nil && !fi.IsDir() {
				rel := filepath.Base(rootFile)
				out = append(out, srcFile{src: s, abs: rootFile, rel: rel, module: ModuleName(rel)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, err
}

// ModuleName turns a relative path into a Lean module name
// (Mathlib/Data/Nat/Basic.lean → Mathlib.Data.Nat.Basic).
func ModuleName(rel string) string {
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".lean")
	return strings.ReplaceAll(rel, "/", ".")
}

// ParseFile parses one Lean source (for tests, fuzzing and other stages) and
// returns its declaration rows (names unresolved against other files but
// resolved within it), its module row and the parse errors.
func ParseFile(src []byte, path string, lib string) ([]workspace.Declaration, workspace.Module, []error) {
	return parseOne(src, path, &Source{Library: lib})
}

// parseOne is ParseFile under the rules of s (the fuzz target also runs
// the Lean ≥ 4.8 instance namer, which ParseFile's version-less source
// does not).
func parseOne(src []byte, path string, s *Source) ([]workspace.Declaration, workspace.Module, []error) {
	fr := parseFile(src, string(src), path, ModuleName(path), s, &Options{})
	twins := nameTwins([]*fileResult{fr}, mathlibNaming())
	nameInstances([]*fileResult{fr}, mathlibNaming(), twins, nil, []int{0}, 1)
	dropSelfTwins([]*fileResult{fr})
	t := newTable([]*fileResult{fr}, nil)
	t.twins = twins
	t.prepare([]*fileResult{fr})
	t.attributeTwins([]*fileResult{fr}, mathlibNaming())
	t.inheritFields([]*fileResult{fr})
	r := &resolver{t: t, cache: map[cacheKey]string{}}
	var rows []workspace.Declaration
	for _, d := range fr.decls {
		r.resolveInstClasses(d, -1)
	}
	for _, d := range fr.decls {
		r.resolveDecl(d, -1)
	}
	decide(context.Background(), 1, t, []*fileResult{fr})
	dicts := fixups(t, []*fileResult{fr}, mathlibNaming())
	translateTwinSigs(t, []*fileResult{fr}, dicts)
	dropDuplicates(t, []*fileResult{fr})
	for _, d := range fr.decls {
		rows = append(rows, d.row)
	}
	return rows, fr.mod, fr.errs
}

// Run extracts every source into the workspace: declarations.parquet,
// modules.parquet and notations.parquet (ReadNotations), recording the run in the manifest. Declarations of all
// sources are written, each with its own library, so that dependencies of
// the first resolve to rows of the same table.
//
// Files are read and parsed by opts.Workers goroutines, then resolved in
// parallel against one global name table, then streamed to the tables
// (replaced atomically). A file that cannot be read or parsed is reported in
// Result.Errors (with file and line) and counted in modules.parquet; the run
// goes on. Cancelling ctx stops the run before anything is written. Run may
// be called concurrently for different workspaces.
func Run(ctx context.Context, ws *workspace.Workspace, opts Options) (*Result, error) {
	if len(opts.Sources) == 0 {
		return nil, ErrNoSources
	}
	// extract and import rauto write the same tables: one run at a time, and
	// none while a stage reads them.
	unlock, err := ws.Lock("extract")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, workspace.DeclarationsFile, workspace.ModulesFile, workspace.NotationsFile); err != nil {
		return nil, err
	}
	workers := opts.workers()
	res := &Result{Phases: map[string]time.Duration{}}
	files, params, err := collectSources(&opts)
	if err != nil {
		return nil, err
	}
	params["workers"] = workers
	res.Sources = opts.Sources
	res.Files = len(files)
	rec := ws.StartRun("extract", params)

	pr, err := readAndParse(ctx, files, workers, &opts, res)
	if err != nil {
		return nil, err
	}
	recordInputs(rec, opts.Sources, files, pr.hashes)
	vis, order := importClosures(pr.results)
	twins := nameTwins(pr.results, opts.naming())
	res.InstanceNameFallbacks = nameInstances(pr.results, opts.naming(), twins, vis, order, workers)
	dropSelfTwins(pr.results)
	t, err := resolveAll(ctx, workers, pr.results, vis, twins, &opts, rec, res)
	if err != nil {
		return nil, err
	}
	return commitTables(ctx, ws, rec, pr, t, opts, res)
}

// workers is the number of parallel workers: opts.Workers, else GOMAXPROCS.
func (opts *Options) workers() int {
	if opts.Workers > 0 {
		return opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// collectSources prepares every source and lists its .lean files, with the
// run's parameters that describe them.
func collectSources(opts *Options) ([]srcFile, map[string]any, error) {
	params := map[string]any{}
	var files []srcFile
	for i := range opts.Sources {
		s := &opts.Sources[i]
		if err := prepareSource(s, ""); err != nil {
			return nil, nil, fmt.Errorf("source %s: %w", s.Dir, err)
		}
		fs, err := walkSource(s)
		if err != nil {
			return nil, nil, fmt.Errorf("source %s: %w", s.Dir, err)
		}
		if len(fs) == 0 {
			return nil, nil, fmt.Errorf("source %s: no .lean files", s.Dir)
		}
		files = append(files, fs...)
		params[fmt.Sprintf("source_%d", i)] = map[string]any{"dir": s.Dir, "library": s.Library, "revision": s.Revision,
			"variables_from_proofs": s.oldVariableRules, "lean_toolchain": s.Toolchain, "instance_names": s.InstanceNames}
	}
	params["naming"] = "mathlib (built in)"
	if opts.Naming != nil {
		params["naming"] = map[string]any{"file": opts.NamingFile, "sha256": opts.Naming.SHA256()}
	} else if n, paths, sum := libraryNaming(opts.Sources); n != nil {
		// twins guessed with the dictionaries the library compiled with
		opts.Naming = n
		params["naming"] = map[string]any{"guess_name_from": paths, "sha256": sum}
	}
	return files, params, nil
}

// parsed is what the read and parse phase made of the files, in file
// order: each file's result and content hash, and the first read error.
type parsed struct {
	results  []*fileResult
	hashes   [][32]byte
	firstErr error
}

// readAndParse reads and parses the files on workers goroutines, timing
// the two (res.Phases read and parse share the phase's wall time in
// proportion). A file that cannot be read is reported against itself.
func readAndParse(ctx context.Context, files []srcFile, workers int, opts *Options, res *Result) (*parsed, error) {
	tRead := time.Now()
	bar := progress.Start(ctx, "extract: parse", int64(len(files)))
	p := &parsed{results: make([]*fileResult, len(files)), hashes: make([][32]byte, len(files))}
	var readDur, parseDur atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				sf := files[i]
				t0 := time.Now()
				b, err := os.ReadFile(sf.abs)
				t1 := time.Now()
				readDur.Add(int64(t1.Sub(t0)))
				if err != nil {
					errMu.Lock()
					if p.firstErr == nil {
						p.firstErr = err
					}
					errMu.Unlock()
					p.results[i] = &fileResult{source: sf.src, errs: []error{&ParseError{Path: sf.rel, Err: err}},
						mod: workspace.Module{Library: sf.src.Library, Revision: sf.src.Revision, Name: sf.module, Path: sf.rel, Errors: 1}}
					continue
				}
				p.hashes[i] = sha256.Sum256(b)
				var s string
				if len(b) > 0 {
					s = unsafe.String(&b[0], len(b))
				}
				p.results[i] = parseFile(b, s, sf.rel, sf.module, sf.src, opts)
				parseDur.Add(int64(time.Since(t1)))
				if bar != nil {
					bar.Add(1)
				}
			}
		}()
	}
	cancelled := false
	for i := range files {
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if bar != nil {
		bar.Finish()
	}
	if cancelled {
		return nil, ctx.Err()
	}
	wall := time.Since(tRead)
	// split the wall time of the parallel phase between reading and parsing
	rd, pd := readDur.Load(), parseDur.Load()
	if rd+pd > 0 {
		res.Phases["read"] = time.Duration(float64(wall) * float64(rd) / float64(rd+pd))
		res.Phases["parse"] = wall - res.Phases["read"]
	}
	return p, nil
}

// recordInputs records one input hash per source: the hash of its files'
// paths and content hashes, in path order.
func recordInputs(rec *workspace.RunRecorder, sources []Source, files []srcFile, hashes [][32]byte) {
	for i := range sources {
		s := &sources[i]
		h := sha256.New()
		for j, sf := range files {
			if sf.src == s {
				h.Write([]byte(sf.rel))
				h.Write(hashes[j][:])
			}
		}
		rec.InputRef(workspace.FileRef{Path: s.Dir, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
}

// resolveAll builds the name table of every file's declarations and
// resolves their identifiers against it (instance classes, then the
// declarations, then the generated rows' fix-ups), in res.Phases resolve;
// with opts.Report it builds the unresolved-identifier report.
func resolveAll(ctx context.Context, workers int, results []*fileResult, vis []bitset, twins *twinNamespaces, opts *Options, rec *workspace.RunRecorder, res *Result) (*Table, error) {
	tRes := time.Now()
	sub := func(name string, t0 time.Time) {
		if opts.Debug != nil {
			fmt.Fprintf(opts.Debug, "  %s %.2fs\n", name, time.Since(t0).Seconds())
		}
	}
	t0 := time.Now()
	t := newTable(results, vis)
	t.twins = twins
	if opts.Debug != nil {
		t.unresolved = &counter{}
	}
	sub("table", t0)
	t0 = time.Now()
	t.prepare(results)
	t.attributeTwins(results, opts.naming())
	t.inheritFields(results)
	sub("prepare", t0)
	t0 = time.Now()
	parallel(ctx, workers, len(results), func(r *resolver, i int) {
		for _, d := range results[i].decls {
			r.resolveInstClasses(d, i)
		}
	}, t)
	sub("inst classes", t0)
	t0 = time.Now()
	if err := resolveDecls(ctx, workers, t, results); err != nil {
		return nil, err
	}
	sub("resolve", t0)
	t0 = time.Now()
	decide(ctx, workers, t, results)
	if ctx.Err() != nil {
		// decide stops early when cancelled: its rows are incomplete.
		return nil, ctx.Err()
	}
	sub("decide", t0)
	t0 = time.Now()
	dicts := fixups(t, results, opts.naming())
	res.TwinSigs = translateTwinSigs(t, results, dicts)
	res.Duplicates = dropDuplicates(t, results)
	res.DuplicatesDropped = len(res.Duplicates)
	sub("fixups", t0)
	if opts.Debug != nil {
		t.unresolved.print(opts.Debug, 60)
	}
	if opts.Report {
		res.Report = buildUnresolvedReport(t, results, 20)
		for _, l := range res.Report.Libraries {
			for _, c := range unresolvedClasses {
				rec.Count("unresolved_"+c+"_"+l.Library, l.ByClass[c])
			}
		}
	}
	res.Phases["resolve"] = time.Since(tRes)
	return t, nil
}

// resolveDecls resolves the identifiers of every declaration, a file per
// task, counting the unresolved ones per module. A panic while resolving a
// file is reported against that file, not the run.
func resolveDecls(ctx context.Context, workers int, t *Table, results []*fileResult) error {
	bar := progress.Start(ctx, "extract: resolve", int64(len(results)))
	parallel(ctx, workers, len(results), func(r *resolver, i int) {
		fr := results[i]
		bad := 0
		defer func() {
			// a bug must not stop the run: report it against the file
			if p := recover(); p != nil {
				fr.errs = append(fr.errs, &ParseError{Path: fr.mod.Path, Err: fmt.Errorf("%w (resolving): %v", ErrPanic, p)})
				fr.mod.Errors++
			}
		}()
		r.unres = &fr.unres
		for _, d := range fr.decls {
			bad += r.resolveDecl(d, i)
		}
		r.unres = nil
		fr.mod.Unresolved = int32(bad)
		if bar != nil {
			bar.Add(1)
		}
	}, t)
	if bar != nil {
		bar.Finish()
	}
	return ctx.Err()
}

// commitTables writes declarations.parquet and modules.parquet and commits
// them with the run's record as one transaction, counting parse errors
// (keeping the first opts.MaxErrors, default 100) and unresolved
// identifiers into res.
func commitTables(ctx context.Context, ws *workspace.Workspace, rec *workspace.RunRecorder, p *parsed, t *Table, opts Options, res *Result) (*Result, error) {
	maxErr := opts.MaxErrors
	if maxErr <= 0 {
		maxErr = 100
	}
	tWrite := time.Now()
	tx := ws.Begin("extract")
	defer tx.Abort()
	if err := write(ctx, tx, p.results, opts.workers(), res); err != nil {
		return nil, err
	}
	notations, err := writeNotations(tx, t.notationRows(p.results))
	if err != nil {
		return nil, err
	}
	res.Phases["write"] = time.Since(tWrite)
	for _, fr := range p.results {
		res.ErrorCount += len(fr.errs)
		for _, e := range fr.errs {
			if len(res.Errors) < maxErr {
				res.Errors = append(res.Errors, e)
			}
		}
		res.Unresolved += int64(fr.mod.Unresolved)
	}
	for _, ph := range []string{"read", "parse", "resolve", "write"} {
		rec.Phase(ph, res.Phases[ph])
	}
	tx.Output(workspace.DeclarationsFile, res.Declarations)
	tx.Output(workspace.ModulesFile, res.Modules)
	tx.Output(workspace.NotationsFile, notations)
	rec.Count("declarations", res.Declarations)
	rec.Count("notations", notations)
	rec.Count("duplicate_names_dropped", int64(res.DuplicatesDropped))
	rec.Count("instance_name_fallbacks", int64(res.InstanceNameFallbacks))
	rec.Count("twin_signatures", int64(res.TwinSigs.Twins))
	rec.Count("twin_signatures_translated", int64(res.TwinSigs.Translated))
	rec.Count("twin_signatures_unchanged", int64(res.TwinSigs.Unchanged))
	rec.Count("twin_signatures_kept", int64(res.TwinSigs.Kept))
	for _, r := range slices.Sorted(maps.Keys(res.TwinSigs.KeptBy)) {
		rec.Count("twin_signatures_kept_"+r, int64(res.TwinSigs.KeptBy[r]))
	}
	rec.Count("modules", res.Modules)
	rec.Count("parse_errors", int64(res.ErrorCount))
	rec.Count("unresolved_identifiers", res.Unresolved)
	rec.Count("names", int64(t.Len()))
	if p.firstErr != nil {
		rec.Note("some files could not be read: " + p.firstErr.Error())
	}
	rec.Note("extracted from sources without elaboration (driftkit source reader)")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Both tables and the manifest entry appear together, or neither.
	if err := tx.Commit(rec); err != nil {
		return nil, err
	}
	return res, nil
}

// decideRounds is how often instance-variable inclusion is re-decided from
// the other declarations' previous decisions.
const decideRounds = 3

// decide settles which instance variables declarations include and writes
// their statement dependencies.
func decide(ctx context.Context, workers int, t *Table, results []*fileResult) {
	t.buildProviders(results)
	for round := 0; round < decideRounds; round++ {
		parallel(ctx, workers, len(results), func(_ *resolver, i int) {
			for _, d := range results[i].decls {
				t.decideRound(d)
			}
		}, t)
		for _, fr := range results {
			for _, d := range fr.decls {
				d.instClasses, d.instNext = d.instNext, nil
			}
		}
	}
	parallel(ctx, workers, len(results), func(_ *resolver, i int) {
		for _, d := range results[i].decls {
			t.assemble(d)
		}
	}, t)
}

// parallel runs fn(i) for i in [0, n) on workers goroutines, each with its
// own resolver.
func parallel(ctx context.Context, workers, n int, fn func(r *resolver, i int), t *Table) {
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for _, r := range t.resolvers(workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(r, i)
			}
		}()
	}
	wg.Wait()
}

// fixups completes rows that depend on other declarations: alias kinds and
// dependencies, to_additive twins' dependencies. It returns the twins'
// translation dictionaries (twinDicts, naming names core constants'
// translations), which translate the twins' dependencies here and their
// signatures' text after (translateTwinSigs): one translation for both.
func fixups(t *Table, files []*fileResult, naming *Naming) map[string]twinDict {
	fields := map[string][]*pdecl{}
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.row.Kind == workspace.KindProjection && d.row.GeneratedFrom != nil {
				fields[*d.row.GeneratedFrom] = append(fields[*d.row.GeneratedFrom], d)
			}
		}
	}
	for _, fr := range files {
		var extra []*pdecl
		for _, d := range fr.decls {
			if d.simps {
				for _, g := range simpsLemmas(t, d, fields) {
					if t.names[g.row.Name] == nil {
						extra = append(extra, g)
					}
				}
			}
		}
		fr.decls = append(fr.decls, extra...)
	}
	// A twin's dependencies are its source's, translated as Lean's
	// to_additive translates the source's constants: by the attribute's
	// dictionary (the sources' twins, [to_additive existing] pairs, core
	// translations: Mul → Add, HMul.hMul → HAdd.hAdd). The source's, not the
	// twin's own (its identifiers resolved in the twin's namespace may name
	// a translation already, which a to_dual dictionary, both ways, would
	// translate back: WithTop.coe_inj → WithBot.coe_inj). All are read
	// before any is written (a twin may be another's source), and before
	// the aliases copy their targets' dependencies.
	dicts := twinDicts(t, files, naming)
	type twinDeps struct {
		d           *pdecl
		stmt, proof []string
	}
	var tds []twinDeps
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.twinOf == nil || d.aliasTarget != "" {
				continue
			}
			dict := dicts[d.sigAttr]
			m := func(in []string) []string {
				out := make([]string, 0, len(in))
				seen := map[string]bool{}
				for _, n := range in {
					if tw, ok := dict[n]; ok {
						n = tw
					}
					if n != d.row.Name && !seen[n] {
						seen[n] = true
						out = append(out, n)
					}
				}
				return out
			}
			tds = append(tds, twinDeps{d, m(d.twinOf.row.StatementDeps), m(d.twinOf.row.ProofDeps)})
		}
	}
	for _, td := range tds {
		td.d.row.StatementDeps, td.d.row.ProofDeps = td.stmt, td.proof
	}
	for _, fr := range files {
		for _, d := range fr.decls {
			switch {
			case d.aliasTarget != "":
				target := ""
				if len(d.row.StatementDeps) > 0 {
					target = d.row.StatementDeps[0]
				}
				if target == "" {
					continue
				}
				d.row.GeneratedFrom = strp(target)
				d.row.ProofDeps = []string{target}
				if e := t.names[target]; e != nil {
					d.row.Kind = e.kind
					if e.kind == "constructor" || e.kind == "projection" {
						d.row.Kind = "definition"
					}
					if e.decl != nil && e.decl.aliasTarget == "" {
						d.row.StatementDeps = e.decl.row.StatementDeps
						// `alias a := b` has exactly b's type; the text after
						// the alias keyword is not a signature. The parts of
						// `alias ⟨mp, mpr⟩ := iff` are one direction each and
						// keep what was written.
						if d.aliasPart == 0 {
							d.row.Signature = e.decl.row.Signature
						} else if sig, ok := iffDirection(e.decl.row.Signature, d.aliasPart); ok {
							d.row.Signature = sig
						}
					}
				}
			}
		}
	}
	// Kinds are final now (an alias has its target's): exposure follows.
	for _, fr := range files {
		if fr.mod.IsModule {
			for _, d := range fr.decls {
				d.row.Exposed = exposedKind(d.row.Kind, d.row.Exposed)
			}
		}
	}
	return dicts
}

// write streams the tables into the transaction's temporary files; the
// caller commits them only when every row was written and ctx is still live:
// a cancelled run leaves the previous tables untouched and no temporary
// files behind. The declarations' row groups are encoded on workers
// goroutines (the file is the same as one goroutine writes).
func write(ctx context.Context, tx *workspace.Txn, results []*fileResult, workers int, res *Result) error {
	dw, err := workspace.NewStagedWriter[workspace.Declaration](tx, workspace.DeclarationsFile)
	if err != nil {
		return err
	}
	mw, err := workspace.NewStagedWriter[workspace.Module](tx, workspace.ModulesFile)
	if err != nil {
		dw.Abort()
		return err
	}
	// canonical names are spelled on the encoding goroutines, and the
	// modules table is written beside the declarations
	pw := dw.Parallel(workers).Map(func(r *workspace.Declaration) { *r = canonicalRow(*r) })
	modErr := make(chan error, 1)
	go func() {
		for _, fr := range results {
			fr.mod.Declarations = int32(len(fr.decls))
			if fr.mod.Imports == nil {
				fr.mod.Imports = []string{}
			}
			if err := mw.Write(fr.mod); err != nil {
				modErr <- err
				return
			}
		}
		modErr <- nil
	}()
	fail := func(err error) error {
		<-modErr
		dw.Abort()
		mw.Abort()
		return err
	}
	buf := make([]workspace.Declaration, 0, 1024)
	for _, fr := range results {
		if err := ctx.Err(); err != nil {
			pw.Close()
			return fail(err)
		}
		for _, d := range fr.decls {
			buf = append(buf, d.row)
			if len(buf) == cap(buf) {
				if err := pw.Write(buf...); err != nil {
					pw.Close()
					return fail(err)
				}
				buf = buf[:0]
			}
		}
	}
	if err := pw.Write(buf...); err != nil {
		pw.Close()
		return fail(err)
	}
	if err := pw.Close(); err != nil {
		return fail(err)
	}
	if err := <-modErr; err != nil {
		dw.Abort()
		mw.Abort()
		return err
	}
	if err := ctx.Err(); err != nil {
		dw.Abort()
		mw.Abort()
		return err
	}
	res.Declarations, res.Modules = dw.Rows(), mw.Rows()
	if err := dw.Close(); err != nil {
		mw.Abort()
		return err
	}
	return mw.Close()
}

// canonicalRow spells the row's names as Lean's Name.toString does
// (Foo.«structure» → Foo.structure; Demo.«term_≋_» stays): the one
// convention of the tables (internal/leanname).
func canonicalRow(r workspace.Declaration) workspace.Declaration {
	r.Name = leanname.Canonical(r.Name)
	if r.GeneratedFrom != nil {
		r.GeneratedFrom = strp(leanname.Canonical(*r.GeneratedFrom))
	}
	r.StatementDeps = canonicalNames(r.StatementDeps)
	r.ProofDeps = canonicalNames(r.ProofDeps)
	return r
}

func canonicalNames(ns []string) []string {
	for i, n := range ns {
		if c := leanname.Canonical(n); c != n {
			ns = append([]string(nil), ns...)
			ns[i] = c
			for j := i + 1; j < len(ns); j++ {
				ns[j] = leanname.Canonical(ns[j])
			}
			return ns
		}
	}
	return ns
}

// writeNotations stages notations.parquet in the transaction.
func writeNotations(tx *workspace.Txn, rows []workspace.Notation) (int64, error) {
	w, err := workspace.NewStagedWriter[workspace.Notation](tx, workspace.NotationsFile)
	if err != nil {
		return 0, err
	}
	if err := w.Write(rows...); err != nil {
		w.Abort()
		return 0, err
	}
	n := w.Rows()
	return n, w.Close()
}

// iffDirection turns the signature of an iff theorem `binders : a ↔ b` into
// the signature of one of the implications `alias ⟨mp, mpr⟩ :=` makes:
// part 1 is `binders : a → b`, part 2 is `binders : b → a`. It reports false
// when the type is not a top-level iff.
func iffDirection(sig string, part int) (string, bool) {
	colon := leantext.TopColon(sig)
	if colon < 0 {
		return "", false
	}
	typ := sig[colon+1:]
	iff := leantext.TopIndex(typ, '↔')
	if iff < 0 || leantext.TopIndex(typ[iff+len("↔"):], '↔') >= 0 {
		return "", false
	}
	lhs := strings.TrimSpace(typ[:iff])
	rhs := strings.TrimSpace(typ[iff+len("↔"):])
	if part == 2 {
		lhs, rhs = rhs, lhs
	}
	return sig[:colon+1] + " " + lhs + " → " + rhs, true
}

// Duplicate is a row not written because another row has its full name.
type Duplicate struct {
	Name, Kind, Path string
	Line             int32
	// Origin and KeptOrigin tell how the dropped and the kept row were
	// named (nameOrigin).
	Origin, KeptOrigin string
	// KeptPath and KeptLine are where the row that was written comes from.
	KeptPath string
	KeptLine int32
}

// dropDuplicates keeps one row per full name, as Lean has one declaration per
// name: the row the name table chose (a written declaration over a generated
// one), else the first. Generated names are approximations (simps lemmas,
// twins of a declaration whose other form is written) and can collide; a
// table with two rows for one name would break every consumer that keys on
// the name. Private declarations are first given Lean's private names where
// another row has their name (privateNames). It returns the rows dropped.
func dropDuplicates(t *Table, files []*fileResult) []Duplicate {
	kept := make(map[string]*pdecl, len(t.names))
	dups := map[string]bool{}
	for _, fr := range files {
		for _, d := range fr.decls {
			if kept[d.row.Name] != nil {
				dups[d.row.Name] = true
			}
			kept[d.row.Name] = d
		}
	}
	if len(dups) == 0 {
		return nil
	}
	privateNames(files, dups, t.priv)
	clear(kept)
	var dropped []Duplicate
	for _, fr := range files {
		out := fr.decls[:0]
		for _, d := range fr.decls {
			name := d.row.Name
			k := kept[name]
			if e := t.names[name]; k == nil && e != nil && e.decl != nil && e.decl != d && e.decl.row.Name == name {
				k = e.decl
			}
			if k != nil {
				dropped = append(dropped, Duplicate{Name: name, Kind: d.row.Kind, Path: d.row.Path, Line: d.row.LineStart,
					Origin: nameOrigin(d), KeptOrigin: nameOrigin(k), KeptPath: k.row.Path, KeptLine: k.row.LineStart})
				continue
			}
			kept[name] = d
			out = append(out, d)
		}
		clear(fr.decls[len(out):])
		fr.decls = out
	}
	return dropped
}

// privateNames renames the private declarations whose name another row
// has (dups) to the name Lean gives them, _private.<module>.0.<name>: two
// modules may each declare a private lbp, and both are Lean declarations.
// References from their own module follow the rename (a private name is
// not visible elsewhere).
func privateNames(files []*fileResult, dups map[string]bool, priv []bitset) {
	for mi, fr := range files {
		var renamed map[string]string
		for _, d := range fr.decls {
			if dups[d.row.Name] && isPrivate(d) {
				if renamed == nil {
					renamed = map[string]string{}
				}
				p := privateName(fr.mod.Name, d.row.Name)
				renamed[d.row.Name] = p
				d.row.Name = p
			}
		}
		if renamed == nil {
			continue
		}
		renameDeps(fr, renamed)
		// modules that `import all` this one refer to its private rows too
		for j, other := range files {
			if j != mi && j < len(priv) && priv[j].has(int32(mi)) {
				seen := maps.Clone(renamed)
				for _, d := range other.decls { // its own private row of the name wins
					for n := range renamed {
						if d.row.Name == n || d.row.Name == privateName(other.mod.Name, n) {
							delete(seen, n)
						}
					}
				}
				renameDeps(other, seen)
			}
		}
	}
}

// renameDeps rewrites a file's references to renamed rows.
func renameDeps(fr *fileResult, renamed map[string]string) {
	for _, d := range fr.decls {
		for _, deps := range [][]string{d.row.StatementDeps, d.row.ProofDeps} {
			for i, dep := range deps {
				if p, ok := renamed[dep]; ok {
					deps[i] = p
				}
			}
		}
		if g := d.row.GeneratedFrom; g != nil && renamed[*g] != "" {
			d.row.GeneratedFrom = strp(renamed[*g])
		}
	}
}

// privateName is Lean's name of a private declaration name of module mod
// (Lean.mkPrivateName: _private.<module>.0.<name>, as Name.toString
// prints it).
func privateName(mod, name string) string {
	return "_private." + mod + ".0." + name
}

// nameOrigin tells how a row was named: "written" in the source, an
// anonymous "instance" (named by nameInstances), a to_additive/to_dual
// "twin", or another "generated" row (projections, simps lemmas, …).
func nameOrigin(d *pdecl) string {
	switch {
	case d.inst != nil:
		return "instance"
	case d.twinOf != nil:
		return "twin"
	case d.row.GeneratedFrom != nil:
		return "generated"
	}
	return "written"
}
