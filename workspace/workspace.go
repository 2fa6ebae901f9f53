package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Version is the tool version recorded in every manifest entry and Parquet
// footer. Release builds set it with -ldflags "-X .../workspace.Version=v1.2.3";
// otherwise the module build info is used.
var Version = buildVersion()

func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if dirty {
				rev += "-dirty"
			}
			return "dev-" + rev
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return "dev"
}

// Fixed names inside a workspace (see DESIGN.md).
const (
	ManifestFile        = "manifest.json"
	DeclarationsFile    = "declarations.parquet"
	ModulesFile         = "modules.parquet"
	NotationsFile       = "notations.parquet"
	InformalFile        = "informal.parquet"
	InformalJournalFile = "informal.journal.jsonl"
	PairsFile           = "pairs.parquet"
	ExportDir           = "export"
	HeadDir             = "head"
	IndexDir            = "index"
)

// ErrForeignOutput is returned when a stage would replace an output file that
// the manifest does not know in its current form (written or edited by hand,
// or by another tool): replacing it silently could lose work.
var ErrForeignOutput = errors.New("output was not written by the recorded stage run")

// ErrNoWorkspace is wrapped when a stage that only reads a workspace is
// given a folder that does not exist.
var ErrNoWorkspace = errors.New("workspace folder does not exist")

// Workspace is a folder of stage inputs and outputs with fixed names.
// Its methods are safe for concurrent use by several processes: manifest
// updates take an exclusive lock.
type Workspace struct {
	Dir string

	// CommitHook, when set, is called before every step of every commit
	// (Txn.Commit) on this workspace value: fault-injection tests fail or
	// crash a commit at each step with it (see ErrCrash). Nil in real runs.
	CommitHook func(CommitStep) error

	mu   sync.Mutex
	held map[string]*heldLock // stage → locks this value holds (Lock)
}

type heldLock struct {
	n       int
	release func()
}

var errNoDir = errors.New("no workspace folder given")

// Open returns the workspace at dir, creating the folder if needed.
func Open(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, errNoDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Workspace{Dir: dir}, nil
}

// OpenExisting returns the workspace at dir, which must already be a folder:
// stages that read their inputs from a workspace use it so that a mistyped
// --ws is reported (as a *FileError wrapping ErrNoWorkspace) instead of
// leaving an empty folder behind.
func OpenExisting(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, errNoDir
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, &FileError{Path: dir, Row: -1, Err: ErrNoWorkspace}
	case err != nil:
		return nil, &FileError{Path: dir, Row: -1, Err: err}
	case !fi.IsDir():
		return nil, &FileError{Path: dir, Row: -1, Err: fmt.Errorf("%w: not a folder", ErrNoWorkspace)}
	}
	return &Workspace{Dir: dir}, nil
}

// Path returns the path of a fixed name inside the workspace.
func (w *Workspace) Path(name ...string) string {
	return filepath.Join(append([]string{w.Dir}, name...)...)
}

// Has reports whether the named file exists in the workspace.
func (w *Workspace) Has(name ...string) bool {
	_, err := os.Stat(w.Path(name...))
	return err == nil
}

// FileRef identifies a file an entry read or wrote.
type FileRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	Rows   int64  `json:"rows,omitempty"`
}

// Run is one manifest entry: one run of one stage.
type Run struct {
	Stage       string             `json:"stage"`
	ToolVersion string             `json:"tool_version"`
	StartedAt   time.Time          `json:"started_at"`
	WallSeconds float64            `json:"wall_seconds"`
	Inputs      []FileRef          `json:"inputs"`
	Outputs     []FileRef          `json:"outputs"`
	Parameters  map[string]any     `json:"parameters,omitempty"`
	RowCounts   map[string]int64   `json:"row_counts,omitempty"`
	Phases      map[string]float64 `json:"phase_seconds,omitempty"`
	Notes       []string           `json:"notes,omitempty"`
	// Commit is the id of the transaction that wrote the outputs (see Txn).
	Commit string `json:"commit,omitempty"`
}

