package main

import (
	"context"
	"flag"
	"strings"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("eval extract", "compare declarations with an elaborated reference", help{"--ws WS (--reference FILE | --reference-ws ELAB) [--json]",
		"Compares declarations.parquet with an elaborated reference: RAutoformalizer's library format\n" +
			"(--reference library.jsonl, premises marked in each header), or a workspace made by `import jixia` or\n" +
			"`import lean4export` (--reference-ws). Reports declaration-name recall and precision per kind, and\n" +
			"statement-dependency precision/recall/F1 (plus proof dependencies against a workspace reference)."}, runEvalExtract))
}

// evalExtractOptions are the flags of `driftkit eval extract`.
type evalExtractOptions struct {
	stage     stageFlags
	Reference string
	RefWS     string
	Sources   string
	Samples   int
}

func (o *evalExtractOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	fs.StringVar(&o.Reference, "reference", "", "reference library.jsonl (RAutoformalizer)")
	fs.StringVar(&o.RefWS, "reference-ws", "", "reference workspace (made by import jixia / import lean4export)")
	fs.StringVar(&o.Sources, "sources", "", "comma-separated sources (code_src values, or libraries of a reference workspace) whose rows are scored for dependencies")
	fs.IntVar(&o.Samples, "samples", 20, "rows listed in the samples")
}

func (o *evalExtractOptions) Validate(args []string) error {
	if o.stage.WS == "" || (o.Reference == "") == (o.RefWS == "") {
		return usagef("--ws and one of --reference, --reference-ws are required")
	}
	return nil
}

func runEvalExtract(ctx context.Context, o *evalExtractOptions, env *Env, args []string) error {
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	var ref *extract.Reference
	if o.Reference != "" {
		ref, err = extract.ReadReference(o.Reference)
	} else {
		var rws *workspace.Workspace
		if rws, err = workspace.OpenExisting(o.RefWS); err == nil {
			ref, err = extract.ReadReferenceTable(rws.Path(workspace.DeclarationsFile))
		}
	}
	if err != nil {
		return err
	}
	opt := extract.EvalOptions{Samples: o.Samples}
	if o.Sources != "" {
		opt.Sources = strings.Split(o.Sources, ",")
	}
	rep, err := extract.EvalReference(ws.Path(workspace.DeclarationsFile), ref, opt)
	if err != nil {
		return err
	}
	return o.stage.report(env.Stdout, rep, rep.WriteText)
}
