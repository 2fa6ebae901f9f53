package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/driftkit/driftkit/dataset/export"
	"github.com/driftkit/driftkit/internal/countflag"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("export flagembedding", "FlagEmbedding fine-tuning files", help{"--ws WS",
		"Writes WS/export/flagembedding/: train.jsonl and valid.jsonl in FlagEmbedding's schema (query, pos, neg,\n" +
			"prompt, type), corpus.jsonl (hn_mine --candidate_pool) and finetune.sh (torchrun … encoder_only.m3 with\n" +
			"DRIFT's BGE-M3 recipe). Passages are rendered exactly as the index renders documents."}, runExportFlagEmbedding))
}

// exportFlagEmbeddingOptions are the flags of `driftkit export flagembedding`.
type exportFlagEmbeddingOptions struct {
	stage        stageFlags
	Prompt       string
	Type         string
	MinNegatives int
	Seed         uint64
	AllKinds     bool
	Model        string
}

func (o *exportFlagEmbeddingOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "outputs")
	fs.StringVar(&o.Prompt, "prompt", "", "query instruction written as each example's prompt (FlagEmbedding prepends it in same-dataset mode)")
	fs.StringVar(&o.Type, "type", "normal", "each example's type")
	countflag.Var(fs, &o.MinNegatives, "min-negatives", 3, "fill examples with fewer mined negatives with random premise candidates up to this many (0: no filling)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the random fill")
	fs.BoolVar(&o.AllKinds, "all-kinds", false, "corpus.jsonl holds every declaration, not only premise candidates")
	fs.StringVar(&o.Model, "model", "BAAI/bge-m3", "default MODEL of finetune.sh")
}

func (o *exportFlagEmbeddingOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	return nil
}

func runExportFlagEmbedding(ctx context.Context, o *exportFlagEmbeddingOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	recipe := export.DRIFTRecipe()
	if o.Model != "" {
		recipe.Model = o.Model
	}
	st, err := export.FlagEmbedding(ctx, ws, export.FlagOptions{Prompt: o.Prompt, Type: o.Type, MinNegatives: o.MinNegatives,
		Seed: o.Seed, AllKinds: o.AllKinds, Recipe: &recipe, Force: o.stage.Force})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d train, %d valid, %d test examples (%d skipped without a positive, %d filled with random negatives), corpus of %d documents\n",
		st.Dir, st.Train, st.Valid, st.Test, st.Skipped, st.Filled, st.Corpus)
	return nil
}