// Manifest is manifest.json: every stage run, oldest first.
type Manifest struct {
	// Format is the manifest's format version (ManifestFormat when this
	// driftkit writes it; absent in manifests written before it existed).
	Format int   `json:"format,omitempty"`
	Runs   []Run `json:"runs"`
}

// ManifestFormat is the manifest format this driftkit reads and writes. A
// driftkit that adds a field to the manifest bumps it.
const ManifestFormat = 1

// ErrNewerManifest is wrapped when manifest.json was written by a newer
// driftkit: a format version above ManifestFormat, or fields this one does
// not know. Reading it would silently drop them at the next Record.
var ErrNewerManifest = errors.New("written by a newer driftkit")

// ReadManifest reads the workspace manifest; a missing one is empty.
func (w *Workspace) ReadManifest() (*Manifest, error) {
	b, err := os.ReadFile(w.Path(ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{Format: ManifestFormat}, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			err = fmt.Errorf("%w (driftkit %s, format %d): it has the field %s this driftkit does not know, which rewriting would drop",
				ErrNewerManifest, Version, ManifestFormat, f)
		}
		return nil, &FileError{Path: w.Path(ManifestFile), Row: -1, Err: err}
	}
	if m.Format > ManifestFormat {
		return nil, &FileError{Path: w.Path(ManifestFile), Row: -1, Err: fmt.Errorf("%w: format %d, this driftkit (%s) reads up to %d",
			ErrNewerManifest, m.Format, Version, ManifestFormat)}
	}
	m.Format = ManifestFormat // what a rewrite writes
	return &m, nil
}

// LastRun returns the newest entry of a stage, or nil.
func (m *Manifest) LastRun(stage string) *Run {
	for i := len(m.Runs) - 1; i >= 0; i-- {
		if m.Runs[i].Stage == stage {
			return &m.Runs[i]
		}
	}
	return nil
}

// lastWrite returns the newest recorded output entry for a workspace-relative path.
func (m *Manifest) lastWrite(rel string) *FileRef {
	for i := len(m.Runs) - 1; i >= 0; i-- {
		for j := range m.Runs[i].Outputs {
			if m.Runs[i].Outputs[j].Path == rel {
				return &m.Runs[i].Outputs[j]
			}
		}
	}
	return nil
}

