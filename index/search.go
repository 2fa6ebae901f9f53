package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/retrieval"
)

// The search vocabulary lives in package retrieval; these aliases keep the
// index's own API readable.
type (
	Mode     = retrieval.Mode
	Query    = retrieval.Query
	Hit      = retrieval.Hit
	Weights  = retrieval.Weights
	Searcher = retrieval.Searcher
)

// Retrieval modes (see retrieval.Mode).
const (
	ModeDense  = retrieval.ModeDense
	ModeBM25   = retrieval.ModeBM25
	ModeHybrid = retrieval.ModeHybrid
	ModeBest   = retrieval.ModeBest
)

// ParseMode checks a --mode value.
func ParseMode(s string) (Mode, error) { return retrieval.ParseMode(s) }

// ErrEmptyQuery is returned for a query with no text.
var ErrEmptyQuery = retrieval.ErrEmptyQuery

var _ Searcher = (*Index)(nil)

type rankedList struct {
	name string
	w    float64
	rows []int
}

// Search ranks premises for q.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" && strings.TrimSpace(q.Formal) == "" {
		return nil, ErrEmptyQuery
	}
	if q.K <= 0 {
		q.K = 10
	}
	if q.Mode == "" {
		q.Mode = ModeBest
	}
	w := retrieval.DefaultWeights()
	if q.Weights != nil {
		w = *q.Weights
	}
	depth := max(w.Depth, q.K)
	excl := map[int]bool{}
	for _, e := range q.Filter.Exclude {
		if i, ok := ix.byName[e]; ok {
			excl[i] = true
		}
	}
	kinds := map[string]bool{}
	for _, k := range q.Filter.Kinds {
		kinds[k] = true
	}
	// mask[r]: 1 candidate, 2 neighbour (a non-premise declaration that may
	// vote), 0 neither (excluded, or a premise outside the filter).
	mask := make([]uint8, len(ix.Docs))
	for r := range mask {
		switch {
		case excl[r]:
		case q.Filter.Library != "" && ix.Docs[r].Library != q.Filter.Library:
			if !ix.premise[r] {
				mask[r] = 2 // another library's theorems still vote
			}
		case len(kinds) > 0 && kinds[ix.Docs[r].Kind], len(kinds) == 0 && (q.Filter.AllKinds || ix.premise[r]):
			mask[r] = 1
		case !ix.premise[r]:
			mask[r] = 2
		}
	}
	cand := func(row int) bool { return mask[row] == 1 }
	text := q.Text
	if q.Formal != "" {
		text += "\n" + q.Formal
	}
	nn := 0
	if q.Mode == ModeBest && w.Neighbors > 0 {
		nn = w.NeighborDocs
	}
	needDense := q.Mode == ModeDense || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.Dense > 0 || w.Neighbors > 0))
	needBM25 := q.Mode == ModeBM25 || q.Mode == ModeHybrid || (q.Mode == ModeBest && (w.BM25 > 0 || w.Neighbors > 0))
	var lists []rankedList
	var denseC, denseN []scored
	if needDense {
		if ix.dense == nil {
			return nil, errors.New("index opened without dense vectors")
		}
		vs, err := ix.enc.Encode(ctx, []string{text})
		if err != nil {
			return nil, fmt.Errorf("encode query: %w", err)
		}
		if ix.head != nil && ix.headCovers(mask) {
			if denseC, denseN, err = ix.headScan(vs[0], depth, nn, mask); err != nil {
				return nil, fmt.Errorf("project query: %w", err)
			}
		} else {
			denseC, denseN = ix.denseScan(vs[0], depth, nn, mask)
		}
	}
	var bmC, bmN []scored
	if needBM25 {
		var err error
		bmC, bmN, err = ix.lexical(ctx, text, depth, nn, mask, len(kinds) > 0 || q.Filter.AllKinds, excl)
		if err != nil {
			return nil, err
		}
	}
	switch q.Mode {
	case ModeDense:
		return ix.hits(denseC, q.K, "dense"), nil
	case ModeBM25:
		return ix.hits(bmC, q.K, "bm25"), nil
	case ModeHybrid:
		lists = append(lists, rankedList{"bm25", 1, rowsOf(bmC)}, rankedList{"dense", 1, rowsOf(denseC)})
		return ix.fuse(lists, 60, q.K), nil
	}
	if w.BM25 > 0 {
		lists = append(lists, rankedList{"bm25", w.BM25, rowsOf(bmC)})
	}
	if w.Dense > 0 {
		lists = append(lists, rankedList{"dense", w.Dense, rowsOf(denseC)})
	}
	if w.Neighbors > 0 {
		lists = append(lists, rankedList{"neighbors", w.Neighbors, ix.neighborVote(bmN, denseN, bmC, denseC, w, cand, depth)})
	}
	if w.Assoc > 0 && ix.post != nil {
		lists = append(lists, rankedList{"assoc", w.Assoc, ix.assocList(text, mask, w, depth)})
	}
	if w.Concept > 0 {
		lists = append(lists, rankedList{"concept", w.Concept, ix.conceptList(q.Text, cand, depth, w.ConceptTop)})
	}
	if w.Mention > 0 {
		lists = append(lists, rankedList{"mention", w.Mention, ix.mentions(q.Text+"\n"+q.Formal, cand)})
	}
	if w.Prior > 0 {
		lists = append(lists, rankedList{"prior", w.Prior, ix.priorList(cand, q.Filter.Exclude, depth)})
	}
	return ix.fuse(lists, w.RRFK, q.K), nil
}

