package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/countflag"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("mine", "training pairs with hard negatives → pairs.parquet", help{"--ws WS [--exclude BENCH.jsonl …]",
		"Makes dependency-retrieval pairs: queries are informal statements (informal.parquet; the template\n" +
			"provider only with --allow-template) and docstrings of theorems; positives are the premise candidates\n" +
			"their statements use; hard negatives are sampled from ranks --range of the workspace index with the\n" +
			"theorem and its positives removed (as FlagEmbedding's hn_mine). Splits by module hash. --exclude drops\n" +
			"pairs matching benchmark items (theorem name, normalised formal statement or informal text)."}, runMine).
		// Ranking makes much short-lived garbage (per query: plans, score
		// lists, fusion maps) beside a small live heap (the corpus, the
		// index is mapped): collect half as often (#29, Mathlib --limit
		// 10000 at load 10: GOGC 100 41.3 s wall, 66.4 CPU-s, 1.06 GB RSS;
		// 200: 33.6 s, 53.6 CPU-s, 1.37 GB; 400 gained nothing more at
		// 1.92 GB; at load 2: 27.5 s, 46.4 CPU-s vs 25.8–26.4 s, 40.3–43.3
		// CPU-s, 1.27–1.31 GB), and never past 1.2 GB of heap.
		withGC(gcSetting{percent: 200, limit: 1200 << 20}))
}

// mineOptions are the flags of `driftkit mine`.
type mineOptions struct {
	stage         stageFlags
	Sources       listFlag
	Exclude       listFlag
	AllowTemplate bool
	AllKinds      bool
	Stoplist      string
	Range         string
	Negatives     int
	Seed          uint64
	ValidFrac     float64
	TestFrac      float64
	Mode          string
	NoIndex       bool
	Workers       int
	Limit         int
	CPUProfile    string

	rangeLo, rangeHi int        // --range
	mode             index.Mode // --mode
}

func (o *mineOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "a pairs.parquet")
	fs.Var(&o.Sources, "sources", "query sources: informal,docstring (default both)")
	fs.Var(&o.Exclude, "exclude", "benchmark file(s) to decontaminate against (repeatable or comma-separated; ProofNet/ConNF JSONL, ProofFlow JSON)")
	fs.BoolVar(&o.AllowTemplate, "allow-template", false, "also use informal statements from the offline template provider as queries")
	fs.BoolVar(&o.AllKinds, "all-kinds", false, "positives and negatives of any kind (theorems too), not only premise candidates")
	fs.StringVar(&o.Stoplist, "stoplist", strings.Join(mine.DefaultStoplist(), ","), "premises never used as positives (comma-separated; \"\" for none)")
	fs.StringVar(&o.Range, "range", "2-200", "sample negatives from these index ranks (0-based, upper bound exclusive)")
	countflag.Var(fs, &o.Negatives, "negatives", 15, "negatives per pair (0: none)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of negative sampling and the module split")
	fs.Float64Var(&o.ValidFrac, "valid-frac", 0.05, "fraction of modules in the valid split")
	fs.Float64Var(&o.TestFrac, "test-frac", 0, "fraction of modules in the test split")
	fs.StringVar(&o.Mode, "mode", string(index.ModeBest), "index retrieval mode used for mining: dense, bm25, hybrid, best")
	fs.BoolVar(&o.NoIndex, "no-index", false, "sample random premise candidates as negatives (no index needed)")
	fs.IntVar(&o.Workers, "workers", 0, "parallel queries (default: number of CPUs)")
	fs.IntVar(&o.Limit, "limit", 0, "keep a deterministic sample of at most this many pairs (0: all)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
}

