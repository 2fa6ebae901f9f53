// Package mine makes dependency-retrieval training pairs (pairs.parquet) from a
// workspace: queries are informal statements and docstrings of theorems,
// positives are the premise candidates their statements use, and hard
// negatives are mined the way FlagEmbedding's hn_mine does it: rank candidates
// for the query, take ranks [lo, hi), drop positives and the query's own
// declaration, sample a fixed number with a fixed seed.
package mine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
	"golang.org/x/sync/errgroup"
)

// Ranker ranks premise candidates for a query. Implementations must be safe
// for concurrent use by several goroutines and must never return exclude.
type Ranker interface {
	// Rank returns at most k candidate names, best first.
	Rank(ctx context.Context, query, exclude string, k int) ([]string, error)
	// Name describes the ranker for the manifest (e.g. "index:best/hash").
	Name() string
}

// BatchRanker is a Ranker that ranks several queries in one call (an
// index's one dense pass for many queries); result i is Rank(queries[i],
// excludes[i], k).
type BatchRanker interface {
	Ranker
	RankMany(ctx context.Context, queries, excludes []string, k int) ([][]string, error)
}

// rankBatch is how many queries a BatchRanker gets per call.
const rankBatch = 32

// DefaultStoplist returns the premises never used as positives by default:
// logical connectives and number types that every statement mentions
// through notation and that no benchmark counts as a dependency. Each call
// returns a new slice.
func DefaultStoplist() []string {
	return []string{"Eq", "Ne", "Iff", "Not", "And", "Or", "Exists", "True", "False", "Nat", "Int", "Rat", "Real", "Complex"}
}

// Options configure Mine. Zero values take the defaults noted.
type Options struct {
	// Sources of queries: workspace.QuerySourceInformal, workspace.QuerySourceDocstring (default both).
	Sources []string
	// AllowTemplate admits informal statements from the offline template
	// provider as queries (they restate the signature and would teach the
	// model to match its own rendering).
	AllowTemplate bool
	// AllKinds admits positives of any kind (theorems too), not only premise
	// candidates (workspace.IsPremiseKind).
	AllKinds bool
	// Stoplist names are never positives (default DefaultStoplist; an empty
	// non-nil slice disables it).
	Stoplist []string
	// RangeLo, RangeHi: negatives are sampled from ranks [RangeLo, RangeHi)
	// (0-based, as hn_mine's --range_for_sampling 2-200).
	RangeLo, RangeHi int
	// Negatives is how many negatives to sample per pair (0: the default,
	// 15; negative: none).
	Negatives int
	// Seed makes sampling and the split hash reproducible.
	Seed uint64
	// ValidFrac and TestFrac of modules go to the valid and test splits.
	ValidFrac, TestFrac float64
	// Exclude lists benchmark files for decontamination.
	Exclude []string
	// Ranker mines hard negatives; nil samples random premise candidates
	// (recorded as such in the manifest).
	Ranker Ranker
	// Workers rank queries in parallel (default GOMAXPROCS).
	Workers int
	// Limit keeps at most this many pairs (0: all), chosen by hash so that a
	// limited run is a deterministic sample.
	Limit int
	Force bool
}

// Stats counts what Mine did.
type Stats struct {
	Pairs              int
	BySource, BySplit  map[string]int
	NoPositives        int // queries whose statement uses no premise candidate
	TemplateExcluded   int
	Decontaminated     int
	DecontaminatedBy   map[string]int // "file (how)" → pairs
	FilledNegatives    int            // pairs that got random negatives to reach Negatives
	MeanNegatives      float64
	MeanPositives      float64
	Ranker             string
	Seconds            float64
	BenchmarkItems     map[string]int
	TheoremsConsidered int
}

