package retrieval

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// nameIndex maps the normalised components of declaration names ("Real",
// "log", "mul" of Real.log_mul; "is", "compact" of IsCompact.image) to the
// documents whose name holds them. It is built on first use by theorem
// search, so premise retrieval never pays for it.
type nameIndex struct {
	docs map[string][]int32
	idf  map[string]float32
	// weight[doc] is the summed idf of the distinct components of doc's
	// name.
	weight []float32
}

// nameToken normalises a name component or query word: lower case, a
// plural "s" dropped (not from "ss", "us", "is" endings or short words), so
// that "primes" meets Prime and "logs" meets log.
func nameToken(s string) string {
	s = strings.ToLower(s)
	if len(s) > 3 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && !strings.HasSuffix(s, "us") && !strings.HasSuffix(s, "is") {
		s = s[:len(s)-1]
	}
	return s
}

// nameTokens returns the distinct normalised components of a name or text.
func nameTokens(s string, fn func(tok string)) {
	seen := map[string]bool{}
	Words(s, func(w string, _, _ int) {
		SubTokens(w, func(t string) {
			if t = nameToken(t); t != "" && !seen[t] {
				seen[t] = true
				fn(t)
			}
		})
	})
}

func (t *Table) names() *nameIndex {
	t.nameOnce.Do(func() {
		ni := &nameIndex{docs: map[string][]int32{}, weight: make([]float32, len(t.entries))}
		for i := range t.entries {
			nameTokens(t.entries[i].Name, func(tok string) { ni.docs[tok] = append(ni.docs[tok], int32(i)) })
		}
		ni.idf = make(map[string]float32, len(ni.docs))
		n := float64(len(t.entries))
		// Tokens in sorted order: float sums do not depend on map order.
		for _, tok := range slices.Sorted(maps.Keys(ni.docs)) {
			ds := ni.docs[tok]
			idf := float32(math.Log(1 + n/float64(len(ds))))
			ni.idf[tok] = idf
			for _, d := range ds {
				ni.weight[d] += idf
			}
		}
		t.nameIdx = ni
	})
	return t.nameIdx
}

// NameMatch ranks candidates by how well the words of text (stopwords
// dropped) and extra (vocabulary, Expand) cover their names: the summed idf
// of the matched components, times the matched share of the name's weight
// to the power beta. At most n documents, equal scores in doc order.
//
// It runs on every theorem search over every name holding a query word
// ("mul" alone is in tens of thousands of Mathlib names), so it
// accumulates into a pooled dense array rather than a map.
func (t *Table) NameMatch(text, extra string, cand func(int) bool, beta float64, n int) []int {
	ni := t.names()
	q := map[string]bool{}
	Words(strings.ToLower(text), func(w string, _, _ int) {
		if !queryStopwords[w] {
			nameTokens(w, func(tok string) { q[tok] = true })
		}
	})
	nameTokens(extra, func(tok string) { q[tok] = true })
	sc := nameScratchPool.Get().(*nameScratch)
	defer nameScratchPool.Put(sc)
	if len(sc.acc) < len(ni.weight) {
		sc.acc = make([]float32, len(ni.weight))
	}
	acc, touched := sc.acc, sc.touched[:0]
	// Query tokens in sorted order: the float32 sums do not depend on map
	// order.
	for _, tok := range slices.Sorted(maps.Keys(q)) {
		idf := ni.idf[tok]
		for _, d := range ni.docs[tok] {
			if acc[d] == 0 {
				if !cand(int(d)) {
					continue
				}
				touched = append(touched, d)
			}
			acc[d] += idf
		}
	}
	scored := sc.scored[:0]
	for _, d := range touched {
		s := acc[d]
		acc[d] = 0
		share := float64(s / max(ni.weight[d], 1e-9))
		scored = append(scored, docScore{int(d), float64(s) * math.Pow(min(share, 1), beta)})
	}
	sc.touched, sc.scored = touched, scored
	return topScored(scored, n)
}

// docScore is a document with a float64 score.
type docScore struct {
	doc   int
	score float64
}

// topScored returns the docs of the n best, equal scores in increasing doc
// order (TopDocs' order). It reorders s.
func topScored(s []docScore, n int) []int {
	slices.SortFunc(s, func(a, b docScore) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.doc - b.doc
	})
	s = s[:min(n, len(s))]
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.doc
	}
	return out
}

// nameScratch is NameMatch's per-call working memory; acc is all zero
// between calls.
type nameScratch struct {
	acc     []float32
	touched []int32
	scored  []docScore
}

var nameScratchPool = sync.Pool{New: func() any { return new(nameScratch) }}

// nameOnceFields are the Table's lazily built name index.
type nameOnceFields struct {
	nameOnce sync.Once
	nameIdx  *nameIndex
}
