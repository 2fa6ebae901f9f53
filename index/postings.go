package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// BM25 parameters (the same as bleve's).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Postings is the BM25 index used for serving: the same analyzer as the
// bleve index (identifier-aware tokenizer, lower case, English stop words,
// Porter stemmer), with each posting's BM25 term weight precomputed, so
// that a query costs one pass over its terms' postings. An index keeps it
// in bm25.dk (internal/flat) and maps it: the term table is read at open,
// the postings and weights (most of the file) are verified the first time a
// query reads them, and a query touches only its terms' pages. It is
// immutable after construction and safe for concurrent use.
type Postings struct {
	n     int
	terms flat.Keys
	// postings of term t: docs[off[t]:off[t+1]], weights likewise.
	off  []uint32
	docs []uint32
	wts  []float32
	// load takes docs and wts from the file on first use (nil when they
	// are in memory).
	load   func() (docs []uint32, wts []float32, err error)
	once   sync.Once
	err    error
	failed atomic.Pointer[error]
	loaded atomic.Bool // load has run
	an     analysis.Analyzer
	pool   sync.Pool
	// maxW[t] holds the bits of term t's largest posting weight, 0 until
	// a walk needs it (bm25walk.go).
	maxOnce sync.Once
	maxW    []atomic.Uint32
}

func identAnalyzer() (analysis.Analyzer, error) {
	m, err := bm25Mapping()
	if err != nil {
		return nil, err
	}
	a := m.AnalyzerNamed(IdentAnalyzer)
	if a == nil {
		return nil, errors.New("identifier analyzer not registered")
	}
	return a, nil
}

var _ = registry.RegisterTokenizer // the tokenizer is registered in bm25.go

// analyzeTerms returns the distinct analysed terms of text with counts.
func analyzeTerms(a analysis.Analyzer, text string) map[string]int {
	out := map[string]int{}
	for _, t := range a.Analyze([]byte(text)) {
		out[string(t.Term)]++
	}
	return out
}

type termTF struct{ term, tf int32 }

// termFilter applies an analyzer's token filters (lower case, stop words,
// Porter) to one token at a time: the filters are token-local, so they
// give exactly what Analyze gives (tokenizeCorpus calls it once per
// distinct token).
type termFilter struct {
	filters []analysis.TokenFilter
}

func newTermFilter(a analysis.Analyzer) (*termFilter, error) {
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || da.CharFilters != nil {
		return nil, fmt.Errorf("index: the BM25 analyzer is a %T, not a plain token filter chain", a)
	}
	return &termFilter{filters: da.TokenFilters}, nil
}

// apply is what the filters make of one token (keep false: dropped).
func (f *termFilter) apply(tok string) (string, bool) {
	ts := analysis.TokenStream{&analysis.Token{Term: []byte(tok), Position: 1, Type: analysis.AlphaNumeric}}
	for _, tf := range f.filters {
		ts = tf.Filter(ts)
	}
	if len(ts) == 1 {
		return string(ts[0].Term), true
	} else if len(ts) > 1 {
		panic("index: a BM25 token filter split a token")
	}
	return "", false
}

// BuildPostings analyses every document and builds the index: terms
// sorted, each term's postings in document order.
func BuildPostings(ctx context.Context, texts []string) (*Postings, error) {
	a, err := identAnalyzer()
	if err != nil {
		return nil, err
	}
	ct, err := tokenizeCorpus(ctx, a, texts, false)
	if err != nil {
		return nil, err
	}
	return postingsFromTokens(ct, a, 0), nil
}