func filterScored(s []scored, keep func(int) bool, n int) []scored {
	out := s[:0]
	for _, x := range s {
		if keep(x.row) {
			out = append(out, x)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

func rowsOf(s []scored) []int {
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.row
	}
	return out
}

// denseScan scores every row once; candidates (mask 1) go to one top list,
// neighbours (mask 2) to the other.
func (ix *Index) denseScan(qv []float32, n, nn int, mask []uint8) (c, nb []scored) {
	tc, tn := newTopK(n), newTopK(max(nn, 1))
	d := ix.dense
	dim := d.Dim
	for r, m := range mask {
		if m == 0 || (m == 2 && nn == 0) {
			continue
		}
		s := DotSIMD(qv, d.Vecs[r*dim:(r+1)*dim:(r+1)*dim])
		if m == 1 {
			tc.add(r, s)
		} else {
			tn.add(r, s)
		}
	}
	if nn == 0 {
		return tc.sorted(), nil
	}
	return tc.sorted(), tn.sorted()
}

// lexical runs BM25 once over all documents and splits the hits like
// denseScan. With the bleve engine it asks bleve (slower on large corpora).
func (ix *Index) lexical(ctx context.Context, text string, n, nn int, mask []uint8, custom bool, excl map[int]bool) (c, nb []scored, err error) {
	if ix.post == nil {
		premiseOnly := 1
		if custom {
			premiseOnly = 0
		}
		c, err = ix.bm25.search(ctx, text, n+len(excl)+10000*btoi(custom), premiseOnly)
		if err != nil {
			return nil, nil, fmt.Errorf("bm25: %w", err)
		}
		c = filterScored(c, func(r int) bool { return mask[r] == 1 }, n)
		if nn > 0 {
			nb, err = ix.bm25.search(ctx, text, nn+len(excl), -1)
			if err != nil {
				return nil, nil, fmt.Errorf("bm25: %w", err)
			}
			nb = filterScored(nb, func(r int) bool { return mask[r] == 2 }, nn)
		}
		return c, nb, nil
	}
	tc, tn := newTopK(n), newTopK(max(nn, 1))
	ix.post.Score(text, func(r int, s float32) {
		switch mask[r] {
		case 1:
			tc.add(r, s)
		case 2:
			tn.add(r, s)
		}
	})
	if nn == 0 {
		return tc.sorted(), nil, nil
	}
	return tc.sorted(), tn.sorted(), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// neighborVote: declarations similar to the query vote for their statement
// dependencies, weighted by 1/(rank+NeighborDecay) in each neighbour list; the best
// candidate hits vote too when w.CandidateVotes > 0.
func (ix *Index) neighborVote(bm, dn, bmC, dnC []scored, w Weights, cand func(int) bool, n int) []int {
	votes := map[int]float64{}
	c := w.NeighborDecay
	if c <= 0 {
		c = 5
	}
	vote := func(list []scored, scale float64) {
		for rank, s := range list {
			wt := scale / (float64(rank) + c)
			for _, dep := range ix.Docs[s.row].Deps {
				if r, ok := ix.byName[dep]; ok && cand(r) {
					votes[r] += wt
				}
			}
		}
	}
	vote(bm, 1)
	vote(dn, 1)
	if w.CandidateVotes > 0 {
		vote(bmC[:min(len(bmC), w.NeighborDocs)], w.CandidateVotes)
		vote(dnC[:min(len(dnC), w.NeighborDocs)], w.CandidateVotes)
	}
	return topRows(votes, n)
}

func topRows(m map[int]float64, n int) []int {
	rows := make([]int, 0, len(m))
	for r := range m {
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b int) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	if len(rows) > n {
		rows = rows[:n]
	}
	return rows
}

// mentions finds declaration names written in the query: exact full names
// first, then unambiguous-enough name suffixes (≤ 3 declarations), then the
// candidate prefixes of mentioned names (Set.Nonempty of Set.Nonempty.cloud).
// Only words that look like identifiers count (backquoted, or containing '.',
// '_' or an upper-case letter).
func (ix *Index) mentions(text string, cand func(int) bool) []int {
	var exact, suffix, prefix []int
	seen := map[int]bool{}
	add := func(dst *[]int, r int) {
		if !seen[r] && cand(r) {
			seen[r] = true
			*dst = append(*dst, r)
		}
	}
	Words(text, func(w string, start, end int) {
		quoted := start > 0 && text[start-1] == '`'
		if !quoted && !strings.ContainsAny(w, "._") && strings.ToLower(w) == w {
			return
		}
		if r, ok := ix.byName[w]; ok {
			add(&exact, r)
		} else if rs := ix.suffix[w]; len(rs) > 0 && len(rs) <= 3 && (quoted || strings.ContainsAny(w, "._")) {
			for _, r := range rs {
				add(&suffix, r)
			}
		}
		parts := strings.Split(w, ".")
		for j := len(parts) - 1; j >= 1; j-- {
			if r, ok := ix.byName[strings.Join(parts[:j], ".")]; ok {
				add(&prefix, r)
			}
		}
	})
	return append(append(exact, suffix...), prefix...)
}

// priorList ranks candidates by how many statements use them, not counting
// the excluded declarations. ix.priorOrder is precomputed at Open; only the
// head of it is re-ranked after discounting the excluded declarations' uses.
func (ix *Index) priorList(cand func(int) bool, exclude []string, n int) []int {
	m := map[int]float64{}
	for _, r := range ix.priorOrder {
		if len(m) >= n+len(exclude)*8 {
			break
		}
		if cand(r) {
			m[r] = float64(len(ix.usage[ix.Docs[r].Name]))
		}
	}
	for _, e := range exclude {
		if i, ok := ix.byName[e]; ok {
			for _, dep := range ix.Docs[i].Deps {
				if r, ok := ix.byName[dep]; ok {
					if _, in := m[r]; in {
						m[r] = float64(ix.UsageCount(dep, exclude))
					}
				}
			}
		}
	}
	for r, c := range m {
		if c <= 0 {
			delete(m, r)
		}
	}
	return topRows(m, n)
}

func (ix *Index) fuse(lists []rankedList, k float64, n int) []Hit {
	score := map[int]float64{}
	sig := map[int]map[string]int{}
	for _, l := range lists {
		for rank, r := range l.rows {
			score[r] += l.w / (k + float64(rank+1))
			if sig[r] == nil {
				sig[r] = map[string]int{}
			}
			sig[r][l.name] = rank + 1
		}
	}
	rows := topRows(score, n)
	out := make([]Hit, len(rows))
	for i, r := range rows {
		d := &ix.Docs[r]
		out[i] = Hit{Rank: i + 1, Name: d.Name, Kind: d.Kind, Module: d.Module, Score: round6(score[r]), Signals: sig[r]}
	}
	return out
}

func (ix *Index) hits(s []scored, n int, signal string) []Hit {
	if len(s) > n {
		s = s[:n]
	}
	out := make([]Hit, len(s))
	for i, x := range s {
		d := &ix.Docs[x.row]
		out[i] = Hit{Rank: i + 1, Name: d.Name, Kind: d.Kind, Module: d.Module, Score: round6(float64(x.score)), Signals: map[string]int{signal: i + 1}}
	}
	return out
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// IsCandidateKind is the default candidate filter (dataset.IsPremiseKind).
func IsCandidateKind(kind string) bool { return dataset.IsPremiseKind(kind) }

// assocList scores candidates by term–premise association (see Weights.Assoc).
func (ix *Index) assocList(text string, mask []uint8, w Weights, n int) []int {
	p := ix.post
	maxDF := w.AssocMaxDF
	if maxDF <= 0 {
		maxDF = 0.2
	}
	buf, _ := p.pool.Get().(*scoreBuf)
	if buf == nil || len(buf.s) != p.n {
		buf = &scoreBuf{s: make([]float32, p.n), hits: make([]uint16, p.n)}
	}
	for t := range analyzeTerms(p.an, text) {
		id, ok := p.terms[t]
		if !ok || float64(p.df[id]) > maxDF*float64(p.n) {
			continue
		}
		v := p.idf(id) / (float32(p.df[id]) + float32(w.AssocSmooth))
		for _, d := range p.docs[p.off[id]:p.off[id+1]] {
			if mask[d] == 0 {
				continue // excluded (the query's own declaration) or filtered out
			}
			for _, r := range ix.depRows[d] {
				if mask[r] != 1 {
					continue
				}
				if buf.hits[r] == 0 {
					buf.touched = append(buf.touched, uint32(r))
					buf.hits[r] = 1
				}
				buf.s[r] += v
			}
		}
	}
	m := make(map[int]float64, len(buf.touched))
	for _, r := range buf.touched {
		sc := float64(buf.s[r])
		if w.AssocBeta > 0 {
			sc /= math.Pow(float64(len(ix.usage[ix.Docs[r].Name])+1), w.AssocBeta)
		}
		m[int(r)] = sc
		buf.s[r], buf.hits[r] = 0, 0
	}
	buf.touched = buf.touched[:0]
	p.pool.Put(buf)
	return topRows(m, n)
}

// DenseBatch answers many dense queries at once: the texts are embedded in
// one Encode call (batched requests for the openai encoder) and the vectors
// are scanned once for the whole batch. Candidates are premise kinds unless
// allKinds. Safe for concurrent use.
func (ix *Index) DenseBatch(ctx context.Context, texts []string, k int, allKinds bool) ([][]Hit, error) {
	if ix.dense == nil {
		return nil, errors.New("index opened without dense vectors")
	}
	if k <= 0 {
		k = 10
	}
	vs, err := ix.enc.Encode(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("encode queries: %w", err)
	}
	res := ix.dense.SearchBatch(vs, k, func(r int) bool { return allKinds || ix.premise[r] })
	out := make([][]Hit, len(res))
	for i, r := range res {
		out[i] = ix.hits(r, k, "dense")
	}
	return out, nil
}

// conceptList matches plain query words to premise names (see Weights.Concept).
func (ix *Index) conceptList(text string, cand func(int) bool, n, top int) []int {
	if top <= 0 {
		top = 3
	}
	m := map[int]float64{}
	Words(text, func(w string, _, _ int) {
		if len(w) < 4 || strings.ContainsAny(w, "._") {
			return
		}
		lw := strings.ToLower(w)
		keys := []string{lw, "is" + lw}
		if strings.HasSuffix(lw, "s") {
			keys = append(keys, lw[:len(lw)-1], "is"+lw[:len(lw)-1])
		}
		for _, k := range keys {
			// ix.concept[k] is sorted by usage, most used first: keep the
			// ConceptTop most used candidates of each word.
			kept := 0
			for _, r := range ix.concept[k] {
				if kept == top {
					break
				}
				if cand(int(r)) {
					m[int(r)] = float64(len(ix.usage[ix.Docs[r].Name]))
					kept++
				}
			}
		}
	})
	return topRows(m, n)
}
