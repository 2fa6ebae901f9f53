package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/extract"
)

func init() {
	registerSub("eval", &command{name: "extract", short: "compare declarations with an elaborated reference", run: runEvalExtract})
}

func runEvalExtract(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval extract", "--ws WS --reference FILE [--json]",
		"Compares declarations.parquet with an elaborated reference in RAutoformalizer's library format:\n"+
			"declaration-name recall and precision per kind, and statement-dependency precision/recall/F1\n"+
			"against the premises marked in each header.")
	wsDir := fs.String("ws", "", "workspace folder")
	refPath := fs.String("reference", "", "reference library.jsonl")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	srcs := fs.String("sources", "", "comma-separated code_src values whose rows are scored for dependencies (default: all but mathlib4, lean4)")
	samples := fs.Int("samples", 20, "rows listed in the samples")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" || *refPath == "" {
		fmt.Fprintln(env.Stderr, "driftkit eval extract: --ws and --reference are required")
		fs.Usage()
		return errUsage
	}
	ws, err := dataset.OpenExisting(*wsDir)
	if err != nil {
		return err
	}
	opt := extract.EvalOptions{Samples: *samples}
	if *srcs != "" {
		opt.Sources = strings.Split(*srcs, ",")
	}
	rep, err := extract.Eval(ws.Path(dataset.DeclarationsFile), *refPath, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.WriteText(env.Stdout)
	return nil
}
