// Package embcache is a workspace's embedding cache (WS/embeddings/): the
// vectors an encoder returned, keyed by the encoder's spec and the sha256 of
// each document's text, so that rebuilding an index after a library bump, a
// flag change or a crash embeds only the texts it has not paid for yet.
//
// Layout:
//
//	embeddings/
//	  .lock                  flock held by the one writer (an index build, cache prune)
//	  <spec key>/            one folder per encoder spec (index.EncoderSpec.Key: kind, model,
//	                         dims, normalisation, truncation, rendering version)
//	    spec.json            the spec, for people and `driftkit cache stats`
//	    <shard>.npy          float32 (rows, dims), NumPy format 1.0: numpy.load reads it
//	    <shard>.keys.json    the shard's key table: the sha256 of the text of each row, the
//	                         sha256 of the .npy file and of the keys themselves
//
// A shard is immutable. It is written in two atomic steps (temporary file,
// fsync, rename): the vectors, then the key table, which is the commit: a
// crash between them leaves vectors without a key table, removed by the next
// writer. Shards are appended as batches of embeddings come back, so a build
// killed after N batches keeps them. The key tables are read whole when a
// table is opened (a few MB for Mathlib); the vectors are read only for keys
// that are asked for, and every shard read is checked against its sha256 as
// it streams: a damaged file is reported by name, removed, and its texts are
// embedded again — never used.
//
// A key may be stored twice (a compaction or prune killed between writing
// its new shards and removing the old ones); the oldest copy is used, and
// the next compaction or prune drops the others.
package embcache

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/driftkit/driftkit/workspace"
)

// Format is the format of a shard's key table.
const Format = "driftkit-embeddings-shard/1"

// SpecFormat is the format of a spec folder's spec.json.
const SpecFormat = "driftkit-embeddings/1"

// File names inside the cache.
const (
	SpecFile   = "spec.json"
	KeysSuffix = ".keys.json"
	VecSuffix  = ".npy"
	lockName   = ".lock"
)

// ErrCorrupt is wrapped (inside a *workspace.FileError naming the file) by
// every problem found in a cache file: the file is not used.
var ErrCorrupt = errors.New("damaged embedding cache file")

// ErrBusy is wrapped when another process is writing the cache. It wraps
// workspace.ErrBusy, so callers treat it like any busy workspace.
var ErrBusy = fmt.Errorf("%w: the embedding cache is being written by another run", workspace.ErrBusy)

// Key identifies a text: the sha256 of its bytes.
type Key [32]byte

// KeyOf returns the key of a document's text.
func KeyOf(text string) Key { return sha256.Sum256([]byte(text)) }

// String is the key in hex, as key tables write it.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// ParseKey reads a key written by String.
func ParseKey(s string) (Key, error) {
	var k Key
	if len(s) != 2*len(k) {
		return k, fmt.Errorf("key %q is not 64 hex digits", s)
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("key %q: %v", s, err)
	}
	return k, nil
}

// Options tune how a Table writes. Zero values mean the defaults.
type Options struct {
	// FlushRows: Add writes a shard once this many new vectors are pending
	// (default 16384; 1 writes one shard per Add).
	FlushRows int
	// FlushEvery: Add also writes a shard when this long has passed since
	// the last one (default 5s; negative: rows only). It bounds what a
	// kill -9 can lose of the answers already paid for.
	FlushEvery time.Duration
	// ShardRows is the largest shard Compact and Retain write (default
	// 16384: 64 MiB at 1024 dims).
	ShardRows int
	// SmallRows and CompactShards: Compact merges the shards of fewer than
	// SmallRows rows (default ShardRows/8) once there are CompactShards of
	// them (default 64): a build against a slow endpoint writes one every
	// FlushEvery, a long one thousands. Larger shards cost nothing to keep.
	SmallRows     int
	CompactShards int
}

func (o Options) withDefaults() Options {
	if o.FlushRows <= 0 {
		o.FlushRows = 16384
	}
	if o.FlushEvery == 0 {
		o.FlushEvery = 5 * time.Second
	}
	if o.ShardRows <= 0 {
		o.ShardRows = 16384
	}
	if o.SmallRows <= 0 {
		o.SmallRows = max(1, o.ShardRows/8)
	}
	if o.CompactShards <= 0 {
		o.CompactShards = 64
	}
	return o
}

// Cache is an embedding cache folder opened for writing: it holds the
// folder's exclusive lock until Close, so one process writes at a time (an
// index build, or a prune); others get ErrBusy. A Cache and its Tables are
// not safe for concurrent use by several goroutines.
type Cache struct {
	dir  string
	opts Options
	lock *os.File
}

// Open takes the writer lock of the cache folder dir, creating it if needed.
func Open(dir string, opts Options) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &workspace.FileError{Path: dir, Row: -1, Err: err}
	}
	p := filepath.Join(dir, lockName)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, &workspace.FileError{Path: p, Row: -1, Err: err}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w (wait for it to finish)", dir, ErrBusy)
		}
		return nil, &workspace.FileError{Path: p, Row: -1, Err: err}
	}
	return &Cache{dir: dir, opts: opts.withDefaults(), lock: f}, nil
}

// Dir is the cache folder.
func (c *Cache) Dir() string { return c.dir }

// Close releases the lock. Pending vectors of its Tables that were not
// flushed are dropped: call Table.Flush first.
func (c *Cache) Close() error {
	if c.lock == nil {
		return nil
	}
	syscall.Flock(int(c.lock.Fd()), syscall.LOCK_UN)
	err := c.lock.Close()
	c.lock = nil
	return err
}

var specKeyRE = regexp.MustCompile(`^[0-9a-f]{16,128}$`)

// Spec names one embedding space: vectors of one encoder configuration.
type Spec struct {
	// Key is the folder name: a hex digest of everything that decides the
	// vectors (index.EncoderSpec.Key).
	Key string
	// Dims is the vector length (0 when opening an existing folder: taken
	// from its spec.json).
	Dims int
	// Encoder describes the encoder, written into spec.json for people.
	Encoder json.RawMessage
}

// specFile is spec.json.
type specFile struct {
	Format  string          `json:"format"`
	Key     string          `json:"key"`
	Dims    int             `json:"dims"`
	Encoder json.RawMessage `json:"encoder,omitempty"`
	Created string          `json:"created_at"`
}

func readSpecFile(path string) (*specFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s specFile
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	if s.Format != SpecFormat || !specKeyRE.MatchString(s.Key) || s.Dims <= 0 {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: not a %s spec file (format %q, key %q, dims %d)", ErrCorrupt, SpecFormat, s.Format, s.Key, s.Dims)}
	}
	return &s, nil
}

// Specs lists the spec folders of the cache (their keys, sorted).
func Specs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && specKeyRE.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// RemoveSpec deletes a spec folder and everything in it.
func (c *Cache) RemoveSpec(key string) error {
	if !specKeyRE.MatchString(key) {
		return fmt.Errorf("embcache: %q is not a spec key", key)
	}
	return os.RemoveAll(filepath.Join(c.dir, key))
}

// newShardID names a new shard: the time (so that names sort by age) and a
// random suffix.
func newShardID() string {
	var r [4]byte
	rand.Read(r[:])
	now := time.Now().UTC()
	return fmt.Sprintf("s%s%09d-%s", now.Format("20060102T150405"), now.Nanosecond(), hex.EncodeToString(r[:]))
}

var shardIDRE = regexp.MustCompile(`^s[0-9]{8}T[0-9]{15}-[0-9a-f]{8}$`)
