package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// writeVersion writes the fixture library with every name suffixed by v
// ("" for the original), so that a hit tells which build it came from.
func writeVersion(t testing.TB, dir, v string) {
	t.Helper()
	decls, infs := fixtureDecls()
	rename := func(n string) string { return n + v }
	for i := range decls {
		decls[i].Name = rename(decls[i].Name)
		for j, d := range decls[i].StatementDeps {
			decls[i].StatementDeps[j] = rename(d)
		}
	}
	for i := range infs {
		infs[i].Name = rename(infs[i].Name)
	}
	ws := &workspace.Workspace{Dir: dir}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
		t.Fatal(err)
	}
}

// buildVersion writes version v and builds it with a hash dimension of dim.
func buildVersion(t testing.TB, dir, v string, dim int) {
	t.Helper()
	writeVersion(t, dir, v)
	if _, err := index.Build(context.Background(), &workspace.Workspace{Dir: dir}, index.BuildOptions{HashDim: dim, Force: true, Bleve: true}); err != nil {
		t.Fatal(err)
	}
}

// versionOf says which build every hit of a list comes from, or fails.
func versionOf(hits []retrieval.Hit) (string, error) {
	v := "?"
	for _, h := range hits {
		hv := ""
		if i := strings.LastIndex(h.Name, "_v"); i > 0 && !strings.Contains(h.Name[i:], ".") {
			hv = h.Name[i:]
		}
		if v != "?" && hv != v {
			return "", fmt.Errorf("hits of two builds in one answer: %v", names(hits))
		}
		v = hv
	}
	return v, nil
}

// Reload swaps generations under live readers: every answer comes from one
// generation (never documents of one with vectors of another — the builds
// differ in names and in vector dimension), searches never fail while old
// generations are replaced and removed, and after the last Reload every
// answer is the newest build's. Run with -race.
func TestReloadUnderConcurrentSearches(t *testing.T) {
	for _, bleve := range []bool{false, true} {
		t.Run(fmt.Sprintf("bleve=%v", bleve), func(t *testing.T) {
			dir := fixtureWSWith(t, index.BuildOptions{HashDim: 64, Bleve: bleve})
			ix, err := index.Open(context.Background(), dir, &index.OpenOptions{BleveBM25: bleve})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			ctx := context.Background()
			var stop atomic.Bool
			var wg sync.WaitGroup
			var searches atomic.Int64
			errs := make(chan error, 16)
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					modes := []retrieval.Mode{retrieval.ModeBest, retrieval.ModeDense, retrieval.ModeBM25, retrieval.ModeHybrid}
					for i := 0; !stop.Load(); i++ {
						hits, err := ix.Search(ctx, retrieval.Query{Text: "the cloud of a set of tangles, litter", Mode: modes[(w+i)%4], K: 20})
						if err == nil && len(hits) == 0 {
							err = errors.New("no hits")
						}
						if err == nil {
							_, err = versionOf(hits)
						}
						if err != nil {
							errs <- err
							return
						}
						// Lookups on the loaded generation keep working too.
						ix.Lookup(hits[0].Name)
						searches.Add(1)
					}
				}()
			}
			dims := []int{32, 48, 64}
			var last string
			for i := range 6 {
				last = fmt.Sprintf("_v%d", i+2)
				buildVersion(t, dir, last, dims[i%3])
				changed, err := ix.Reload(context.Background())
				if err != nil || !changed {
					t.Fatalf("reload %d: changed %v, err %v", i, changed, err)
				}
				if g := ix.Generation(); g == "" || ix.Manifest().Generation != g {
					t.Fatalf("generation %q, manifest %q", g, ix.Manifest().Generation)
				}
				time.Sleep(5 * time.Millisecond)
			}
			stop.Store(true)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if searches.Load() == 0 {
				t.Fatal("no search ran")
			}
			hits, err := ix.Search(ctx, retrieval.Query{Text: "the cloud of a set of tangles"})
			if err != nil {
				t.Fatal(err)
			}
			if v, err := versionOf(hits); err != nil || v != last {
				t.Errorf("after the last reload: version %q (%v), want %q: %v", v, err, last, names(hits))
			}
			if _, ok := ix.Lookup("ConNF.cloud" + last); !ok {
				t.Error("Lookup does not see the new generation")
			}
			if changed, err := ix.Reload(context.Background()); changed || err != nil {
				t.Errorf("reload without a new build: changed %v, err %v", changed, err)
			}
			ents, _ := os.ReadDir(filepath.Join(dir, "index"))
			if len(ents) != 2 {
				t.Errorf("index/ holds %d entries after the rebuilds, want CURRENT and one generation", len(ents))
			}
		})
	}
}

