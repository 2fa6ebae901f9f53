package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
)

// Theorem search (issue 17) is scored differently from premise retrieval: a
// mathematician types an informal query and wants *the* theorem, so each
// benchmark item names the declarations that answer it (alternatives: any
// of them is a hit), nothing is excluded, and the metrics are those of a
// search engine's result page: hit@1, hit@10, MRR@10, nDCG@10, P@10, R@10.

// SearchItem is one line of a theorem-search benchmark (testdata/search).
type SearchItem struct {
	// ID names the item; the tune/held-out split is decided by it alone
	// (HalfOf), so it must never change once the item is published.
	ID    string `json:"id"`
	Topic string `json:"topic,omitempty"`
	// Query is what a user types: everyday phrasing, not a docstring.
	Query string `json:"query"`
	// Gold lists the full names of the declarations that answer the query.
	Gold []string `json:"gold"`
	// Style is how the query is written (lean, latex, natural, slogan,
	// nickname, special; "" for none): the report breaks metrics down by it.
	Style string `json:"style,omitempty"`
	// Half, when set, is the item's half (tune or held-out), fixed by the
	// benchmark's builder (a split by module group, say); "" means
	// HalfOf(ID).
	Half string `json:"half,omitempty"`
	Line int    `json:"-"`
}

// ReadSearchBench parses a theorem-search benchmark (JSON lines with id,
// query, gold, and optionally topic). Blank lines are skipped; a line
// without id, query or gold, a repeated id, or a file without items is an
// error naming the line.
func ReadSearchBench(r io.Reader, path string) ([]SearchItem, error) {
	seen := map[string]int{}
	return ReadItems(r, path, "JSON lines with id, query and gold", func(line int, b []byte) (SearchItem, error) {
		var it SearchItem
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			return SearchItem{}, fmt.Errorf("%w: want one JSON object per line with id, query, gold (a list of full names) and optionally topic: %v", ErrBench, err)
		}
		switch {
		case strings.TrimSpace(it.ID) == "":
			return SearchItem{}, fmt.Errorf("%w: no id", ErrBench)
		case strings.TrimSpace(it.Query) == "":
			return SearchItem{}, fmt.Errorf("%w: item %s has no query", ErrBench, it.ID)
		case len(it.Gold) == 0:
			return SearchItem{}, fmt.Errorf("%w: item %s has no gold names", ErrBench, it.ID)
		case it.Half != "" && it.Half != SplitTune && it.Half != SplitHeldOut:
			return SearchItem{}, fmt.Errorf("%w: item %s: half %q is neither %s nor %s", ErrBench, it.ID, it.Half, SplitTune, SplitHeldOut)
		}
		for _, g := range it.Gold {
			if strings.TrimSpace(g) == "" || strings.TrimSpace(g) != g {
				return SearchItem{}, fmt.Errorf("%w: item %s: gold name %q is empty or padded", ErrBench, it.ID, g)
			}
		}
		if prev, dup := seen[it.ID]; dup {
			return SearchItem{}, fmt.Errorf("%w: id %s repeats line %d", ErrBench, it.ID, prev)
		}
		seen[it.ID] = line
		it.Line = line
		return it, nil
	})
}

// ReadSearchBenchFile reads a theorem-search benchmark file.
func ReadSearchBenchFile(path string) ([]SearchItem, error) { return ReadFile(path, ReadSearchBench) }

// SplitSearch keeps the items of one half ("" keeps all): the item's Half
// when set, else HalfOf(ID).
func SplitSearch(items []SearchItem, half string) []SearchItem {
	if half == "" {
		return items
	}
	var out []SearchItem
	for _, it := range items {
		if it.HalfOf() == half {
			out = append(out, it)
		}
	}
	return out
}

// SampleEvery keeps every k-th item in file order, the first included (k
// <= 1 keeps all), and describes the subset. It is for a costly
// configuration (query augmentation by a local CPU model) measured on a
// fixed subset chosen before any result is seen; the same subset without
// augmentation is its comparison.
func SampleEvery(items []SearchItem, k int) ([]SearchItem, string) {
	if k <= 1 {
		return items, ""
	}
	var out []SearchItem
	for i := 0; i < len(items); i += k {
		out = append(out, items[i])
	}
	return out, fmt.Sprintf("one in every %d items in file order, the first included: %d of %d", k, len(out), len(items))
}

