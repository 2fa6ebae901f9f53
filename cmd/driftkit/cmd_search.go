package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(&command{name: "search", short: "search the index for premises", run: runSearch})
}

func runSearch(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("search", "--ws WS [--json] [flags] \"informal statement\"",
		"Ranks premise candidates (definitions, structures, classes, …; not theorems) for a statement, or with\n"+
			"--all-kinds or --kinds theorem, searches for the theorem itself. The default mode 'best' fuses, for premises,\n"+
			"BM25, dense vectors, votes of similar declarations' dependencies, names written in the query (such as\n"+
			"`ConNF.cloud`) and a usage prior; for theorems (profile theorem, automatic when theorems are candidates)\n"+
			"BM25 over the query and its vocabulary, name components, dense vectors and names written in the query.\n"+
			"--augment rewrites the query with a chat model first (--model, OPENAI_BASE_URL).")
	var sf stageFlags
	sf.AddFlags(fs, withWS|withJSON, "")
	var qf queryFlags
	qf.AddFlags(fs)
	qf.AddProfileFlag(fs, "auto", "ranking profile of mode best: premise, theorem, or auto (theorem when theorems are candidates)")
	k := fs.Int("k", 10, "number of premises")
	kinds := fs.String("kinds", "", "comma-separated kinds to keep (overrides the default filter)")
	exclude := fs.String("exclude", "", "comma-separated names never to return")
	formal := fs.String("formal", "", "optional formal statement to use as well")
	aug := addAugmentFlags(fs)
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
		if kind != "" && !slices.Contains(workspace.Kinds, kind) {
			return fmt.Errorf("%w: --kinds: unknown kind %q (one of %s)", errUsage, kind, strings.Join(workspace.Kinds, ", "))
		}
	}
	qo, err := qf.resolve()
	if err != nil {
		return err
	}
	m := qo.Mode
	q := index.Query{Text: strings.Join(fs.Args(), " "), Formal: *formal, K: *k, Mode: m, Profile: qo.Profile, Filter: retrieval.Filter{AllKinds: qo.AllKinds}}
	if *kinds != "" {
		q.Filter.Kinds = strings.Split(*kinds, ",")
	}
	if *exclude != "" {
		q.Filter.Exclude = strings.Split(*exclude, ",")
	}
	// --weights over the defaults of the profile the query resolves to
	// (--kinds theorem makes it theorem search).
	if q.Weights, err = qo.weightsFor(retrieval.ResolveProfile(&q)); err != nil {
		return err
	}
	ix, closeIx, err := openIndexWith(ctx, sf.WS, qo.Open)
	if err != nil {
		return err
	}
	defer closeIx()
	a, closeAug, err := aug.open(sf.WS)
	if err != nil {
		return err
	}
	defer closeAug()
	var hits []index.Hit
	var augRes *augment.Result
	if a != nil {
		var r augment.Result
		hits, r, err = a.Search(ctx, ix, q)
		augRes = &r
	} else {
		hits, err = ix.Search(ctx, q)
	}
	if err != nil {
		return err
	}
	if sf.JSON {
		out := map[string]any{"query": q.Text, "mode": m, "encoder": ix.Manifest().Encoder,
			"encoder_fallback": ix.Manifest().EncoderFallback, "head": ix.Head(), "hits": hits}
		if m == index.ModeBest {
			out["profile"] = retrieval.ResolveProfile(&q)
		}
		if augRes != nil {
			out["augmentation"] = augRes
		}
		return writeJSON(env.Stdout, out)
	}
	if m == index.ModeBest {
		fmt.Fprintf(env.Stdout, "# profile %s\n", retrieval.ResolveProfile(&q))
	}
	if augRes != nil {
		printAugmentation(env, augRes)
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

// printAugmentation says what query augmentation did, in the text output.
func printAugmentation(env *Env, r *augment.Result) {
	switch r.Status {
	case augment.StatusFallback:
		fmt.Fprintf(env.Stdout, "# query augmentation failed, searched the raw query only: %s\n", r.Reason)
		return
	case augment.StatusCached:
		fmt.Fprintf(env.Stdout, "# query augmented by %s (prompt %s, cached: no request)\n", r.Model, r.PromptVersion)
	default:
		fmt.Fprintf(env.Stdout, "# query augmented by %s (prompt %s, %d+%d tokens)\n", r.Model, r.PromptVersion, r.Usage.PromptTokens, r.Usage.CompletionTokens)
	}
	for _, line := range strings.Split(r.Document, "\n") {
		fmt.Fprintf(env.Stdout, "#   %s\n", line)
	}
}
