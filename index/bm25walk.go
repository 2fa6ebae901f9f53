package index

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync/atomic"

	"github.com/driftkit/driftkit/retrieval"
)

// The BM25 postings walk. A query of Mathlib's docstrings reads about
// 100,000 postings; the walk sums them a window of documents at a time,
// and, once every request's list is full, skips the work for documents
// that cannot enter one (MaxScore, Turtle and Flood 1995), keeping every
// score Score gives bit for bit.
//
// Windows. Documents are summed scoreWindow at a time: the window's
// accumulators stay in the first-level cache, where one accumulator for the
// whole corpus (2 MiB for Mathlib) missed it at almost every posting. Each
// document's sum is still taken term by term in sorted term order, so its
// score does not depend on the windows.
//
// Pruning. Each term has a bound ub ≥ w·wt for every posting of it (w its
// query weight, wt the posting's weight: float32 w·max wt rounded up). The
// terms ordered by ub, bound[q] bounds the score of a document matching
// only the q terms of lowest ub (summed like a score, in term order, with
// those terms' query tokens as hits). Before each window the walk takes
// the lowest threshold of the requests' full TopKs (TopK.Full; none while
// one is not full) and makes "non-essential" the most terms whose bound is
// below it. A document of the window matching an essential term is a
// candidate and is summed over all its terms as Score sums it; the others
// are skipped — their postings of the non-essential terms are read but not
// summed. A skipped document matches only non-essential terms, so its
// score is at most bound[q], below the threshold of its request's full
// TopK, which drops it whatever its doc id (Add keeps equal scores by doc
// id; this is strictly below): skipping it leaves every TopK as Add would,
// and TopK's lists do not depend on the order documents are offered in.
//
// Why bound[q] holds in float32. A score is computed as s = 0, then s +=
// w·wt for each matched term in term order, then s·float32(hits)·inv.
// Rounding to nearest is monotone and every quantity is ≥ 0: the bound
// adds, at each step, at least what the document adds (ub ≥ w·wt exactly,
// so also ≥ w·wt rounded or fused into the addition; a term the document
// lacks adds 0 to it, and s + 0 = s), so each partial sum of the bound is
// at least the document's, and so are the products by its hit count (at
// least the document's) and by inv. A query of more than 65,535 tokens is
// not pruned (kept from when hits was a uint16: float32(hits) stays exact).

// scoreWindow is how many documents the walk sums at a time: their
// accumulators take 16 KiB. A power of two.
const scoreWindow = 2048

// scoreBuf is a walk's working memory, reused through a pool. A document's
// sum and hit count sit side by side.
type scoreBuf struct {
	acc     [scoreWindow]docAcc
	cand    [scoreWindow]bool
	touched []uint16
	terms   []walkTerm
	ord     []int
	bound   []float32
	docs    []uint32
	scores  []float32
}

type docAcc struct {
	s    float32
	hits uint32 // uint32, not uint16: 65,536 matched tokens wrapped to 0 (same 8 bytes)
}

// walkTerm is one query term of a walk: what it adds per posting, the
// postings not walked yet, and its bound.
type walkTerm struct {
	w    float32
	qtf  uint32
	docs []uint32
	wts  []float32
	ub   float32
	// rank is the term's place by ub (rank < q: not essential).
	rank int
}

// Score runs fn(doc, score) for every document matching a term of text:
// textbook BM25 (k1 1.2, b 0.75, the true mean document length, raw term
// frequency) in bleve's query form — each query token (repeats included)
// adds idf²·tf-weight, and the sum is multiplied by the coordination factor
// matched tokens / query tokens, which favours documents that match many of
// the query's words. bleve's own BM25 differs in two places (√tf, and the
// vocabulary size over the document count as mean length), so the two
// engines rank differently: ConNF dev BM25 F1@5 25.78 here, 26.64 bleve.
// Documents come in increasing windows of doc ids, in no order within one.
func (p *Postings) Score(text string, fn func(doc int, score float32)) error {
	return p.walk(text, nil, func(docs []uint32, scores []float32) {
		for i, d := range docs {
			fn(int(d), scores[i])
		}
	})
}

// SearchLexical implements retrieval.LexicalBackend: one walk over the
// query terms' postings fills every request of b, skipping the documents
// that cannot enter their request's list (the lists are those of every
// document Score scores, bit for bit).
func (p *Postings) SearchLexical(ctx context.Context, text string, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	tops := b.NewTops()
	lowest := func() float32 {
		low, some := float32(math.Inf(1)), false
		for _, t := range tops {
			if t != nil {
				w, full := t.Full()
				if !full {
					return float32(math.Inf(-1))
				}
				low, some = min(low, w), true
			}
		}
		if !some {
			return float32(math.Inf(-1))
		}
		return low
	}
	if err := p.walk(text, lowest, func(docs []uint32, scores []float32) {
		for i, d := range docs {
			if t := retrieval.Top(tops, b.Class, int(d)); t != nil {
				t.Add(int(d), scores[i])
			}
		}
	}); err != nil {
		return nil, err
	}
	return retrieval.SortedAll(tops), ctx.Err()
}

// maxWeight is the largest posting weight of term id (wts its weights),
// computed on first need.
func (p *Postings) maxWeight(id int, wts []float32) float32 {
	p.maxOnce.Do(func() { p.maxW = make([]atomic.Uint32, p.terms.Len()) })
	if b := p.maxW[id].Load(); b != 0 {
		return math.Float32frombits(b)
	}
	var m float32
	for _, w := range wts {
		m = max(m, w)
	}
	p.maxW[id].Store(math.Float32bits(m))
	return m
}

