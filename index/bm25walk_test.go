package index

import (
	"context"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// zipfCorpus makes n documents over a vocabulary whose word frequencies
// fall off like a natural language's (a few words in most documents, most
// in a few), with some documents repeated word for word (equal scores).
func zipfCorpus(rng *rand.Rand, n, vocab int) (docs []string, words []string) {
	words = make([]string, vocab)
	const letters = "bcdfghjklmnpqrtvwxz" // no vowel, no s: the stemmer leaves them alone
	for i := range words {
		w := []byte{'z'}
		for j := i; ; j /= len(letters) {
			w = append(w, letters[j%len(letters)])
			if j < len(letters) {
				break
			}
		}
		words[i] = string(w)
	}
	z := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	for i := range n {
		if i > 0 && rng.IntN(8) == 0 {
			docs = append(docs, docs[rng.IntN(i)]) // a tie
			continue
		}
		var b strings.Builder
		for range 1 + rng.IntN(20) {
			b.WriteString(words[z.Uint64()])
			b.WriteByte(' ')
		}
		docs = append(docs, b.String())
	}
	return docs, words
}

// referenceScore is Score as it was before the windowed walk (c5acb0a's
// postings.go, its pool aside): one accumulator for the whole corpus, the
// terms walked one after the other. The walk must give its scores bit for
// bit.
// refAcc is referenceScore's accumulator (tests run one at a time).
var refAcc []docAcc

func referenceScore(p *Postings, text string, fn func(doc int, score float32)) error {
	pdocs, pwts, err := p.lists()
	if err != nil {
		return err
	}
	if len(refAcc) != p.n {
		refAcc = make([]docAcc, p.n) // left zeroed by every call
	}
	acc := refAcc
	var touched []uint32
	terms := analyzeTerms(p.an, text)
	total := 0
	for _, c := range terms {
		total += c
	}
	// Terms in sorted order: the float32 sums must not depend on map order
	// (they did: two runs could differ in the last bit, and tied documents
	// swap places).
	for _, t := range slices.Sorted(maps.Keys(terms)) {
		qtf := terms[t]
		id := p.term(t)
		if id < 0 {
			continue
		}
		// bleve multiplies by the query weight too (idf again, Lucene style).
		idf := p.idf(id)
		w := idf * idf * float32(qtf)
		docs, wts := pdocs[p.off[id]:p.off[id+1]], pwts[p.off[id]:p.off[id+1]]
		for j, d := range docs {
			a := &acc[d]
			if a.hits == 0 {
				touched = append(touched, d)
			}
			a.s += w * wts[j]
			a.hits += uint32(qtf)
		}
	}
	inv := 1 / float32(max(total, 1))
	for _, d := range touched {
		a := &acc[d]
		fn(int(d), a.s*float32(a.hits)*inv)
		*a = docAcc{}
	}
	return nil
}

// referenceLists are the lists referenceScore's documents offered to the
// requests' TopKs give: what SearchLexical gave before the windowed walk.
func referenceLists(t *testing.T, p *Postings, text string, b *retrieval.Batch) [][]retrieval.Scored {
	tops := b.NewTops()
	if err := referenceScore(p, text, func(d int, s float32) {
		if t := retrieval.Top(tops, b.Class, d); t != nil {
			t.Add(d, s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return retrieval.SortedAll(tops)
}

// TestWindowedWalkIsReference: the windowed walk gives every document the
// score referenceScore gives it, bit for bit, and SearchLexical every
// request referenceScore's list, on Zipfian corpora with repeated documents (ties), queries
// of common and rare words with repeats, and batches of one to three
// requests with small and large k, classes no request takes, and a
// request that asks for nothing.
func TestWindowedWalkIsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	compared := 0
	for _, n := range []int{1, 7, 300, 5000, 2*scoreWindow + 1} {
		docs, words := zipfCorpus(rng, n, 400)
		p, err := BuildPostings(context.Background(), docs)
		if err != nil {
			t.Fatal(err)
		}
		z := rand.NewZipf(rng, 1.05, 1, uint64(len(words)-1))
		for q := range 300 {
			var qb strings.Builder
			for range 1 + rng.IntN(12) {
				if rng.IntN(3) == 0 {
					qb.WriteString(words[rng.IntN(len(words))]) // a rare word, mostly
				} else {
					qb.WriteString(words[z.Uint64()])
				}
				qb.WriteString(" ")
			}
			if q%17 == 0 {
				qb.WriteString("unknownword ")
			}
			text := qb.String()
			nreq := 1 + rng.IntN(3)
			b := &retrieval.Batch{Class: make([]uint8, n)}
			for c := range b.Class {
				b.Class[c] = uint8(rng.IntN(nreq + 2)) // 0 and nreq+1: no request
			}
			for r := range nreq {
				k := []int{1, 3, 10, 200, n + 5}[rng.IntN(5)]
				if r == 1 && q%5 == 0 {
					k = 0 // asks for nothing
				}
				b.Requests = append(b.Requests, retrieval.Request{K: k})
			}
			want := referenceLists(t, p, text, b)
			checkScores(t, p, text)
			got, err := p.SearchLexical(context.Background(), text, b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("n=%d query %q batch %v:\nwindowed  %v\nreference %v", n, text, b.Requests, got, want)
			}
			if len(want) > 0 && len(want[0]) > 0 {
				compared++
			}
		}
	}
	if compared < 500 {
		t.Fatalf("only %d non-empty lists compared", compared)
	}
}

// TestWalkSkips: on a corpus where the query's common words are in most
// documents, SearchLexical sums far fewer postings than it reads (the test
// above would pass with no pruning at all).
func TestWalkSkips(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 29))
	docs, words := zipfCorpus(rng, 20000, 400)
	p, err := BuildPostings(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	text := words[0] + " " + words[1] + " " + words[300] + " " + words[350]
	b := &retrieval.Batch{Requests: []retrieval.Request{{K: 10}}, Class: make([]uint8, len(docs))}
	for i := range b.Class {
		b.Class[i] = 1
	}
	postings := 0
	for tm := range analyzeTerms(p.an, text) {
		id := p.term(tm)
		if id < 0 || tm != strings.Fields(text)[0] && !strings.Contains(text, tm) {
			t.Fatalf("term %q of %q not indexed as such", tm, text)
		}
		postings += int(p.off[id+1] - p.off[id])
	}
	skipped := 0
	walkSkipped = func(n int) { skipped += n }
	defer func() { walkSkipped = nil }()
	want := referenceLists(t, p, text, b)
	got, err := p.SearchLexical(context.Background(), text, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("windowed %v\nreference %v", got, want)
	}
	if skipped*10 < postings*8 {
		t.Fatalf("skipped %d of %d postings", skipped, postings)
	}
	t.Logf("skipped %d of %d postings", skipped, postings)
}

// checkScores: Score gives every document referenceScore's score, once.
func checkScores(t *testing.T, p *Postings, text string) {
	t.Helper()
	want := map[int]float32{}
	referenceScore(p, text, func(d int, s float32) { want[d] = s })
	got := map[int]float32{}
	if err := p.Score(text, func(d int, s float32) {
		if _, dup := got[d]; dup {
			t.Fatalf("%q: document %d scored twice", text, d)
		}
		got[d] = s
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: scores differ from the reference (%d and %d documents)", text, len(got), len(want))
	}
}
