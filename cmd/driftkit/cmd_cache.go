package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	group("cache", "the embedding cache WS/embeddings/: stats, prune")
	register(newCommand("cache stats", "spec folders, entries, size, and entries the current documents use", help{"--ws WS [--used] [--json]",
		"Lists the embedding cache's spec folders (one per encoder configuration): encoder, dims,\n" +
			"shards, entries, disk size; --used also counts the entries the current documents use."}, runCacheStats))
	register(newCommand("cache prune", "remove cached embeddings no current document uses", help{"--ws WS [--other-specs] [--dry-run]",
		"Removes from WS/embeddings/ every cached embedding whose text no current document has\n" +
			"(the documents the next `driftkit index` embeds), in every spec folder."}, runCachePrune))
}

// cacheStatsOptions are the flags of `driftkit cache stats`.
type cacheStatsOptions struct {
	stage stageFlags
	Used  bool
}

func (o *cacheStatsOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	fs.BoolVar(&o.Used, "used", false, "count entries the current documents use (renders every document)")
}

func (o *cacheStatsOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	return noArgs(args)
}

func runCacheStats(ctx context.Context, o *cacheStatsOptions, env *Env, args []string) error {
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := index.CacheStats(ws, o.Used)
	if err != nil {
		return err
	}
	if o.stage.JSON {
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

// cachePruneOptions are the flags of `driftkit cache prune`.
type cachePruneOptions struct {
	stage      stageFlags
	OtherSpecs bool
	DryRun     bool
}

func (o *cachePruneOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet, "")
	fs.BoolVar(&o.OtherSpecs, "other-specs", false, "also remove the folders of every spec but the current index's (other models, dims, renderings)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "count what would be removed; change nothing")
}

func (o *cachePruneOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	return noArgs(args)
}

func runCachePrune(ctx context.Context, o *cachePruneOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	rep, err := index.PruneCache(ctx, ws, index.PruneOptions{OtherSpecs: o.OtherSpecs, DryRun: o.DryRun})
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(env.Stderr, "driftkit cache prune: damaged file removed:", p)
	}
	verb := "kept"
	if o.DryRun {
		verb = "would keep"
	}
	for _, s := range rep.Specs {
		if s.Removed {
			fmt.Fprintf(env.Stdout, "%s: removed (%d entries, %.1f MiB; not the current index's spec)\n", s.Key, s.EntriesBefore, float64(s.BytesBefore)/(1<<20))
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: %s %d of %d entries", s.Key, verb, s.EntriesAfter, s.EntriesBefore)
		if !o.DryRun {
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
