// Package journal is an append-only JSON-lines log that survives crashes:
// each record is one write(2) of one whole line, fsynced in batches, and a
// torn last line (a write cut by kill -9 or a full disk) is cut off when the
// journal is reopened. Runners (informalize, the DRIFT and ToMap runners)
// append one record per finished unit of work and replay the journal on
// start, so a rerun never repeats paid-for work.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// ErrBusy is wrapped when another open Journal — of this process or another
// — holds the file: two runs appending to one journal would each cut the
// other's unfinished last line as torn and repeat each other's work.
var ErrBusy = errors.New("journal in use by another run")

// ErrLine is wrapped by problems found in one journal line.
var ErrLine = errors.New("bad journal line")

// LineError names a journal line that could not be used.
type LineError struct {
	Path string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Replay is what reading a journal found.
type Replay[T any] struct {
	Records []T
	// Bad lists complete lines that did not parse or validate (skipped).
	Bad []*LineError
	// TornBytes is the length of an unterminated last line (a write cut by a
	// crash); TornLine is its line number. It is dropped.
	TornBytes int
	TornLine  int
	// GoodSize is the offset after the last complete line.
	GoodSize int64
}

// Options configure decoding.
type Options[T any] struct {
	// Strict rejects lines with fields T does not have.
	Strict bool
	// Validate checks a decoded record; an error makes the line Bad.
	Validate func(*T) error
	// BeforeCut, if set, is told of a torn last line before Open cuts it
	// off: a report made after the cut is lost when the process dies in
	// between, and the next run finds nothing left to report. Every user
	// reports its torn lines here (informalize, the DRIFT and ToMap
	// runners, the server's runs.jsonl, the augmentation cache), each
	// checked by a test with internal/testkit/torntest.
	BeforeCut func(line, bytes int)
}

// Read parses journal bytes. It fails only on an I/O error: unusable lines
// are reported in Bad, a torn last line in TornBytes.
func Read[T any](path string, r io.Reader, o Options[T]) (*Replay[T], error) {
	rep := &Replay[T]{}
	br := bufio.NewReaderSize(r, 1<<16)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			if b[len(b)-1] != '\n' {
				rep.TornBytes, rep.TornLine = len(b), line
				break
			}
			rep.GoodSize += int64(len(b))
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if rec, perr := decode(t, o); perr != nil {
					rep.Bad = append(rep.Bad, &LineError{Path: path, Line: line, Err: perr})
				} else {
					rep.Records = append(rep.Records, rec)
				}
			}
		}
		if err == io.EOF {
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("%s: %w", path, err)
		}
	}
	return rep, nil
}

func decode[T any](b []byte, o Options[T]) (T, error) {
	var rec T
	dec := json.NewDecoder(bytes.NewReader(b))
	if o.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("%w: %v", ErrLine, err)
	}
	if dec.More() {
		return rec, fmt.Errorf("%w: text after the record", ErrLine)
	}
	if o.Validate != nil {
		if err := o.Validate(&rec); err != nil {
			return rec, fmt.Errorf("%w: %v", ErrLine, err)
		}
	}
	return rec, nil
}

// Journal appends records of type T. Append is safe for concurrent use
// (lines never interleave); the file is fsynced every SyncEvery records and
// every SyncInterval, and on Sync and Close.
type Journal[T any] struct {
	path  string
	f     *os.File
	wmu   sync.Mutex // serialises writes
	n     int
	kick  chan struct{}
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex // guards dirty, err
	dirty bool
	err   error
}

// Batching of fsyncs.
const (
	SyncEvery    = 32
	SyncInterval = 200 * time.Millisecond
)

// Open replays the journal at path (creating it if missing), cuts a torn
// last line off, and opens it for appending. It takes an exclusive flock(2)
// on the file until Close: a second Open of the same file (by another run on
// the same output folder) fails with ErrBusy instead of truncating a line
// that the first run is still writing.
func Open[T any](path string, o Options[T]) (*Journal[T], *Replay[T], error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	// Held until Close, or until the process ends however it ends.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil, fmt.Errorf("%s: %w; wait for that run to finish, or use another output folder", path, ErrBusy)
		}
		return nil, nil, fmt.Errorf("%s: locking: %w", path, err)
	}
	rep, err := Read(path, f, o)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if rep.TornBytes > 0 {
		if o.BeforeCut != nil {
			o.BeforeCut(rep.TornLine, rep.TornBytes)
		}
		if err := f.Truncate(rep.GoodSize); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: cutting torn line %d: %w", path, rep.TornLine, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if _, err := f.Seek(rep.GoodSize, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	j := &Journal[T]{path: path, f: f, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	j.wg.Add(1)
	go j.syncer()
	return j, rep, nil
}

// Path is the journal's file.
func (j *Journal[T]) Path() string { return j.path }

func (j *Journal[T]) syncer() {
	defer j.wg.Done()
	t := time.NewTicker(SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-j.kick:
		case <-t.C:
		}
		j.sync()
	}
}

func (j *Journal[T]) sync() {
	j.mu.Lock()
	dirty := j.dirty
	j.dirty = false
	j.mu.Unlock()
	if !dirty {
		return
	}
	if err := j.f.Sync(); err != nil {
		j.mu.Lock()
		j.err = err
		j.mu.Unlock()
	}
}

// Append writes one record as one line.
func (j *Journal[T]) Append(rec T) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	j.wmu.Lock()
	_, err = j.f.Write(b)
	j.n++
	n := j.n
	j.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	j.mu.Lock()
	j.dirty = true
	err = j.err
	j.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: fsync: %w", j.path, err)
	}
	if n%SyncEvery == 0 {
		select {
		case j.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// Sync forces the appended records to disk now.
func (j *Journal[T]) Sync() error {
	j.mu.Lock()
	j.dirty = true
	j.mu.Unlock()
	j.sync()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return fmt.Errorf("%s: fsync: %w", j.path, j.err)
	}
	return nil
}

// Close syncs and closes the journal.
func (j *Journal[T]) Close() error {
	close(j.stop)
	j.wg.Wait()
	serr := j.Sync()
	cerr := j.f.Close()
	if serr != nil {
		return serr
	}
	return cerr
}