// HalfOf is the item's half: Half when set, else HalfOf(ID).
func (it *SearchItem) HalfOf() string {
	if it.Half != "" {
		return it.Half
	}
	return HalfOf(it.ID)
}

// MissingGold is a gold name the corpus does not hold.
type MissingGold struct {
	ID   string `json:"id"`
	Line int    `json:"line"`
	Name string `json:"name"`
}

// CheckGold lists the gold names of items that c does not hold: a
// benchmark is only meaningful against a corpus that has every answer.
func CheckGold(c retrieval.Corpus, items []SearchItem) []MissingGold {
	var out []MissingGold
	for _, it := range items {
		for _, g := range it.Gold {
			if _, ok := c.Lookup(g); !ok {
				out = append(out, MissingGold{it.ID, it.Line, g})
			}
		}
	}
	return out
}

// SearchSplitRule states the split rule of theorem-search benchmarks: the
// item's half when it states one (the builder's split, by module group),
// else the rule of HalfOf, applied to the item id.
const SearchSplitRule = "the item's half, else sha1(id) even → tune, odd → held-out"

// SearchCutoff is the cutoff of the theorem-search metrics (a result page).
const SearchCutoff = 10

// SearchMetrics are one configuration's metrics, averaged over queries
// (fractions in [0, 1]).
type SearchMetrics struct {
	Hit1   float64 `json:"hit_at_1"`
	Hit10  float64 `json:"hit_at_10"`
	MRR10  float64 `json:"mrr_at_10"`
	NDCG10 float64 `json:"ndcg_at_10"`
	P10    float64 `json:"precision_at_10"`
	R10    float64 `json:"recall_at_10"`
}

// SearchRun is one configuration (profile and mode) of a theorem-search
// evaluation.
type SearchRun struct {
	// Profile is the profile asked for; Resolved the one the engine used
	// (ProfileAuto resolves by the candidates). Modes other than best use
	// no profile: both are "" then.
	Profile  retrieval.Profile `json:"profile,omitempty"`
	Resolved retrieval.Profile `json:"resolved_profile,omitempty"`
	Mode     retrieval.Mode    `json:"mode"`
	SearchMetrics
	// Styles breaks the metrics down by item style (items without a style
	// are in no entry), when some item has one.
	Styles []StyleMetrics `json:"styles,omitempty"`
	// GoldKinds breaks the metrics down by the kind of the item's first
	// gold name (theorem, definition, class, structure, instance, …), when
	// the gold names are of more than one kind; items whose gold the corpus
	// lacks are in no entry.
	GoldKinds []KindMetrics `json:"gold_kinds,omitempty"`
	// Notes counts what the query rewriter said about each query
	// (augmentation: "augmented", "cached", "fallback: …"), when one ran.
	Notes map[string]int `json:"notes,omitempty"`
	// Fallbacks counts the queries the rewriter gave nothing beyond the raw
	// query (a model error, timeout or unusable answer): they are scored as
	// the raw query, and a comparison with the offline numbers must say how
	// many there were.
	Fallbacks int `json:"fallbacks,omitempty"`
}

// StyleMetrics are a configuration's metrics over the items of one style.
type StyleMetrics struct {
	Style   string `json:"style"`
	Queries int    `json:"queries"`
	SearchMetrics
}

// KindMetrics are a configuration's metrics over the items whose first
// gold name is of one kind.
type KindMetrics struct {
	Kind    string `json:"kind"`
	Queries int    `json:"queries"`
	SearchMetrics
}

// breakdown sums metrics by a key (a style, a gold kind).
type breakdown map[string]*struct {
	n int
	m SearchMetrics
}

func (b breakdown) add(key string, m SearchMetrics) {
	if key == "" {
		return
	}
	g := b[key]
	if g == nil {
		g = &struct {
			n int
			m SearchMetrics
		}{}
		b[key] = g
	}
	g.n++
	g.m.add(m)
}

// each calls fn with each key's query count and mean metrics, in key order.
func (b breakdown) each(fn func(key string, n int, m SearchMetrics)) {
	for _, k := range slices.Sorted(maps.Keys(b)) {
		g := b[k]
		g.m.div(g.n)
		fn(k, g.n, g.m)
	}
}

// add adds m to the sums of s.
func (s *SearchMetrics) add(m SearchMetrics) {
	s.Hit1 += m.Hit1
	s.Hit10 += m.Hit10
	s.MRR10 += m.MRR10
	s.NDCG10 += m.NDCG10
	s.P10 += m.P10
	s.R10 += m.R10
}

