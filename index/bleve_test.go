package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
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

// A damaged bleve folder is refused at Open, naming the file, instead of
// panicking inside bleve's store (issue 24: one flipped byte in
// bm25/store/root.bolt ended `search --bm25-engine bleve` with exit 2 and
// a goroutine dump). Every file of bm25/ is in the manifest's checksums;
// a file the manifest does not list is refused too. A generation whose
// manifest predates those checksums still gets an error, not a panic.
func TestBleveDamageRefused(t *testing.T) {
	ctx := context.Background()
	dir := fixtureWSWith(t, index.BuildOptions{HashDim: 64, Bleve: true})
	gen := genDir(t, dir)
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var bleveFiles []string
	for n := range m.Files {
		if strings.HasPrefix(n, index.BM25Name+"/") {
			bleveFiles = append(bleveFiles, n)
		}
	}
	if !slices.Contains(bleveFiles, "bm25/store/root.bolt") || len(bleveFiles) < 2 {
		t.Fatalf("manifest lists bleve files %v, want root.bolt and the segments", bleveFiles)
	}
	// Opening and searching changes nothing: a second Open verifies.
	for range 2 {
		ix, err := index.Open(ctx, dir, &index.OpenOptions{BleveBM25: true, NoDense: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Search(ctx, index.Query{Text: "cloud", Mode: index.ModeBM25}); err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
	flip := func(p string, off int) func() {
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b := slices.Clone(orig)
		b[off%len(b)] ^= 0x5a
		os.WriteFile(p, b, 0o644)
		return func() { os.WriteFile(p, orig, 0o644) }
	}
	for _, n := range bleveFiles {
		p := filepath.Join(gen, filepath.FromSlash(n))
		undo := flip(p, 12288)
		_, err := index.Open(ctx, dir, &index.OpenOptions{BleveBM25: true, NoDense: true})
		var fe *workspace.FileError
		if !errors.Is(err, index.ErrStale) || !errors.As(err, &fe) || fe.Path != p || !strings.Contains(err.Error(), "sha256") {
			t.Errorf("one byte flipped in %s: %v, want ErrStale naming it and its sha256", n, err)
		}
		undo()
	}
	extra := filepath.Join(gen, index.BM25Name, "store", "000000000099.zap")
	os.WriteFile(extra, []byte("foreign"), 0o644)
	if _, err := index.Open(ctx, dir, &index.OpenOptions{BleveBM25: true, NoDense: true}); !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), extra) {
		t.Errorf("a file the manifest does not list: %v", err)
	}
	os.Remove(extra)

	// A manifest without the folder's checksums (written before them): the
	// store's panic on a damaged page is an error naming the folder. Which
	// page bolt reads first depends on the store's layout, so try the
	// first pages; one of them must be read, none may panic.
	old := *m
	old.Files = maps.Clone(m.Files)
	for _, n := range bleveFiles {
		delete(old.Files, n)
	}
	writeManifest(t, gen, &old)
	root := filepath.Join(gen, "bm25", "store", "root.bolt")
	found := 0
	for page := 0; page < 8; page++ {
		undo := flip(root, page*4096) // the page id bolt asserts on
		ix, err := index.Open(ctx, dir, &index.OpenOptions{BleveBM25: true, NoDense: true})
		if err == nil {
			_, err = ix.Search(ctx, index.Query{Text: "cloud", Mode: index.ModeBM25})
			ix.Close()
		}
		if err != nil {
			if !errors.Is(err, index.ErrStale) && !strings.Contains(err.Error(), "bm25") {
				t.Errorf("page %d damaged: %v, want an error naming the bleve folder", page, err)
			}
			found++
		}
		undo()
	}
	if found == 0 {
		t.Error("no damaged page of root.bolt was noticed")
	}
}

// writeManifest replaces a generation's manifest.json.
func writeManifest(t *testing.T, genDir string, m *index.Manifest) {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(genDir, index.ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
