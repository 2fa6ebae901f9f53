package retrieval

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Variant is one rewording of a query that is searched on its own and fused
// with the others (query augmentation: the raw text, a precise informal
// statement, a guessed Lean statement in the index's document format).
type Variant struct {
	// Label names the variant in Hit.Signals ("raw", "informal", "document").
	Label string `json:"label"`
	Text  string `json:"text"`
	// Weight is the variant's weight in the fusion (≤ 0 means 1).
	Weight float64 `json:"weight,omitempty"`
}

// VariantDepth is how many hits each variant contributes to the fusion.
const VariantDepth = 50

// VariantRRFK is the k of the reciprocal-rank fusion of variants: the
// standard 60, so that agreement between variants counts more than one
// variant's top rank.
const VariantRRFK = 60

// SearchVariants searches each variant's text with q's settings (mode,
// profile, filter, weights) and fuses the hit lists by weighted
// reciprocal-rank fusion of names, score = Σ w/(VariantRRFK + rank). A
// variant with empty text is skipped; with no variant left it searches q
// itself. Hit.Signals maps each variant's label to the hit's rank in it.
// It works over any Searcher (an engine, a remote index).
func SearchVariants(ctx context.Context, s Searcher, q Query, variants []Variant) ([]Hit, error) {
	var vs []Variant
	for _, v := range variants {
		if strings.TrimSpace(v.Text) != "" {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return s.Search(ctx, q)
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	if len(vs) == 1 {
		q.Text, q.K = vs[0].Text, k
		return s.Search(ctx, q)
	}
	type acc struct {
		hit   Hit
		score float64
		first int // order of first appearance, for ties
	}
	fused := map[string]*acc{}
	for _, v := range vs {
		vq := q
		vq.Text, vq.K = v.Text, max(k, VariantDepth)
		hits, err := s.Search(ctx, vq)
		if err != nil {
			return nil, err
		}
		w := v.Weight
		if w <= 0 {
			w = 1
		}
		for i, h := range hits {
			a := fused[h.Name]
			if a == nil {
				a = &acc{hit: Hit{Name: h.Name, Kind: h.Kind, Module: h.Module, Signals: map[string]int{}}, first: len(fused)}
				fused[h.Name] = a
			}
			a.score += w / (VariantRRFK + float64(i+1))
			a.hit.Signals[v.Label] = i + 1
		}
	}
	all := make([]*acc, 0, len(fused))
	for _, a := range fused {
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b *acc) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return a.first - b.first
	})
	out := make([]Hit, 0, min(k, len(all)))
	for i, a := range all[:min(k, len(all))] {
		h := a.hit
		h.Rank, h.Score = i+1, round6(a.score)
		out = append(out, h)
	}
	return out, nil
}
