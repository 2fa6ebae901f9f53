package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A stage's outputs become visible together or not at all. A stage writes
// every output as a temporary beside its destination (Txn.Create, TempDir,
// Place, or removes one with Remove), then Txn.Commit:
//
//  1. hashes every staged file and writes the commit record
//     (WS/.commit.json: each rename with the sha256 of what it puts in place,
//     and the manifest entry), fsynced, before anything visible changes;
//  2. puts each output in place, keeping the old one as a backup
//     (.<name>.old-…: a hard link for a file, the renamed folder for a
//     folder), then renames the temporary over the destination;
//  3. appends the manifest entry (once: it carries the commit's id);
//  4. removes the backups, then the record.
//
// A run killed during steps 2–4 leaves the record. The next run of any stage
// (Workspace.Lock) and any reader that goes through ReadSnapshot finds it and
// rolls the commit forward (every staged file is intact, or already in
// place: finish the renames, the manifest entry, the cleanup) or back (a
// staged file is missing or damaged: restore every backup), so the
// workspace shows the old outputs or the new ones, never a mix, and no run
// needs --force to get past the crash. Commits (and recoveries) hold
// WS/.commit.lock exclusively; ReadSnapshot holds it shared while a reader
// opens its files, so such a reader never sees a commit half done.

const (
	commitRecordFile = ".commit.json"
	commitLockName   = "commit"
	commitFormat     = "driftkit-commit/1"
)

// ErrCrash, wrapped by an error a CommitHook returns, stops a commit dead at
// that step, as if the process had been killed there: nothing is cleaned up
// or rolled back. Fault-injection tests use it; the next Recover repairs.
var ErrCrash = errors.New("simulated crash")

// ErrPendingCommit is wrapped when a killed run left a commit half done and
// the caller cannot finish it (no write access to the workspace).
var ErrPendingCommit = errors.New("a killed run left a commit half done")

// CommitStep names one step of a commit, for fault injection
// (Workspace.CommitHook).
type CommitStep struct {
	// N counts the steps of this commit from 0.
	N int
	// Name is "record", "backup", "place", "remove", "manifest",
	// "cleanup" or "unrecord".
	Name string
	// Path is the workspace-relative destination the step is about.
	Path string
}

func (s CommitStep) String() string { return fmt.Sprintf("%d:%s %s", s.N, s.Name, s.Path) }

// commitOp is one change a commit makes. Paths are workspace-relative, with
// slashes.
type commitOp struct {
	Op     string `json:"op"` // "replace" or "remove"
	Src    string `json:"src,omitempty"`
	Dest   string `json:"dest"`
	Backup string `json:"backup"`
	Dir    bool   `json:"dir,omitempty"`
	// HadOld: dest existed when the commit started (so it has a backup once
	// the op has begun).
	HadOld bool   `json:"had_old,omitempty"`
	SHA256 string `json:"sha256,omitempty"` // of a file
	Bytes  int64  `json:"bytes,omitempty"`
	// Files lists every file of a folder (paths relative to it).
	Files []FileRef `json:"files,omitempty"`
}

// commitRecord is WS/.commit.json.
type commitRecord struct {
	Format string     `json:"format"`
	ID     string     `json:"id"`
	Stage  string     `json:"stage"`
	Ops    []commitOp `json:"ops"`
	Run    Run        `json:"run"`
}

// Txn collects a stage run's outputs and makes them visible together (see
// the package comment above). A Txn is not safe for concurrent use; always
// call Commit or Abort (Abort after Commit is a no-op). The stage must hold
// its workspace locks (Workspace.Lock) from Begin to Commit.
type Txn struct {
	ws      *Workspace
	stage   string
	id      string
	ops     []*commitOp
	files   map[*AtomicFile]*commitOp
	ready_  map[*AtomicFile]bool
	outputs []txnOutput
	scratch []string
	state   txnState
}

type txnOutput struct {
	rel  string
	rows int64
}

type txnState int

const (
	txnOpen txnState = iota
	txnDone
	txnAborted
	txnCrashed
)

