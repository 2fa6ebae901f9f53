package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/train"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("train head", "projection head over frozen embeddings", help{"--ws WS [--encoder KIND] [flags]",
		"Trains a projection head (Gorgonia) on frozen embeddings of the pairs' queries and the index's documents:\n" +
			"InfoNCE with a temperature, in-batch negatives plus the mined hard negatives, Adam, early stopping on\n" +
			"the valid split's recall@k. Writes WS/head/ (config.json, query.npy, document.npy, log.jsonl).\n" +
			"The embeddings are the workspace index's (vectors.npy and its query encoder): --encoder only checks\n" +
			"that the index was built with that encoder (rebuild it with `driftkit index --encoder X` to change)."}, runTrainHead))
}

// trainHeadOptions are the flags of `driftkit train head`.
type trainHeadOptions struct {
	stage    stageFlags
	Encoder  string
	Train    train.Options // all but Mix, which --mix sets
	AllKinds bool
	Mix      string
	Benches  listFlag
	EvalOnly bool
}

func (o *trainHeadOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce, "a head")
	fs.StringVar(&o.Encoder, "encoder", "", "expected index encoder: "+app.OrList(index.EncoderKinds())+" (default: whatever the index uses)")
	d := train.DefaultOptions()
	t := &o.Train
	fs.IntVar(&t.OutDim, "out-dim", d.OutDim, "output dimension of the head")
	fs.BoolVar(&t.Tied, "tied", false, "one projection for queries and documents (default: separate)")
	fs.Float64Var(&t.Temperature, "temperature", d.Temperature, "InfoNCE temperature")
	fs.Float64Var(&t.LearnRate, "lr", d.LearnRate, "Adam learning rate")
	fs.IntVar(&t.BatchSize, "batch", d.BatchSize, "queries per batch (in-batch negatives)")
	fs.IntVar(&t.GroupSize, "group", d.GroupSize, "passages per query: 1 positive + group-1 mined negatives")
	fs.IntVar(&t.Epochs, "epochs", d.Epochs, "maximum epochs")
	fs.IntVar(&t.Patience, "patience", d.Patience, "evaluations without improvement before stopping")
	fs.IntVar(&t.EvalEvery, "eval-every", 0, "evaluate every N steps (0: once per epoch)")
	fs.IntVar(&t.K, "k", d.K, "recall@k used for early stopping")
	fs.IntVar(&t.ValidMax, "valid-max", d.ValidMax, "evaluate on at most this many valid queries")
	fs.Uint64Var(&t.Seed, "seed", d.Seed, "seed of initialisation and sampling")
	fs.BoolVar(&o.AllKinds, "all-kinds", false, "train against every index document, not only premise candidates")
	fs.StringVar(&o.Mix, "mix", "auto", "weight of the raw cosine in the score, 0 ≤ λ < 1, or auto (chosen on the valid split from 0, .25, .5, .75)")
	fs.Var(&o.Benches, "bench", "after training, compare dense retrieval with and without the head on this benchmark (repeatable)")
	fs.BoolVar(&o.EvalOnly, "eval-only", false, "do not train: evaluate the workspace's existing head on --bench")
}

func (o *trainHeadOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	if o.Encoder != "" {
		return usageOf(app.CheckEncoderKind(o.Encoder))
	}
	return nil
}

func runTrainHead(ctx context.Context, o *trainHeadOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	if !o.EvalOnly {
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
	if o.Encoder != "" && !strings.HasPrefix(ix.Manifest().Encoder, o.Encoder) {
		return fmt.Errorf("the index was built with the %s encoder, not %s: run `driftkit index --ws %s --encoder %s` first",
			ix.Manifest().Encoder, o.Encoder, ws.Dir, o.Encoder)
	}
	if o.EvalOnly {
		h, err := head.Load(ws.Path(workspace.HeadDir))
		if err != nil {
			return err
		}
		if m := ix.Manifest(); h.Config.Encoder != train.EncoderID(&m) {
			fmt.Fprintf(env.Stdout, "warning: head trained on %s embeddings, index has %s\n", h.Config.Encoder, train.EncoderID(&m))
		}
		return evalHeadBenches(ctx, o, env, ws, ix, h)
	}
	opts := o.Train
	opts.Mix = -1
	if o.Mix != "auto" {
		if opts.Mix, err = strconv.ParseFloat(o.Mix, 64); err != nil || opts.Mix < 0 || opts.Mix >= 1 {
			return fmt.Errorf("%w: --mix %q: want auto or a number in [0, 1)", errUsage, o.Mix)
		}
	}
	res, err := train.TrainWorkspace(ctx, ws, ix, train.WorkspaceOptions{Options: opts, AllKinds: o.AllKinds, Force: o.stage.Force})
	if err != nil {
		return err
	}
	printTrainResult(env, res, opts.K)
	return evalHeadBenches(ctx, o, env, ws, ix, res.Head)
}

// evalHeadBenches compares dense retrieval with and without head h on each
// --bench.
func evalHeadBenches(ctx context.Context, o *trainHeadOptions, env *Env, ws *workspace.Workspace, ix *index.Index, h *head.Head) error {
	for _, b := range o.Benches {
		rep, err := train.EvalBench(ctx, ws, ix, h, b, []int{1, 5, 10, 20})
		if err != nil {
			return err
		}
		rep.WriteTable(env.Stdout)
	}
	return nil
}

// printTrainResult reports a training run: the head, its recall against
// the raw embeddings, the epochs and the residual mix.
func printTrainResult(env *Env, res *train.WorkspaceResult, k int) {
	label := res.Encoder
	if res.EncoderFallback {
		label += " (offline fallback encoder)"
	}
	fmt.Fprintf(env.Stdout, "trained head %s on %s: %d train / %d valid queries, %d documents, %d steps in %.1fs (%s)\n",
		res.Head.ID(), label, res.Train, res.Valid, res.Docs, res.Steps, res.Seconds, res.StopReason)
	fmt.Fprintf(env.Stdout, "valid R@%d: raw embeddings %.4f, initial projection %.4f, trained head %.4f (epoch %d)\n",
		k, res.BaselineRecall, res.InitialRecall, res.BestRecall, res.BestEpoch)
	for _, e := range res.Log {
		fmt.Fprintf(env.Stdout, "  epoch %2d step %6d  loss %.4f  R@%d %.4f  MRR %.4f%s\n", e.Epoch, e.Step, e.TrainLoss, e.K, e.ValidRecall, e.ValidMRR,
			map[bool]string{true: "  *", false: ""}[e.Best])
	}
	fmt.Fprintf(env.Stdout, "residual mix λ=%.2f (valid R@%d %.4f; tried %v)\n", res.Mix, k, res.MixRecall, res.MixTried)
	fmt.Fprintf(env.Stdout, "wrote %s\n", res.Dir)
}

// flagNeeds: --eval-only evaluates the existing head on --bench, so it
// means nothing without --bench, and training's flags would be ignored.
func (o *trainHeadOptions) flagNeeds() []flagNeed {
	return []flagNeed{
		{flags: []string{"eval-only"}, holds: len(o.Benches) > 0, needs: "--bench"},
		{flags: []string{"out-dim", "tied", "temperature", "lr", "batch", "group", "epochs", "patience", "eval-every", "k", "valid-max", "seed", "all-kinds", "mix", "force"},
			holds: !o.EvalOnly, needs: "training (without --eval-only)"},
	}
}
