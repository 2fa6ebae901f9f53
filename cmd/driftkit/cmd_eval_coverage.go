package main

import (
	"context"
	"flag"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("eval coverage", "how many benchmark gold premises the workspace holds as rows", help{"--ws WS --bench FILE [--json]",
		"Checks the distinct gold premises of a benchmark (mathlib_dependencies) against declarations.parquet:\n" +
			"how many are rows (by library), how many are Lean core names (known to the reader, but core has no\n" +
			"sources and so no rows), and which are absent (a package not given as --src, another revision)."}, runEvalCoverage))
}

// evalCoverageOptions are the flags of `driftkit eval coverage`.
type evalCoverageOptions struct {
	stage stageFlags
	Bench string
}

func (o *evalCoverageOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	fs.StringVar(&o.Bench, "bench", "", "benchmark JSONL with mathlib_dependencies (ProofNet, ConNF)")
}

func (o *evalCoverageOptions) Validate(args []string) error {
	if o.stage.WS == "" || o.Bench == "" {
		return usagef("--ws and --bench are required")
	}
	return nil
}

func runEvalCoverage(ctx context.Context, o *evalCoverageOptions, env *Env, args []string) error {
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	items, err := eval.ReadBenchFile(o.Bench)
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
	return o.stage.report(env.Stdout, cov, cov.WriteText)
}
