package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AtomicFile is a file that replaces its destination only when committed: it is
// written to a temporary file in the same folder, fsynced, then renamed over
// the destination. Until Commit, readers of the destination see the old file;
// after a crash at any point they see the old file or the new one, never a
// half-written one.
//
// An AtomicFile is not safe for concurrent use. Always call Abort (deferred) or
// Commit; Abort after Commit is a no-op.
type AtomicFile struct {
	*os.File
	dest string
	done bool
}

// CreateAtomic opens a temporary file beside dest.
func CreateAtomic(dest string) (*AtomicFile, error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{File: f, dest: dest}, nil
}

// Commit flushes the file to disk and renames it over the destination.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("dataset: atomic file already closed")
	}
	a.done = true
	tmp := a.File.Name()
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync %s: %w", a.dest, err)
	}
	if err := a.File.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close %s: %w", a.dest, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, a.dest); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", a.dest, err)
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
		return err
	}
	return f.Commit()
}
