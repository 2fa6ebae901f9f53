package augment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/driftkit/driftkit/internal/journal"
)

// CacheName is the cache's file in a workspace.
const CacheName = "augment.journal.jsonl"

// CachePath is the cache file of a workspace.
func CachePath(wsDir string) string { return filepath.Join(wsDir, CacheName) }

// Record is one cached answer: one line of the cache journal.
type Record struct {
	// Key is Augmenter.Key(Query): the query, model and prompt hashed.
	Key           string `json:"key"`
	Query         string `json:"query"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	PromptSHA256  string `json:"prompt_sha256"`
	Answer        Answer `json:"answer"`
	CreatedAt     string `json:"created_at"`
}

// Cache keeps augmentation answers in an append-only journal
// (internal/journal): one line per answer, written in one write(2), so a
// crash loses at most the answer being written and never damages the
// others; a torn last line is cut off when the cache is reopened. It is safe
// for concurrent use. One process at a time appends (an exclusive lock on
// PATH.lock): a second process that opens the same cache while the first
// holds it — a command-line eval while the server runs — reads the answers
// but does not add its own (Put returns ErrReadOnly).
type Cache struct {
	path   string
	j      *journal.Journal[Record] // nil when read-only
	unlock func()

	closeOnce sync.Once
	closeErr  error

	mu      sync.RWMutex
	answers map[string]Answer
	// Skipped counts unusable lines found when the cache was opened.
	skipped int
}

// OpenCache opens (creating it if missing) the cache at path and loads it.
// Lines that do not parse or hold no usable answer are skipped, counted
// (Skipped) and told to warn; later lines for the same key win. A torn last
// line (a crash mid-write) is told to warn before it is cut off, so a
// process killed right after the cut cannot lose the report; a read-only
// opener cuts and reports nothing, since the holder may be writing that
// line. warn may be nil.
func OpenCache(path string, warn func(msg string)) (*Cache, error) {
	if warn == nil {
		warn = func(string) {}
	}
	opts := journal.Options[Record]{
		Validate: func(r *Record) error {
			if r.Key == "" {
				return errors.New("no key")
			}
			if r.Answer.InformalStatement == "" {
				return errors.New("no informal_statement")
			}
			return nil
		},
		BeforeCut: func(line, bytes int) {
			warn(fmt.Sprintf("augmentation cache %s:%d: dropped a torn last line (%d bytes) left by a crash; that answer will be asked for again", path, line, bytes))
		},
	}
	c := &Cache{path: path}
	unlock, err := lockFile(path + ".lock")
	var rep *journal.Replay[Record]
	switch {
	case errors.Is(err, errLocked):
		f, err := os.Open(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			rep = &journal.Replay[Record]{} // the holder has not created it yet
		case err != nil:
			return nil, fmt.Errorf("augmentation cache: %w", err)
		default:
			defer f.Close()
			if rep, err = journal.Read(path, f, opts); err != nil {
				return nil, fmt.Errorf("augmentation cache: %w", err)
			}
		}
	case err != nil:
		return nil, fmt.Errorf("augmentation cache: %w", err)
	default:
		c.unlock = unlock
		if c.j, rep, err = journal.Open(path, opts); err != nil {
			unlock()
			return nil, fmt.Errorf("augmentation cache: %w", err)
		}
	}
	for _, b := range rep.Bad {
		warn(fmt.Sprintf("augmentation cache: skipped an unusable line: %v", b))
	}
	c.answers, c.skipped = make(map[string]Answer, len(rep.Records)), len(rep.Bad)
	for _, r := range rep.Records {
		c.answers[r.Key] = r.Answer
	}
	return c, nil
}

// ErrReadOnly is returned by Put on a cache another process appends to.
var ErrReadOnly = errors.New("augmentation cache is held by another process (read-only here)")

var errLocked = errors.New("locked")

// lockFile takes an exclusive, non-blocking lock; errLocked when another
// process holds it. The lock goes with the process.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// ReadOnly reports whether another process holds the cache.
func (c *Cache) ReadOnly() bool { return c.j == nil }

// Len is the number of cached answers.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.answers)
}

// Skipped is the number of unusable lines found at open.
func (c *Cache) Skipped() int { return c.skipped }

// Get returns the answer cached under key.
func (c *Cache) Get(key string) (Answer, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := c.answers[key]
	return a, ok
}

// Put appends an answer and makes it visible to Get.
func (c *Cache) Put(r Record) error {
	if c.j == nil {
		return ErrReadOnly
	}
	if err := c.j.Append(r); err != nil {
		return err
	}
	c.mu.Lock()
	c.answers[r.Key] = r.Answer
	c.mu.Unlock()
	return nil
}

// Close syncs and closes the cache and releases its lock. Closing twice is
// harmless; Put after Close fails.
func (c *Cache) Close() error {
	c.closeOnce.Do(func() {
		if c.j != nil {
			c.closeErr = c.j.Close()
			c.unlock()
		}
	})
	return c.closeErr
}
