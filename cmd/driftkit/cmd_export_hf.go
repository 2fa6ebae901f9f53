package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/driftkit/driftkit/dataset/export"
	"github.com/driftkit/driftkit/workspace"
)

func trainRecipe(model string) export.Recipe {
	r := export.DRIFTRecipe()
	if model != "" {
		r.Model = model
	}
	return r
}

func init() {
	registerSub("export", &command{name: "hf", short: "Hugging Face dataset folder", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags("export hf", "--ws WS --license ID",
			"Writes WS/export/hf/: README.md (dataset card with YAML configs declarations, informal and pairs, the\n"+
				"licence and provenance) and data/<config>/<split>-NNNNN-of-NNNNN.parquet shards.")
		var sf stageFlags
		sf.AddFlags(fs, withWS|withQuiet|withForce, "an export")
		license := fs.String("license", "", "licence identifier as the Hub spells it (apache-2.0 for Mathlib); required")
		name := fs.String("name", "", "card title (default from the library names)")
		shardRows := fs.Int("shard-rows", 50000, "rows per Parquet shard")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.requireWS(fs); err != nil {
			return err
		}
		if *license == "" {
			return usagef(fs, "%v", export.ErrLicense)
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		ctx = sf.context(ctx)
		ws, err := workspace.Open(sf.WS)
		if err != nil {
			return err
		}
		st, err := export.HuggingFace(ctx, ws, export.HFOptions{License: *license, PrettyName: *name, ShardRows: *shardRows, Force: sf.Force})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "wrote %s:", st.Dir)
		keys := make([]string, 0, len(st.Rows))
		for k := range st.Rows {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(env.Stdout, " %s %d rows;", k, st.Rows[k])
		}
		fmt.Fprintln(env.Stdout)
		return nil
	}})
}
