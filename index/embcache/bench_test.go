package embcache

import (
	"context"
	"fmt"
	"testing"
)

// benchTable writes n vectors of dims into a cache in shards of 16,384.
func benchTable(b *testing.B, n, dims int) (string, []Key) {
	dir := b.TempDir()
	c, err := Open(dir, Options{FlushEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	tab, err := c.Table(Spec{Key: testSpec, Dims: dims})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]Key, n)
	v := make([]float32, 1024*dims)
	for s := 0; s < n; s += 1024 {
		e := min(s+1024, n)
		for i := s; i < e; i++ {
			keys[i] = KeyOf(fmt.Sprint(i))
		}
		if err := tab.Add(keys[s:e], v[:(e-s)*dims]); err != nil {
			b.Fatal(err)
		}
	}
	if err := tab.Flush(); err != nil {
		b.Fatal(err)
	}
	return dir, keys
}

// BenchmarkLookup is a rebuild's lookup: open the table (read every key
// table), then fill every vector (read and verify every shard). Bytes/s is
// vectors read.
func BenchmarkLookup(b *testing.B) {
	const n, dims = 32768, 1024
	dir, keys := benchTable(b, n, dims)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	dst := make([]float32, n*dims)
	b.SetBytes(int64(n * dims * 4))
	b.ResetTimer()
	for range b.N {
		c, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		tab, err := c.Table(Spec{Key: testSpec, Dims: dims})
		if err != nil {
			b.Fatal(err)
		}
		missed, err := tab.Fill(context.Background(), keys, rows, dst)
		if err != nil || len(missed) != 0 {
			b.Fatal(err, len(missed))
		}
		c.Close()
	}
}

// BenchmarkAppend writes vectors as shards (hash, fsync, rename). Bytes/s is
// vectors written.
func BenchmarkAppend(b *testing.B) {
	const n, dims = 16384, 1024
	b.SetBytes(int64(n * dims * 4))
	for range b.N {
		benchTable(b, n, dims)
	}
}
