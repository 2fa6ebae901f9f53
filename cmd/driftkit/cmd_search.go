package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

func init() {
	register(&command{name: "search", short: "search the index for premises", run: runSearch})
}

func runSearch(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("search", "--ws WS [--json] [flags] \"informal statement\"",
		"Ranks premise candidates (definitions, structures, classes, …; not theorems) for a statement.\n"+
			"The default mode 'best' fuses BM25, dense vectors, votes of similar declarations' dependencies,\n"+
			"names written in the query (such as `ConNF.cloud`) and a usage prior.")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withJSON, "")
	var qf queryFlags
	qf.AddFlags(fs)
	k := fs.Int("k", 10, "number of premises")
	kinds := fs.String("kinds", "", "comma-separated kinds to keep (overrides the default filter)")
	exclude := fs.String("exclude", "", "comma-separated names never to return")
	formal := fs.String("formal", "", "optional formal statement to use as well")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if sf.WS == "" || fs.NArg() == 0 {
		return usagef(fs, "--ws and a statement are required")
	}
	if strings.TrimSpace(strings.Join(fs.Args(), " ")) == "" && strings.TrimSpace(*formal) == "" {
		return fmt.Errorf("%w: the statement is empty", errUsage)
	}
	if *k <= 0 {
		return fmt.Errorf("%w: --k %d (want at least 1)", errUsage, *k)
	}
	for _, kind := range strings.Split(*kinds, ",") {
		if kind != "" && !slices.Contains(dataset.Kinds, kind) {
			return fmt.Errorf("%w: --kinds: unknown kind %q (one of %s)", errUsage, kind, strings.Join(dataset.Kinds, ", "))
		}
	}
	qo, err := qf.resolve()
	if err != nil {
		return err
	}
	m := qo.Mode
	ix, closeIx, err := openIndexWith(ctx, sf.WS, qo.Open)
	if err != nil {
		return err
	}
	defer closeIx()
	q := index.Query{Text: strings.Join(fs.Args(), " "), Formal: *formal, K: *k, Mode: m, Filter: retrieval.Filter{AllKinds: qo.AllKinds}, Weights: qo.Weights}
	if *kinds != "" {
		q.Filter.Kinds = strings.Split(*kinds, ",")
	}
	if *exclude != "" {
		q.Filter.Exclude = strings.Split(*exclude, ",")
	}
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return err
	}
	if sf.JSON {
		return writeJSON(env.Stdout, map[string]any{"query": q.Text, "mode": m, "encoder": ix.Manifest().Encoder,
			"encoder_fallback": ix.Manifest().EncoderFallback, "head": ix.Head(), "hits": hits})
	}
	if ix.Manifest().EncoderFallback && m != index.ModeBM25 {
		fmt.Fprintln(env.Stdout, "# dense vectors from the offline hash encoder (fallback)")
	}
	if h := ix.Head(); h != nil && m != index.ModeBM25 {
		fmt.Fprintf(env.Stdout, "# projection head %s (%s → %d dims) on dense candidate scores\n", h.ID, h.Encoder, h.OutDim)
	}
	for _, h := range hits {
		fmt.Fprintf(env.Stdout, "%3d  %.4f  %-11s %s\n", h.Rank, h.Score, h.Kind, h.Name)
	}
	return nil
}