// Begin starts a transaction for a run of stage.
func (w *Workspace) Begin(stage string) *Txn {
	return &Txn{ws: w, stage: stage, id: tempID(), files: map[*AtomicFile]*commitOp{}, ready_: map[*AtomicFile]bool{}}
}

func tempID() string {
	n := tempName("x") // ".x.tmp-<owner>-<random>"
	return strings.TrimPrefix(n, ".x.tmp-")
}

// ID identifies the transaction; the manifest entry it writes carries it.
func (t *Txn) ID() string { return t.id }

func (t *Txn) rel(path string) (string, error) {
	r := t.ws.rel(path)
	if filepath.IsAbs(r) || r == ".." || strings.HasPrefix(r, "../") {
		return "", fmt.Errorf("dataset: %s is outside the workspace %s", path, t.ws.Dir)
	}
	return r, nil
}

func (t *Txn) add(op *commitOp) error {
	if t.state != txnOpen {
		return errors.New("dataset: transaction already finished")
	}
	for _, o := range t.ops {
		if o.Dest == op.Dest {
			return fmt.Errorf("dataset: %s staged twice in one transaction", op.Dest)
		}
	}
	t.ops = append(t.ops, op)
	return nil
}

// Create starts the workspace file rel (0644 minus the umask); it replaces rel
// when the transaction commits. Its Commit completes the file; its Abort
// drops it from the transaction.
func (t *Txn) Create(rel string) (*AtomicFile, error) { return t.CreateMode(rel, 0o644) }

// CreateMode is Create with the given permissions (minus the umask).
func (t *Txn) CreateMode(rel string, perm fs.FileMode) (*AtomicFile, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	af, err := createAtomic(t.ws.Path(rel), perm)
	if err != nil {
		return nil, err
	}
	src, err := t.rel(af.Name())
	if err == nil {
		err = t.add(&commitOp{Op: "replace", Src: src, Dest: rel})
	}
	if err != nil {
		af.Abort()
		return nil, err
	}
	af.txn = t
	t.files[af] = t.ops[len(t.ops)-1]
	return af, nil
}

// WriteFile stages data as the new content of rel.
func (t *Txn) WriteFile(rel string, data []byte) error {
	f, err := t.Create(rel)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return &FileError{Path: t.ws.Path(rel), Row: -1, Err: err}
	}
	return f.Commit()
}

func (t *Txn) ready(af *AtomicFile) { t.ready_[af] = true }

func (t *Txn) dropFile(af *AtomicFile) {
	op := t.files[af]
	delete(t.files, af)
	delete(t.ready_, af)
	if i := slices.Index(t.ops, op); i >= 0 {
		t.ops = slices.Delete(t.ops, i, i+1)
	}
}

// TempDir makes a folder beside the workspace folder rel that replaces rel as
// a whole when the transaction commits (files in rel that the new folder
// lacks disappear). Fill it with ordinary writes.
func (t *Txn) TempDir(rel string) (string, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	p, err := MkdirTemp(t.ws.Path(rel))
	if err != nil {
		return "", &FileError{Path: t.ws.Path(rel), Row: -1, Err: unwrapPath(err)}
	}
	src, err := t.rel(p)
	if err == nil {
		err = t.add(&commitOp{Op: "replace", Src: src, Dest: rel, Dir: true})
	}
	if err != nil {
		os.RemoveAll(p)
		return "", err
	}
	return p, nil
}

// Place stages a complete file or folder written elsewhere in the workspace
// (same file system) as the new rel. The transaction owns src from now on:
// it is renamed at commit and removed by Abort.
func (t *Txn) Place(src, rel string) error {
	s, err := t.rel(src)
	if err != nil {
		return err
	}
	return t.add(&commitOp{Op: "replace", Src: s, Dest: filepath.ToSlash(filepath.Clean(rel))})
}

