package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}

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

func init() {
	register(&command{name: "mine", short: "training pairs with hard negatives → pairs.parquet", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags("mine", "--ws WS [--exclude BENCH.jsonl …]",
			"Makes dependency-retrieval pairs: queries are informal statements (informal.parquet; the template\n"+
				"provider only with --allow-template) and docstrings of theorems; positives are the premise candidates\n"+
				"their statements use; hard negatives are sampled from ranks --range of the workspace index with the\n"+
				"theorem and its positives removed (as FlagEmbedding's hn_mine). Splits by module hash. --exclude drops\n"+
				"pairs matching benchmark items (theorem name, normalised formal statement or informal text).")
		var sf stageFlags
		sf.AddFlags(fs, withWS|withQuiet|withForce|withJSON, "a pairs.parquet")
		var sources, exclude listFlag
		fs.Var(&sources, "sources", "query sources: informal,docstring (default both)")
		fs.Var(&exclude, "exclude", "benchmark file(s) to decontaminate against (repeatable or comma-separated; ProofNet/ConNF JSONL, ProofFlow JSON)")
		allowTemplate := fs.Bool("allow-template", false, "also use informal statements from the offline template provider as queries")
		allKinds := fs.Bool("all-kinds", false, "positives and negatives of any kind (theorems too), not only premise candidates")
		stoplist := fs.String("stoplist", strings.Join(mine.DefaultStoplist(), ","), "premises never used as positives (comma-separated; \"\" for none)")
		rng := fs.String("range", "2-200", "sample negatives from these index ranks (0-based, upper bound exclusive)")
		negatives := fs.Int("negatives", 15, "negatives per pair")
		seed := fs.Uint64("seed", 1, "seed of negative sampling and the module split")
		validFrac := fs.Float64("valid-frac", 0.05, "fraction of modules in the valid split")
		testFrac := fs.Float64("test-frac", 0, "fraction of modules in the test split")
		mode := fs.String("mode", string(index.ModeBest), "index retrieval mode used for mining: dense, bm25, hybrid, best")
		noIndex := fs.Bool("no-index", false, "sample random premise candidates as negatives (no index needed)")
		workers := fs.Int("workers", 0, "parallel queries (default: number of CPUs)")
		limit := fs.Int("limit", 0, "keep a deterministic sample of at most this many pairs (0: all)")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.requireWS(fs); err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		if *negatives < 0 {
			return fmt.Errorf("%w: --negatives %d (want at least 0)", errUsage, *negatives)
		}
		ctx = sf.context(ctx)
		ws, err := workspace.Open(sf.WS)
		if err != nil {
			return err
		}
		lo, hi, err := parseRange(*rng)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		m, err := index.ParseMode(*mode)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		stop := []string{}
		(*listFlag)(&stop).Set(*stoplist)
		opts := mine.Options{Sources: sources, AllowTemplate: *allowTemplate, AllKinds: *allKinds, Stoplist: stop,
			RangeLo: lo, RangeHi: hi, Negatives: *negatives, Seed: *seed, ValidFrac: *validFrac, TestFrac: *testFrac,
			Exclude: exclude, Workers: *workers, Limit: *limit, Force: sf.Force}
		// Locked before the index is opened, so that no index build replaces
		// it between the two (mine.Mine locks again, re-entrantly).
		unlock, err := ws.Lock("mine")
		if err != nil {
			return err
		}
		defer unlock()
		if !*noIndex {
			ix, closeIx, err := openIndex(ctx, ws.Dir, m == index.ModeBM25)
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
			opts.Ranker = mine.IndexRanker{Searcher: ix, Mode: m, AllKinds: *allKinds, Label: label}
		}
		st, err := mine.Mine(ctx, ws, opts)
		if err != nil {
			return err
		}
		if sf.JSON {
			return writeJSON(env.Stdout, map[string]any{"file": ws.Path(workspace.PairsFile), "pairs": st.Pairs, "by_source": st.BySource,
				"by_split": st.BySplit, "mean_positives": st.MeanPositives, "mean_negatives": st.MeanNegatives, "ranker": st.Ranker,
				"no_positives": st.NoPositives, "template_excluded": st.TemplateExcluded, "filled_negatives": st.FilledNegatives,
				"decontaminated": st.Decontaminated, "decontaminated_by": st.DecontaminatedBy, "seconds": st.Seconds})
		}
		fmt.Fprintf(env.Stdout, "wrote %s: %d pairs (%v; splits %v), %.1f positives and %.1f negatives per pair, negatives from %s\n",
			ws.Path(workspace.PairsFile), st.Pairs, st.BySource, st.BySplit, st.MeanPositives, st.MeanNegatives, st.Ranker)
		fmt.Fprintf(env.Stdout, "skipped: %d queries without premise positives, %d template queries (--allow-template); %d pairs needed random negatives\n",
			st.NoPositives, st.TemplateExcluded, st.FilledNegatives)
		if len(exclude) > 0 {
			fmt.Fprintf(env.Stdout, "decontamination: dropped %d pairs", st.Decontaminated)
			for k, v := range st.DecontaminatedBy {
				fmt.Fprintf(env.Stdout, "; %d × %s", v, k)
			}
			fmt.Fprintln(env.Stdout)
		}
		return nil
	}})
}
