package embcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

const testSpec = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// vec is a deterministic vector of a text, with values whose bits matter
// (a round trip through decimal would change them).
func vec(text string, dims int) []float32 {
	k := KeyOf(text)
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(math.Sin(float64(k[i%32])+float64(i))) / 3
	}
	return v
}

func textsN(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s text %d", prefix, i)
	}
	return out
}

func keysOf(texts []string) []Key {
	out := make([]Key, len(texts))
	for i, t := range texts {
		out[i] = KeyOf(t)
	}
	return out
}

func vecsOf(texts []string, dims int) []float32 {
	var out []float32
	for _, t := range texts {
		out = append(out, vec(t, dims)...)
	}
	return out
}

func open(t *testing.T, dir string, o Options, dims int) (*Cache, *Table) {
	t.Helper()
	c, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tab, err := c.Table(Spec{Key: testSpec, Dims: dims, Encoder: []byte(`{"kind":"test"}`)})
	if err != nil {
		t.Fatal(err)
	}
	return c, tab
}

// fill looks texts up and returns the filled matrix and the missed texts.
func fill(t *testing.T, tab *Table, texts []string) ([]float32, []string) {
	t.Helper()
	rows := make([]int, len(texts))
	for i := range rows {
		rows[i] = i
	}
	dst := make([]float32, len(texts)*tab.Dims())
	missed, err := tab.Fill(context.Background(), keysOf(texts), rows, dst)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range missed {
		out = append(out, texts[i])
	}
	return dst, out
}

// checkRows compares the rows of texts not in missed with their vectors, bit
// for bit.
func checkRows(t *testing.T, dst []float32, texts, missed []string, dims int) {
	t.Helper()
	for i, tx := range texts {
		if slices.Contains(missed, tx) {
			continue
		}
		want := vec(tx, dims)
		for j := range want {
			if math.Float32bits(dst[i*dims+j]) != math.Float32bits(want[j]) {
				t.Fatalf("%q dim %d: %v, want %v", tx, j, dst[i*dims+j], want[j])
			}
		}
	}
}

func TestAddFillReopen(t *testing.T) {
	dir := t.TempDir()
	const dims = 7
	c, tab := open(t, dir, Options{FlushRows: 10, FlushEvery: -1}, dims)
	a := textsN("a", 25)
	// Batches of 4: a shard once 10 rows are pending.
	for s := 0; s < len(a); s += 4 {
		e := min(s+4, len(a))
		if err := tab.Add(keysOf(a[s:e]), vecsOf(a[s:e], dims)); err != nil {
			t.Fatal(err)
		}
	}
	if tab.Written() != 2 || tab.Pending() != 1 {
		t.Fatalf("%d shards written, %d pending; want 2 and 1", tab.Written(), tab.Pending())
	}
	if err := tab.Flush(); err != nil {
		t.Fatal(err)
	}
	// Adding stored keys again stores nothing.
	if err := tab.Add(keysOf(a[:3]), vecsOf(a[:3], dims)); err != nil || tab.Pending() != 0 {
		t.Fatalf("re-adding stored keys: pending %d, %v", tab.Pending(), err)
	}
	c.Close()

	_, tab = open(t, dir, Options{}, dims)
	if tab.Len() != 25 || tab.Shards() != 3 || len(tab.Problems()) != 0 {
		t.Fatalf("reopened: %d entries in %d shards, problems %v", tab.Len(), tab.Shards(), tab.Problems())
	}
	q := append(slices.Clone(a[5:15]), textsN("b", 3)...)
	dst, missed := fill(t, tab, q)
	if !slices.Equal(missed, textsN("b", 3)) {
		t.Fatalf("missed %v", missed)
	}
	checkRows(t, dst, q, missed, dims)
}

func TestLockedWhileWriting(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrBusy) || !errors.Is(err, workspace.ErrBusy) {
		t.Fatalf("second writer: %v, want ErrBusy", err)
	}
	c.Close()
	c2, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	c2.Close()
}

// shardFiles returns the ids of the shards in the spec folder.
func shardFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, testSpec, "*"+KeysSuffix))
	var ids []string
	for _, p := range m {
		ids = append(ids, strings.TrimSuffix(filepath.Base(p), KeysSuffix))
	}
	slices.Sort(ids)
	return ids
}

