package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// The flags several commands share are declared here, once each, so that
// the same flag means the same thing (and is explained alike) everywhere:
// stageFlags (--ws, --quiet, --force, --json), rankFlags (the ranking
// flags of every command that queries an index), headerFlags (--header,
// --header-file of the Lean commands). Flags of one command live in its
// options struct, in its cmd_<verb>.go.

// stageFlags are the flags every stage spells alike: --ws, --quiet (no
// progress display), --force (replace outputs the workspace's manifest does
// not know, on stages that write) and --json (the stage's report as JSON
// on stdout instead of text). A command registers the ones it has with
// AddFlags.
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
func (s *stageFlags) requireWS() error {
	if s.WS == "" {
		return usagef("--ws is required")
	}
	return nil
}

// noArgs is the usage error of a command given positional arguments it
// does not take.
func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
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

// rankFlags are the ranking flags of the commands that run queries against
// an index (search, eval retrieval, eval search, drift): one definition
// each, so the same flag ranks alike in each; a command picks the ones it
// has (AddFlags' which).
type rankFlags struct {
	mode, weights, engine string
	allKinds, noHead      bool
	// embedURL is --embed-base-url: the embeddings endpoint of the query
	// encoder ("": the one the index was built with).
	embedURL string
	// profile is --profile (AddProfileFlag); nil: no such flag, premise
	// retrieval.
	profile *string
	// vocab is --vocabulary: an opt-in phrase table for theorem search.
	vocab string
}

// Which ranking flags a command has.
const (
	rankMode = 1 << iota
	rankAllKinds
	rankWeights
	rankEngine
	rankNoHead
	rankEmbedURL
	rankVocab
	rankAll = rankMode | rankAllKinds | rankWeights | rankEngine | rankNoHead | rankEmbedURL | rankVocab
)

// AddProfileFlag registers --profile with its default: "auto" where a user
// searches (search), "premise" where dependency retrieval is measured
// (eval retrieval).
func (q *rankFlags) AddProfileFlag(fs *flag.FlagSet, def, usage string) {
	q.profile = fs.String("profile", def, usage)
}

// AddFlags registers the flags in which: --mode, --all-kinds, --weights,
// --bm25-engine and --no-head.
func (q *rankFlags) AddFlags(fs *flag.FlagSet, which int) {
	q.mode, q.engine = string(index.ModeBest), "mem" // the defaults of a command without the flag
	if which&rankMode != 0 {
		fs.StringVar(&q.mode, "mode", string(index.ModeBest), "dense, bm25, hybrid (RRF of both) or best")
	}
	if which&rankAllKinds != 0 {
		fs.BoolVar(&q.allKinds, "all-kinds", false, "rank theorems and instances too")
	}
	if which&rankWeights != 0 {
		fs.StringVar(&q.weights, "weights", "", "JSON weights for mode best, or @FILE (advanced; unknown keys are refused)")
	}
	if which&rankEngine != 0 {
		fs.StringVar(&q.engine, "bm25-engine", "mem", "BM25 engine: mem (in-memory postings, fast) or bleve (the bleve index)")
	}
	if which&rankNoHead != 0 {
		fs.BoolVar(&q.noHead, "no-head", false, "ignore the workspace's trained projection head (WS/head): raw dense scores")
	}
	if which&rankEmbedURL != 0 {
		addEmbedURLFlag(fs, &q.embedURL)
	}
	if which&rankVocab != 0 {
		addVocabularyFlag(fs, &q.vocab)
	}
}

// addVocabularyFlag registers --vocabulary, theorem search's opt-in phrase
// table.
func addVocabularyFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "vocabulary", "", "theorem search: JSON phrase table (everyday words → library words) added to each query;\n"+
		"opt-in, none by default (testdata/search/vocabulary-everyday.json is one written for Mathlib)")
}

// loadVocabulary reads --vocabulary ("": none).
func loadVocabulary(path string) (*retrieval.Vocabulary, error) {
	if path == "" {
		return nil, nil
	}
	return retrieval.LoadVocabulary(path)
}

// addEmbedURLFlag registers --embed-base-url, the query encoder's endpoint.
func addEmbedURLFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "embed-base-url", "", "embeddings endpoint for queries of an index built with --encoder openai (default: the one recorded in the index manifest; OPENAI_API_KEY is sent only if it is OPENAI_BASE_URL's host)")
}

// queryOptions are the parsed ranking flags.
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
	// Open opens the index the way these queries need it, with the query
	// encoder's endpoint EmbedURL ("": the recorded one).
	Open     index.OpenOptions
	EmbedURL string
	// Vocabulary is --vocabulary loaded (nil: none).
	Vocabulary *retrieval.Vocabulary
}

