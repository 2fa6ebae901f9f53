package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"

	"github.com/driftkit/driftkit/dataset/export"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("export hf", "Hugging Face dataset folder", help{"--ws WS --license ID",
		"Writes WS/export/hf/: README.md (dataset card with YAML configs declarations, informal and pairs, the\n" +
			"licence and provenance) and data/<config>/<split>-NNNNN-of-NNNNN.parquet shards."}, runExportHF))
}

// exportHFOptions are the flags of `driftkit export hf`.
type exportHFOptions struct {
	stage     stageFlags
	License   string
	Name      string
	ShardRows int
}

func (o *exportHFOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "an export")
	fs.StringVar(&o.License, "license", "", "licence identifier as the Hub spells it (apache-2.0 for Mathlib); required")
	fs.StringVar(&o.Name, "name", "", "card title (default from the library names)")
	fs.IntVar(&o.ShardRows, "shard-rows", 50000, "rows per Parquet shard")
}

func (o *exportHFOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if o.License == "" {
		return usagef("%v", export.ErrLicense)
	}
	return noArgs(args)
}

func runExportHF(ctx context.Context, o *exportHFOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	st, err := export.HuggingFace(ctx, ws, export.HFOptions{License: o.License, PrettyName: o.Name, ShardRows: o.ShardRows, Force: o.stage.Force})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s:", st.Dir)
	for _, k := range slices.Sorted(maps.Keys(st.Rows)) {
		fmt.Fprintf(env.Stdout, " %s %d rows;", k, st.Rows[k])
	}
	fmt.Fprintln(env.Stdout)
	return nil
}
