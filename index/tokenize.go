package index

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
)

// The corpus is tokenized once per build (#29): the hash encoder's
// document frequencies (Fit), its vectors (Encode) and the BM25 postings
// all walk the same identifier tokens (identTokens), and tokenizing was a
// third of the build's CPU when each of the three did it. tokenizeCorpus
// walks every text once and keeps, per document, the ids of its tokens in
// a dictionary of the distinct tokens; each distinct token's hash features
// and BM25 term are worked out once, when it is first seen.

// tokenDict is one worker's dictionary of distinct tokens, shared by the
// chunks the worker tokenized.
type tokenDict struct {
	// subs and wholes give the id of a sub-token and of a whole
	// (lower-cased, several-part) identifier: the hash encoder hashes the
	// two kinds apart ('t' and 'i'), BM25 does not.
	subs, wholes map[string]uint32
	// feat[featOff[k]:featOff[k+1]] are token k's hashed features: the
	// first of weight 1 (the token), the others of weight ngramWeight (a
	// sub-token's character trigrams), as rawFeatures makes them.
	featOff []uint32
	feat    []uint64
	// term[k] is token k's BM25 term, an index into terms (-1: the
	// filters drop it, a stop word).
	term   []int32
	terms  []string
	termID map[string]int32
	filter *termFilter
	// df counts distinct features per document (dfBuckets) when the build
	// fits the hash encoder; nil otherwise.
	df []uint32
}

// tokenChunk is one contiguous range of documents [start, end).
type tokenChunk struct {
	start, end int
	dict       *tokenDict
	// document start+i's tokens are toks[docOff[i]:docOff[i+1]], dict
	// ids in text order.
	docOff []uint32
	toks   []uint32
	// BM25: document start+i's (term, tf) pairs are
	// pairs[pairOff[i]:pairOff[i+1]] (terms of dict, each once), and it
	// has length[i] tokens the filters keep (repeats included).
	pairOff []int
	pairs   []termTF
	length  []int32
}

// corpusTokens is the tokenized corpus: its chunks in document order.
type corpusTokens struct {
	n      int
	chunks []*tokenChunk
	dicts  []*tokenDict
}

// tokenizeCorpus tokenizes texts on all cores, in contiguous chunks of
// documents handed out in order. With fit it also counts, per worker, the
// documents containing each hash-encoder feature bucket (what Fit counts).
func tokenizeCorpus(ctx context.Context, a analysis.Analyzer, texts []string, fit bool) (*corpusTokens, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(texts)/1024))
	nchunks := workers
	if workers > 1 {
		nchunks = workers * 8 // small enough that no worker is left with a long tail
	}
	ct := &corpusTokens{n: len(texts), chunks: make([]*tokenChunk, nchunks), dicts: make([]*tokenDict, workers)}
	var mu sync.Mutex
	next := 0
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		f, err := newTermFilter(a)
		if err != nil {
			return nil, err
		}
		// Sized for what Mathlib's texts hold per worker (about 0.55 whole
		// identifiers and terms per document, few distinct sub-tokens):
		// growing the maps was 1.5 CPU-s of rehashing.
		hint := len(texts) / 2 / workers
		d := &tokenDict{subs: make(map[string]uint32, hint/16), wholes: make(map[string]uint32, hint),
			termID: make(map[string]int32, hint), filter: f}
		if fit {
			d.df = make([]uint32, dfBuckets)
		}
		ct.dicts[w] = d
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := &tokenizer{d: d}
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= nchunks {
					return
				}
				c := &tokenChunk{start: k * len(texts) / nchunks, end: (k + 1) * len(texts) / nchunks, dict: d}
				if err := tk.chunk(ctx, texts, c); err != nil {
					errs[w] = err
					return
				}
				ct.chunks[k] = c
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ct, ctx.Err()
}

// tokenizer is one worker's scratch.
type tokenizer struct {
	d        *tokenDict
	buf, g   []byte
	offs     []int
	tf       []int32  // per term of d, the current document's count
	touched  []int32  // the terms counted in the current document
	seen     []uint32 // per token of d, 1 + the last document it was seen in
	distinct []uint32 // the current document's distinct tokens
	sc       featureScratch
}

