package embcache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/driftkit/driftkit/workspace"
	"github.com/driftkit/driftkit/workspace/npy"
)

// keyTable is a shard's <id>.keys.json.
type keyTable struct {
	Format string `json:"format"`
	// Spec is the key of the spec folder the shard belongs to.
	Spec string `json:"spec"`
	Rows int    `json:"rows"`
	Dims int    `json:"dims"`
	// Vectors names the shard's .npy file; VectorsSHA256 and VectorsBytes
	// are those of the whole file, header included.
	Vectors       string `json:"vectors"`
	VectorsSHA256 string `json:"vectors_sha256"`
	VectorsBytes  int64  `json:"vectors_bytes"`
	// KeysSHA256 hashes the 32-byte keys in row order, so that a damaged
	// key is found (a damaged key would otherwise just never be asked for,
	// or worse, be asked for).
	KeysSHA256 string `json:"keys_sha256"`
	Created    string `json:"created_at"`
	// Keys holds the sha256 of each row's text, in hex, in row order.
	Keys []string `json:"keys"`
}

// shard is one loaded, validated shard.
type shard struct {
	id         string
	rows, dims int
	keys       []Key
	sum        string
	size       int64
	dead       bool // removed (damaged, or rewritten by Compact/Retain)
}

type loc struct{ shard, row int32 }

// Table is the cache of one spec, opened for writing through a Cache. Not
// safe for concurrent use by several goroutines (Fill uses several
// internally).
type Table struct {
	c       *Cache
	spec    Spec
	dir     string
	shards  []*shard
	entries map[Key]loc

	pendKeys  []Key
	pendVecs  []float32
	lastFlush time.Time

	problems []error
	written  int
	removed  int
	orphans  int
}

// Table opens the folder of spec, creating it (and its spec.json) when new.
// It removes what killed writers left (temporary files, vectors without a
// key table) and reads every key table, checking each; a damaged one is
// reported in Problems and its shard removed.
func (c *Cache) Table(spec Spec) (*Table, error) {
	if !specKeyRE.MatchString(spec.Key) {
		return nil, fmt.Errorf("embcache: spec key %q is not a hex digest", spec.Key)
	}
	dir := filepath.Join(c.dir, spec.Key)
	t := &Table{c: c, spec: spec, dir: dir, entries: map[Key]loc{}, lastFlush: time.Now()}
	sp := filepath.Join(dir, SpecFile)
	sf, err := readSpecFile(sp)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if spec.Dims <= 0 {
			return nil, fmt.Errorf("embcache: %s: no such spec in the cache", dir)
		}
		b, _ := json.MarshalIndent(specFile{Format: SpecFormat, Key: spec.Key, Dims: spec.Dims, Encoder: spec.Encoder,
			Created: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
		if err := workspace.WriteFileAtomic(sp, append(b, '\n')); err != nil {
			return nil, err
		}
	case err != nil && errors.Is(err, ErrCorrupt) && spec.Dims > 0:
		// The spec file only describes the folder; the shards carry
		// their own dims. Rewrite it.
		t.problems = append(t.problems, err)
		b, _ := json.MarshalIndent(specFile{Format: SpecFormat, Key: spec.Key, Dims: spec.Dims, Encoder: spec.Encoder,
			Created: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
		if err := workspace.WriteFileAtomic(sp, append(b, '\n')); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if sf.Key != spec.Key {
			return nil, &workspace.FileError{Path: sp, Row: -1, Err: fmt.Errorf("%w: spec key %s in the folder of %s", ErrCorrupt, sf.Key, spec.Key)}
		}
		if spec.Dims <= 0 {
			t.spec.Dims = sf.Dims
		} else if sf.Dims != spec.Dims {
			return nil, &workspace.FileError{Path: sp, Row: -1, Err: fmt.Errorf("%w: %d dims, the spec has %d", ErrCorrupt, sf.Dims, spec.Dims)}
		}
	}
	if err := t.load(); err != nil {
		return nil, err
	}
	return t, nil
}

// load reads the key tables of the folder.
func (t *Table) load() error {
	ents, err := os.ReadDir(t.dir)
	if err != nil {
		return err
	}
	var ids []string
	vecs := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-"):
			// A temporary of a killed writer (we hold the lock).
			os.RemoveAll(filepath.Join(t.dir, n))
		case strings.HasSuffix(n, KeysSuffix) && shardIDRE.MatchString(strings.TrimSuffix(n, KeysSuffix)):
			ids = append(ids, strings.TrimSuffix(n, KeysSuffix))
		case strings.HasSuffix(n, VecSuffix) && shardIDRE.MatchString(strings.TrimSuffix(n, VecSuffix)):
			vecs[strings.TrimSuffix(n, VecSuffix)] = true
		}
	}
	slices.Sort(ids) // oldest first: the oldest copy of a key wins
	for _, id := range ids {
		delete(vecs, id)
		sh, err := t.readKeyTable(id)
		if err != nil {
			if errors.Is(err, errForeign) {
				t.problems = append(t.problems, err)
				continue
			}
			t.problems = append(t.problems, err)
			t.removeFiles(id)
			continue
		}
		t.addShard(sh)
	}
	for id := range vecs {
		// Vectors whose key table was never written: a writer was killed
		// between the two renames. Nothing refers to them.
		os.Remove(filepath.Join(t.dir, id+VecSuffix))
		t.orphans++
	}
	return nil
}

// errForeign marks a key table of another format: reported, left alone.
var errForeign = errors.New("key table of another format (written by another driftkit version?); left alone")

func (t *Table) corrupt(name string, format string, args ...any) error {
	return &workspace.FileError{Path: filepath.Join(t.dir, name), Row: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)}
}