// checkEngine refuses a --bm25-engine other than mem and bleve.
func (q *rankFlags) checkEngine() error {
	if q.engine != "mem" && q.engine != "bleve" {
		return fmt.Errorf("%w: --bm25-engine %q (mem or bleve)", errUsage, q.engine)
	}
	return nil
}

// openOptions are the index options of these flags for queries that need
// dense vectors or not.
func (q *rankFlags) openOptions(noDense bool) index.OpenOptions {
	return index.OpenOptions{NoDense: noDense, BleveBM25: q.engine == "bleve", NoHead: q.noHead}
}

// resolve checks the flags' values; a bad one is a usage error naming it.
func (q *rankFlags) resolve() (queryOptions, error) {
	if err := q.checkEngine(); err != nil {
		return queryOptions{}, err
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
	v, err := loadVocabulary(q.vocab)
	if err != nil {
		return queryOptions{}, err
	}
	return queryOptions{Mode: m, Profile: prof, Weights: w, AllKinds: q.allKinds, weights: q.weights,
		Open: q.openOptions(m == index.ModeBM25), EmbedURL: q.embedURL, Vocabulary: v}, nil
}

// weightsFor reads --weights over profile p's defaults (nil: none given).
func (o queryOptions) weightsFor(p retrieval.Profile) (*index.Weights, error) {
	return parseWeights(o.weights, p)
}

// parseWeights reads a --weights JSON object (or @FILE) over profile p's
// defaults.
func parseWeights(s string, p retrieval.Profile) (*index.Weights, error) {
	if s == "" {
		return nil, nil
	}
	w := retrieval.ProfileWeights(p)
	if strings.HasPrefix(s, "@") {
		b, err := os.ReadFile(s[1:])
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	// An unknown key (a misspelt signal) would silently keep its default.
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%w: --weights: %v (known: %s)", errUsage, strings.TrimPrefix(err.Error(), "json: "), strings.Join(weightKeys(), ", "))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: --weights: text after the JSON object", errUsage)
	}
	return &w, nil
}

// weightKeys are the JSON names of retrieval.Weights' fields.
func weightKeys() []string {
	var keys []string
	t := reflect.TypeOf(retrieval.Weights{})
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// parseKinds checks a --kinds list (comma-separated declaration kinds).
func parseKinds(s string) ([]string, error) {
	ks := splitList(s)
	for _, k := range ks {
		if !workspace.IsKind(k) {
			return nil, fmt.Errorf("%w: --kinds: unknown kind %q (one of %s)", errUsage, k, strings.Join(workspace.Kinds(), ", "))
		}
	}
	return ks, nil
}

// splitList splits a comma-separated flag value, dropping empty fields.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	*l = append(*l, splitList(s)...)
	return nil
}

// multiFlag collects a repeatable string flag (values kept whole).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// headerFlags are --header and --header-file of the Lean commands: a Lean
// header given as text or read from a file.
type headerFlags struct {
	text, file string
}

// AddFlags registers --header (with its help, which says what the header
// is for) and --header-file.
func (h *headerFlags) AddFlags(fs *flag.FlagSet, usage string) {
	fs.StringVar(&h.text, "header", "", usage)
	fs.StringVar(&h.file, "header-file", "", "read --header from this file")
}

// read is --header or the contents of --header-file.
func (h *headerFlags) read() (string, error) {
	if h.file == "" {
		return h.text, nil
	}
	if h.text != "" {
		return "", fmt.Errorf("%w: --header and --header-file exclude each other", errUsage)
	}
	b, err := os.ReadFile(h.file)
	return string(b), err
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

// libraryFlags are --library and --revision of the importers of
// elaborated exports (import jixia, import lean4export): what the rows
// record as their library and revision.
type libraryFlags struct {
	Library, Revision string
}

// AddFlags registers --library and --revision.
func (l *libraryFlags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&l.Library, "library", "", "library name of the rows")
	fs.StringVar(&l.Revision, "revision", "", "revision of the library")
}

// revision is the revision an importer records: the one given, or
// extract.UnknownRevision with a warning — never "", which a later bump
// would take for a match (extract does the same for sources without git).
func (l *libraryFlags) revision(env *Env) string {
	if strings.TrimSpace(l.Revision) != "" {
		return l.Revision
	}
	fmt.Fprintf(env.Stderr, "warning: no --revision given: the rows record revision %q\n", extract.UnknownRevision)
	return extract.UnknownRevision
}

// paramFlag collects repeatable key=value settings.
type paramFlag map[string]string

func (p *paramFlag) String() string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(*p)) {
		kv = append(kv, k+"="+(*p)[k])
	}
	return strings.Join(kv, ",")
}