// A damaged file is reported naming it, never used: its texts come back as
// misses, and its files are gone.
func TestDamagedFiles(t *testing.T) {
	const dims = 5
	flip := func(off int64) func(string) error {
		return func(p string) error {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			fi, _ := f.Stat()
			if off < 0 {
				off += fi.Size()
			}
			b := make([]byte, 1)
			f.ReadAt(b, off)
			b[0] ^= 0x10
			_, err = f.WriteAt(b, off)
			return err
		}
	}
	tests := []struct {
		name   string
		file   string // suffix of the damaged file
		damage func(path string) error
		atOpen bool // found when the table is opened (else when read)
	}{
		{"vector bit flipped", VecSuffix, flip(-3), false},
		{"npy header damaged", VecSuffix, flip(20), false},
		{"vectors truncated", VecSuffix, func(p string) error { return os.Truncate(p, 100) }, true},
		{"vectors missing", VecSuffix, os.Remove, true},
		{"vectors replaced by another shard's", VecSuffix, nil, false}, // set below
		{"key changed", KeysSuffix, func(p string) error {
			b, _ := os.ReadFile(p)
			i := strings.Index(string(b), `"keys":["`) + len(`"keys":["`)
			c := byte('0')
			if b[i] == '0' {
				c = '1'
			}
			b[i] = c
			return os.WriteFile(p, b, 0o644)
		}, true},
		{"key table not JSON", KeysSuffix, func(p string) error { return os.WriteFile(p, []byte("{\"format\":\"driftkit-embe"), 0o644) }, true},
		{"key table of another spec", KeysSuffix, func(p string) error {
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, []byte(strings.Replace(string(b), testSpec, strings.Repeat("f", 64), 1)), 0o644)
		}, true},
		{"rows disagree", KeysSuffix, func(p string) error {
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, []byte(strings.Replace(string(b), `"rows":12`, `"rows":11`, 1)), 0o644)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c, tab := open(t, dir, Options{FlushRows: 4, FlushEvery: -1}, dims)
			a := textsN("a", 12)
			if err := tab.Add(keysOf(a), vecsOf(a, dims)); err != nil {
				t.Fatal(err)
			}
			if err := tab.Flush(); err != nil {
				t.Fatal(err)
			}
			b := textsN("b", 4)
			if err := tab.Add(keysOf(b), vecsOf(b, dims)); err != nil {
				t.Fatal(err)
			}
			if err := tab.Flush(); err != nil {
				t.Fatal(err)
			}
			c.Close()
			ids := shardFiles(t, dir)
			if len(ids) != 2 {
				t.Fatalf("%d shards", len(ids))
			}
			// Damage the first shard (a's, 12 rows: written as one
			// shard since Add flushes after a call).
			bad := filepath.Join(dir, testSpec, ids[0]+tc.file)
			damage := tc.damage
			if damage == nil {
				// Same shape, other vectors: only the checksum tells.
				damage = func(p string) error {
					c2, t2 := open(t, t.TempDir(), Options{}, dims)
					x := textsN("x", 12)
					t2.Add(keysOf(x), vecsOf(x, dims))
					t2.Flush()
					src, _ := filepath.Glob(filepath.Join(t2.Dir(), "*"+VecSuffix))
					c2.Close()
					data, err := os.ReadFile(src[0])
					if err != nil {
						return err
					}
					return os.WriteFile(p, data, 0o644)
				}
			}
			if err := damage(bad); err != nil {
				t.Fatal(err)
			}
			_, tab = open(t, dir, Options{}, dims)
			if got := len(tab.Problems()) > 0; got != tc.atOpen {
				t.Fatalf("found at open: %v, want %v (%v)", got, tc.atOpen, tab.Problems())
			}
			q := append(slices.Clone(a), b...)
			dst, missed := fill(t, tab, q)
			if !slices.Equal(missed, a) {
				t.Fatalf("missed %v, want the damaged shard's %v", missed, a)
			}
			checkRows(t, dst, q, missed, dims)
			ps := tab.Problems()
			if len(ps) != 1 || !errors.Is(ps[0], ErrCorrupt) || !strings.Contains(ps[0].Error(), ids[0]) {
				t.Fatalf("problems %v, want one naming %s", ps, ids[0])
			}
			var fe *workspace.FileError
			if !errors.As(ps[0], &fe) || !strings.HasPrefix(filepath.Base(fe.Path), ids[0]) {
				t.Fatalf("problem %v does not name the file", ps[0])
			}
			if left := shardFiles(t, dir); !slices.Equal(left, ids[1:]) {
				t.Fatalf("shards left %v, want %v", left, ids[1:])
			}
			if _, err := os.Stat(filepath.Join(dir, testSpec, ids[0]+VecSuffix)); !os.IsNotExist(err) {
				t.Fatalf("damaged vectors still there: %v", err)
			}
			// Stored again, they are served again.
			if err := tab.Add(keysOf(a), vecsOf(a, dims)); err != nil {
				t.Fatal(err)
			}
			tab.Flush()
			dst, missed = fill(t, tab, q)
			if len(missed) != 0 {
				t.Fatalf("after re-adding: missed %v", missed)
			}
			checkRows(t, dst, q, nil, dims)
		})
	}
}

