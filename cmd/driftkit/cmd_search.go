package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
)

func init() {
	register(newCommand("search", "search the index for premises", help{"--ws WS [--json] [flags] \"informal statement\"",
		"Ranks premise candidates (definitions, structures, classes, …; not theorems) for a statement, or with\n" +
			"--all-kinds or --kinds theorem, searches for the theorem itself. The default mode 'best' fuses, for premises,\n" +
			"BM25, dense vectors, votes of similar declarations' dependencies, names written in the query (such as\n" +
			"`ConNF.cloud`) and a usage prior; for theorems (profile theorem, automatic when theorems are candidates)\n" +
			"BM25 over the query and its vocabulary, name components, dense vectors and names written in the query.\n" +
			"--augment rewrites the query with a chat model first (--model, OPENAI_BASE_URL)."}, runSearch))
}

// searchOptions are the flags of `driftkit search`.
type searchOptions struct {
	stage   stageFlags
	rank    rankFlags
	augment augmentFlags
	K       int
	Kinds   string
	Exclude string
	Formal  string

	query index.Query // the query Validate made of the flags and arguments
}

func (o *searchOptions) AddFlags(fs *flag.FlagSet) {
	o.stage.AddFlags(fs, withWS|withJSON, "")
	o.rank.AddFlags(fs, rankAll)
	o.rank.AddProfileFlag(fs, "auto", "ranking profile of mode best: premise, theorem, or auto (theorem when theorems are candidates)")
	fs.IntVar(&o.K, "k", 10, "number of premises")
	fs.StringVar(&o.Kinds, "kinds", "", "comma-separated kinds to keep (overrides the default filter)")
	fs.StringVar(&o.Exclude, "exclude", "", "comma-separated names never to return")
	fs.StringVar(&o.Formal, "formal", "", "optional formal statement to use as well")
	o.augment.AddFlags(fs)
}

func (o *searchOptions) Validate(args []string) error {
	if o.stage.WS == "" || len(args) == 0 {
		return usagef("--ws and a statement are required")
	}
	text := strings.Join(args, " ")
	if strings.TrimSpace(text) == "" && strings.TrimSpace(o.Formal) == "" {
		return fmt.Errorf("%w: the statement is empty", errUsage)
	}
	if o.K <= 0 {
		return fmt.Errorf("%w: --k %d (want at least 1)", errUsage, o.K)
	}
	kinds, err := parseKinds(o.Kinds)
	if err != nil {
		return err
	}
	qo, err := o.rank.resolve()
	if err != nil {
		return err
	}
	o.query = index.Query{Text: text, Formal: o.Formal, K: o.K, Mode: qo.Mode, Profile: qo.Profile, Filter: retrieval.Filter{AllKinds: qo.AllKinds}, Vocabulary: qo.Vocabulary}
	o.query.Filter.Kinds = kinds
	if o.Exclude != "" {
		o.query.Filter.Exclude = strings.Split(o.Exclude, ",")
	}
	// --weights over the defaults of the profile the query resolves to
	// (--kinds theorem makes it theorem search).
	o.query.Weights, err = qo.weightsFor(retrieval.ResolveProfile(&o.query))
	return err
}

func runSearch(ctx context.Context, o *searchOptions, env *Env, args []string) error {
	q := o.query
	ix, closeIx, err := openIndexWith(ctx, o.stage.WS, o.rank.openOptions(q.Mode == index.ModeBM25), o.rank.embedURL)
	if err != nil {
		return err
	}
	defer closeIx()
	a, closeAug, err := o.augment.open(o.stage.WS, env.Stderr)
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
	if o.stage.JSON {
		out := map[string]any{"query": q.Text, "mode": q.Mode, "encoder": ix.Manifest().Encoder,
			"encoder_fallback": ix.Manifest().EncoderFallback, "head": ix.Head(), "hits": hits}
		if q.Mode == index.ModeBest {
			out["profile"] = retrieval.ResolveProfile(&q)
		}
		if augRes != nil {
			out["augmentation"] = augRes
		}
		return writeJSON(env.Stdout, out)
	}
	if q.Mode == index.ModeBest {
		fmt.Fprintf(env.Stdout, "# profile %s\n", retrieval.ResolveProfile(&q))
	}
	if augRes != nil {
		printAugmentation(env, augRes)
	}
	printIndexLabels(env.Stdout, ix, q.Mode)
	for _, h := range hits {
		fmt.Fprintf(env.Stdout, "%3d  %.4f  %-11s %s\n", h.Rank, h.Score, h.Kind, h.Name)
	}
	return nil
}

// printIndexLabels says, above a command's hits, that the dense scores come
// from the fallback encoder or pass through a projection head (mode bm25
// uses neither).
func printIndexLabels(w io.Writer, ix *index.Index, m index.Mode) {
	if ix.Manifest().EncoderFallback && m != index.ModeBM25 {
		fmt.Fprintf(w, "# dense vectors from the offline %s encoder (fallback)\n", ix.Manifest().Encoder)
	}
	if h := ix.Head(); h != nil && m != index.ModeBM25 {
		fmt.Fprintf(w, "# projection head %s (%s → %d dims) on dense candidate scores\n", h.ID, h.Encoder, h.OutDim)
	}
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

func (o *searchOptions) flagNeeds() []flagNeed {
	return append(o.rank.needs(), o.augment.need())
}