// readKeyTable reads and checks one shard's key table, and the size of its
// vectors file.
func (t *Table) readKeyTable(id string) (*shard, error) {
	name := id + KeysSuffix
	b, err := os.ReadFile(filepath.Join(t.dir, name))
	if err != nil {
		return nil, t.corrupt(name, "%v", err)
	}
	var kt keyTable
	if err := json.Unmarshal(b, &kt); err != nil {
		var probe struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Format != Format && strings.HasPrefix(probe.Format, "driftkit-embeddings-shard/") {
			return nil, &workspace.FileError{Path: filepath.Join(t.dir, name), Row: -1, Err: fmt.Errorf("%w: %s", errForeign, probe.Format)}
		}
		return nil, t.corrupt(name, "not a key table: %v", err)
	}
	switch {
	case kt.Format != Format:
		if strings.HasPrefix(kt.Format, "driftkit-embeddings-shard/") {
			return nil, &workspace.FileError{Path: filepath.Join(t.dir, name), Row: -1, Err: fmt.Errorf("%w: %s", errForeign, kt.Format)}
		}
		return nil, t.corrupt(name, "format %q, want %q", kt.Format, Format)
	case kt.Spec != t.spec.Key:
		return nil, t.corrupt(name, "spec %q in the folder of spec %s", kt.Spec, t.spec.Key)
	case kt.Dims != t.spec.Dims:
		return nil, t.corrupt(name, "%d dims, the spec has %d", kt.Dims, t.spec.Dims)
	case kt.Rows != len(kt.Keys) || kt.Rows <= 0:
		return nil, t.corrupt(name, "%d rows but %d keys", kt.Rows, len(kt.Keys))
	case kt.Vectors != id+VecSuffix:
		return nil, t.corrupt(name, "names vectors %q, want %q", kt.Vectors, id+VecSuffix)
	}
	sh := &shard{id: id, rows: kt.Rows, dims: kt.Dims, keys: make([]Key, kt.Rows), sum: kt.VectorsSHA256, size: kt.VectorsBytes}
	h := sha256.New()
	for i, s := range kt.Keys {
		k, err := ParseKey(s)
		if err != nil {
			return nil, t.corrupt(name, "row %d: %v", i, err)
		}
		sh.keys[i] = k
		h.Write(k[:])
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != kt.KeysSHA256 {
		return nil, t.corrupt(name, "keys hash to %s, the table records %s", got, kt.KeysSHA256)
	}
	if want := int64(len(npy.Header(sh.rows, sh.dims))) + int64(sh.rows)*int64(sh.dims)*4; sh.size != want {
		return nil, t.corrupt(name, "records %d bytes of vectors, (%d, %d) float32 take %d", sh.size, sh.rows, sh.dims, want)
	}
	fi, err := os.Stat(filepath.Join(t.dir, kt.Vectors))
	if err != nil {
		return nil, t.corrupt(kt.Vectors, "vectors of %s: %v", name, err)
	}
	if fi.Size() != sh.size {
		return nil, t.corrupt(kt.Vectors, "%d bytes, its key table records %d (truncated?)", fi.Size(), sh.size)
	}
	return sh, nil
}

func (t *Table) addShard(sh *shard) {
	n := int32(len(t.shards))
	t.shards = append(t.shards, sh)
	for r, k := range sh.keys {
		if _, ok := t.entries[k]; !ok {
			t.entries[k] = loc{n, int32(r)}
		}
	}
}

// removeFiles deletes a shard's files: the key table first, so that a
// crash in between leaves orphaned vectors, never a table without them.
func (t *Table) removeFiles(id string) {
	os.Remove(filepath.Join(t.dir, id+KeysSuffix))
	os.Remove(filepath.Join(t.dir, id+VecSuffix))
}

// drop removes shards from the table and from disk; keys they held that
// another live shard also holds are served from there.
func (t *Table) drop(idx ...int) {
	lost := map[Key]bool{}
	for _, i := range idx {
		sh := t.shards[i]
		if sh.dead {
			continue
		}
		sh.dead = true
		t.removeFiles(sh.id)
		t.removed++
		for r, k := range sh.keys {
			if l, ok := t.entries[k]; ok && l == (loc{int32(i), int32(r)}) {
				delete(t.entries, k)
				lost[k] = true
			}
		}
	}
	if len(lost) == 0 {
		return
	}
	for j, o := range t.shards {
		if o.dead {
			continue
		}
		for r, k := range o.keys {
			if lost[k] {
				if _, ok := t.entries[k]; !ok {
					t.entries[k] = loc{int32(j), int32(r)}
				}
			}
		}
	}
}

// Dir is the spec's folder.
func (t *Table) Dir() string { return t.dir }

// Dims is the vector length.
func (t *Table) Dims() int { return t.spec.Dims }

// Len is the number of distinct keys stored.
func (t *Table) Len() int { return len(t.entries) }

// Has reports whether the vector of k is stored.
func (t *Table) Has(k Key) bool { _, ok := t.entries[k]; return ok }

// Problems lists the damaged files found so far (each a *workspace.FileError
// naming the file and wrapping ErrCorrupt); they were removed and not used.
func (t *Table) Problems() []error { return slices.Clone(t.problems) }

// Shards is the number of shards stored.
func (t *Table) Shards() int {
	n := 0
	for _, s := range t.shards {
		if !s.dead {
			n++
		}
	}
	return n
}

// Written is the number of shards this Table wrote; Removed the number it
// removed (damaged, compacted or pruned); Orphans the vectors files without
// a key table it found and removed.
func (t *Table) Written() int { return t.written }
func (t *Table) Removed() int { return t.removed }
func (t *Table) Orphans() int { return t.orphans }

// Bytes is the disk size of the stored shards (vectors and key tables).
func (t *Table) Bytes() int64 {
	var n int64
	for _, s := range t.shards {
		if s.dead {
			continue
		}
		n += s.size
		if fi, err := os.Stat(filepath.Join(t.dir, s.id+KeysSuffix)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// Fill copies the stored vector of keys[i] into row rows[i] of dst
// (row-major, Dims() columns) for every stored key, reading only the shards
// that hold them, several at once, each checked against its sha256. It
// returns the indices i that were not filled: keys not stored, and keys of a
// shard found damaged (reported in Problems, removed). A row of a damaged
// shard may hold garbage on return; it is among the missed ones.
func (t *Table) Fill(ctx context.Context, keys []Key, rows []int, dst []float32) (missed []int, err error) {
	if len(keys) != len(rows) {
		return nil, fmt.Errorf("embcache: Fill: %d keys for %d rows", len(keys), len(rows))
	}
	type want struct{ row, i int }
	byShard := map[int32][]want{} // shard → (row in shard, index)
	for i, k := range keys {
		l, ok := t.entries[k]
		if !ok {
			missed = append(missed, i)
			continue
		}
		byShard[l.shard] = append(byShard[l.shard], want{int(l.row), i})
	}
	order := make([]int32, 0, len(byShard))
	for s := range byShard {
		order = append(order, s)
	}
	slices.Sort(order)
	dims := t.spec.Dims
	var (
		mu   sync.Mutex
		bad  []int32
		next int
	)
	workers := min(runtime.GOMAXPROCS(0), len(order))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= len(order) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				s := order[next]
				next++
				mu.Unlock()
				ws := byShard[s]
				slices.SortFunc(ws, func(a, b want) int { return a.row - b.row })
				j := 0
				err := t.readShard(t.shards[s], func(r int, vec []byte) {
					for j < len(ws) && ws[j].row == r {
						decode(dst[rows[ws[j].i]*dims:(rows[ws[j].i]+1)*dims], vec)
						j++
					}
				})
				if err != nil {
					mu.Lock()
					t.problems = append(t.problems, err)
					bad = append(bad, s)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, s := range bad {
		for _, w := range byShard[s] {
			missed = append(missed, w.i)
		}
		t.drop(int(s))
	}
	slices.Sort(missed)
	return missed, nil
}

// hostLittleEndian: a '<f4' file's bytes are the float32 values.
var hostLittleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// decode copies little-endian float32 values from b into dst.
func decode(dst []float32, b []byte) {
	if hostLittleEndian && len(dst) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst)), b)
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// readShard streams a shard's vectors file, calling fn for every row in
// order, and checks the file's header, size and sha256 against its key
// table. fn sees the rows before the check completes: on an error the
// caller must discard what it got.
func (t *Table) readShard(sh *shard, fn func(row int, vec []byte)) error {
	name := sh.id + VecSuffix
	f, err := os.Open(filepath.Join(t.dir, name))
	if err != nil {
		return t.corrupt(name, "%v", err)
	}
	defer f.Close()
	h := sha256.New()
	want := npy.Header(sh.rows, sh.dims)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(f, got); err != nil || !bytes.Equal(got, want) {
		return t.corrupt(name, "header is not that of a (%d, %d) float32 matrix", sh.rows, sh.dims)
	}
	h.Write(got)
	rowBytes := 4 * sh.dims
	per := max(1, (1<<20)/rowBytes) // rows per read
	buf := make([]byte, per*rowBytes)
	for r := 0; r < sh.rows; {
		n := min(per, sh.rows-r)
		if _, err := io.ReadFull(f, buf[:n*rowBytes]); err != nil {
			return t.corrupt(name, "rows %d–%d: %v (truncated?)", r, r+n-1, err)
		}
		h.Write(buf[:n*rowBytes])
		for i := range n {
			fn(r+i, buf[i*rowBytes:(i+1)*rowBytes])
		}
		r += n
	}
	if n, _ := io.Copy(io.Discard, f); n > 0 {
		return t.corrupt(name, "%d bytes after the last row", n)
	}
	if s := hex.EncodeToString(h.Sum(nil)); s != sh.sum {
		return t.corrupt(name, "sha256 %s, its key table records %s", s, sh.sum)
	}
	return nil
}

// Add stores vectors (row-major, Dims() columns, one row per key) of keys
// not stored yet; keys already stored are skipped. The vectors are written
// as a new shard once Options.FlushRows are pending or Options.FlushEvery
// has passed since the last shard; Flush writes the rest.
func (t *Table) Add(keys []Key, vecs []float32) error {
	dims := t.spec.Dims
	if len(vecs) != len(keys)*dims {
		return fmt.Errorf("embcache: Add: %d values for %d keys of %d dims", len(vecs), len(keys), dims)
	}
	for i, k := range keys {
		if t.Has(k) {
			continue
		}
		t.pendKeys = append(t.pendKeys, k)
		t.pendVecs = append(t.pendVecs, vecs[i*dims:(i+1)*dims]...)
	}
	o := t.c.opts
	if len(t.pendKeys) >= o.FlushRows || (o.FlushEvery > 0 && time.Since(t.lastFlush) >= o.FlushEvery && len(t.pendKeys) > 0) {
		return t.Flush()
	}
	return nil
}

// Pending is the number of vectors added but not written yet.
func (t *Table) Pending() int { return len(t.pendKeys) }

// Flush writes the pending vectors as one shard.
func (t *Table) Flush() error {
	t.lastFlush = time.Now()
	if len(t.pendKeys) == 0 {
		return nil
	}
	sh, err := t.writeShard(t.pendKeys, t.pendVecs)
	if err != nil {
		return err
	}
	t.pendKeys, t.pendVecs = nil, nil
	t.addShard(sh)
	return nil
}

// writeShard writes a new shard: the vectors, then the key table (the
// commit), each atomically.
func (t *Table) writeShard(keys []Key, vecs []float32) (*shard, error) {
	if writeShardFault != nil {
		if err := writeShardFault(); err != nil {
			return nil, err
		}
	}
	id := newShardID()
	dims := t.spec.Dims
	sh := &shard{id: id, rows: len(keys), dims: dims, keys: slices.Clone(keys)}
	f, err := workspace.CreateAtomic(filepath.Join(t.dir, id+VecSuffix))
	if err != nil {
		return nil, err
	}
	defer f.Abort()
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	w.Write(npy.Header(sh.rows, dims))
	if hostLittleEndian && len(vecs) > 0 {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&vecs[0])), 4*len(vecs)))
	} else {
		var b [4]byte
		for _, v := range vecs {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		return nil, &workspace.FileError{Path: f.Name(), Row: -1, Err: err}
	}
	if err := f.Commit(); err != nil {
		return nil, err
	}
	sh.sum = hex.EncodeToString(h.Sum(nil))
	sh.size = int64(len(npy.Header(sh.rows, dims))) + int64(len(vecs))*4
	kt := keyTable{Format: Format, Spec: t.spec.Key, Rows: sh.rows, Dims: dims, Vectors: id + VecSuffix,
		VectorsSHA256: sh.sum, VectorsBytes: sh.size, Created: time.Now().UTC().Format(time.RFC3339Nano), Keys: make([]string, len(keys))}
	kh := sha256.New()
	for i, k := range keys {
		kt.Keys[i] = k.String()
		kh.Write(k[:])
	}
	kt.KeysSHA256 = hex.EncodeToString(kh.Sum(nil))
	jb, err := json.Marshal(kt)
	if err != nil {
		return nil, err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(t.dir, id+KeysSuffix), append(jb, '\n')); err != nil {
		os.Remove(filepath.Join(t.dir, id+VecSuffix))
		return nil, err
	}
	t.written++
	return sh, nil
}