// chunk tokenizes the documents of c.
func (tk *tokenizer) chunk(ctx context.Context, texts []string, c *tokenChunk) error {
	d := tk.d
	c.docOff = make([]uint32, 1, c.end-c.start+1)
	c.pairOff = make([]int, 1, c.end-c.start+1)
	c.length = make([]int32, 0, c.end-c.start)
	for i := c.start; i < c.end; i++ {
		if (i-c.start)%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		n := int32(0)
		identTokens(texts[i], &tk.buf, func(tok string, _, _ int, whole bool) {
			id := tk.token(tok, whole)
			c.toks = append(c.toks, id)
			if t := d.term[id]; t >= 0 {
				n++
				if tk.tf[t] == 0 {
					tk.touched = append(tk.touched, t)
				}
				tk.tf[t]++
			}
		})
		for _, t := range tk.touched {
			c.pairs = append(c.pairs, termTF{t, tk.tf[t]})
			tk.tf[t] = 0
		}
		tk.touched = tk.touched[:0]
		c.pairOff = append(c.pairOff, len(c.pairs))
		c.length = append(c.length, n)
		if uint64(len(c.toks)) > 1<<32-1 {
			return fmt.Errorf("index: more than 2^32 tokens in documents %d–%d", c.start, i)
		}
		c.docOff = append(c.docOff, uint32(len(c.toks)))
		if d.df != nil {
			toks := c.toks[c.docOff[len(c.docOff)-2]:]
			tk.distinctTokens(toks, i)
			sc := &tk.sc
			sc.ones, sc.halves = sc.ones[:0], sc.halves[:0]
			for _, k := range tk.distinct {
				f := d.feat[d.featOff[k]:d.featOff[k+1]]
				sc.ones = append(sc.ones, f[0])
				sc.halves = append(sc.halves, f[1:]...)
			}
			sc.countDistinct(d.df)
		}
	}
	return nil
}

// distinctTokens sets tk.distinct to the distinct tokens of toks, in
// order of first occurrence (doc is the document's index, for the marks).
func (tk *tokenizer) distinctTokens(toks []uint32, doc int) {
	if len(tk.seen) < len(tk.d.term) {
		tk.seen = append(tk.seen, make([]uint32, len(tk.d.term)-len(tk.seen))...)
	}
	mark := uint32(doc + 1)
	tk.distinct = tk.distinct[:0]
	for _, k := range toks {
		if tk.seen[k] != mark {
			tk.seen[k] = mark
			tk.distinct = append(tk.distinct, k)
		}
	}
}

// token returns tok's id, adding it to the dictionary when it is new.
func (tk *tokenizer) token(tok string, whole bool) uint32 {
	d := tk.d
	m := d.subs
	if whole {
		m = d.wholes
	}
	if id, ok := m[tok]; ok {
		return id
	}
	id := uint32(len(d.term))
	// The features, as rawFeatures hashes them.
	if whole {
		d.feat = append(d.feat, hash64('i', tok))
	} else {
		d.feat = append(d.feat, hash64('t', tok))
		if utf8.RuneCountInString(tok) >= 3 {
			g := append(append(append(tk.g[:0], '#'), tok...), '#')
			offs := tk.offs[:0]
			for i := 0; i < len(g); {
				offs = append(offs, i)
				_, k := utf8.DecodeRune(g[i:])
				i += k
			}
			offs = append(offs, len(g))
			gs := unsafe.String(unsafe.SliceData(g), len(g))
			for i := 0; i+3 < len(offs); i++ {
				d.feat = append(d.feat, hash64('c', gs[offs[i]:offs[i+3]]))
			}
			tk.g, tk.offs = g, offs
		}
	}
	if len(d.featOff) == 0 {
		d.featOff = append(d.featOff, 0)
	}
	d.featOff = append(d.featOff, uint32(len(d.feat)))
	// The BM25 term.
	t := int32(-1)
	if s, keep := d.filter.apply(tok); keep {
		var ok bool
		if t, ok = d.termID[s]; !ok {
			t = int32(len(d.terms))
			d.terms = append(d.terms, s)
			d.termID[s] = t
			tk.tf = append(tk.tf, 0)
		}
	}
	d.term = append(d.term, t)
	m[strings.Clone(tok)] = id
	return id
}

// release drops the documents' tokens (the BM25 pairs stay).
func (ct *corpusTokens) release() {
	for _, c := range ct.chunks {
		c.toks, c.docOff = nil, nil
	}
	for _, d := range ct.dicts {
		d.subs, d.wholes, d.feat, d.featOff = nil, nil, nil, nil
	}
}

// chunkOf returns the chunk holding document i.
func (ct *corpusTokens) chunkOf(i int) *tokenChunk {
	lo, hi := 0, len(ct.chunks)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if ct.chunks[m].start <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return ct.chunks[lo]
}