// A reader that never reloads keeps answering from its generation after a
// rebuild removed the generation's files (the vectors stay mapped, the
// bleve segments open).
func TestOldGenerationOutlivesItsFiles(t *testing.T) {
	for _, bleve := range []bool{false, true} {
		dir := fixtureWSWith(t, index.BuildOptions{HashDim: 64, Bleve: bleve})
		ix, err := index.Open(context.Background(), dir, &index.OpenOptions{BleveBM25: bleve})
		if err != nil {
			t.Fatal(err)
		}
		old, _ := index.CurrentDir(dir)
		q := retrieval.Query{Text: "the cloud of a set of tangles, litter", K: 20}
		before, err := ix.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		buildVersion(t, dir, "_v2", 32)
		buildVersion(t, dir, "_v3", 32)
		if _, err := os.Stat(old); !os.IsNotExist(err) {
			t.Fatalf("old generation still on disk: %v", err)
		}
		for _, m := range []retrieval.Mode{retrieval.ModeBest, retrieval.ModeDense, retrieval.ModeBM25} {
			q.Mode = m
			after, err := ix.Search(context.Background(), q)
			if err != nil {
				t.Fatalf("bleve %v, %s: search on a removed generation: %v", bleve, m, err)
			}
			if m == retrieval.ModeBest && !slices.Equal(names(after), names(before)) {
				t.Errorf("bleve %v: answers changed without a reload:\n%v\n%v", bleve, names(before), names(after))
			}
		}
		ix.Close()
	}
}

func TestSearchAfterCloseFails(t *testing.T) {
	ix, err := index.Open(context.Background(), fixtureWS(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := ix.Search(context.Background(), retrieval.Query{Text: "cloud"}); err == nil {
		t.Error("search after Close succeeded")
	}
	if _, err := ix.Reload(context.Background()); err == nil {
		t.Error("reload after Close succeeded")
	}
}

// A build that dies after writing its generation but before the switch
// leaves the old index current; the next build removes the leftovers.
func TestCrashedBuildLeavesOldIndex(t *testing.T) {
	dir := fixtureWS(t)
	before, _ := index.CurrentDir(dir)
	stale := filepath.Join(dir, "index", ".build.tmp-crashed")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, index.VectorsName), []byte("half"), 0o644)
	if g, _ := index.CurrentDir(dir); g != before {
		t.Fatal("CURRENT moved")
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	buildVersion(t, dir, "", 64)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("staging folder of the crashed build left: %v", err)
	}
}

// A pinned generation searches and looks up on its own files after a
// Reload switched the index to a build with other names: its hits are
// found by its Lookup and UsedBy, never the new build's; released, it
// goes, and the index answers from the new build.
func TestPinnedGenerationAgreesWithItself(t *testing.T) {
	dir := fixtureWS(t)
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	g, release := ix.Pin()
	buildVersion(t, dir, "_v2", 32)
	if changed, err := ix.Reload(context.Background()); err != nil || !changed {
		t.Fatalf("reload: %v %v", changed, err)
	}
	q := retrieval.Query{Text: "the cloud of a set of tangles, litter", K: 10}
	many, err := g.SearchMany(context.Background(), []retrieval.Query{q, q})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := g.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := versionOf(hits); err != nil || v != "" || len(hits) == 0 || !slices.Equal(names(many[0]), names(hits)) {
		t.Fatalf("pinned generation answered %v (version %q, %v)", names(hits), v, err)
	}
	for _, h := range hits {
		if _, ok := g.Lookup(h.Name); !ok {
			t.Errorf("pinned Lookup misses its own hit %s", h.Name)
		}
		if _, ok := ix.Lookup(h.Name); ok {
			t.Errorf("the reloaded index still knows %s", h.Name)
		}
	}
	if g.Len() == 0 || len(g.UsedBy("ConNF.cloud")) == 0 || len(ix.UsedBy("ConNF.cloud")) != 0 {
		t.Errorf("UsedBy: pinned %v, index %v", g.UsedBy("ConNF.cloud"), ix.UsedBy("ConNF.cloud"))
	}
	release()
	now, err := ix.Search(context.Background(), q)
	if v, _ := versionOf(now); err != nil || v != "_v2" {
		t.Fatalf("after release the index answers %v (%v)", names(now), err)
	}
}
