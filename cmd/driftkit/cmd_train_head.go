package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/train"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	registerSub("train", &command{name: "head", short: "projection head over frozen embeddings", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags("train head", "--ws WS [--encoder hash|openai] [flags]",
			"Trains a projection head (Gorgonia) on frozen embeddings of the pairs' queries and the index's documents:\n"+
				"InfoNCE with a temperature, in-batch negatives plus the mined hard negatives, Adam, early stopping on\n"+
				"the valid split's recall@k. Writes WS/head/ (config.json, query.npy, document.npy, log.jsonl).\n"+
				"The embeddings are the workspace index's (vectors.npy and its query encoder): --encoder only checks\n"+
				"that the index was built with that encoder (rebuild it with `driftkit index --encoder X` to change).")
		var sf stageFlags
		sf.AddFlags(fs, withWS|withQuiet|withForce, "a head")
		encName := fs.String("encoder", "", "expected index encoder: hash or openai (default: whatever the index uses)")
		d := train.DefaultOptions()
		outDim := fs.Int("out-dim", d.OutDim, "output dimension of the head")
		tied := fs.Bool("tied", false, "one projection for queries and documents (default: separate)")
		temp := fs.Float64("temperature", d.Temperature, "InfoNCE temperature")
		lr := fs.Float64("lr", d.LearnRate, "Adam learning rate")
		batch := fs.Int("batch", d.BatchSize, "queries per batch (in-batch negatives)")
		group := fs.Int("group", d.GroupSize, "passages per query: 1 positive + group-1 mined negatives")
		epochs := fs.Int("epochs", d.Epochs, "maximum epochs")
		patience := fs.Int("patience", d.Patience, "evaluations without improvement before stopping")
		evalEvery := fs.Int("eval-every", 0, "evaluate every N steps (0: once per epoch)")
		k := fs.Int("k", d.K, "recall@k used for early stopping")
		validMax := fs.Int("valid-max", d.ValidMax, "evaluate on at most this many valid queries")
		seed := fs.Uint64("seed", d.Seed, "seed of initialisation and sampling")
		allKinds := fs.Bool("all-kinds", false, "train against every index document, not only premise candidates")
		mix := fs.String("mix", "auto", "weight of the raw cosine in the score, 0 ≤ λ < 1, or auto (chosen on the valid split from 0, .25, .5, .75)")
		var benches listFlag
		fs.Var(&benches, "bench", "after training, compare dense retrieval with and without the head on this benchmark (repeatable)")
		evalOnly := fs.Bool("eval-only", false, "do not train: evaluate the workspace's existing head on --bench")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.requireWS(fs); err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		ctx = sf.context(ctx)
		ws, err := workspace.Open(sf.WS)
		if err != nil {
			return err
		}
		if !*evalOnly {
			// before the index is opened, so no index build replaces it
			// while the head trains (TrainWorkspace locks again, re-entrantly)
			unlock, err := ws.Lock("train head")
			if err != nil {
				return err
			}
			defer unlock()
		}
		ix, closeIx, err := openIndex(ctx, ws.Dir, false)
		if err != nil {
			return err
		}
		defer closeIx()
		if *encName != "" && *encName != index.EncoderHash && *encName != index.EncoderOpenAI {
			return fmt.Errorf("%w: --encoder %q (hash or openai)", errUsage, *encName)
		}
		if *encName != "" && !strings.HasPrefix(ix.Manifest().Encoder, *encName) {
			return fmt.Errorf("the index was built with the %s encoder, not %s: run `driftkit index --ws %s --encoder %s` first",
				ix.Manifest().Encoder, *encName, ws.Dir, *encName)
		}
		evalBenches := func(h *head.Head) error {
			for _, b := range benches {
				rep, err := train.EvalBench(ctx, ws, ix, h, b, []int{1, 5, 10, 20})
				if err != nil {
					return err
				}
				rep.WriteTable(env.Stdout)
			}
			return nil
		}
		if *evalOnly {
			h, err := head.Load(ws.Path(workspace.HeadDir))
			if err != nil {
				return err
			}
			if m := ix.Manifest(); h.Config.Encoder != train.EncoderID(&m) {
				fmt.Fprintf(env.Stdout, "warning: head trained on %s embeddings, index has %s\n", h.Config.Encoder, train.EncoderID(&m))
			}
			return evalBenches(h)
		}
		mixV := -1.0
		if *mix != "auto" {
			if mixV, err = strconv.ParseFloat(*mix, 64); err != nil || mixV < 0 || mixV >= 1 {
				return fmt.Errorf("%w: --mix %q: want auto or a number in [0, 1)", errUsage, *mix)
			}
		}
		res, err := train.TrainWorkspace(ctx, ws, ix, train.WorkspaceOptions{Options: train.Options{
			OutDim: *outDim, Tied: *tied, Temperature: *temp, LearnRate: *lr, BatchSize: *batch, GroupSize: *group,
			Epochs: *epochs, Patience: *patience, EvalEvery: *evalEvery, K: *k, ValidMax: *validMax, Seed: *seed, Mix: mixV},
			AllKinds: *allKinds, Force: sf.Force})
		if err != nil {
			return err
		}
		label := res.Encoder
		if res.EncoderFallback {
			label += " (offline fallback encoder)"
		}
		fmt.Fprintf(env.Stdout, "trained head %s on %s: %d train / %d valid queries, %d documents, %d steps in %.1fs (%s)\n",
			res.Head.ID(), label, res.Train, res.Valid, res.Docs, res.Steps, res.Seconds, res.StopReason)
		fmt.Fprintf(env.Stdout, "valid R@%d: raw embeddings %.4f, initial projection %.4f, trained head %.4f (epoch %d)\n",
			*k, res.BaselineRecall, res.InitialRecall, res.BestRecall, res.BestEpoch)
		for _, e := range res.Log {
			fmt.Fprintf(env.Stdout, "  epoch %2d step %6d  loss %.4f  R@%d %.4f  MRR %.4f%s\n", e.Epoch, e.Step, e.TrainLoss, e.K, e.ValidRecall, e.ValidMRR,
				map[bool]string{true: "  *", false: ""}[e.Best])
		}
		fmt.Fprintf(env.Stdout, "residual mix λ=%.2f (valid R@%d %.4f; tried %v)\n", res.Mix, *k, res.MixRecall, res.MixTried)
		fmt.Fprintf(env.Stdout, "wrote %s\n", res.Dir)
		return evalBenches(res.Head)
	}})
}