// Compact merges the shards of fewer than Options.SmallRows rows into
// shards of up to ShardRows rows, when there are at least
// Options.CompactShards of them. Duplicate keys are dropped. It reports
// whether it merged.
func (t *Table) Compact() (bool, error) {
	if err := t.Flush(); err != nil {
		return false, err
	}
	var small []int
	for i, s := range t.shards {
		if !s.dead && s.rows < t.c.opts.SmallRows {
			small = append(small, i)
		}
	}
	if len(small) < t.c.opts.CompactShards {
		return false, nil
	}
	_, err := t.rewrite(small, func(Key) bool { return true })
	return err == nil, err
}

// RetainStats is what Retain did.
type RetainStats struct {
	EntriesBefore, EntriesAfter int
	BytesBefore, BytesAfter     int64
	ShardsRemoved, ShardsKept   int
	ShardsWritten               int
}

// Retain removes every entry whose key keep rejects: shards with no kept
// key are removed, shards with some are rewritten (verified as they are
// read) with only those, shards with all are left alone. With dryRun it only
// counts.
func (t *Table) Retain(keep func(Key) bool, dryRun bool) (RetainStats, error) {
	if err := t.Flush(); err != nil {
		return RetainStats{}, err
	}
	st := RetainStats{EntriesBefore: t.Len(), BytesBefore: t.Bytes()}
	var none, some []int
	after := 0
	for i, s := range t.shards {
		if s.dead {
			continue
		}
		kept, dup := 0, 0
		for r, k := range s.keys {
			if l := t.entries[k]; l != (loc{int32(i), int32(r)}) {
				dup++ // another shard's copy is the one used
				continue
			}
			if keep(k) {
				kept++
			}
		}
		after += kept
		switch {
		case kept == 0:
			none = append(none, i)
		case kept+dup < s.rows || dup > 0:
			some = append(some, i)
		default:
			st.ShardsKept++
		}
	}
	if dryRun {
		st.EntriesAfter, st.ShardsRemoved = after, len(none)+len(some)
		st.BytesAfter = -1
		return st, nil
	}
	written := t.written
	if _, err := t.rewrite(some, keep); err != nil {
		return st, err
	}
	t.drop(none...)
	st.ShardsRemoved = len(none) + len(some)
	st.ShardsWritten = t.written - written
	st.EntriesAfter, st.BytesAfter = t.Len(), t.Bytes()
	return st, nil
}