// Scratch makes a temporary folder beside the workspace path rel for files
// that will be Placed. The transaction removes it when it ends (a killed
// run's is removed by the next run, see Workspace.CleanTemporaries).
func (t *Txn) Scratch(rel string) (string, error) {
	p, err := MkdirTemp(t.ws.Path(rel))
	if err != nil {
		return "", &FileError{Path: t.ws.Path(rel), Row: -1, Err: unwrapPath(err)}
	}
	t.scratch = append(t.scratch, p)
	return p, nil
}

func (t *Txn) removeScratch() {
	for _, p := range t.scratch {
		os.RemoveAll(p)
	}
}

// Remove deletes the workspace file or folder rel when the transaction
// commits (nothing happens if it does not exist).
func (t *Txn) Remove(rel string) error {
	return t.add(&commitOp{Op: "remove", Dest: filepath.ToSlash(filepath.Clean(rel))})
}

// Output lists a staged file (or a file inside a staged folder) among the
// outputs of the manifest entry, with its row count (0 for non-tables). Its
// hash is taken from the staged content.
func (t *Txn) Output(rel string, rows int64) {
	t.outputs = append(t.outputs, txnOutput{filepath.ToSlash(filepath.Clean(rel)), rows})
}

// Abort discards everything staged; the workspace keeps its old outputs.
func (t *Txn) Abort() {
	if t.state != txnOpen {
		return
	}
	t.state = txnAborted
	for af := range t.files {
		af.txn = nil
		af.Abort()
	}
	for _, op := range t.ops {
		if op.Src != "" {
			os.RemoveAll(t.ws.Path(op.Src))
		}
	}
	t.removeScratch()
}

// Commit puts every staged output in place and appends rec's entry (with the
// outputs listed by Output) to the manifest, as one step that a crash cannot
// split. On an error the old outputs are back in place (or, if the process
// dies, the next run puts them back or finishes the commit).
func (t *Txn) Commit(rec *RunRecorder) error {
	if t.state != txnOpen {
		return errors.New("dataset: transaction already finished")
	}
	for af, op := range t.files {
		if !t.ready_[af] {
			t.Abort()
			return fmt.Errorf("dataset: %s was not completed before the commit", op.Dest)
		}
	}
	r, err := t.prepare(rec)
	if err != nil {
		t.Abort()
		return err
	}
	unlock, err := t.ws.commitLock(syscall.LOCK_EX)
	if err != nil {
		t.Abort()
		return err
	}
	defer unlock()
	err = t.ws.apply(r, t.ws.CommitHook)
	switch {
	case err == nil:
		t.state = txnDone
		t.removeScratch()
		return nil
	case errors.Is(err, ErrCrash):
		t.state = txnCrashed
		return err
	}
	var done *committedError
	if errors.As(err, &done) {
		// In place and recorded; only the cleanup failed, and the next
		// run's Recover finishes it.
		t.state = txnDone
		t.removeScratch()
		return nil
	}
	t.state = txnAborted
	defer t.removeScratch()
	if rerr := t.ws.rollBack(r); rerr != nil {
		return fmt.Errorf("%w (rolling back failed too: %v; the next run of any stage finishes it)", err, rerr)
	}
	os.Remove(t.ws.Path(commitRecordFile))
	return err
}

