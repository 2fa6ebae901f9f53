package drift

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/retrieval"
)

// Premise is one retrieved declaration as the formalization prompt shows it
// and the record keeps it.
type Premise struct {
	Name string `json:"name"`
	Kind string `json:"kind,omitempty"`
	// Score and Rank are the best (first) hit that brought it: its fused
	// score and 1-based rank in that sub-query's list. Oracle premises have
	// neither.
	Score float64 `json:"score,omitempty"`
	Rank  int     `json:"rank,omitempty"`
	// From lists the sub-queries (0-based) whose top hits include it.
	From      []int  `json:"from,omitempty"`
	Signature string `json:"signature,omitempty"`
	Informal  string `json:"informal,omitempty"`
	// Missing is set for an oracle premise the corpus does not know.
	Missing bool `json:"missing,omitempty"`
}

// Formal renders the premise as Lean-like text: keyword, name, signature.
func (p Premise) Formal() string { return declText(p.Kind, p.Name, p.Signature) }

// declText renders "kind name signature" with Lean's keywords.
func declText(kind, name, sig string) string {
	kw := kind
	switch kind {
	case "definition":
		kw = "def"
	case "":
		kw = "constant"
	}
	if sig = strings.TrimSpace(sig); sig == "" {
		return kw + " " + name
	}
	return kw + " " + name + " " + sig
}

// retriever runs sub-queries through a Searcher and fills premises from a
// Corpus.
type retriever struct {
	search retrieval.Searcher
	corpus retrieval.Corpus
	mode   retrieval.Mode
	w      *retrieval.Weights
}

func (r *retriever) query(text, formal string, k int, exclude []string) retrieval.Query {
	return retrieval.Query{Text: text, Formal: formal, K: k, Mode: r.mode, Weights: r.w, Filter: retrieval.Filter{Exclude: exclude}}
}

// subQueries searches every sub-query (q_i and l_i together, as one query)
// in one retrieval.SearchAll call (one pass over the dense vectors for all
// of them when the searcher is an index) and keeps each one's top k hits,
// never one named in exclude.
func (r *retriever) subQueries(ctx context.Context, sq []SubQuery, k int, exclude []string) error {
	qs := make([]retrieval.Query, len(sq))
	for i := range sq {
		qs[i] = r.query(sq[i].Informal, sq[i].Formal, k, exclude)
	}
	hits, err := retrieval.SearchAll(ctx, r.search, qs)
	var qe *retrieval.QueryError
	if errors.As(err, &qe) && qe.Query < len(sq) {
		return fmt.Errorf("retrieve sub-query %d %q: %w", qe.Query, clip(sq[qe.Query].Informal, 60), qe.Err)
	}
	if err != nil {
		return fmt.Errorf("retrieve sub-queries: %w", err)
	}
	for i := range sq {
		sq[i].Hits = dropExcluded(hits[i], exclude, k)
	}
	return nil
}

// dropExcluded enforces the exclusion on the caller's side too: a backend
// that ignored Filter.Exclude must still not leak the query's own
// declaration into the context.
func dropExcluded(hits []retrieval.Hit, exclude []string, k int) []retrieval.Hit {
	out := hits[:0:0]
	for _, h := range hits {
		if !contains(exclude, h.Name) && len(out) < k {
			out = append(out, h)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Union is the paper's premise set: the top hits of each sub-query, in
// sub-query order then rank, each name once (with every sub-query that
// found it).
func Union(sq []SubQuery) []Premise {
	var out []Premise
	at := map[string]int{}
	for i, q := range sq {
		for _, h := range q.Hits {
			if j, ok := at[h.Name]; ok {
				if !containsInt(out[j].From, i) {
					out[j].From = append(out[j].From, i)
				}
				continue
			}
			at[h.Name] = len(out)
			out = append(out, Premise{Name: h.Name, Kind: h.Kind, Score: h.Score, Rank: h.Rank, From: []int{i}})
		}
	}
	return out
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// describe fills signature and informal text from the corpus.
func (r *retriever) describe(ps []Premise) {
	for i := range ps {
		e, ok := r.corpus.Lookup(ps[i].Name)
		if !ok {
			ps[i].Missing = true
			continue
		}
		if ps[i].Kind == "" {
			ps[i].Kind = e.Kind
		}
		ps[i].Signature = e.Signature
		ps[i].Informal = informalOf(e)
	}
}

// informalOf is an entry's informal text: "name: statement" when both exist.
func informalOf(e retrieval.Entry) string {
	switch {
	case e.InformalName != "" && e.InformalStatement != "":
		return e.InformalName + ": " + e.InformalStatement
	case e.InformalStatement != "":
		return e.InformalStatement
	}
	return e.InformalName
}