func (o *mineOptions) Validate(args []string) error {
	if err := o.stage.requireWS(); err != nil {
		return err
	}
	if err := noArgs(args); err != nil {
		return err
	}
	var err error
	if o.rangeLo, o.rangeHi, err = parseRange(o.Range); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if o.mode, err = index.ParseMode(o.Mode); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// parseRange reads --range LO-HI.
func parseRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, "-")
	if ok {
		lo, err = strconv.Atoi(a)
		if err == nil {
			hi, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || lo < 0 || hi <= lo {
		return 0, 0, fmt.Errorf("--range %q: want LO-HI with 0 <= LO < HI, e.g. 2-200", s)
	}
	return lo, hi, nil
}

func runMine(ctx context.Context, o *mineOptions, env *Env, args []string) error {
	ctx = o.stage.context(ctx)
	stop, err := cpuProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	ws, err := workspace.OpenExisting(o.stage.WS)
	if err != nil {
		return err
	}
	opts := mine.Options{Sources: o.Sources, AllowTemplate: o.AllowTemplate, AllKinds: o.AllKinds, Stoplist: append([]string{}, splitList(o.Stoplist)...),
		RangeLo: o.rangeLo, RangeHi: o.rangeHi, Negatives: o.Negatives, Seed: o.Seed, ValidFrac: o.ValidFrac, TestFrac: o.TestFrac,
		Exclude: o.Exclude, Workers: o.Workers, Limit: o.Limit, Force: o.stage.Force}
	// Locked before the index is opened, so that no index build replaces
	// it between the two (mine.Mine locks again, re-entrantly).
	unlock, err := ws.Lock("mine")
	if err != nil {
		return err
	}
	defer unlock()
	if !o.NoIndex {
		ix, closeIx, err := openIndex(ctx, ws.Dir, o.mode == index.ModeBM25)
		if errors.Is(err, index.ErrNoIndex) {
			return fmt.Errorf("%w (or pass --no-index for random negatives)", err)
		}
		if err != nil {
			return err
		}
		defer closeIx()
		label := ix.Manifest().Encoder
		if ix.Manifest().EncoderFallback {
			label += " (fallback)"
		}
		opts.Ranker = mine.IndexRanker{Searcher: ix, Mode: o.mode, AllKinds: o.AllKinds, Label: label}
	}
	st, err := mine.Mine(ctx, ws, opts)
	if err != nil {
		return err
	}
	if o.stage.JSON {
		return writeJSON(env.Stdout, map[string]any{"file": ws.Path(workspace.PairsFile), "pairs": st.Pairs, "by_source": st.BySource,
			"by_split": st.BySplit, "mean_positives": st.MeanPositives, "mean_negatives": st.MeanNegatives, "ranker": st.Ranker,
			"no_positives": st.NoPositives, "template_excluded": st.TemplateExcluded, "filled_negatives": st.FilledNegatives,
			"decontaminated": st.Decontaminated, "decontaminated_by": st.DecontaminatedBy, "seconds": st.Seconds})
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d pairs (%v; splits %v), %.1f positives and %.1f negatives per pair, negatives from %s\n",
		ws.Path(workspace.PairsFile), st.Pairs, st.BySource, st.BySplit, st.MeanPositives, st.MeanNegatives, st.Ranker)
	fmt.Fprintf(env.Stdout, "skipped: %d queries without premise positives, %d template queries (--allow-template); %d pairs needed random negatives\n",
		st.NoPositives, st.TemplateExcluded, st.FilledNegatives)
	if len(o.Exclude) > 0 {
		fmt.Fprintf(env.Stdout, "decontamination: dropped %d pairs", st.Decontaminated)
		for _, k := range slices.Sorted(maps.Keys(st.DecontaminatedBy)) { // in a stable order
			fmt.Fprintf(env.Stdout, "; %d × %s", st.DecontaminatedBy[k], k)
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

// flagNeeds: without an index the negatives are random candidates, so
// the retrieval mode and the rank range would be ignored.
func (o *mineOptions) flagNeeds() []flagNeed {
	return []flagNeed{{flags: []string{"mode", "range"}, holds: !o.NoIndex, needs: "mining from the index (without --no-index)"}}
}