func (w *Workspace) lock() (func(), error) {
	p := w.Path(".manifest.lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, &FileError{Path: p, Row: -1, Err: fmt.Errorf("cannot take the manifest lock: %w", unwrapPath(err))}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// Record appends a run to the manifest atomically.
func (w *Workspace) Record(run Run) error {
	if run.ToolVersion == "" {
		run.ToolVersion = Version
	}
	return w.updateManifest(func(m *Manifest) bool {
		m.Runs = append(m.Runs, run)
		return true
	})
}

// updateManifest rewrites the manifest under its lock when change reports
// that it changed it.
func (w *Workspace) updateManifest(change func(*Manifest) bool) error {
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := w.ReadManifest()
	if err != nil {
		return err
	}
	if !change(m) {
		return nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(w.Path(ManifestFile), append(b, '\n'))
}

// Ref hashes a workspace file (or any file) for the manifest. Paths inside the
// workspace are recorded relative to it. A relative path that does not start
// with the workspace folder is taken relative to the workspace, not to the
// working directory: give files outside the workspace as absolute paths.
func (w *Workspace) Ref(path string) (FileRef, error) {
	if !filepath.IsAbs(path) && !isUnder(path, w.Dir) {
		path = w.Path(path)
	}
	sum, n, err := HashFile(path)
	if err != nil {
		return FileRef{}, err
	}
	return FileRef{Path: w.rel(path), SHA256: sum, Bytes: n}, nil
}

func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

func (w *Workspace) rel(path string) string {
	absDir, err1 := filepath.Abs(w.Dir)
	absPath, err2 := filepath.Abs(path)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absDir, absPath); err == nil && isUnder(absPath, absDir) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// GuardOutputs refuses to replace outputs that exist but do not match the
// manifest's record of the last write (a hand edit, a file copied in, a run of
// another tool). With force it allows it. Missing outputs are always fine.
func (w *Workspace) GuardOutputs(force bool, names ...string) error {
	if force {
		return nil
	}
	m, err := w.ReadManifest()
	if err != nil {
		return err
	}
	for _, name := range names {
		p := w.Path(name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		rec := m.lastWrite(filepath.ToSlash(name))
		if rec == nil {
			return fmt.Errorf("%s: %w (no manifest entry); pass --force to replace it", p, ErrForeignOutput)
		}
		ref, err := w.Ref(p)
		if err != nil {
			return err
		}
		if ref.SHA256 != rec.SHA256 {
			return fmt.Errorf("%s: %w (changed since the run that wrote it); pass --force to replace it", p, ErrForeignOutput)
		}
	}
	return nil
}

// Stale lists, for each stage's last run, the inputs that changed since: the
// outputs of that run were made from older inputs.
func (w *Workspace) Stale() (map[string][]string, error) {
	m, err := w.ReadManifest()
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	seen := map[string]bool{}
	for i := len(m.Runs) - 1; i >= 0; i-- {
		r := m.Runs[i]
		if seen[r.Stage] {
			continue
		}
		seen[r.Stage] = true
		for _, in := range r.Inputs {
			p := in.Path
			if !filepath.IsAbs(p) {
				p = w.Path(p)
			}
			ref, err := w.Ref(p)
			if err != nil || ref.SHA256 != in.SHA256 {
				out[r.Stage] = append(out[r.Stage], in.Path)
			}
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out, nil
}

// RunRecorder collects what a stage run read and wrote, then records it.
type RunRecorder struct {
	ws    *Workspace
	run   Run
	start time.Time
}

// StartRun begins a manifest entry for stage.
func (w *Workspace) StartRun(stage string, params map[string]any) *RunRecorder {
	now := time.Now()
	return &RunRecorder{ws: w, start: now, run: Run{
		Stage: stage, ToolVersion: Version, StartedAt: now.UTC(),
		Parameters: maps.Clone(params), RowCounts: map[string]int64{}, Phases: map[string]float64{},
	}}
}

// Input records an input file (hashing it now).
func (r *RunRecorder) Input(path string) error {
	ref, err := r.ws.Ref(path)
	if err != nil {
		return err
	}
	r.run.Inputs = append(r.run.Inputs, ref)
	return nil
}

// InputRef records an input that is not a single file (a source tree, say).
func (r *RunRecorder) InputRef(ref FileRef) { r.run.Inputs = append(r.run.Inputs, ref) }

// Output records a written file with its row count (0 for non-tables).
func (r *RunRecorder) Output(path string, rows int64) error {
	ref, err := r.ws.Ref(path)
	if err != nil {
		return err
	}
	ref.Rows = rows
	r.run.Outputs = append(r.run.Outputs, ref)
	return nil
}

// Count sets a row count or any other counter.
func (r *RunRecorder) Count(name string, n int64) { r.run.RowCounts[name] = n }

// Phase records the wall time of a named phase.
func (r *RunRecorder) Phase(name string, d time.Duration) { r.run.Phases[name] += d.Seconds() }

// Note adds a human-readable remark (for example "informal text from the template fallback").
func (r *RunRecorder) Note(s string) { r.run.Notes = append(r.run.Notes, s) }

// Finish writes the entry with its wall time.
func (r *RunRecorder) Finish() error {
	r.run.WallSeconds = time.Since(r.start).Seconds()
	return r.ws.Record(r.run)
}
