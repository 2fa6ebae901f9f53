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
	// Hard negatives come from premise retrieval, also when theorems are
	// candidates: the theorem profile ranks for a user looking for a result.
	hits, err := r.Searcher.Search(ctx, retrieval.Query{Text: query, K: k, Mode: r.Mode, Profile: retrieval.ProfilePremise,
		Filter: retrieval.Filter{AllKinds: r.AllKinds, Exclude: []string{exclude}}})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Name != exclude {
			out = append(out, h.Name)
		}
	}
	return out, nil
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