// div turns sums over n queries into means.
func (s *SearchMetrics) div(n int) {
	if n == 0 {
		return
	}
	f := float64(n)
	s.Hit1 /= f
	s.Hit10 /= f
	s.MRR10 /= f
	s.NDCG10 /= f
	s.P10 /= f
	s.R10 /= f
}

// SearchReport is the result of Search.
type SearchReport struct {
	Bench       string `json:"bench"`
	Split       string `json:"split,omitempty"`
	Queries     int    `json:"queries"`
	GoldTotal   int    `json:"gold_total"`
	GoldInIndex int    `json:"gold_in_index"`
	// Missing lists gold names the corpus lacks (each counts as never found).
	Missing         []MissingGold    `json:"missing_gold,omitempty"`
	Encoder         string           `json:"encoder"`
	EncoderFallback bool             `json:"encoder_fallback"`
	Informal        string           `json:"informal,omitempty"`
	Head            *head.Info       `json:"head,omitempty"`
	Candidates      string           `json:"candidates"`
	Filter          retrieval.Filter `json:"filter"`
	// Rewrite names the query rewriter (augmentation), "" for none.
	Rewrite string `json:"rewrite,omitempty"`
	// Sample describes the subset scored (SampleEvery), "" for all items.
	Sample string `json:"sample,omitempty"`
	// Vocabulary is the ID of the opt-in phrase table, "" for none.
	Vocabulary string      `json:"vocabulary,omitempty"`
	Runs       []SearchRun `json:"runs"`
}

// SearchPerItem is one line of --per-item output.
type SearchPerItem struct {
	ID      string            `json:"id"`
	Profile retrieval.Profile `json:"profile,omitempty"`
	Mode    retrieval.Mode    `json:"mode"`
	Query   string            `json:"query"`
	Gold    []string          `json:"gold"`
	Ranked  []string          `json:"ranked"`
	// Rank is the 1-based rank of the first gold name in Ranked, 0 for none.
	Rank int    `json:"rank"`
	Note string `json:"note,omitempty"`
}

// SearchConfig is one configuration of a theorem-search evaluation.
type SearchConfig struct {
	Profile retrieval.Profile
	Mode    retrieval.Mode
}

// Rewriter turns a query text into the variants that are searched and
// fused (query augmentation), with a note saying what it did ("augmented",
// "cached", "fallback: <why>"). It must not fail: a rewriter falls back to
// the raw query itself.
type Rewriter func(ctx context.Context, text string) ([]retrieval.Variant, string)

// SearchOptions configure Search.
type SearchOptions struct {
	// Configs are the configurations to run (default: the theorem profile
	// in mode best).
	Configs []SearchConfig
	// Filter is the candidates (default: every kind, as a search engine for
	// theorems offers them).
	Filter  *retrieval.Filter
	Weights *retrieval.Weights
	// Vocabulary, when set, expands every query (opt-in phrase table).
	Vocabulary *retrieval.Vocabulary
	// Rewrite, when set, augments each query (RewriteLabel names it in the
	// report). Its answers are asked once per query, not per configuration.
	Rewrite      Rewriter
	RewriteLabel string
	PerItem      func(SearchPerItem) error
	// BenchLabel names the benchmark in the report; Split its half;
	// Sample the subset (SampleEvery's label).
	BenchLabel string
	Split      string
	Sample     string
	// Encoder, EncoderFallback, Informal and Head describe the searcher for
	// the report (the caller knows what it opened).
	Encoder         string
	EncoderFallback bool
	Informal        string
	Head            *head.Info
	// Progress, when not nil, is told of each query done (nil: a progress
	// bar on the terminal).
	Progress func(done int)
}