// postingsFromTokens builds the postings from the tokenized corpus: one
// dictionary, sorted, each worker's term ids mapped into it. With maxDF > 0
// the terms found in more than maxDF documents are dropped (their postings
// and their place in the dictionary; documents keep their lengths).
func postingsFromTokens(ct *corpusTokens, a analysis.Analyzer, maxDF int) *Postings {
	all := map[string]bool{}
	for _, d := range ct.dicts {
		for _, t := range d.terms {
			all[t] = true
		}
	}
	sorted := slices.Sorted(maps.Keys(all))
	global := make(map[string]int32, len(sorted))
	for i, t := range sorted {
		global[t] = int32(i)
	}
	remap := map[*tokenDict][]int32{}
	for _, d := range ct.dicts {
		r := make([]int32, len(d.terms))
		for i, t := range d.terms {
			r[i] = global[t]
		}
		remap[d] = r
	}
	df := make([]uint32, len(sorted))
	var total float64
	for _, c := range ct.chunks {
		r := remap[c.dict]
		for _, pr := range c.pairs {
			df[r[pr.term]]++
		}
		for _, l := range c.length {
			total += float64(l)
		}
	}
	if maxDF > 0 {
		// Renumber the kept terms; a dropped one maps to -1.
		keep := make([]int32, len(sorted))
		var kept []string
		var keptDF []uint32
		for i, t := range sorted {
			keep[i] = -1
			if int(df[i]) <= maxDF {
				keep[i] = int32(len(kept))
				kept = append(kept, t)
				keptDF = append(keptDF, df[i])
			}
		}
		for _, r := range remap {
			for i, g := range r {
				r[i] = keep[g]
			}
		}
		sorted, df = kept, keptDF
	}
	p := &Postings{n: ct.n, terms: flat.NewKeys(flat.NewStrings(sorted)), an: a}
	p.fill(ct.chunks, remap, df, total/math.Max(1, float64(ct.n)))
	return p
}

// fill lays the postings out: offsets from the document frequencies, then
// every document's pairs in document order, with their BM25 weights.
func (p *Postings) fill(chunks []*tokenChunk, remap map[*tokenDict][]int32, df []uint32, avg float64) {
	p.off = make([]uint32, len(df)+1)
	for i, d := range df {
		p.off[i+1] = p.off[i] + d
	}
	p.docs = make([]uint32, p.off[len(df)])
	p.wts = make([]float32, len(p.docs))
	next := slices.Clone(p.off[:len(df)])
	for _, c := range chunks {
		r := remap[c.dict]
		for i := range c.length {
			norm := bm25K1 * (1 - bm25B + bm25B*float64(c.length[i])/avg)
			for _, pr := range c.pairs[c.pairOff[i]:c.pairOff[i+1]] {
				t := r[pr.term]
				if t < 0 {
					continue // a dropped term
				}
				j := next[t]
				next[t]++
				p.docs[j] = uint32(c.start + i)
				p.wts[j] = float32(float64(pr.tf) * (bm25K1 + 1) / (float64(pr.tf) + norm))
			}
		}
	}
}

// lists returns the postings and weights, loading them on first use.
func (p *Postings) lists() ([]uint32, []float32, error) {
	if p.load == nil {
		return p.docs, p.wts, nil
	}
	p.once.Do(func() {
		if p.docs, p.wts, p.err = p.load(); p.err != nil {
			p.failed.Store(&p.err)
		}
		p.loaded.Store(true)
	})
	return p.docs, p.wts, p.err
}

