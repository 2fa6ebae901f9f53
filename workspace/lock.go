package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Resource is a part of a workspace that stages read and write as a whole:
// the unit of locking.
type Resource string

// The workspace's resources.
const (
	ResTables     Resource = "declarations"         // declarations.parquet, modules.parquet
	ResInformal   Resource = "informal"             // informal.parquet, its journal and failure list
	ResPairs      Resource = "pairs"                // pairs.parquet
	ResIndex      Resource = "index"                // index/
	ResHead       Resource = "head"                 // head/
	ResExportFlag Resource = "export-flagembedding" // export/flagembedding/
	ResExportHF   Resource = "export-hf"            // export/hf/
	ResExportEmb  Resource = "export-embeddings"    // export/embeddings.parquet
)

// Access says what a writing stage reads and writes.
type Access struct {
	Reads, Writes []Resource
}

// stages lists the resources every writing stage reads and writes (StageAccess,
// StageNames). Lock takes
// a shared lock on each read and an exclusive lock on each written resource
// for the whole run, so two stages run at once only when neither writes what
// the other reads or writes: a second writer of a resource, or a stage that
// reads it, is refused (ErrBusy) instead of interleaving with the first
// (train head beside index would leave a head made for the old vectors).
var stages = map[string]Access{
	"extract":              {Writes: []Resource{ResTables}},
	"import rauto":         {Writes: []Resource{ResTables, ResInformal}},
	"import jixia":         {Writes: []Resource{ResTables}},
	"import lean4export":   {Writes: []Resource{ResTables}},
	"informalize":          {Reads: []Resource{ResTables}, Writes: []Resource{ResInformal}},
	"index":                {Reads: []Resource{ResTables, ResInformal, ResHead}, Writes: []Resource{ResIndex}},
	"mine":                 {Reads: []Resource{ResTables, ResInformal, ResIndex}, Writes: []Resource{ResPairs}},
	"train head":           {Reads: []Resource{ResPairs}, Writes: []Resource{ResHead, ResIndex}},
	"export flagembedding": {Reads: []Resource{ResTables, ResInformal, ResPairs}, Writes: []Resource{ResExportFlag}},
	"export hf":            {Reads: []Resource{ResTables, ResInformal, ResPairs}, Writes: []Resource{ResExportHF}},
	"export embeddings":    {Reads: []Resource{ResTables, ResIndex}, Writes: []Resource{ResExportEmb}},
}

// StageAccess is what the writing stage reads and writes (false: no such
// stage).
func StageAccess(stage string) (Access, bool) {
	a, ok := stages[stage]
	return Access{Reads: slices.Clone(a.Reads), Writes: slices.Clone(a.Writes)}, ok
}

// StageNames lists the writing stages, sorted.
func StageNames() []string { return slices.Sorted(maps.Keys(stages)) }

// ErrBusy is wrapped when another run holds a lock a stage needs.
var ErrBusy = errors.New("workspace busy: another run holds its lock")