func (p *paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("%q: want key=value", s)
	}
	if *p == nil {
		*p = paramFlag{}
	}
	(*p)[strings.TrimSpace(k)] = v
	return nil
}

// jsonLinesFile is a JSON-lines output (--per-item): written beside its
// destination and put in place by Commit, after the command succeeded;
// Abort (deferred) drops it otherwise. A nil *jsonLinesFile (no such
// flag given) does nothing.
type jsonLinesFile struct {
	f   *workspace.AtomicFile
	enc *json.Encoder
}

// createJSONLines starts the output at path (nil when path is "").
func createJSONLines(path string) (*jsonLinesFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := workspace.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &jsonLinesFile{f: f, enc: json.NewEncoder(f)}, nil
}

// Encode writes v as one line.
func (j *jsonLinesFile) Encode(v any) error { return j.enc.Encode(v) }

// Commit puts the file in place.
func (j *jsonLinesFile) Commit() error {
	if j == nil {
		return nil
	}
	return j.f.Commit()
}

// Abort drops the file unless it was committed.
func (j *jsonLinesFile) Abort() {
	if j != nil {
		j.f.Abort()
	}
}

// cpuProfile starts a CPU profile (pprof) into path ("": none); stop ends
// it and closes the file.
func cpuProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// flagNeed is a group of flags that only matter under one condition (the
// augmentation flags with --augment, --weights with --mode best): given
// without it they would be silently ignored, and a user who typed them
// believes they took effect. newCommand refuses them as a usage error.
type flagNeed struct {
	flags []string // names, without dashes
	holds bool     // whether the condition holds
	needs string   // the condition as the user writes it ("--augment")
}

// dependentFlags is implemented by the options of a command with such
// flags. flagNeeds sees the parsed flags before Validate, so that the
// refusal comes first and names the flag; a condition on a value Validate
// would refuse anyway must hold (Validate then names the bad value).
type dependentFlags interface {
	flagNeeds() []flagNeed
}

// checkFlagNeeds refuses the flags given on the command line whose
// condition does not hold, naming them all for the first such condition.
func checkFlagNeeds(fs *flag.FlagSet, needs []flagNeed) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, n := range needs {
		if n.holds {
			continue
		}
		var given []string
		for _, name := range n.flags {
			if set[name] && !slices.Contains(given, "--"+name) {
				given = append(given, "--"+name)
			}
		}
		switch len(given) {
		case 0:
		case 1:
			return usagef("%s only matters with %s; here it would be ignored", given[0], n.needs)
		default:
			return usagef("%s only matter with %s; here they would be ignored", strings.Join(given, ", "), n.needs)
		}
	}
	return nil
}

// flagsAdded runs register and returns the names of the flags it added to
// fs (a client's flags registered by its package, for a flagNeed).
func flagsAdded(fs *flag.FlagSet, register func()) []string {
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	register()
	var added []string
	fs.VisitAll(func(f *flag.Flag) {
		if !before[f.Name] {
			added = append(added, f.Name)
		}
	})
	return added
}

// needs are the ranking flags that only matter in some modes: --profile,
// --weights and --vocabulary steer mode best's fusion alone;
// --embed-base-url concerns dense vectors, which mode bm25 never reads;
// --bm25-engine picks the BM25 engine, which mode dense never asks. A
// command without --mode searches in mode best. --no-head is not refused
// in mode bm25: it asks for something not to happen, which holds there
// too, and a script that runs every mode with it (scripts/run.sh, `make
// run`) must not fail on the one without vectors.
func (q *rankFlags) needs() []flagNeed { return modesNeeds([]string{q.mode}) }

// modesNeeds are the ranking flags' needs for a run of every mode in
// modes (eval search takes a list): a flag is accepted when one of them
// uses it. A list with a mode that does not parse accepts them all, so
// that Validate names the bad mode.
func modesNeeds(modes []string) []flagNeed {
	has := map[index.Mode]bool{}
	for _, s := range modes {
		m, err := index.ParseMode(s)
		if err != nil {
			return nil
		}
		has[m] = true
	}
	dense := has[index.ModeDense] || has[index.ModeHybrid] || has[index.ModeBest]
	lexical := has[index.ModeBM25] || has[index.ModeHybrid] || has[index.ModeBest]
	return []flagNeed{
		{flags: []string{"profile", "weights", "vocabulary"}, holds: has[index.ModeBest], needs: "--mode best"},
		{flags: []string{"embed-base-url"}, holds: dense, needs: "--mode dense, hybrid or best"},
		{flags: []string{"bm25-engine"}, holds: lexical, needs: "--mode bm25, hybrid or best"},
	}
}
