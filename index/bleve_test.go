package index_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

// The bleve BM25 engine on its own: it answers, honours every part of the
// filter (translated into bleve queries, not filtered afterwards), breaks
// ties by row like the postings, and agrees with the postings on clear-cut
// queries (the two BM25 variants differ in √tf and the mean length, see
// bleveBackend, so only the clear winners are compared).
func TestBleveBackend(t *testing.T) {
	dir := fixtureWSWith(t, index.BuildOptions{HashDim: 64, Bleve: true})
	bl, err := index.Open(context.Background(), dir, &index.OpenOptions{BleveBM25: true, NoDense: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	mem, err := index.Open(context.Background(), dir, &index.OpenOptions{NoDense: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	ctx := context.Background()
	search := func(ix *index.Index, q retrieval.Query) []string {
		t.Helper()
		q.Mode = retrieval.ModeBM25
		if q.K == 0 {
			q.K = 20
		}
		hits, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return names(hits)
	}
	for _, tc := range []struct {
		q     retrieval.Query
		first string
		never []string
		only  []string
	}{
		{q: retrieval.Query{Text: "the cloud map of a set of tangles"}, first: "ConNF.cloud", never: []string{"ConNF.cloud_empty", "ConNF.cloud_nonempty"}},
		{q: retrieval.Query{Text: "the cloud map of a set of tangles", Filter: retrieval.Filter{Exclude: []string{"ConNF.cloud"}}}, never: []string{"ConNF.cloud"}},
		{q: retrieval.Query{Text: "cloud of the empty set of tangles is empty", Filter: retrieval.Filter{AllKinds: true}}, first: "ConNF.cloud_empty"},
		{q: retrieval.Query{Text: "litter", Filter: retrieval.Filter{Kinds: []string{"structure"}}}, only: []string{"ConNF.Litter"}},
		{q: retrieval.Query{Text: "litter near", Filter: retrieval.Filter{Kinds: []string{"theorem"}}}, first: "ConNF.toNearLitter_near", never: []string{"ConNF.Litter", "ConNF.NearLitter"}},
		{q: retrieval.Query{Text: "the cloud map of a set of tangles", Filter: retrieval.Filter{Library: "test"}}, first: "ConNF.cloud"},
		{q: retrieval.Query{Text: "litter", Filter: retrieval.Filter{Library: "mathlib"}}, only: []string{}},
	} {
		got := search(bl, tc.q)
		if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
			t.Errorf("%q %+v: bleve %v, want %s first", tc.q.Text, tc.q.Filter, got, tc.first)
		}
		for _, n := range tc.never {
			if slices.Contains(got, n) {
				t.Errorf("%q %+v: bleve returned %s", tc.q.Text, tc.q.Filter, n)
			}
		}
		if tc.only != nil && !slices.Equal(got, tc.only) {
			t.Errorf("%q %+v: bleve %v, want exactly %v", tc.q.Text, tc.q.Filter, got, tc.only)
		}
		if tc.first != "" {
			if m := search(mem, tc.q); len(m) == 0 || m[0] != tc.first {
				t.Errorf("%q: postings put %v first, bleve %s", tc.q.Text, m, tc.first)
			}
		}
	}
	// Both engines hold the same documents for a query, with ties in row
	// order: a query matching every premise equally ("ConNF" in each name)
	// lists the candidates in docs.parquet order when cut at K.
	q := retrieval.Query{Text: "definition", K: 3}
	if b, m := search(bl, q), search(mem, q); len(b) != 3 || !slices.Equal(b, m) {
		t.Errorf("tied scores: bleve %v, postings %v (both by row)", b, m)
	}
}

// The bleve index is built only when asked (index --bm25-engine bleve) and
// recorded in the manifest; asking an index without it for bleve BM25 says
// how to build it.
func TestBleveOnlyOnDemand(t *testing.T) {
	dir := fixtureWS(t)
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.BM25Engines, []string{index.BM25Postings}) {
		t.Errorf("bm25_engines %v, want postings only", m.BM25Engines)
	}
	if _, err := os.Stat(filepath.Join(genDir(t, dir), index.BM25Name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bm25/ built without --bm25-engine bleve: %v", err)
	}
	_, err = index.Open(context.Background(), dir, &index.OpenOptions{BleveBM25: true})
	if !errors.Is(err, index.ErrNoBleve) || !strings.Contains(err.Error(), "driftkit index --bm25-engine bleve") {
		t.Errorf("bleve BM25 on an index without it: %v", err)
	}
	with := fixtureWSWith(t, index.BuildOptions{HashDim: 64, Bleve: true})
	if m, _ := index.ReadManifest(with); !slices.Equal(m.BM25Engines, []string{index.BM25Postings, index.BM25Bleve}) {
		t.Errorf("bm25_engines %v, want postings and bleve", m.BM25Engines)
	}
}
