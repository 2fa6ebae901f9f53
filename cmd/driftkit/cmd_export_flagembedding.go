package main

import (
	"context"
	"fmt"

	"github.com/driftkit/driftkit/dataset/export"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("export", &command{name: "flagembedding", short: "FlagEmbedding fine-tuning files", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags("export flagembedding", "--ws WS",
			"Writes WS/export/flagembedding/: train.jsonl and valid.jsonl in FlagEmbedding's schema (query, pos, neg,\n"+
				"prompt, type), corpus.jsonl (hn_mine --candidate_pool) and finetune.sh (torchrun … encoder_only.m3 with\n"+
				"DRIFT's BGE-M3 recipe). Passages are rendered exactly as the index renders documents.")
		var sf stageFlags
		sf.AddFlags(fs, withWS|withQuiet|withForce, "outputs")
		prompt := fs.String("prompt", "", "query instruction written as each example's prompt (FlagEmbedding prepends it in same-dataset mode)")
		typ := fs.String("type", "normal", "each example's type")
		minNeg := fs.Int("min-negatives", 3, "fill examples with fewer mined negatives with random premise candidates up to this many")
		seed := fs.Uint64("seed", 1, "seed of the random fill")
		allKinds := fs.Bool("all-kinds", false, "corpus.jsonl holds every declaration, not only premise candidates")
		model := fs.String("model", "BAAI/bge-m3", "default MODEL of finetune.sh")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.requireWS(fs); err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		if *minNeg < 0 {
			return fmt.Errorf("%w: --min-negatives %d (want at least 0)", errUsage, *minNeg)
		}
		ctx = sf.context(ctx)
		ws, err := workspace.Open(sf.WS)
		if err != nil {
			return err
		}
		recipe := trainRecipe(*model)
		st, err := export.FlagEmbedding(ctx, ws, export.FlagOptions{Prompt: *prompt, Type: *typ, MinNegatives: *minNeg,
			Seed: *seed, AllKinds: *allKinds, Recipe: &recipe, Force: sf.Force})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "wrote %s: %d train, %d valid, %d test examples (%d skipped without a positive, %d filled with random negatives), corpus of %d documents\n",
			st.Dir, st.Train, st.Valid, st.Test, st.Skipped, st.Filled, st.Corpus)
		return nil
	}})
}
