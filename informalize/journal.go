package informalize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Entry statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Entry is one line of informal.journal.jsonl: the outcome of one declaration
// for one exact input.
type Entry struct {
	Name              string `json:"name"`
	Status            string `json:"status"`
	InputSHA256       string `json:"input_sha256"`
	InformalName      string `json:"informal_name,omitempty"`
	InformalStatement string `json:"informal_statement,omitempty"`
	Provider          string `json:"provider"`
	PromptVersion     string `json:"prompt_version"`
	PromptTokens      int64  `json:"prompt_tokens"`
	CompletionTokens  int64  `json:"completion_tokens"`
	Attempts          int    `json:"attempts,omitempty"`
	Error             string `json:"error,omitempty"`
	CreatedAt         string `json:"created_at"`
}

// ErrJournal is wrapped by problems found while replaying a journal.
var ErrJournal = errors.New("bad journal line")

// JournalLineError names a journal line that could not be used.
type JournalLineError struct {
	Path string
	Line int
	Err  error
}

func (e *JournalLineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *JournalLineError) Unwrap() error { return e.Err }

// Replay is what reading a journal found.
type Replay struct {
	Entries []Entry
	// Bad lists complete lines that did not parse (skipped).
	Bad []*JournalLineError
	// TornBytes is the length of an unterminated last line (a write cut by a
	// crash); TornLine is its line number. It is dropped.
	TornBytes int
	TornLine  int
	// GoodSize is the offset after the last complete line.
	GoodSize int64
}

// ReadJournal parses journal bytes. It never fails: unusable lines are
// reported in Bad, a torn last line in TornBytes.
func ReadJournal(path string, r io.Reader) (*Replay, error) {
	rep := &Replay{}
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
			if e, perr := parseEntry(bytes.TrimSpace(b)); perr != nil {
				if len(bytes.TrimSpace(b)) > 0 {
					rep.Bad = append(rep.Bad, &JournalLineError{Path: path, Line: line, Err: perr})
				}
			} else {
				rep.Entries = append(rep.Entries, e)
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

func parseEntry(b []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("%w: %v", ErrJournal, err)
	}
	if dec.More() {
		return e, fmt.Errorf("%w: text after the entry", ErrJournal)
	}
	switch {
	case e.Name == "":
		return e, fmt.Errorf("%w: no name", ErrJournal)
	case len(e.InputSHA256) != 64:
		return e, fmt.Errorf("%w: input_sha256 %q is not a SHA-256", ErrJournal, e.InputSHA256)
	case e.Status == StatusOK && (e.InformalName == "" || e.InformalStatement == ""):
		return e, fmt.Errorf("%w: ok entry without informal text", ErrJournal)
	case e.Status != StatusOK && e.Status != StatusFailed:
		return e, fmt.Errorf("%w: status %q", ErrJournal, e.Status)
	}
	return e, nil
}

// Journal appends entries to informal.journal.jsonl. Each entry is one
// write(2) of a whole line, so a crash leaves at most one torn last line;
// the file is fsynced every syncEvery entries and every syncInterval.
// Append is not safe for concurrent use (the scheduler owns it); the
// background syncer is internal.
type Journal struct {
	path  string
	f     *os.File
	n     int
	kick  chan struct{}
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	dirty bool
	err   error
}

const (
	syncEvery    = 32
	syncInterval = 200 * time.Millisecond
)

// OpenJournal replays the journal at path (creating it if missing), cuts a
// torn last line off, and opens it for appending.
func OpenJournal(path string) (*Journal, *Replay, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	rep, err := ReadJournal(path, f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if rep.TornBytes > 0 {
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
	j := &Journal{path: path, f: f, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	j.wg.Add(1)
	go j.syncer()
	return j, rep, nil
}

func (j *Journal) syncer() {
	defer j.wg.Done()
	t := time.NewTicker(syncInterval)
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

func (j *Journal) sync() {
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

// Append writes one entry as one line.
func (j *Journal) Append(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	j.mu.Lock()
	j.dirty = true
	err = j.err
	j.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: fsync: %w", j.path, err)
	}
	j.n++
	if j.n%syncEvery == 0 {
		select {
		case j.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// Close syncs and closes the journal.
func (j *Journal) Close() error {
	close(j.stop)
	j.wg.Wait()
	j.mu.Lock()
	j.dirty = true
	j.mu.Unlock()
	j.sync()
	cerr := j.f.Close()
	if j.err != nil {
		return fmt.Errorf("%s: fsync: %w", j.path, j.err)
	}
	return cerr
}
