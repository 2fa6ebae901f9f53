package embcache

import (
	"errors"
	"slices"
	"testing"
)

// TestRetainFailureKeepsEntries: a prune (Retain) that fails while it
// writes the shards it keeps (a full disk on the second shard) loses no
// kept entry: the old shards are removed only after every new one is
// committed, and the cache reopened serves every kept vector.
func TestRetainFailureKeepsEntries(t *testing.T) {
	const dims = 3
	dir := t.TempDir()
	c, tab := open(t, dir, Options{FlushRows: 1}, dims)
	a := textsN("a", 30)
	for s := 0; s < 30; s += 10 {
		tab.Add(keysOf(a[s:s+10]), vecsOf(a[s:s+10], dims))
	}
	c.Close()
	c, tab = open(t, dir, Options{ShardRows: 4}, dims) // the 10 kept rows need 3 new shards
	kept := append(slices.Clone(a[0:5]), a[10:15]...)
	keep := map[Key]bool{}
	for _, tx := range kept {
		keep[KeyOf(tx)] = true
	}
	full := errors.New("no space left on device (test)")
	writes := 0
	writeShardFault = func() error {
		if writes++; writes == 2 {
			return full
		}
		return nil
	}
	defer func() { writeShardFault = nil }()
	if _, err := tab.Retain(func(k Key) bool { return keep[k] }, false); !errors.Is(err, full) {
		t.Fatalf("retain with a failing write: %v", err)
	}
	c.Close()
	writeShardFault = nil
	_, tab = open(t, dir, Options{}, dims)
	dst, missed := fill(t, tab, kept)
	if len(missed) != 0 {
		t.Fatalf("a failed prune lost %d kept entries: %v", len(missed), missed)
	}
	checkRows(t, dst, kept, nil, dims)
}