// prepare hashes the staged outputs and builds the commit record.
func (t *Txn) prepare(rec *RunRecorder) (*commitRecord, error) {
	r := &commitRecord{Format: commitFormat, ID: t.id, Stage: t.stage}
	hashes := map[string]FileRef{} // dest-relative path → ref
	for _, op := range t.ops {
		dest := t.ws.Path(op.Dest)
		op.Backup = backupName(op.Dest, t.id)
		_, err := os.Lstat(dest)
		op.HadOld = err == nil
		if op.Op == "remove" {
			continue
		}
		src := t.ws.Path(op.Src)
		fi, err := os.Lstat(src)
		if err != nil {
			return nil, fmt.Errorf("dataset: staged %s: %w", op.Dest, err)
		}
		op.Dir = fi.IsDir()
		if op.Dir {
			files, err := hashTree(src)
			if err != nil {
				return nil, err
			}
			op.Files = files
			for _, f := range files {
				hashes[op.Dest+"/"+f.Path] = f
			}
		} else {
			sum, n, err := HashFile(src)
			if err != nil {
				return nil, err
			}
			op.SHA256, op.Bytes = sum, n
			hashes[op.Dest] = FileRef{SHA256: sum, Bytes: n}
		}
	}
	for _, op := range t.ops {
		r.Ops = append(r.Ops, *op)
	}
	var run Run
	if rec != nil {
		run = rec.run
		run.Inputs = slices.Clone(run.Inputs)
		run.Outputs = slices.Clone(run.Outputs)
		run.WallSeconds = time.Since(rec.start).Seconds()
	} else {
		run = Run{Stage: t.stage, StartedAt: time.Now().UTC()}
	}
	if run.ToolVersion == "" {
		run.ToolVersion = Version
	}
	run.Commit = t.id
	for _, o := range t.outputs {
		ref, ok := hashes[o.rel]
		if !ok {
			return nil, fmt.Errorf("dataset: output %s is not staged in this transaction", o.rel)
		}
		ref.Path, ref.Rows = o.rel, o.rows
		run.Outputs = append(run.Outputs, ref)
	}
	r.Run = run
	return r, nil
}

// backupName is where a commit keeps the old version of the workspace path
// dest: .<name>.old-<commit id> beside it.
func backupName(dest, id string) string {
	dir, base := path.Split(dest)
	return dir + "." + base + ".old-" + id
}

// HashFile is the hex SHA-256 and the size of the file at path: the one way
// a file's identity is computed (manifest references, commit records, index
// generations' file sums). A read error is a *FileError naming the file.
func HashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, &FileError{Path: path, Row: -1, Err: err}
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// hashTree lists every regular file under dir with its hash, in path order.
func hashTree(dir string) ([]FileRef, error) {
	var out []FileRef
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		sum, n, err := HashFile(p)
		if err != nil {
			return err
		}
		out = append(out, FileRef{Path: filepath.ToSlash(rel), SHA256: sum, Bytes: n})
		return nil
	})
	return out, err
}

// committedError reports a failure after the manifest entry was written: the
// commit took effect, only its cleanup is left for the next Recover.
type committedError struct{ err error }

func (e *committedError) Error() string { return e.err.Error() }
func (e *committedError) Unwrap() error { return e.err }

