package retrieval

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Theorem search's name index maps the normalised components of
// declaration names ("Real", "log", "mul" of Real.log_mul; "is", "compact"
// of IsCompact.image) to the documents whose name holds them: the "names"
// column group (TableColumns: NameTokens, NameDocs, NameIDF, NameWeight),
// computed with the table and read only by theorem search.

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

// NameMatch ranks candidates by how well the words of text (stopwords
// dropped) and extra (vocabulary, Expand) cover their names: the summed idf
// of the matched components, times the matched share of the name's weight
// to the power beta. At most n documents, equal scores in doc order.
//
// It runs on every theorem search over every name holding a query word
// ("mul" alone is in tens of thousands of Mathlib names), so it
// accumulates into a pooled dense array rather than a map.
func (t *Table) NameMatch(text, extra string, cand func(int) bool, beta float64, n int) []int {
	if t.group(GroupNames) != nil {
		return nil // Err reports it; the search fails
	}
	c := &t.c
	q := map[string]bool{}
	Words(strings.ToLower(text), func(w string, _, _ int) {
		if !queryStopwords[w] {
			nameTokens(w, func(tok string) { q[tok] = true })
		}
	})
	nameTokens(extra, func(tok string) { q[tok] = true })
	sc := nameScratchPool.Get().(*nameScratch)
	defer nameScratchPool.Put(sc)
	if len(sc.acc) < len(c.NameWeight) {
		sc.acc = make([]float32, len(c.NameWeight))
	}
	acc, touched := sc.acc, sc.touched[:0]
	// Query tokens in sorted order: the float32 sums do not depend on map
	// order.
	for _, tok := range slices.Sorted(maps.Keys(q)) {
		id := c.NameTokens.Find(tok)
		if id < 0 {
			continue
		}
		idf := c.NameIDF[id]
		for _, d := range c.NameDocs.At(id) {
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
		share, f := float64(s/max(c.NameWeight[d], 1e-9)), 1.0
		if share < 1 {
			f = powShare(share, beta) // math.Pow(1, beta) is 1
		}
		scored = append(scored, docScore{int(d), float64(s) * f})
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
// order (TopDocs' order). It reorders s: the n best are selected with a
// heap (s may hold every name holding a common word), then sorted.
func topScored(s []docScore, n int) []int {
	if n <= 0 {
		return []int{}
	}
	if len(s) > n {
		// h = s[:n] is a heap whose root is the worst kept (later in the
		// order); each other doc replaces the root when it comes before it.
		h := s[:n]
		for i := n/2 - 1; i >= 0; i-- {
			siftDownWorst(h, i)
		}
		for _, x := range s[n:] {
			if before(x, h[0]) {
				h[0] = x
				siftDownWorst(h, 0)
			}
		}
		s = h
	}
	slices.SortFunc(s, func(a, b docScore) int {
		switch {
		case a.doc == b.doc:
			return 0
		case before(a, b):
			return -1
		}
		return 1
	})
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.doc
	}
	return out
}

// before: a ranks before b (higher score, then lower doc).
func before(a, b docScore) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// siftDownWorst restores the heap h (root: the doc ranking last) below i.
func siftDownWorst(h []docScore, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && before(h[l], h[r]) {
			w = r
		}
		if !before(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// nameScratch is NameMatch's per-call working memory; acc is all zero
// between calls.
type nameScratch struct {
	acc     []float32
	touched []int32
	scored  []docScore
}

var nameScratchPool = sync.Pool{New: func() any { return new(nameScratch) }}

// powShare is math.Pow(share, beta) for 0 < share < 1, bit for bit, with
// the default β = 2 as one multiplication: for an integer power Pow squares
// Frexp's mantissa (one rounding) and scales by a power of two (exact while
// the result is normal: share > 2⁻⁵⁰⁰ keeps it far from it), which is x·x's
// one rounding. NameMatch calls it for every name holding a query word.
func powShare(share, beta float64) float64 {
	if beta == 2 && share > 0x1p-500 {
		return share * share
	}
	return math.Pow(share, beta)
}

// nameSeq is the normalised components of a name or identifier in order,
// repeats kept (nameTokens' tokens are distinct).
func nameSeq(s string) []string {
	var out []string
	Words(s, func(w string, _, _ int) {
		SubTokens(w, func(t string) {
			if t = nameToken(t); t != "" {
				out = append(out, t)
			}
		})
	})
	return out
}

// FuzzyName is the full-name list's fallback for a query that is one
// identifier naming no declaration exactly or by suffix (Mentions): the
// declarations whose name, or the part of it after one of its dots, has
// the identifier's components in its order however they are joined — snake
// or camel case, '.' or '_' (is_compact_image, isCompact_image →
// IsCompact.image; prime_dvd_mul → Nat.Prime.dvd_mul), plurals read as
// NameMatch reads them. Two components at least; at most 3 declarations,
// shortest names first, and none when more match (too vague to be a name).
func (t *Table) FuzzyName(ident string, cand func(int) bool) []int {
	if !isIdent(ident) {
		return nil // "Schroeder-Bernstein" is a nickname, not a name
	}
	q := nameSeq(ident)
	if len(q) < 2 || t.group(GroupNames) != nil {
		return nil
	}
	c := &t.c
	// The documents holding the query's rarest component.
	var docs []int32
	for _, tok := range q {
		id := c.NameTokens.Find(tok)
		if id < 0 {
			return nil
		}
		if l := c.NameDocs.At(id); docs == nil || len(l) < len(docs) {
			docs = l
		}
	}
	var out []int
	spelt := map[int]bool{} // the name's tail is the identifier, primes and all
	for _, d := range docs {
		if !cand(int(d)) {
			continue
		}
		name := t.name(int(d))
		for i := 0; i >= 0; {
			if slices.Equal(nameSeq(name[i:]), q) {
				if len(out) == 3 {
					return nil
				}
				out = append(out, int(d))
				spelt[int(d)] = spelling(name[i:]) == spelling(ident)
				break
			}
			j := strings.IndexByte(name[i:], '.')
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	// unitary.star_eq_inv' spells Unitary.star_eq_inv' and, primes aside,
	// Unitary.star_eq_inv: the one spelt alike first, then the shortest.
	slices.SortStableFunc(out, func(a, b int) int {
		if spelt[a] != spelt[b] {
			if spelt[a] {
				return -1
			}
			return 1
		}
		return len(t.name(a)) - len(t.name(b))
	})
	return out
}

// spelling is a name's letters as written, case and the joins ('.', '_')
// aside.
func spelling(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// isIdent says whether s could be a Lean name: letters (Greek and
// letterlike included), digits and subscripts, and . _ ' ! ?.
func isIdent(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !strings.ContainsRune("._'!?", r) {
			return false
		}
	}
	return s != ""
}