func (o *Options) fill() {
	if len(o.Sources) == 0 {
		o.Sources = []string{workspace.QuerySourceInformal, workspace.QuerySourceDocstring}
	}
	if o.Stoplist == nil {
		o.Stoplist = DefaultStoplist()
	}
	if o.RangeHi <= 0 {
		o.RangeLo, o.RangeHi = 2, 200
	}
	switch {
	case o.Negatives == 0:
		o.Negatives = 15
	case o.Negatives < 0: // none (countflag.None)
		o.Negatives = 0
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// ErrNoPairs is returned when no pair could be made.
var ErrNoPairs = errors.New("no training pairs")

// NoPairsError says why no pair could be made; it wraps ErrNoPairs.
type NoPairsError struct {
	Theorems, NoPositives, TemplateExcluded, Decontaminated int
}

func (e *NoPairsError) Error() string {
	return fmt.Sprintf("%v: %d theorems, %d without premise positives, %d with only template-provider statements (excluded), %d decontaminated",
		ErrNoPairs, e.Theorems, e.NoPositives, e.TemplateExcluded, e.Decontaminated)
}

func (e *NoPairsError) Unwrap() error { return ErrNoPairs }

// theorem is what mining keeps of a theorem declaration.
type theorem struct {
	name, module, signature string
	docstring               string
	deps                    []string
}

// Split assigns a module to a split by a seeded hash, so every declaration of
// a module lands in the same split and the assignment does not depend on
// which other modules exist.
func Split(module string, seed uint64, validFrac, testFrac float64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", seed, module))
	u := float64(binary.BigEndian.Uint64(sum[:8])>>11) / float64(1<<53)
	switch {
	case u < validFrac:
		return workspace.SplitValid
	case u < validFrac+testFrac:
		return workspace.SplitTest
	}
	return workspace.SplitTrain
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Mine reads declarations.parquet and informal.parquet of ws and writes
// pairs.parquet (with its manifest entry, as one workspace.Txn), holding the
// stage's workspace locks: no second mine, and no stage that writes what it
// reads (the tables, the index), runs meanwhile.
func Mine(ctx context.Context, ws *workspace.Workspace, opts Options) (*Stats, error) {
	opts.fill()
	if err := opts.check(); err != nil {
		return nil, err
	}
	unlock, err := ws.Lock("mine")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, workspace.PairsFile); err != nil {
		return nil, err
	}
	if !ws.Has(workspace.DeclarationsFile) {
		return nil, ws.Missing(workspace.DeclarationsFile, "declarations")
	}
	start := time.Now()
	rankerName := "random (no index)"
	if opts.Ranker != nil {
		rankerName = opts.Ranker.Name()
	}
	run := ws.StartRun("mine", map[string]any{
		"sources": opts.Sources, "allow_template": opts.AllowTemplate, "all_kinds": opts.AllKinds,
		"stoplist": opts.Stoplist, "range": fmt.Sprintf("%d-%d", opts.RangeLo, opts.RangeHi),
		"negatives": opts.Negatives, "seed": opts.Seed, "valid_frac": opts.ValidFrac, "test_frac": opts.TestFrac,
		"exclude": opts.Exclude, "ranker": rankerName, "limit": opts.Limit})
	st := &Stats{BySource: map[string]int{}, BySplit: map[string]int{}, DecontaminatedBy: map[string]int{},
		Ranker: rankerName, BenchmarkItems: map[string]int{}}
	dec, err := decontaminator(run, opts, st)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	c, err := loadCorpus(ws, run, opts, st)
	if err != nil {
		return nil, err
	}
	run.Phase("load", time.Since(t0))
	st.TheoremsConsidered = len(c.theorems)
	pairs := limitPairs(makePairs(c, dec, opts, st), opts)
	if len(pairs) == 0 {
		return nil, &NoPairsError{Theorems: len(c.theorems), NoPositives: st.NoPositives, TemplateExcluded: st.TemplateExcluded,
			Decontaminated: st.Decontaminated}
	}
	t0 = time.Now()
	if err := mineNegatives(ctx, pairs, c, opts, st); err != nil {
		return nil, err
	}
	run.Phase("negatives", time.Since(t0))
	tx := ws.Begin("mine")
	defer tx.Abort()
	if err := writePairs(tx, run, pairs, opts, st); err != nil {
		return nil, err
	}
	st.Seconds = time.Since(start).Seconds()
	return st, tx.Commit(run)
}

// check refuses options that cannot work and makes the benchmark paths
// absolute: they are relative to the working directory, not the workspace
// (the manifest resolves relative paths inside the workspace).
func (o *Options) check() error {
	if o.ValidFrac < 0 || o.TestFrac < 0 || o.ValidFrac+o.TestFrac >= 1 {
		return fmt.Errorf("split fractions valid %.3g + test %.3g must be in [0, 1)", o.ValidFrac, o.TestFrac)
	}
	if o.RangeLo < 0 || o.RangeLo >= o.RangeHi {
		return fmt.Errorf("bad negative range %d-%d", o.RangeLo, o.RangeHi)
	}
	for _, s := range o.Sources {
		if s != workspace.QuerySourceInformal && s != workspace.QuerySourceDocstring {
			return fmt.Errorf("unknown query source %q (informal, docstring)", s)
		}
	}
	o.Exclude = slices.Clone(o.Exclude)
	for i, p := range o.Exclude {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		o.Exclude[i] = abs
	}
	return nil
}

// decontaminator reads the benchmarks of opts.Exclude (nil when none), each
// an input of the run.
func decontaminator(run *workspace.RunRecorder, opts Options, st *Stats) (*Decontaminator, error) {
	if len(opts.Exclude) == 0 {
		return nil, nil
	}
	dec, err := NewDecontaminator(opts.Exclude)
	if err != nil {
		return nil, err
	}
	for i, p := range opts.Exclude {
		st.BenchmarkItems[p] = dec.Items()[i]
		if err := run.Input(p); err != nil {
			return nil, err
		}
	}
	return dec, nil
}

// corpus is what mining needs of the declarations: every name's kind, the
// theorems (queries and their positives), the premise candidates (random
// negatives) and the theorems' informal statements.
type corpus struct {
	kind     map[string]string
	theorems []theorem
	pool     []string
	informal map[string]string
}

// loadCorpus reads the declarations and, for informal queries, the
// informal statements (the template's only with AllowTemplate).
func loadCorpus(ws *workspace.Workspace, run *workspace.RunRecorder, opts Options, st *Stats) (*corpus, error) {
	if err := run.Input(workspace.DeclarationsFile); err != nil {
		return nil, err
	}
	c := &corpus{kind: map[string]string{}, informal: map[string]string{}}
	err := workspace.EachRow(ws.Path(workspace.DeclarationsFile), func(d *workspace.Declaration) error {
		if d.Name == "" {
			return nil
		}
		if _, dup := c.kind[d.Name]; dup {
			return nil
		}
		name := strings.Clone(d.Name)
		c.kind[name] = strings.Clone(d.Kind)
		if workspace.IsPremiseKind(d.Kind) {
			c.pool = append(c.pool, name)
		}
		if d.Kind == workspace.KindTheorem {
			t := theorem{name: name, module: strings.Clone(d.Module), signature: strings.Clone(d.Signature),
				deps: make([]string, len(d.StatementDeps))}
			for i, p := range d.StatementDeps {
				t.deps[i] = strings.Clone(p)
			}
			if d.Docstring != nil {
				t.docstring = strings.TrimSpace(strings.Clone(*d.Docstring))
			}
			c.theorems = append(c.theorems, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.Contains(opts.Sources, workspace.QuerySourceInformal) || !ws.Has(workspace.InformalFile) {
		return c, nil
	}
	if err := run.Input(workspace.InformalFile); err != nil {
		return nil, err
	}
	err = workspace.EachRow(ws.Path(workspace.InformalFile), func(r *workspace.Informal) error {
		if c.kind[r.Name] != workspace.KindTheorem || strings.TrimSpace(r.InformalStatement) == "" {
			return nil
		}
		if r.Provider == "template" && !opts.AllowTemplate {
			st.TemplateExcluded++
			return nil
		}
		c.informal[strings.Clone(r.Name)] = strings.TrimSpace(strings.Clone(r.InformalStatement))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// makePairs makes a pair per theorem and query source that has a query
// and positives (its statement's premise candidates, not stoplisted),
// dropping those that match a benchmark item.
func makePairs(c *corpus, dec *Decontaminator, opts Options, st *Stats) []workspace.Pair {
	stop := map[string]bool{}
	for _, s := range opts.Stoplist {
		stop[s] = true
	}
	var pairs []workspace.Pair
	for _, t := range c.theorems {
		var pos []string
		for _, p := range t.deps {
			k, known := c.kind[p]
			if p == t.name || stop[p] || !known || slices.Contains(pos, p) {
				continue
			}
			if opts.AllKinds || workspace.IsPremiseKind(k) {
				pos = append(pos, p)
			}
		}
		split := Split(t.module, opts.Seed, opts.ValidFrac, opts.TestFrac)
		for _, src := range opts.Sources {
			q := ""
			switch src {
			case workspace.QuerySourceInformal:
				q = c.informal[t.name]
			case workspace.QuerySourceDocstring:
				q = t.docstring
			}
			if q == "" {
				continue
			}
			if len(pos) == 0 {
				st.NoPositives++
				continue
			}
			if file, how, ok := dec.Match(t.name, t.signature, q); ok {
				st.Decontaminated++
				st.DecontaminatedBy[fmt.Sprintf("%s (%s)", file, how)]++
				continue
			}
			pairs = append(pairs, workspace.Pair{QueryID: src + ":" + t.name, Query: q, QuerySource: src, Theorem: t.name,
				Positives: pos, Split: split})
		}
	}
	return pairs
}

// limitPairs keeps a deterministic sample of at most opts.Limit pairs (by
// a hash of the seed and the query id), in their order.
func limitPairs(pairs []workspace.Pair, opts Options) []workspace.Pair {
	if opts.Limit <= 0 || len(pairs) <= opts.Limit {
		return pairs
	}
	idx := make([]int, len(pairs))
	keys := make([]uint64, len(pairs))
	for i := range idx {
		idx[i] = i
		keys[i] = hash64(fmt.Sprint(opts.Seed, "\x00", pairs[i].QueryID))
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	idx = idx[:opts.Limit]
	slices.Sort(idx)
	kept := make([]workspace.Pair, len(idx))
	for i, j := range idx {
		kept[i] = pairs[j]
	}
	return kept
}

// mineNegatives samples each pair's negatives from the ranker's ranks
// (random premise candidates without one), on opts.Workers goroutines, in
// batches of rankBatch pairs ranked together when the ranker is a
// BatchRanker.
func mineNegatives(ctx context.Context, pairs []workspace.Pair, c *corpus, opts Options, st *Stats) error {
	bar := progress.Start(ctx, "mine", int64(len(pairs)))
	defer bar.Finish()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	var mu sync.Mutex
	batch := 1
	br, batched := opts.Ranker.(BatchRanker)
	if batched {
		batch = rankBatch
	}
	for lo := 0; lo < len(pairs); lo += batch {
		ps := pairs[lo:min(lo+batch, len(pairs))]
		g.Go(func() error {
			ranked := make([][]string, len(ps))
			switch {
			case batched:
				queries, excludes := make([]string, len(ps)), make([]string, len(ps))
				for i := range ps {
					queries[i], excludes[i] = ps[i].Query, ps[i].Theorem
				}
				var err error
				if ranked, err = br.RankMany(gctx, queries, excludes, opts.RangeHi); err != nil {
					return fmt.Errorf("rank %s…: %w", ps[0].QueryID, err)
				}
			case opts.Ranker != nil:
				for i := range ps {
					var err error
					if ranked[i], err = opts.Ranker.Rank(gctx, ps[i].Query, ps[i].Theorem, opts.RangeHi); err != nil {
						return fmt.Errorf("rank %s: %w", ps[i].QueryID, err)
					}
				}
			}
			filled := 0
			for i := range ps {
				if sampleNegatives(&ps[i], ranked[i], c.pool, c.kind, opts) {
					filled++
				}
			}
			mu.Lock()
			st.FilledNegatives += filled
			mu.Unlock()
			bar.Add(len(ps))
			return gctx.Err()
		})
	}
	return g.Wait()
}

// writePairs stages pairs.parquet in tx and records the counts in st and
// the run.
func writePairs(tx *workspace.Txn, run *workspace.RunRecorder, pairs []workspace.Pair, opts Options, st *Stats) error {
	w, err := workspace.NewStagedWriter[workspace.Pair](tx, workspace.PairsFile)
	if err != nil {
		return err
	}
	var nNeg, nPos int
	for _, p := range pairs {
		st.BySource[p.QuerySource]++
		st.BySplit[p.Split]++
		nNeg += len(p.Negatives)
		nPos += len(p.Positives)
	}
	if err := w.Write(pairs...); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	st.Pairs = len(pairs)
	st.MeanNegatives = float64(nNeg) / float64(len(pairs))
	st.MeanPositives = float64(nPos) / float64(len(pairs))
	tx.Output(workspace.PairsFile, int64(len(pairs)))
	run.Count("pairs", int64(st.Pairs))
	for k, v := range st.BySource {
		run.Count("source_"+k, int64(v))
	}
	for k, v := range st.BySplit {
		run.Count("split_"+k, int64(v))
	}
	run.Count("no_positives", int64(st.NoPositives))
	run.Count("template_excluded", int64(st.TemplateExcluded))
	run.Count("decontaminated", int64(st.Decontaminated))
	run.Count("filled_negatives", int64(st.FilledNegatives))
	for k, v := range st.DecontaminatedBy {
		run.Note(fmt.Sprintf("decontamination: dropped %d pairs matching %s", v, k))
	}
	if opts.Ranker == nil {
		run.Note("no index: negatives are random premise candidates, not mined hard negatives")
	}
	if opts.AllowTemplate {
		run.Note("queries include informal statements from the offline template fallback")
	}
	return nil
}

// sampleNegatives fills p.Negatives from ranked[lo:hi] (dropping positives,
// the theorem and non-candidates), sampling opts.Negatives with a seed derived
// from the query id, then with random premise candidates if too few. It
// reports whether random candidates were needed.
func sampleNegatives(p *workspace.Pair, ranked, pool []string, kind map[string]string, opts Options) bool {
	rng := dataset.NegativeRNG(opts.Seed, p.QueryID)
	bad := func(n string) bool {
		return n == p.Theorem || slices.Contains(p.Positives, n) || !(opts.AllKinds || workspace.IsPremiseKind(kind[n]))
	}
	var cands []string
	for i := opts.RangeLo; i < min(opts.RangeHi, len(ranked)); i++ {
		if n := ranked[i]; !bad(n) && !slices.Contains(cands, n) {
			cands = append(cands, n)
		}
	}
	var neg []string
	if len(cands) <= opts.Negatives {
		neg = cands
	} else {
		pick := rng.Perm(len(cands))[:opts.Negatives]
		slices.Sort(pick) // keep rank order
		for _, j := range pick {
			neg = append(neg, cands[j])
		}
	}
	mined := len(neg)
	neg, added := dataset.FillRandomNegatives(rng, neg, opts.Negatives, pool, bad)
	p.Negatives = neg
	p.NegativeSources = make([]string, len(neg))
	for i := range neg {
		p.NegativeSources[i] = dataset.NegativeMined
		if i >= mined {
			p.NegativeSources[i] = dataset.NegativeRandom
		}
	}
	return added > 0
}
