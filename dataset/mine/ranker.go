package mine

import (
	"context"

	"github.com/driftkit/driftkit/retrieval"
)

// IndexRanker ranks with any retrieval.Searcher (the workspace index, or
// another backend), as hn_mine ranks with the model being fine-tuned. It is
// safe for concurrent use when the searcher is.
type IndexRanker struct {
	Searcher retrieval.Searcher
	Mode     retrieval.Mode // "" is the searcher's default
	// AllKinds ranks every declaration, not only premise candidates.
	AllKinds bool
	// Label names the index in the manifest (e.g. its encoder).
	Label string
}

// Rank implements Ranker.
func (r IndexRanker) Rank(ctx context.Context, query, exclude string, k int) ([]string, error) {
	hits, err := r.Searcher.Search(ctx, r.query(query, exclude, k))
	if err != nil {
		return nil, err
	}
	return names(hits, exclude), nil
}

// RankMany implements BatchRanker: the queries go to the searcher in one
// retrieval.SearchAll call (one dense pass over the index's vectors for
// all of them); each query's names are Rank's.
func (r IndexRanker) RankMany(ctx context.Context, queries, excludes []string, k int) ([][]string, error) {
	qs := make([]retrieval.Query, len(queries))
	for i := range queries {
		qs[i] = r.query(queries[i], excludes[i], k)
	}
	all, err := retrieval.SearchAll(ctx, r.Searcher, qs)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(all))
	for i, hits := range all {
		out[i] = names(hits, excludes[i])
	}
	return out, nil
}

// query is the search of one query: hard negatives come from premise
// retrieval, also when theorems are candidates (the theorem profile ranks
// for a user looking for a result).
func (r IndexRanker) query(text, exclude string, k int) retrieval.Query {
	return retrieval.Query{Text: text, K: k, Mode: r.Mode, Profile: retrieval.ProfilePremise,
		Filter: retrieval.Filter{AllKinds: r.AllKinds, Exclude: []string{exclude}}}
}

// names are the hits' names but exclude's.
func names(hits []retrieval.Hit, exclude string) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Name != exclude {
			out = append(out, h.Name)
		}
	}
	return out
}

// Name implements Ranker.
func (r IndexRanker) Name() string {
	m := string(r.Mode)
	if m == "" {
		m = string(retrieval.ModeBest)
	}
	if r.Label != "" {
		return "index:" + m + "/" + r.Label
	}
	return "index:" + m
}