// Err is the error loading the postings (a damaged file), or nil; it
// does not load them (retrieval.Damaged).
func (p *Postings) Err() error {
	if e := p.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// term returns a term's id, or -1.
func (p *Postings) term(t string) int { return p.terms.Find(t) }

func (p *Postings) idf(t int) float32 {
	df := float64(p.off[t+1] - p.off[t])
	return float32(math.Log(1 + (float64(p.n)-df+0.5)/(df+0.5)))
}

var (
	_ retrieval.LexicalBackend = (*Postings)(nil)
	_ retrieval.TermIndex      = (*Postings)(nil)
)

// QueryTerms implements retrieval.TermIndex.
func (p *Postings) QueryTerms(text string) []retrieval.TermPostings {
	docs, _, err := p.lists()
	if err != nil {
		return nil // Err reports it; the search fails
	}
	var out []retrieval.TermPostings
	for t := range analyzeTerms(p.an, text) {
		if id := p.term(t); id >= 0 {
			out = append(out, retrieval.TermPostings{Term: t, IDF: p.idf(id), Docs: docs[p.off[id]:p.off[id+1]:p.off[id+1]]})
		}
	}
	slices.SortFunc(out, func(a, b retrieval.TermPostings) int { return strings.Compare(a.Term, b.Term) })
	return out
}

// NumDocs implements retrieval.TermIndex.
func (p *Postings) NumDocs() int { return p.n }

// Sections of bm25.dk.
const (
	postingsDocsSec  = "n_docs"
	postingsTermsSec = "terms"
	postingsOffSec   = "postings.off"
	postingsListSec  = "postings.docs"
	postingsWtsSec   = "postings.weights"
)

// save writes the postings as generation gen's flat file (terms sorted,
// so the file is reproducible).
func (p *Postings) save(path, gen string) error {
	docs, wts, err := p.lists()
	if err != nil {
		return err
	}
	return writeFlat(path, gen, func(w *flat.Writer) {
		flat.Put(w, postingsDocsSec, []uint64{uint64(p.n)})
		w.Keys(postingsTermsSec, p.terms)
		flat.Put(w, postingsOffSec, p.off)
		flat.Put(w, postingsListSec, docs)
		flat.Put(w, postingsWtsSec, wts)
	})
}

// OpenPostings reads the term table of a bm25.dk file; the postings are
// taken (and verified) when a query first needs them.
func OpenPostings(f *flat.File) (*Postings, error) {
	a, err := identAnalyzer()
	if err != nil {
		return nil, err
	}
	return openPostings(f, "bm25 postings", a)
}

// openPostings reads the term table of a postings file (what names it in
// errors) whose queries a reads.
func openPostings(f *flat.File, what string, a analysis.Analyzer) (*Postings, error) {
	bad := func(e error) error {
		return &workspace.FileError{Path: f.Path(), Row: -1, Err: fmt.Errorf("%w: %s: %w", ErrStale, what, e)}
	}
	n, err := flat.Take[uint64](f, postingsDocsSec)
	if err != nil {
		return nil, bad(err)
	}
	if len(n) != 1 || n[0] > 1<<31 {
		return nil, bad(fmt.Errorf("document count %v", n))
	}
	terms, err := f.Keys(postingsTermsSec)
	if err != nil {
		return nil, bad(err)
	}
	off, err := flat.Take[uint32](f, postingsOffSec)
	if err != nil {
		return nil, bad(err)
	}
	if len(off) != terms.Len()+1 {
		return nil, bad(fmt.Errorf("%d offsets for %d terms", len(off), terms.Len()))
	}
	if err := flat.CheckOffsets(f, postingsOffSec, int(f.Len(postingsListSec)/4)); err != nil {
		return nil, bad(err)
	}
	p := &Postings{n: int(n[0]), terms: terms, off: off, an: a}
	p.load = func() ([]uint32, []float32, error) {
		docs, err := flat.Take[uint32](f, postingsListSec)
		if err != nil {
			return nil, nil, bad(err)
		}
		wts, err := flat.Take[float32](f, postingsWtsSec)
		if err != nil {
			return nil, nil, bad(err)
		}
		if len(wts) != len(docs) || off[len(off)-1] != uint32(len(docs)) {
			return nil, nil, bad(fmt.Errorf("%d postings, %d weights, offsets up to %d", len(docs), len(wts), off[len(off)-1]))
		}
		if err := flat.CheckRange[uint32](f, postingsListSec, p.n); err != nil {
			return nil, nil, bad(err)
		}
		return docs, wts, nil
	}
	return p, nil
}
