package index

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/index/embcache"
	"github.com/driftkit/driftkit/workspace"
)

// currentKeys returns the keys of the texts of the workspace's current
// documents (what the next index build embeds).
func currentKeys(ws *workspace.Workspace) (map[embcache.Key]bool, error) {
	docs, err := workspace.LoadDocuments(ws)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	set := make(map[embcache.Key]bool, len(docs))
	for _, k := range textKeys(texts) {
		set[k] = true
	}
	return set, nil
}

// currentSpecKey is the cache key of the workspace's current index, or "".
func currentSpecKey(ws *workspace.Workspace) string {
	m, err := ReadManifest(ws.Dir)
	if err != nil || m.EmbeddingCache == nil {
		return ""
	}
	return m.EmbeddingCache.Spec
}

// CacheSpecStats is one spec folder of the embedding cache.
type CacheSpecStats struct {
	embcache.SpecStats
	// Current marks the spec of the workspace's current index.
	Current bool `json:"current"`
}

// CacheStats summarises the workspace's embedding cache without locking it.
// With used, it also counts the entries the current documents use (this
// renders every document: seconds on Mathlib).
func CacheStats(ws *workspace.Workspace, used bool) ([]CacheSpecStats, error) {
	var fn func(embcache.Key) bool
	if used {
		set, err := currentKeys(ws)
		if err != nil {
			return nil, err
		}
		fn = func(k embcache.Key) bool { return set[k] }
	}
	st, err := embcache.ReadStats(ws.Path(EmbeddingsDir), fn)
	if err != nil {
		return nil, err
	}
	cur := currentSpecKey(ws)
	out := make([]CacheSpecStats, len(st))
	for i, s := range st {
		out[i] = CacheSpecStats{SpecStats: s, Current: s.Key == cur}
	}
	return out, nil
}

// PruneOptions configure PruneCache.
type PruneOptions struct {
	// OtherSpecs also removes every spec folder but the one the current
	// index was built with (vectors of other models, dims, renderings).
	OtherSpecs bool
	// DryRun counts what would be removed and changes nothing.
	DryRun bool
}

// SpecPrune is what PruneCache did to one spec folder.
type SpecPrune struct {
	Key string `json:"key"`
	// Removed: the whole folder went (OtherSpecs).
	Removed bool `json:"removed,omitempty"`
	embcache.RetainStats
}

// PruneReport is what PruneCache did.
type PruneReport struct {
	Specs []SpecPrune `json:"specs"`
	// Problems names damaged cache files found (removed).
	Problems []string `json:"problems,omitempty"`
}

// ErrNoCurrentSpec is returned when OtherSpecs is asked for but the
// workspace has no index built through the cache to say which spec is
// current.
var ErrNoCurrentSpec = errors.New("no current index built through the embedding cache: nothing says which spec to keep")

// PruneCache removes from WS/embeddings/ every entry whose text no current
// document has (the documents the next `index` would embed), in every spec
// folder; with OtherSpecs, also the folders of other specs than the current
// index's. It takes the cache's writer lock (ErrBusy beside an index build)
// and records a "cache prune" entry in the workspace manifest.
func PruneCache(ctx context.Context, ws *workspace.Workspace, o PruneOptions) (*PruneReport, error) {
	dir := ws.Path(EmbeddingsDir)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return &PruneReport{}, nil
	}
	cur := ""
	if o.OtherSpecs {
		if cur = currentSpecKey(ws); cur == "" {
			return nil, fmt.Errorf("%s: %w", ws.Dir, ErrNoCurrentSpec)
		}
	}
	c, err := embcache.Open(dir, embcache.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	run := ws.StartRun("cache prune", map[string]any{"other_specs": o.OtherSpecs})
	keep, err := currentKeys(ws)
	if err != nil {
		return nil, err
	}
	for _, n := range []string{workspace.DeclarationsFile, workspace.InformalFile} {
		if ws.Has(n) {
			if err := run.Input(n); err != nil {
				return nil, err
			}
		}
	}
	specs, err := embcache.Specs(dir)
	if err != nil {
		return nil, err
	}
	rep := &PruneReport{}
	var before, after, bytesBefore, bytesAfter int64
	for _, key := range specs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		t, err := c.Table(embcache.Spec{Key: key})
		if err != nil {
			return rep, err
		}
		sp := SpecPrune{Key: key}
		if o.OtherSpecs && key != cur {
			sp.Removed = true
			sp.EntriesBefore, sp.BytesBefore, sp.ShardsRemoved = t.Len(), t.Bytes(), t.Shards()
			if !o.DryRun {
				if err := c.RemoveSpec(key); err != nil {
					return rep, err
				}
			}
		} else {
			sp.RetainStats, err = t.Retain(func(k embcache.Key) bool { return keep[k] }, o.DryRun)
			if err != nil {
				return rep, err
			}
		}
		for _, p := range t.Problems() {
			rep.Problems = append(rep.Problems, p.Error())
			run.Note("damaged embedding cache file removed: " + p.Error())
		}
		before += int64(sp.EntriesBefore)
		after += int64(sp.EntriesAfter)
		bytesBefore += sp.BytesBefore
		bytesAfter += max(sp.BytesAfter, 0)
		rep.Specs = append(rep.Specs, sp)
	}
	if o.DryRun {
		return rep, nil
	}
	run.Count("entries_before", before)
	run.Count("entries_after", after)
	run.Count("bytes_before", bytesBefore)
	run.Count("bytes_after", bytesAfter)
	run.Count("current_documents", int64(len(keep)))
	return rep, run.Finish()
}
