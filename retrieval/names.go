package retrieval

import (
	"math"
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
		for tok, ds := range ni.docs {
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
// to the power beta. At most n documents.
func (t *Table) NameMatch(text, extra string, cand func(int) bool, beta float64, n int) []int {
	ni := t.names()
	q := map[string]bool{}
	Words(strings.ToLower(text), func(w string, _, _ int) {
		if !queryStopwords[w] {
			nameTokens(w, func(tok string) { q[tok] = true })
		}
	})
	nameTokens(extra, func(tok string) { q[tok] = true })
	acc := map[int]float32{}
	for tok := range q {
		idf := ni.idf[tok]
		for _, d := range ni.docs[tok] {
			if cand(int(d)) {
				acc[int(d)] += idf
			}
		}
	}
	m := make(map[int]float64, len(acc))
	for d, s := range acc {
		share := float64(s / max(ni.weight[d], 1e-9))
		m[d] = float64(s) * math.Pow(min(share, 1), beta)
	}
	return TopDocs(m, n)
}

// nameOnceFields are the Table's lazily built name index.
type nameOnceFields struct {
	nameOnce sync.Once
	nameIdx  *nameIndex
}