// Search runs every item's query on s under each configuration and scores
// the ranked names against the item's gold names. c is the corpus s ranks
// (for the gold coverage). The gold never reaches the searcher.
func Search(ctx context.Context, s retrieval.Searcher, c retrieval.Corpus, items []SearchItem, o SearchOptions) (*SearchReport, error) {
	if len(o.Configs) == 0 {
		o.Configs = []SearchConfig{{retrieval.ProfileTheorem, retrieval.ModeBest}}
	}
	f := retrieval.Filter{AllKinds: true}
	if o.Filter != nil {
		f = *o.Filter
	}
	rep := &SearchReport{Bench: o.BenchLabel, Split: o.Split, Queries: len(items), Encoder: o.Encoder, EncoderFallback: o.EncoderFallback,
		Informal: o.Informal, Head: o.Head, Filter: f, Candidates: describeFilter(f), Rewrite: o.RewriteLabel, Vocabulary: o.Vocabulary.ID(), Sample: o.Sample}
	rep.Missing = CheckGold(c, items)
	for _, it := range items {
		rep.GoldTotal += len(it.Gold)
	}
	rep.GoldInIndex = rep.GoldTotal - len(rep.Missing)
	goldKinds := make([]string, len(items))
	for i, it := range items {
		if len(it.Gold) > 0 {
			if e, ok := c.Lookup(it.Gold[0]); ok {
				goldKinds[i] = e.Kind
			}
		}
	}
	progressFn := o.Progress
	if progressFn == nil {
		bar := progress.Start(ctx, "eval search", int64(len(items)*len(o.Configs)))
		defer bar.Finish()
		progressFn = bar.Add
	}
	// Rewrites are asked once per query and shared by the configurations.
	variants := make([][]retrieval.Variant, len(items))
	notes := make([]string, len(items))
	if o.Rewrite != nil {
		for i, it := range items {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			variants[i], notes[i] = o.Rewrite(ctx, it.Query)
		}
	}
	for _, cfg := range o.Configs {
		run := SearchRun{Mode: cfg.Mode}
		if run.Mode == "" {
			run.Mode = retrieval.ModeBest
		}
		if run.Mode == retrieval.ModeBest {
			run.Profile = cfg.Profile
			q := retrieval.Query{Profile: cfg.Profile, Filter: f}
			run.Resolved = retrieval.ResolveProfile(&q)
		}
		styles, kinds := breakdown{}, breakdown{}
		for i, it := range items {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			q := retrieval.Query{Text: it.Query, K: SearchCutoff, Mode: run.Mode, Profile: cfg.Profile, Filter: f, Weights: o.Weights, Vocabulary: o.Vocabulary}
			var hits []retrieval.Hit
			var err error
			if o.Rewrite != nil {
				hits, err = retrieval.SearchVariants(ctx, s, q, variants[i])
				if run.Notes == nil {
					run.Notes = map[string]int{}
				}
				run.Notes[notes[i]]++
				if len(variants[i]) <= 1 {
					run.Fallbacks++
				}
			} else {
				hits, err = s.Search(ctx, q)
			}
			if err != nil {
				return nil, fmt.Errorf("item %s (line %d): %w", it.ID, it.Line, err)
			}
			ranked := make([]string, 0, min(len(hits), SearchCutoff))
			for _, h := range hits[:min(len(hits), SearchCutoff)] {
				ranked = append(ranked, h.Name)
			}
			m, rank := scoreSearch(ranked, it.Gold)
			run.add(m)
			styles.add(it.Style, m)
			kinds.add(goldKinds[i], m)
			if o.PerItem != nil {
				if err := o.PerItem(SearchPerItem{ID: it.ID, Profile: run.Profile, Mode: run.Mode, Query: it.Query, Gold: it.Gold, Ranked: ranked, Rank: rank, Note: notes[i]}); err != nil {
					return nil, err
				}
			}
			progressFn(1)
		}
		run.div(len(items))
		styles.each(func(k string, n int, m SearchMetrics) { run.Styles = append(run.Styles, StyleMetrics{k, n, m}) })
		if len(kinds) > 1 {
			kinds.each(func(k string, n int, m SearchMetrics) { run.GoldKinds = append(run.GoldKinds, KindMetrics{k, n, m}) })
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep, nil
}

// scoreSearch scores one query's ranked names (at most SearchCutoff)
// against its gold names, and returns the rank of the first gold hit (0:
// none). Relevance is binary; nDCG's ideal ranking puts min(|gold|, 10)
// gold names first.
func scoreSearch(ranked, gold []string) (SearchMetrics, int) {
	gs := make(map[string]bool, len(gold))
	for _, g := range gold {
		gs[g] = true
	}
	var m SearchMetrics
	first, hits := 0, 0
	var dcg, idcg float64
	for i, r := range ranked[:min(len(ranked), SearchCutoff)] {
		if gs[r] {
			gs[r] = false // a name counts once
			hits++
			dcg += 1 / math.Log2(float64(i+2))
			if first == 0 {
				first = i + 1
			}
		}
	}
	for i := 0; i < min(len(gs), SearchCutoff); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if first == 1 {
		m.Hit1 = 1
	}
	if first > 0 {
		m.Hit10 = 1
		m.MRR10 = 1 / float64(first)
	}
	if idcg > 0 {
		m.NDCG10 = dcg / idcg
	}
	m.P10 = float64(hits) / SearchCutoff
	m.R10 = float64(hits) / float64(len(gs))
	return m, first
}

func describeFilter(f retrieval.Filter) string {
	var s string
	switch {
	case len(f.Kinds) > 0:
		s = "kinds " + strings.Join(f.Kinds, ",")
	case f.AllKinds:
		s = "all kinds"
	default:
		s = "premise kinds (no theorems, no instances)"
	}
	if f.Library != "" {
		s += ", library " + f.Library
	}
	return s
}

// WriteTable prints the report as an aligned text table (percentages; MRR
// and nDCG as fractions).
func (r *SearchReport) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "bench %s: %d queries, %d gold names (%d in index)\n", r.Bench, r.Queries, r.GoldTotal, r.GoldInIndex)
	for _, m := range r.Missing {
		fmt.Fprintf(w, "  missing gold %s (item %s, line %d): never found\n", m.Name, m.ID, m.Line)
	}
	fb := ""
	if r.EncoderFallback {
		fb = " (offline fallback)"
	}
	fmt.Fprintf(w, "encoder %s%s, candidates: %s", r.Encoder, fb, r.Candidates)
	if r.Informal != "" {
		fmt.Fprintf(w, ", informal text: %s", r.Informal)
	}
	fmt.Fprintln(w)
	if h := r.Head; h != nil {
		fmt.Fprintf(w, "projection head %s (%s → %d dims, mix %.2f) on dense candidate scores\n", h.ID, h.Encoder, h.OutDim, h.Mix)
	}
	if r.Split != "" {
		fmt.Fprintf(w, "split: %s half (%s)\n", r.Split, SearchSplitRule)
	}
	if r.Sample != "" {
		fmt.Fprintf(w, "sample: %s\n", r.Sample)
	}
	if r.Rewrite != "" {
		fmt.Fprintf(w, "query augmentation: %s\n", r.Rewrite)
	}
	if r.Vocabulary != "" {
		fmt.Fprintf(w, "vocabulary: %s (opt-in phrase table)\n", r.Vocabulary)
	}
	fmt.Fprintf(w, "%-9s %-7s %7s %7s %7s %8s %7s %7s\n", "profile", "mode", "hit@1", "hit@10", "MRR@10", "nDCG@10", "P@10", "R@10")
	for _, run := range r.Runs {
		p := "-"
		if run.Mode == retrieval.ModeBest {
			p = string(run.Resolved)
			if run.Profile == retrieval.ProfileAuto {
				p += "*"
			}
		}
		fmt.Fprintf(w, "%-9s %-7s %7.1f %7.1f %7.3f %8.3f %7.1f %7.1f\n", p, run.Mode, 100*run.Hit1, 100*run.Hit10, run.MRR10, run.NDCG10, 100*run.P10, 100*run.R10)
		if len(run.Notes) > 0 {
			fmt.Fprintf(w, "          augmentation: %d of %d queries fell back to the raw query alone; %s\n", run.Fallbacks, r.Queries, formatNotes(run.Notes))
		}
		for _, sm := range run.Styles {
			fmt.Fprintf(w, "  %-15s %7.1f %7.1f %7.3f %8.3f %7.1f %7.1f  (%d queries)\n", sm.Style, 100*sm.Hit1, 100*sm.Hit10, sm.MRR10, sm.NDCG10, 100*sm.P10, 100*sm.R10, sm.Queries)
		}
		for _, km := range run.GoldKinds {
			fmt.Fprintf(w, "  %-15s %7.1f %7.1f %7.3f %8.3f %7.1f %7.1f  (%d queries)\n", "gold "+km.Kind, 100*km.Hit1, 100*km.Hit10, km.MRR10, km.NDCG10, 100*km.P10, 100*km.R10, km.Queries)
		}
	}
	for _, run := range r.Runs {
		if run.Profile == retrieval.ProfileAuto && run.Mode == retrieval.ModeBest {
			fmt.Fprintln(w, "* profile auto, resolved by the candidates")
			break
		}
	}
}

func formatNotes(n map[string]int) string {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}
