package main

import (
	"context"
	"encoding/json"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("eval", &command{name: "coverage", short: "how many benchmark gold premises the workspace holds as rows", run: runEvalCoverage})
}

func runEvalCoverage(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval coverage", "--ws WS --bench FILE [--json]",
		"Checks the distinct gold premises of a benchmark (mathlib_dependencies) against declarations.parquet:\n"+
			"how many are rows (by library), how many are Lean core names (known to the reader, but core has no\n"+
			"sources and so no rows), and which are absent (a package not given as --src, another revision).")
	wsDir := fs.String("ws", "", "workspace folder")
	bench := fs.String("bench", "", "benchmark JSONL with mathlib_dependencies (ProofNet, ConNF)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" || *bench == "" {
		return usagef(fs, "--ws and --bench are required")
	}
	ws, err := workspace.OpenExisting(*wsDir)
	if err != nil {
		return err
	}
	items, err := eval.ReadBenchFile(*bench)
	if err != nil {
		return err
	}
	var gold []string
	for _, it := range items {
		gold = append(gold, it.Gold...)
	}
	cov, err := extract.Coverage(ws.Path(workspace.DeclarationsFile), gold)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cov)
	}
	cov.WriteText(env.Stdout)
	return nil
}
