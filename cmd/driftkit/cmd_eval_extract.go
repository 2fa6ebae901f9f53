package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("eval", &command{name: "extract", short: "compare declarations with an elaborated reference", run: runEvalExtract})
}

func runEvalExtract(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("eval extract", "--ws WS (--reference FILE | --reference-ws ELAB) [--json]",
		"Compares declarations.parquet with an elaborated reference: RAutoformalizer's library format\n"+
			"(--reference library.jsonl, premises marked in each header), or a workspace made by `import jixia` or\n"+
			"`import lean4export` (--reference-ws). Reports declaration-name recall and precision per kind, and\n"+
			"statement-dependency precision/recall/F1 (plus proof dependencies against a workspace reference).")
	wsDir := fs.String("ws", "", "workspace folder")
	refPath := fs.String("reference", "", "reference library.jsonl (RAutoformalizer)")
	refWS := fs.String("reference-ws", "", "reference workspace (made by import jixia / import lean4export)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	srcs := fs.String("sources", "", "comma-separated sources (code_src values, or libraries of a reference workspace) whose rows are scored for dependencies")
	samples := fs.Int("samples", 20, "rows listed in the samples")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *wsDir == "" || (*refPath == "") == (*refWS == "") {
		return usagef(fs, "--ws and one of --reference, --reference-ws are required")
	}
	ws, err := workspace.OpenExisting(*wsDir)
	if err != nil {
		return err
	}
	var ref *extract.Reference
	if *refPath != "" {
		ref, err = extract.ReadReference(*refPath)
	} else {
		var rws *workspace.Workspace
		if rws, err = workspace.OpenExisting(*refWS); err == nil {
			ref, err = extract.ReadReferenceTable(rws.Path(workspace.DeclarationsFile))
		}
	}
	if err != nil {
		return err
	}
	opt := extract.EvalOptions{Samples: *samples}
	if *srcs != "" {
		opt.Sources = strings.Split(*srcs, ",")
	}
	rep, err := extract.EvalReference(ws.Path(workspace.DeclarationsFile), ref, opt)
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