// writeShardFault, set by tests only, fails a shard write (a full disk)
// before it starts.
var writeShardFault func() error

// rewrite copies the kept keys of the given shards (those whose used copy
// they hold) into new shards of up to ShardRows rows, then removes the
// given shards. Each source is read whole and verified before any of its
// rows is copied, so a damaged shard never reaches a new one (it is
// reported and dropped). It returns the number of rows written.
func (t *Table) rewrite(src []int, keep func(Key) bool) (int, error) {
	dims := t.spec.Dims
	limit := t.c.opts.ShardRows
	var outKeys []Key
	var outVecs []float32
	var newShards []*shard
	total := 0
	flush := func() error {
		if len(outKeys) == 0 {
			return nil
		}
		sh, err := t.writeShard(outKeys, outVecs)
		if err != nil {
			return err
		}
		newShards = append(newShards, sh)
		total += len(outKeys)
		outKeys, outVecs = nil, nil
		return nil
	}
	for _, i := range src {
		sh := t.shards[i]
		buf := make([]float32, 0, sh.rows*dims)
		var ks []Key
		err := t.readShard(sh, func(r int, vec []byte) {
			k := sh.keys[r]
			if l := t.entries[k]; l != (loc{int32(i), int32(r)}) || !keep(k) {
				return
			}
			ks = append(ks, k)
			n := len(buf)
			buf = buf[:n+dims]
			decode(buf[n:], vec)
		})
		if err != nil {
			// Reported; dropped with the other sources below, its keys
			// are no longer stored.
			t.problems = append(t.problems, err)
			continue
		}
		for len(ks) > 0 {
			n := min(len(ks), limit-len(outKeys))
			outKeys = append(outKeys, ks[:n]...)
			outVecs = append(outVecs, buf[:n*dims]...)
			ks, buf = ks[n:], buf[n*dims:]
			if len(outKeys) >= limit {
				if err := flush(); err != nil {
					return total, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return total, err
	}
	// The new shards are committed: the old ones can go. Until they are
	// gone (a crash here), both copies exist and the older is used.
	t.drop(src...)
	for _, sh := range newShards {
		t.addShard(sh)
	}
	return total, nil
}
