package embcache

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzKeyTable opens a spec folder whose one shard has a fuzzed key table
// beside valid vectors: the table is refused with a report naming it, or
// accepted and then every row it serves passed the vectors' checksum.
func FuzzKeyTable(f *testing.F) {
	const dims = 3
	seedDir := f.TempDir()
	c, err := Open(seedDir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	tab, err := c.Table(Spec{Key: testSpec, Dims: dims})
	if err != nil {
		f.Fatal(err)
	}
	a := textsN("a", 4)
	tab.Add(keysOf(a), vecsOf(a, dims))
	tab.Flush()
	c.Close()
	ids, _ := filepath.Glob(filepath.Join(seedDir, testSpec, "*"+KeysSuffix))
	good, err := os.ReadFile(ids[0])
	if err != nil {
		f.Fatal(err)
	}
	vecs, err := os.ReadFile(ids[0][:len(ids[0])-len(KeysSuffix)] + VecSuffix)
	if err != nil {
		f.Fatal(err)
	}
	id := filepath.Base(ids[0][:len(ids[0])-len(KeysSuffix)])
	f.Add(good)
	f.Add([]byte(`{"format":"driftkit-embeddings-shard/1","rows":1,"keys":["zz"]}`))
	f.Add([]byte(`{"format":"driftkit-embeddings-shard/9"}`))
	f.Add([]byte(`[]`))
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		sd := filepath.Join(dir, testSpec)
		os.MkdirAll(sd, 0o755)
		os.WriteFile(filepath.Join(sd, id+KeysSuffix), b, 0o644)
		os.WriteFile(filepath.Join(sd, id+VecSuffix), vecs, 0o644)
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tab, err := c.Table(Spec{Key: testSpec, Dims: dims})
		if err != nil {
			t.Fatal(err)
		}
		if tab.Len() == 0 {
			if len(tab.Problems()) == 0 {
				t.Fatal("a key table was dropped without a report")
			}
			return
		}
		dst := make([]float32, len(a)*dims)
		missed, err := tab.Fill(context.Background(), keysOf(a), []int{0, 1, 2, 3}, dst)
		if err != nil {
			t.Fatal(err)
		}
		if len(missed) == 0 {
			checkRows(t, dst, a, nil, dims)
		}
	})
}