// users lists the stages that read or write r, for error messages.
func users(r Resource) string {
	var out []string
	for s, a := range stages {
		if slices.Contains(a.Reads, r) || slices.Contains(a.Writes, r) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// flockFile takes a flock on WS/.<name>.lock without waiting.
func (w *Workspace) flockFile(name string, how int) (*os.File, error) {
	p := w.Path("." + name + ".lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, &FileError{Path: p, Row: -1, Err: fmt.Errorf("cannot take the workspace lock: %w", unwrapPath(err))}
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lockResources takes shared locks on reads and exclusive locks on writes.
func (w *Workspace) lockResources(stage string, a Access) (func(), error) {
	var held []*os.File
	release := func() {
		for _, f := range held {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
	take := func(r Resource, how int) error {
		f, err := w.flockFile(string(r), how|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			what := "read"
			if how == syscall.LOCK_EX {
				what = "write"
			}
			return fmt.Errorf("%s: %w %q: %s cannot %s it while another run uses it (stages using it: %s); wait for that run to finish",
				w.Dir, ErrBusy, string(r), stage, what, users(r))
		}
		if err != nil {
			return err
		}
		held = append(held, f)
		return nil
	}
	for _, r := range a.Writes {
		if err := take(r, syscall.LOCK_EX); err != nil {
			release()
			return nil, err
		}
	}
	for _, r := range a.Reads {
		if slices.Contains(a.Writes, r) {
			continue
		}
		if err := take(r, syscall.LOCK_SH); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// Lock starts a writing stage (one of StageNames): it takes the stage's locks
// without waiting (ErrBusy if another run holds a conflicting one), finishes
// or undoes a commit that a killed run left half done (see Txn), and removes
// temporaries that dead runs left behind. The locks are released by unlock
// or when the process exits. Every writing stage calls it first.
//
// Lock is re-entrant on one Workspace value: a caller that locks the stage
// before opening its inputs (the command line opens the index before mine
// runs) can pass the workspace to the stage, which locks it again at no
// cost; the locks go when every unlock has been called.
func (w *Workspace) Lock(stage string) (unlock func(), err error) {
	a, ok := stages[stage]
	if !ok {
		return nil, fmt.Errorf("dataset: Lock: unknown stage %q", stage)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.held[stage]; h != nil {
		h.n++
		return w.unlocker(stage, h), nil
	}
	release, err := w.lockResources(stage, a)
	if err != nil {
		return nil, err
	}
	if err := w.Recover(); err != nil {
		release()
		return nil, err
	}
	// What this run locks, shared or not, no other run is writing.
	w.CleanTemporaries(append(slices.Clone(a.Writes), a.Reads...))
	h := &heldLock{n: 1, release: release}
	if w.held == nil {
		w.held = map[string]*heldLock{}
	}
	w.held[stage] = h
	return w.unlocker(stage, h), nil
}

func (w *Workspace) unlocker(stage string, h *heldLock) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if h.n--; h.n == 0 {
				h.release()
				delete(w.held, stage)
			}
		})
	}
}

// TryLock takes the exclusive lock of one resource (a Resource name, such as
// "index") without waiting: a second holder gets an error wrapping ErrBusy.
// Stages use Lock, which also takes their read locks; TryLock is for a caller
// that writes one resource outside the stage table.
func (w *Workspace) TryLock(resource string) (unlock func(), err error) {
	return w.lockResources(resource, Access{Writes: []Resource{Resource(resource)}})
}

// resourceOf returns the resource a workspace-relative path belongs to, or "".
func resourceOf(rel string) Resource {
	rel = filepath.ToSlash(rel)
	first, rest, _ := strings.Cut(rel, "/")
	switch first {
	case DeclarationsFile, ModulesFile, NotationsFile:
		return ResTables
	case InformalFile, InformalJournalFile, "informal.failed.jsonl":
		return ResInformal
	case PairsFile:
		return ResPairs
	case IndexDir:
		return ResIndex
	case HeadDir:
		return ResHead
	case ExportDir:
		sub, _, _ := strings.Cut(rest, "/")
		switch sub {
		case "flagembedding":
			return ResExportFlag
		case "hf":
			return ResExportHF
		case "embeddings.parquet":
			return ResExportEmb
		}
	}
	return ""
}

// legacyAge is how old an untagged temporary (from a driftkit before owner
// tags) must be before a run removes it when it cannot lock the resource it
// belongs to.
const legacyAge = 24 * time.Hour

// CleanTemporaries removes temporaries that dead runs left in the workspace:
// files and folders named .<name>.tmp-… or .<name>.old-… (a killed index
// leaves index/.build.tmp-…, a killed export export/.hf.tmp-…, a killed
// manifest update .manifest.json.tmp-…). A temporary goes when its owner
// process is gone and no other run holds the lock of the part of the
// workspace it belongs to (the parts this run has locked, listed in mine,
// count as free: nobody else writes them): temporaries of a live run, in this process or another, are kept,
// even one in another pid namespace. Temporaries without an owner tag (from
// older versions) go when their part is free, or when they are a day old. A commit that is still pending
// (Recover failed) keeps everything. Errors are ignored: cleaning is best
// effort and never stops a stage.
func (w *Workspace) CleanTemporaries(mine []Resource) (removed []string) {
	if w.Has(commitRecordFile) {
		return nil
	}
	free := map[Resource]bool{}
	for _, r := range mine {
		free[r] = true
	}
	var held []*os.File
	var unlockManifest func()
	defer func() {
		for _, f := range held {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
		if unlockManifest != nil {
			unlockManifest()
		}
	}()
	// canLock reports whether no other run uses r: this run holds it, or
	// its lock is free now (then it is held until cleaning ends, so that no
	// run of r starts a temporary meanwhile).
	canLock := func(r Resource) bool {
		if r == "" {
			return false
		}
		if v, ok := free[r]; ok {
			return v
		}
		f, err := w.flockFile(string(r), syscall.LOCK_EX|syscall.LOCK_NB)
		free[r] = err == nil
		if err == nil {
			held = append(held, f)
		}
		return err == nil
	}
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		ents, err := os.ReadDir(w.Path(rel))
		if err != nil {
			return
		}
		for _, e := range ents {
			name := e.Name()
			childRel := filepath.ToSlash(filepath.Join(rel, name))
			tag, isTemp := tempOwner(name)
			if !isTemp {
				if e.IsDir() && depth < 3 && !strings.HasPrefix(name, ".") {
					walk(childRel, depth+1)
				}
				continue
			}
			dest := strings.TrimPrefix(name, ".")
			for _, sep := range []string{".tmp-", ".old-"} {
				if i := strings.LastIndex(dest, sep); i >= 0 {
					dest = dest[:i]
					break
				}
			}
			res := resourceOf(filepath.Join(rel, dest))
			manifest := rel == "." && dest == ManifestFile
			free := false // no other run can be writing it
			switch {
			case manifest:
				// Manifest updates of every version hold .manifest.lock.
				if unlockManifest == nil {
					if u, err := w.lock(); err == nil {
						unlockManifest = u
					}
				}
				free = unlockManifest != nil
			case res != "":
				free = canLock(res)
			}
			stale := false
			switch {
			case tag != "" && ownerAlive(tag):
				// a live run's (this process's, or another's)
			case tag != "":
				// Its process is gone — or runs in another pid namespace
				// (a container sharing the workspace), which only the
				// lock can tell.
				stale = free || (res == "" && !manifest)
			case free:
				stale = true
			default:
				if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > legacyAge {
					stale = true
				}
			}
			if stale {
				if err := os.RemoveAll(w.Path(childRel)); err == nil {
					removed = append(removed, childRel)
				}
			}
		}
	}
	walk(".", 0)
	return removed
}
