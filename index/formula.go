package index

import (
	"context"
	"runtime"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/retrieval"
)

// The formula postings (formula.dk): per declaration, the n-grams of its
// statement's layout (retrieval.FormulaStatement, FormulaGrams), kept as
// BM25 postings in the same structure, file layout and walk as bm25.dk
// (Postings), with the formula analyzer in place of the identifier one.
// Grams that many statements share (`_ = _`, `( _ +`) are dropped when the
// index is written: they rank nothing and their postings would be most of
// the file and of a query's walk.

// FormulaName is the formula postings' file in a generation.
const FormulaName = "formula.dk"

// FormulaAnalyzer names the formula analyzer in the manifest.
const FormulaAnalyzer = "formula-v1"

// formulaMaxDF is the largest share of documents a gram may occur in and
// be kept.
// (Mathlib v4.29.0: 21,843 grams kept, formula.dk 11 MB; 0.3 % and 3 %
// gave the same dev tune half within noise, 0.582 and 0.588 vs 0.586.)
const formulaMaxDF = 0.01

// formulaMinDF is the fewest documents a gram may be in and be dropped:
// pruning is for the cost of a walk, which a small library's postings do
// not have (a share of its 2,000 statements would drop `_ ∣ _`).
const formulaMinDF = 1000

// formulaAnalyzer reads a query as the formula postings do: the n-grams of
// the layout of the formula it writes (retrieval.FormulaQuery), none when
// it writes none.
type formulaAnalyzer struct{}

func (formulaAnalyzer) Analyze(b []byte) analysis.TokenStream {
	f := retrieval.FormulaQuery(string(b))
	if f == "" {
		return nil
	}
	var out analysis.TokenStream
	retrieval.FormulaGrams(retrieval.FormulaLayout(f), func(g string) {
		out = append(out, &analysis.Token{Term: []byte(g), Position: len(out) + 1, Type: analysis.AlphaNumeric})
	})
	return out
}

// statementGrams counts the grams of a signature's statement (nil: none).
func statementGrams(signature string, counts map[string]int32) {
	retrieval.FormulaGrams(retrieval.FormulaLayout(retrieval.FormulaStatement(signature)), func(g string) { counts[g]++ })
}

// BuildFormulaPostings builds the formula postings of documents with these
// signatures (one per document, in order), dropping the grams found in
// more than maxDF of them (a share; 0: keep every gram) and in more than
// formulaMinDF.
func BuildFormulaPostings(ctx context.Context, signatures []string, maxDF float64) (*Postings, error) {
	ct, err := formulaTokens(ctx, signatures)
	if err != nil {
		return nil, err
	}
	limit := 0
	if maxDF > 0 {
		limit = max(formulaMinDF, int(maxDF*float64(len(signatures))))
	}
	return postingsFromTokens(ct, formulaAnalyzer{}, limit), nil
}

// formulaTokens counts every document's grams on all cores, in the
// tokenized-corpus form postingsFromTokens reads: one dictionary and one
// chunk of contiguous documents per worker.
func formulaTokens(ctx context.Context, sigs []string) (*corpusTokens, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(sigs)/1024))
	ct := &corpusTokens{n: len(sigs), chunks: make([]*tokenChunk, workers), dicts: make([]*tokenDict, workers)}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		d := &tokenDict{termID: map[string]int32{}}
		c := &tokenChunk{start: w * len(sigs) / workers, end: (w + 1) * len(sigs) / workers, dict: d}
		ct.dicts[w], ct.chunks[w] = d, c
		wg.Go(func() {
			c.pairOff = make([]int, 1, c.end-c.start+1)
			c.length = make([]int32, 0, c.end-c.start)
			counts := map[string]int32{}
			for i := c.start; i < c.end; i++ {
				if (i-c.start)%1024 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				clear(counts)
				statementGrams(sigs[i], counts)
				n := int32(0)
				for g, tf := range counts {
					t, ok := d.termID[g]
					if !ok {
						t = int32(len(d.terms))
						d.terms = append(d.terms, g)
						d.termID[g] = t
					}
					c.pairs = append(c.pairs, termTF{t, tf})
					n += tf
				}
				c.pairOff = append(c.pairOff, len(c.pairs))
				c.length = append(c.length, n)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ct, ctx.Err()
}

// OpenFormulaPostings reads the term table of a formula.dk file, as
// OpenPostings reads bm25.dk's.
func OpenFormulaPostings(f *flat.File) (*Postings, error) {
	return openPostings(f, "formula postings", formulaAnalyzer{})
}