// What a writer killed between its steps leaves is cleaned up without a
// report: temporaries, vectors without a key table.
func TestLeftoversRemoved(t *testing.T) {
	const dims = 3
	dir := t.TempDir()
	c, tab := open(t, dir, Options{}, dims)
	a := textsN("a", 5)
	tab.Add(keysOf(a), vecsOf(a, dims))
	tab.Flush()
	c.Close()
	sd := filepath.Join(dir, testSpec)
	ids := shardFiles(t, dir)
	// A second shard whose key table was never written, and a temporary.
	orphan := filepath.Join(sd, "s20990101T000000000000000-deadbeef"+VecSuffix)
	data, _ := os.ReadFile(filepath.Join(sd, ids[0]+VecSuffix))
	os.WriteFile(orphan, data, 0o644)
	tmp := filepath.Join(sd, ".s20990101T000000000000000-deadbeef.keys.json.tmp-123")
	os.WriteFile(tmp, []byte("{"), 0o644)
	_, tab = open(t, dir, Options{}, dims)
	if len(tab.Problems()) != 0 || tab.Orphans() != 1 || tab.Len() != 5 {
		t.Fatalf("problems %v, orphans %d, entries %d", tab.Problems(), tab.Orphans(), tab.Len())
	}
	for _, p := range []string{orphan, tmp} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", p, err)
		}
	}
}

func TestCompact(t *testing.T) {
	const dims = 4
	dir := t.TempDir()
	c, tab := open(t, dir, Options{FlushRows: 1, ShardRows: 10, SmallRows: 5, CompactShards: 5}, dims)
	a := textsN("a", 23)
	for s := 0; s < len(a); s += 2 {
		e := min(s+2, len(a))
		if err := tab.Add(keysOf(a[s:e]), vecsOf(a[s:e], dims)); err != nil {
			t.Fatal(err)
		}
	}
	if tab.Shards() != 12 {
		t.Fatalf("%d shards before compaction", tab.Shards())
	}
	merged, err := tab.Compact()
	if err != nil || !merged {
		t.Fatalf("compact: %v %v", merged, err)
	}
	if tab.Shards() != 3 || tab.Len() != 23 {
		t.Fatalf("after compaction: %d shards, %d entries; want 3 and 23", tab.Shards(), tab.Len())
	}
	c.Close()
	_, tab = open(t, dir, Options{ShardRows: 10, SmallRows: 5, CompactShards: 5}, dims)
	if len(shardFiles(t, dir)) != 3 || tab.Len() != 23 {
		t.Fatalf("on disk: %d shards, %d entries", len(shardFiles(t, dir)), tab.Len())
	}
	dst, missed := fill(t, tab, a)
	if len(missed) != 0 {
		t.Fatalf("missed %v", missed)
	}
	checkRows(t, dst, a, nil, dims)
	if merged, _ := tab.Compact(); merged {
		t.Error("compacted 3 shards (threshold 5)")
	}
}

