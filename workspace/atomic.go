package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// AtomicFile is a file that replaces its destination only when committed: it is
// written to a temporary file in the same folder, fsynced, then renamed over
// the destination. Until Commit, readers of the destination see the old file;
// after a crash at any point they see the old file or the new one, never a
// half-written one.
//
// A file made by Txn.Create is not renamed by Commit: Commit only completes
// it, and the transaction puts it in place together with the transaction's
// other outputs.
//
// An AtomicFile is not safe for concurrent use. Always call Abort (deferred) or
// Commit; Abort after Commit is a no-op.
type AtomicFile struct {
	*os.File
	dest string
	done bool
	txn  *Txn // nil: Commit renames; else the transaction does
}

// CreateAtomic opens a temporary file beside dest. The file (and a missing
// folder) is made with the usual permissions, 0644 (0755) minus the umask.
func CreateAtomic(dest string) (*AtomicFile, error) {
	return createAtomic(dest, 0o644)
}

func createAtomic(dest string, perm fs.FileMode) (*AtomicFile, error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := createTemp(dest, perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("cannot write in %s: %w", dir, pe.Err)
		}
		return nil, &FileError{Path: dest, Row: -1, Err: err}
	}
	return &AtomicFile{File: f, dest: dest}, nil
}

// Dest is the path the file replaces.
func (a *AtomicFile) Dest() string { return a.dest }

// Commit flushes the file to disk and renames it over the destination (for
// a file of a transaction: flushes it and leaves it for Txn.Commit).
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("dataset: atomic file already closed")
	}
	a.done = true
	tmp := a.File.Name()
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(tmp)
		return &FileError{Path: a.dest, Row: -1, Err: fmt.Errorf("sync: %w", err)}
	}
	if err := a.File.Close(); err != nil {
		os.Remove(tmp)
		return &FileError{Path: a.dest, Row: -1, Err: fmt.Errorf("close: %w", err)}
	}
	if a.txn != nil {
		a.txn.ready(a)
		return nil
	}
	if err := os.Rename(tmp, a.dest); err != nil {
		os.Remove(tmp)
		return &FileError{Path: a.dest, Row: -1, Err: fmt.Errorf("replace: %w", err)}
	}
	return syncDir(filepath.Dir(a.dest))
}

// Abort discards the temporary file, leaving the destination untouched.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
	if a.txn != nil {
		a.txn.dropFile(a)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems refuse to sync directories; the rename is still done.
	_ = d.Sync()
	return nil
}

// WriteFileAtomic writes data to path atomically.
func WriteFileAtomic(path string, data []byte) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return &FileError{Path: path, Row: -1, Err: err}
	}
	return f.Commit()
}