// commitLock takes WS/.commit.lock (LOCK_EX or LOCK_SH), waiting for it.
func (w *Workspace) commitLock(how int) (func(), error) {
	f, err := w.flockFile(commitLockName, how)
	if err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// apply carries out a commit: record, renames, manifest, cleanup. hook, if
// set, runs before every step.
func (w *Workspace) apply(r *commitRecord, hook func(CommitStep) error) error {
	n := 0
	step := func(name, path string) error {
		if hook == nil {
			return nil
		}
		err := hook(CommitStep{N: n, Name: name, Path: path})
		n++
		return err
	}
	if err := step("record", commitRecordFile); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(w.Path(commitRecordFile), append(b, '\n')); err != nil {
		return err
	}
	dirs := map[string]bool{}
	for i := range r.Ops {
		op := &r.Ops[i]
		dirs[filepath.Dir(w.Path(op.Dest))] = true
		if op.HadOld {
			name := "backup"
			if op.Op == "remove" {
				name = "remove"
			}
			if err := step(name, op.Dest); err != nil {
				return err
			}
			if err := w.backup(op); err != nil {
				return err
			}
		}
		if op.Op == "replace" {
			if err := step("place", op.Dest); err != nil {
				return err
			}
			if err := os.Rename(w.Path(op.Src), w.Path(op.Dest)); err != nil {
				return &FileError{Path: w.Path(op.Dest), Row: -1, Err: fmt.Errorf("cannot put the new version in place: %w", unwrapPath(err))}
			}
		}
	}
	for d := range dirs {
		syncDir(d)
	}
	if err := step("manifest", ManifestFile); err != nil {
		return err
	}
	if err := w.recordOnce(r.Run); err != nil {
		return err
	}
	if err := step("cleanup", ""); err != nil {
		if errors.Is(err, ErrCrash) {
			return err
		}
		return &committedError{err}
	}
	w.removeBackups(r)
	if err := step("unrecord", commitRecordFile); err != nil {
		if errors.Is(err, ErrCrash) {
			return err
		}
		return &committedError{err}
	}
	if err := os.Remove(w.Path(commitRecordFile)); err != nil {
		return &committedError{err}
	}
	syncDir(w.Dir)
	return nil
}

// backup keeps the old version of op.Dest at op.Backup: a hard link to a
// file that the rename will replace (the destination stays readable
// throughout), or the renamed file or folder itself.
func (w *Workspace) backup(op *commitOp) error {
	dest, bak := w.Path(op.Dest), w.Path(op.Backup)
	if exists(bak) {
		return nil // an earlier attempt made it
	}
	if !exists(dest) {
		return nil
	}
	if op.Op == "replace" && !op.Dir {
		if fi, err := os.Lstat(dest); err == nil && fi.Mode().IsRegular() {
			if err := os.Link(dest, bak); err == nil {
				return nil
			}
		}
	}
	if err := os.Rename(dest, bak); err != nil {
		return &FileError{Path: dest, Row: -1, Err: fmt.Errorf("cannot set the old version aside: %w", unwrapPath(err))}
	}
	return nil
}

func (w *Workspace) removeBackups(r *commitRecord) {
	for _, op := range r.Ops {
		os.RemoveAll(w.Path(op.Backup))
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// recordOnce appends run to the manifest unless an entry of the same commit
// is there already (a recovery after the append).
func (w *Workspace) recordOnce(run Run) error {
	return w.updateManifest(func(m *Manifest) bool {
		for i := range m.Runs {
			if m.Runs[i].Commit == run.Commit {
				return false
			}
		}
		m.Runs = append(m.Runs, run)
		return true
	})
}

// dropCommit removes the entry of a commit that is being rolled back.
func (w *Workspace) dropCommit(id string) error {
	if m, err := w.ReadManifest(); err == nil && !slices.ContainsFunc(m.Runs, func(r Run) bool { return r.Commit == id }) {
		return nil
	}
	return w.updateManifest(func(m *Manifest) bool {
		n := len(m.Runs)
		m.Runs = slices.DeleteFunc(m.Runs, func(r Run) bool { return r.Commit == id })
		return len(m.Runs) != n
	})
}

// matches reports whether the workspace path holds exactly what op puts
// there.
func (w *Workspace) matches(op *commitOp, path string) bool {
	if op.Dir {
		files, err := hashTree(path)
		if err != nil || len(files) != len(op.Files) {
			return false
		}
		for i := range files {
			if files[i].Path != op.Files[i].Path || files[i].SHA256 != op.Files[i].SHA256 {
				return false
			}
		}
		fi, err := os.Stat(path)
		return err == nil && fi.IsDir()
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != op.Bytes {
		return false
	}
	sum, _, err := HashFile(path)
	return err == nil && sum == op.SHA256
}

// Recover finishes or undoes a commit that a killed run left half done (see
// Txn). It waits for a commit in progress in another process to end. Stages
// call it through Lock; readers through ReadSnapshot.
func (w *Workspace) Recover() error {
	if !w.Has(commitRecordFile) {
		return nil
	}
	unlock, err := w.commitLock(syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	return w.recoverLocked()
}

func (w *Workspace) readRecord() (*commitRecord, error) {
	p := w.Path(commitRecordFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &FileError{Path: p, Row: -1, Err: err}
	}
	r, err := parseCommitRecord(b)
	if err != nil {
		return nil, &FileError{Path: p, Row: -1, Err: err}
	}
	return r, nil
}

// parseCommitRecord reads and checks a commit record: every path must stay
// inside the workspace, so that a damaged record cannot make a recovery
// touch anything else.
func parseCommitRecord(b []byte) (*commitRecord, error) {
	var r commitRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("malformed commit record (%v): check the workspace by hand, then delete it", err)
	}
	if r.Format != commitFormat {
		return nil, fmt.Errorf("commit record format %q, this driftkit reads %q", r.Format, commitFormat)
	}
	if r.ID == "" {
		return nil, errors.New("commit record without an id")
	}
	bad := func(p string) bool {
		return p == "" || filepath.IsAbs(p) || strings.Contains(p, "\\") || slices.Contains(strings.Split(p, "/"), "..") ||
			p == "." || strings.HasPrefix(p, "./") || p == commitRecordFile || p == ManifestFile
	}
	// A recovery renames only temporaries over outputs and an output's old
	// version to its backup name: a damaged record cannot make it move one
	// output over another.
	temporary := func(p string) bool {
		return slices.ContainsFunc(strings.Split(p, "/"), IsTemporary)
	}
	for _, op := range r.Ops {
		switch op.Op {
		case "replace":
			if bad(op.Src) || !temporary(op.Src) {
				return nil, fmt.Errorf("commit record: bad staged path %q", op.Src)
			}
		case "remove":
		default:
			return nil, fmt.Errorf("commit record: unknown operation %q", op.Op)
		}
		if bad(op.Dest) || op.Backup != backupName(op.Dest, r.ID) {
			return nil, fmt.Errorf("commit record: bad path %q or %q", op.Dest, op.Backup)
		}
		for _, f := range op.Files {
			if f.Path == "" || filepath.IsAbs(f.Path) || strings.Contains(f.Path, "\\") || slices.Contains(strings.Split(f.Path, "/"), "..") {
				return nil, fmt.Errorf("commit record: bad path %q in %s", f.Path, op.Dest)
			}
		}
	}
	return &r, nil
}

func (w *Workspace) recoverLocked() error {
	r, err := w.readRecord()
	if err != nil || r == nil {
		return err
	}
	// Forward when every staged output is intact or already in place.
	forward := true
	for i := range r.Ops {
		op := &r.Ops[i]
		if op.Op != "replace" {
			continue
		}
		src := w.Path(op.Src)
		if exists(src) {
			if !w.matches(op, src) {
				forward = false
				break
			}
		} else if !w.matches(op, w.Path(op.Dest)) {
			forward = false
			break
		}
	}
	if forward {
		err = w.rollForward(r)
	} else {
		err = w.rollBack(r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w of stage %q; recovering it failed: %v", w.Path(commitRecordFile), ErrPendingCommit, r.Stage, err)
	}
	if err := os.Remove(w.Path(commitRecordFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	syncDir(w.Dir)
	return nil
}

func (w *Workspace) rollForward(r *commitRecord) error {
	for i := range r.Ops {
		op := &r.Ops[i]
		switch op.Op {
		case "replace":
			src := w.Path(op.Src)
			if !exists(src) {
				continue // in place already
			}
			if op.HadOld {
				if err := w.backup(op); err != nil {
					return err
				}
			}
			if err := os.Rename(src, w.Path(op.Dest)); err != nil {
				return err
			}
		case "remove":
			if op.HadOld {
				if err := w.backup(op); err != nil {
					return err
				}
			}
		}
		syncDir(filepath.Dir(w.Path(op.Dest)))
	}
	if err := w.recordOnce(r.Run); err != nil {
		return err
	}
	w.removeBackups(r)
	return nil
}

// rollBack restores the old outputs: undoes every op in reverse order and
// removes what was staged.
func (w *Workspace) rollBack(r *commitRecord) error {
	for i := len(r.Ops) - 1; i >= 0; i-- {
		op := &r.Ops[i]
		dest, bak := w.Path(op.Dest), w.Path(op.Backup)
		switch op.Op {
		case "replace":
			src := w.Path(op.Src)
			placed := !exists(src) && exists(dest) && (!op.HadOld || exists(bak)) && w.matches(op, dest)
			switch {
			case placed && op.HadOld:
				if op.Dir {
					if err := os.Rename(dest, src); err != nil {
						return err
					}
				}
				if err := os.Rename(bak, dest); err != nil {
					return err
				}
			case placed:
				if err := os.RemoveAll(dest); err != nil {
					return err
				}
			case exists(bak) && !exists(dest):
				if err := os.Rename(bak, dest); err != nil {
					return err
				}
			case exists(bak) && !op.Dir:
				// the hard link made before the rename: dest is still the old file
				os.Remove(bak)
			case exists(bak):
				return fmt.Errorf("%s and its backup %s both exist", dest, bak)
			}
			os.RemoveAll(src)
		case "remove":
			if exists(bak) {
				if exists(dest) {
					os.RemoveAll(bak)
				} else if err := os.Rename(bak, dest); err != nil {
					return err
				}
			}
		}
		syncDir(filepath.Dir(dest))
	}
	return w.dropCommit(r.ID)
}

// ReadSnapshot lets a reader that opens several workspace files at once (an
// index, a head beside it) do so without seeing a commit half done: it waits
// for a commit in progress, finishes one that a killed run left (or reports
// ErrPendingCommit when the workspace is not writable), and holds
// WS/.commit.lock shared until release, so no commit starts meanwhile. Keep
// the window short: open the files, then release (open files stay readable
// after a later commit replaces them).
func ReadSnapshot(wsDir string) (release func(), err error) {
	w := &Workspace{Dir: wsDir}
	for attempt := 0; ; attempt++ {
		f, err := os.Open(w.Path("." + commitLockName + ".lock"))
		if errors.Is(err, os.ErrNotExist) {
			if w.Has(commitRecordFile) {
				return nil, fmt.Errorf("%s: %w; run any stage on this workspace to finish it", w.Path(commitRecordFile), ErrPendingCommit)
			}
			return func() {}, nil // never committed through a Txn
		}
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return nil, err
		}
		release := func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
		if !w.Has(commitRecordFile) {
			return release, nil
		}
		// A record while nobody commits: its run was killed.
		release()
		if attempt > 0 {
			return nil, fmt.Errorf("%s: %w", w.Path(commitRecordFile), ErrPendingCommit)
		}
		if err := w.Recover(); err != nil {
			return nil, fmt.Errorf("%s: %w; finishing it needs write access to the workspace: run any driftkit stage on it (%v)",
				w.Path(commitRecordFile), ErrPendingCommit, err)
		}
	}
}

// IsTemporary reports whether a file name is one of driftkit's temporaries
// (a file or folder being written, or a commit's backup of an old version):
// consumers listing a workspace folder should skip them.
func IsTemporary(name string) bool {
	_, ok := tempOwner(name)
	return ok
}

// CommitInfo describes a commit record that a killed run left behind.
type CommitInfo struct {
	ID, Stage string
	// Files maps every file the commit puts in place (workspace-relative)
	// to its sha256.
	Files map[string]string
	// Replaced lists the files and folders the commit replaces or removes
	// as a whole.
	Replaced []string
}

// PendingCommit returns the commit a killed run left half done in wsDir, or
// nil if there is none. It changes nothing.
func PendingCommit(wsDir string) (*CommitInfo, error) {
	w := &Workspace{Dir: wsDir}
	r, err := w.readRecord()
	if err != nil || r == nil {
		return nil, err
	}
	info := &CommitInfo{ID: r.ID, Stage: r.Stage, Files: map[string]string{}}
	for _, op := range r.Ops {
		info.Replaced = append(info.Replaced, op.Dest)
		switch {
		case op.Op == "remove":
		case op.Dir:
			for _, f := range op.Files {
				info.Files[op.Dest+"/"+f.Path] = f.SHA256
			}
		default:
			info.Files[op.Dest] = op.SHA256
		}
	}
	return info, nil
}

// WriteStagedTable writes all rows as the table rel of a transaction.
func WriteStagedTable[T any](t *Txn, rel string, rows []T) error {
	w, err := NewStagedWriter[T](t, rel)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