func TestRetainAndDuplicates(t *testing.T) {
	const dims = 3
	dir := t.TempDir()
	c, tab := open(t, dir, Options{FlushRows: 1}, dims)
	a := textsN("a", 30)
	for s := 0; s < 30; s += 10 {
		tab.Add(keysOf(a[s:s+10]), vecsOf(a[s:s+10], dims))
	}
	c.Close()
	// A killed compaction leaves a copy of the second shard under a newer name.
	ids := shardFiles(t, dir)
	sd := filepath.Join(dir, testSpec)
	dup := "s20990101T000000000000000-00000001"
	kb, _ := os.ReadFile(filepath.Join(sd, ids[1]+KeysSuffix))
	os.WriteFile(filepath.Join(sd, dup+KeysSuffix), []byte(strings.Replace(string(kb), ids[1]+VecSuffix, dup+VecSuffix, 1)), 0o644)
	vb, _ := os.ReadFile(filepath.Join(sd, ids[1]+VecSuffix))
	os.WriteFile(filepath.Join(sd, dup+VecSuffix), vb, 0o644)

	c, tab = open(t, dir, Options{}, dims)
	if tab.Len() != 30 || tab.Shards() != 4 || len(tab.Problems()) != 0 {
		t.Fatalf("with a duplicate shard: %d entries, %d shards, %v", tab.Len(), tab.Shards(), tab.Problems())
	}
	// Keep a[0:5] (first shard partly), a[10:20] (second shard whole: its
	// duplicate goes), nothing of the third.
	keep := map[Key]bool{}
	for _, tx := range append(slices.Clone(a[0:5]), a[10:20]...) {
		keep[KeyOf(tx)] = true
	}
	dry, err := tab.Retain(func(k Key) bool { return keep[k] }, true)
	if err != nil || dry.EntriesAfter != 15 || tab.Len() != 30 || len(shardFiles(t, dir)) != 4 {
		t.Fatalf("dry run: %+v, %v; %d entries left", dry, err, tab.Len())
	}
	st, err := tab.Retain(func(k Key) bool { return keep[k] }, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.EntriesBefore != 30 || st.EntriesAfter != 15 || st.BytesAfter >= st.BytesBefore {
		t.Fatalf("retain: %+v", st)
	}
	c.Close()
	_, tab = open(t, dir, Options{}, dims)
	if tab.Len() != 15 {
		t.Fatalf("%d entries after retain", tab.Len())
	}
	q := append(slices.Clone(a[0:5]), a[10:20]...)
	dst, missed := fill(t, tab, q)
	if len(missed) != 0 {
		t.Fatalf("missed %v", missed)
	}
	checkRows(t, dst, q, nil, dims)
	if _, missed := fill(t, tab, a[20:]); len(missed) != 10 {
		t.Fatalf("pruned entries still served: %d missed of 10", len(missed))
	}
	rows := 0
	for _, id := range shardFiles(t, dir) {
		b, _ := os.ReadFile(filepath.Join(sd, id+KeysSuffix))
		var kt keyTable
		if err := json.Unmarshal(b, &kt); err != nil {
			t.Fatal(err)
		}
		rows += len(kt.Keys)
	}
	if rows != 15 {
		t.Fatalf("%d rows on disk after retain, want 15 (duplicates dropped)", rows)
	}
}

func TestSpecsAreSeparate(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := textsN("a", 3)
	t1, _ := c.Table(Spec{Key: testSpec, Dims: 4})
	t1.Add(keysOf(a), vecsOf(a, 4))
	t1.Flush()
	other := strings.Repeat("ab", 32)
	t2, err := c.Table(Spec{Key: other, Dims: 4})
	if err != nil {
		t.Fatal(err)
	}
	if t2.Len() != 0 {
		t.Fatal("another spec sees the first spec's entries")
	}
	if _, err := c.Table(Spec{Key: testSpec, Dims: 8}); err == nil {
		t.Fatal("a spec folder opened with other dims")
	}
	if _, err := c.Table(Spec{Key: "../x", Dims: 4}); err == nil {
		t.Fatal("a spec key with a path accepted")
	}
	st, err := ReadStats(dir, func(k Key) bool { return k == KeyOf(a[0]) })
	if err != nil || len(st) != 2 {
		t.Fatalf("stats %+v %v", st, err)
	}
	for _, s := range st {
		want := map[string]int{testSpec: 3, other: 0}[s.Key]
		if s.Entries != want || s.Rows != want || s.Dims != 4 || (want > 0 && (s.Used != 1 || s.Bytes == 0)) {
			t.Errorf("stats %+v", s)
		}
	}
}