// walkSkipped, when set (tests), receives each walk's count of postings
// read but not summed.
var walkSkipped func(n int)

// walk is Score, a window of documents per call of emit (docs and scores
// valid during the call), skipping the documents that match only terms
// whose bound is below lowest() (nil: none skipped), as explained above.
func (p *Postings) walk(text string, lowest func() float32, emit func(docs []uint32, scores []float32)) error {
	pdocs, pwts, err := p.lists()
	if err != nil {
		return err
	}
	buf, _ := p.pool.Get().(*scoreBuf)
	if buf == nil {
		buf = &scoreBuf{}
	}
	defer p.pool.Put(buf)
	counts := analyzeTerms(p.an, text)
	total := 0
	for _, c := range counts {
		total += c
	}
	if total > math.MaxUint16 {
		lowest = nil
	}
	// Terms in sorted order: the float32 sums must not depend on map order
	// (they did: two runs could differ in the last bit, and tied documents
	// swap places).
	terms := buf.terms[:0]
	for _, t := range slices.Sorted(maps.Keys(counts)) {
		qtf := counts[t]
		id := p.term(t)
		if id < 0 {
			continue
		}
		// bleve multiplies by the query weight too (idf again, Lucene style).
		idf := p.idf(id)
		w := idf * idf * float32(qtf)
		lo, hi := p.off[id], p.off[id+1]
		wt := walkTerm{w: w, qtf: uint32(qtf), docs: pdocs[lo:hi:hi], wts: pwts[lo:hi:hi]}
		if lowest != nil {
			wt.ub = math.Nextafter32(w*p.maxWeight(id, wt.wts), float32(math.Inf(1)))
		}
		terms = append(terms, wt)
	}
	buf.terms = terms
	inv := 1 / float32(max(total, 1))
	var bound []float32
	if lowest != nil {
		bound = buf.bounds(terms, inv)
	}
	acc, cand := &buf.acc, &buf.cand
	q := 0 // terms of rank < q are not essential
	skipped := 0
	for {
		// The next window holding a posting.
		next := uint32(math.MaxUint32)
		for i := range terms {
			if d := terms[i].docs; len(d) > 0 && d[0] < next {
				next = d[0]
			}
		}
		if next == math.MaxUint32 {
			break
		}
		base := next &^ (scoreWindow - 1)
		end := uint64(base) + scoreWindow
		if lowest != nil {
			for low := lowest(); q < len(terms) && bound[q+1] < low; {
				q++
			}
		}
		touched := buf.touched[:0]
		if q > 0 {
			// The candidates: documents of an essential term.
			for i := range terms {
				t := &terms[i]
				if t.rank < q {
					continue
				}
				for _, d := range t.docs {
					if uint64(d) >= end {
						break
					}
					k := (d - base) & (scoreWindow - 1)
					if !cand[k] {
						cand[k] = true
						touched = append(touched, uint16(k))
					}
				}
			}
		}
		for i := range terms {
			t := &terms[i]
			docs, wts := t.docs, t.wts[:len(t.docs)]
			w, qtf := t.w, t.qtf
			j := 0
			switch {
			case q == 0:
				for ; j < len(docs) && uint64(docs[j]) < end; j++ {
					k := (docs[j] - base) & (scoreWindow - 1)
					a := &acc[k]
					if a.hits == 0 {
						touched = append(touched, uint16(k))
					}
					a.s += w * wts[j]
					a.hits += qtf
				}
			case t.rank >= q:
				for ; j < len(docs) && uint64(docs[j]) < end; j++ {
					a := &acc[(docs[j]-base)&(scoreWindow-1)]
					a.s += w * wts[j]
					a.hits += qtf
				}
			default:
				for ; j < len(docs) && uint64(docs[j]) < end; j++ {
					k := (docs[j] - base) & (scoreWindow - 1)
					if cand[k] {
						a := &acc[k]
						a.s += w * wts[j]
						a.hits += qtf
					}
				}
				if walkSkipped != nil {
					for _, d := range docs[:j] {
						if !cand[(d-base)&(scoreWindow-1)] {
							skipped++
						}
					}
				}
			}
			t.docs, t.wts = docs[j:], wts[j:]
		}
		docs, scores := buf.docs[:0], buf.scores[:0]
		for _, k := range touched {
			a := &acc[k]
			docs = append(docs, base+uint32(k))
			scores = append(scores, a.s*float32(a.hits)*inv)
			*a = docAcc{}
			cand[k] = false
		}
		buf.touched, buf.docs, buf.scores = touched, docs, scores
		emit(docs, scores)
	}
	if walkSkipped != nil {
		walkSkipped(skipped)
	}
	return nil
}

// bounds ranks terms by ub and returns bound: bound[q] is at least the
// score of any document matching only terms of rank < q (see above).
func (buf *scoreBuf) bounds(terms []walkTerm, inv float32) []float32 {
	m := len(terms)
	ord := buf.ord[:0]
	for i := range terms {
		ord = append(ord, i)
	}
	slices.SortStableFunc(ord, func(a, b int) int {
		switch {
		case terms[a].ub < terms[b].ub:
			return -1
		case terms[a].ub > terms[b].ub:
			return 1
		}
		return 0
	})
	for r, i := range ord {
		terms[i].rank = r
	}
	bound := append(buf.bound[:0], make([]float32, m+1)...)
	for q := 1; q <= m; q++ {
		var s float32
		var h uint32
		for i := range terms {
			if terms[i].rank < q {
				s += terms[i].ub
				h += terms[i].qtf
			}
		}
		bound[q] = s * float32(h) * inv
	}
	buf.ord, buf.bound = ord, bound
	return bound
}
