package embcache

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// SpecStats describes one spec folder of a cache.
type SpecStats struct {
	Key string `json:"key"`
	// Encoder is the encoder spec recorded in spec.json (null if unreadable).
	Encoder json.RawMessage `json:"encoder"`
	Dims    int             `json:"dims"`
	Shards  int             `json:"shards"`
	// Rows counts stored vectors, Entries distinct keys among them.
	Rows    int `json:"rows"`
	Entries int `json:"entries"`
	// Used counts the entries the caller's used function accepts (the
	// workspace's current documents); -1 when not asked.
	Used  int   `json:"used"`
	Bytes int64 `json:"bytes"`
	// Unreadable counts key tables that could not be read (a writer's
	// leftovers or damage: the next writer reports and removes them).
	Unreadable int `json:"unreadable,omitempty"`
}

// ReadStats summarises every spec folder of the cache at dir without taking
// its lock (it only reads key tables, whose presence is each shard's
// commit). used, when not nil, says which keys the current documents have.
func ReadStats(dir string, used func(Key) bool) ([]SpecStats, error) {
	keys, err := Specs(dir)
	if err != nil {
		return nil, err
	}
	var out []SpecStats
	for _, key := range keys {
		sd := filepath.Join(dir, key)
		st := SpecStats{Key: key, Used: -1}
		if used != nil {
			st.Used = 0
		}
		if sf, err := readSpecFile(filepath.Join(sd, SpecFile)); err == nil {
			st.Encoder, st.Dims = sf.Encoder, sf.Dims
		}
		ents, err := os.ReadDir(sd)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // removed meanwhile
			}
			return nil, err
		}
		seen := map[Key]bool{}
		for _, e := range ents {
			n := e.Name()
			if fi, err := e.Info(); err == nil && !strings.HasPrefix(n, ".") {
				st.Bytes += fi.Size()
			}
			if !strings.HasSuffix(n, KeysSuffix) || !shardIDRE.MatchString(strings.TrimSuffix(n, KeysSuffix)) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(sd, n))
			var kt keyTable
			if err != nil || json.Unmarshal(b, &kt) != nil || kt.Format != Format {
				st.Unreadable++
				continue
			}
			st.Shards++
			st.Rows += len(kt.Keys)
			for _, s := range kt.Keys {
				k, err := ParseKey(s)
				if err != nil || seen[k] {
					continue
				}
				seen[k] = true
				if used != nil && used(k) {
					st.Used++
				}
			}
		}
		st.Entries = len(seen)
		out = append(out, st)
	}
	return out, nil
}
