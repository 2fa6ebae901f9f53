package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	group("cache", "the embedding cache WS/embeddings/: stats, prune")
	registerSub("cache", &command{name: "stats", short: "spec folders, entries, size, and entries the current documents use", run: runCacheStats})
	registerSub("cache", &command{name: "prune", short: "remove cached embeddings no current document uses", run: runCachePrune})
}

func runCacheStats(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("cache stats", "--ws WS [--used] [--json]",
		"Lists the embedding cache's spec folders (one per encoder configuration): encoder, dims,\n"+
			"shards, entries, disk size; --used also counts the entries the current documents use.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withJSON, "")
	used := fs.Bool("used", false, "count entries the current documents use (renders every document)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.requireWS(fs); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	ws, err := workspace.OpenExisting(sf.WS)
	if err != nil {
		return err
	}
	st, err := index.CacheStats(ws, *used)
	if err != nil {
		return err
	}
	if sf.JSON {
		return writeJSON(env.Stdout, st)
	}
	if len(st) == 0 {
		fmt.Fprintf(env.Stdout, "%s: empty\n", ws.Path(index.EmbeddingsDir))
	}
	for _, s := range st {
		var enc index.EncoderSpec
		json.Unmarshal(s.Encoder, &enc)
		cur := ""
		if s.Current {
			cur = " (current index)"
		}
		fmt.Fprintf(env.Stdout, "%s%s\n  encoder %s model %q, %d dims, max %d chars, rendering %s\n  %d entries (%d rows) in %d shards, %.1f MiB",
			s.Key, cur, enc.Kind, enc.Model, s.Dims, enc.MaxChars, enc.Rendering, s.Entries, s.Rows, s.Shards, float64(s.Bytes)/(1<<20))
		if s.Used >= 0 {
			fmt.Fprintf(env.Stdout, "; %d used by current documents", s.Used)
		}
		if s.Unreadable > 0 {
			fmt.Fprintf(env.Stdout, "; %d unreadable key tables", s.Unreadable)
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

func runCachePrune(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("cache prune", "--ws WS [--other-specs] [--dry-run]",
		"Removes from WS/embeddings/ every cached embedding whose text no current document has\n"+
			"(the documents the next `driftkit index` embeds), in every spec folder.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withQuiet, "")
	other := fs.Bool("other-specs", false, "also remove the folders of every spec but the current index's (other models, dims, renderings)")
	dry := fs.Bool("dry-run", false, "count what would be removed; change nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.requireWS(fs); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	ctx = sf.context(ctx)
	ws, err := workspace.OpenExisting(sf.WS)
	if err != nil {
		return err
	}
	rep, err := index.PruneCache(ctx, ws, index.PruneOptions{OtherSpecs: *other, DryRun: *dry})
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(env.Stderr, "driftkit cache prune: damaged file removed:", p)
	}
	verb := "kept"
	if *dry {
		verb = "would keep"
	}
	for _, s := range rep.Specs {
		if s.Removed {
			fmt.Fprintf(env.Stdout, "%s: removed (%d entries, %.1f MiB; not the current index's spec)\n", s.Key, s.EntriesBefore, float64(s.BytesBefore)/(1<<20))
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: %s %d of %d entries", s.Key, verb, s.EntriesAfter, s.EntriesBefore)
		if !*dry {
			fmt.Fprintf(env.Stdout, ", %.1f → %.1f MiB (%d shards removed, %d written)", float64(s.BytesBefore)/(1<<20), float64(s.BytesAfter)/(1<<20), s.ShardsRemoved, s.ShardsWritten)
		}
		fmt.Fprintln(env.Stdout)
	}
	if len(rep.Specs) == 0 {
		fmt.Fprintf(env.Stdout, "%s: nothing cached\n", ws.Path(index.EmbeddingsDir))
	}
	return nil
}

// printCacheReport prints what an index build did with the embedding cache.
func printCacheReport(env *Env, r *index.CacheReport) {
	if r == nil {
		return
	}
	switch r.Mode {
	case index.CacheOn:
		fmt.Fprintf(env.Stdout, "embedding cache: %d hits, %d misses, %d texts embedded in %d request(s); %d entries (%.1f MiB); lookup %.2fs\n",
			r.Hits, r.Misses, r.Embedded, r.Requests, r.Entries, float64(r.Bytes)/(1<<20), r.LookupSeconds)
	case index.CacheOff:
		fmt.Fprintf(env.Stdout, "embedding cache: off (--no-cache); %d texts embedded in %d request(s)\n", r.Embedded, r.Requests)
	case index.CacheBypass:
		fmt.Fprintf(env.Stdout, "embedding cache: bypassed (%s)\n", r.Reason)
	}
}
