package index_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n got: %s\nwant: %s", name, got, want)
	}
}

func names(h []index.Hit) []string {
	out := make([]string, len(h))
	for i, x := range h {
		out[i] = x.Name
	}
	return out
}

func genDir(t *testing.T, ws string) string {
	t.Helper()
	d, err := index.CurrentDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBuildWritesIndex(t *testing.T) {
	dir := fixtureWS(t)
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Encoder != "hash" || !m.EncoderFallback || m.Dims != 64 || m.Rendering != workspace.RenderingVersion || m.Docs != 12 || m.PremiseDocs != 7 || len(m.CorpusSHA256) != 64 {
		t.Errorf("manifest %+v", m)
	}
	if s := m.EncoderSpec; s.Kind != "hash" || s.Dims != 64 || !s.Fallback || s.Normalize != "l2" || s.Rendering != workspace.RenderingVersion || len(s.State) != 64 {
		t.Errorf("encoder spec %+v", s)
	}
	gen := genDir(t, dir)
	if filepath.Base(gen) != m.Generation {
		t.Errorf("CURRENT names %s, its manifest %s", filepath.Base(gen), m.Generation)
	}
	for _, n := range []string{index.DocsName, index.VectorsName, index.UsageName, index.PostingsName, index.HashStateName} {
		st, err := os.Stat(filepath.Join(gen, n))
		if f, ok := m.Files[n]; err != nil || !ok || f.Size != st.Size() || len(f.SHA256) != 64 {
			t.Errorf("%s: manifest entry %+v, stat %v", n, f, err)
		}
	}
	u, err := workspace.ReadTable[workspace.Usage](filepath.Join(gen, index.UsageName))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range u {
		if x.Premise == "ConNF.cloud" && (x.Count != 2 || !slices.Equal(x.UsedBy, []string{"ConNF.cloud_empty", "ConNF.cloud_nonempty"})) {
			t.Errorf("usage of cloud: %+v", x)
		}
	}
	_, rows, cols, err := index.ReadNPY(filepath.Join(gen, index.VectorsName))
	if err != nil || rows != 12 || cols != 64 {
		t.Fatalf("vectors: %v %d×%d", err, rows, cols)
	}
	// The workspace manifest records the run; a rebuild is a new generation
	// and the old one is removed.
	ws := &workspace.Workspace{Dir: dir}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	if g2 := genDir(t, dir); g2 == gen {
		t.Error("rebuild kept the generation name")
	} else if _, err := os.Stat(gen); !os.IsNotExist(err) {
		t.Errorf("old generation %s left: %v", gen, err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "index"))
	if len(ents) != 2 {
		t.Errorf("index/ holds %d entries, want CURRENT and one generation", len(ents))
	}
	// A hand-edited CURRENT is refused.
	os.WriteFile(filepath.Join(dir, "index", index.CurrentName), []byte("gen-x\n"), 0o644)
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("err = %v, want ErrForeignOutput", err)
	}
}

// An index in the layout before generations (files directly in index/) is
// refused with a clear message, and a build replaces it.
func TestOldLayout(t *testing.T) {
	dir := fixtureWS(t)
	gen := genDir(t, dir)
	idx := filepath.Join(dir, "index")
	for _, n := range []string{index.ManifestName, index.DocsName, index.VectorsName, index.UsageName} {
		if err := os.Rename(filepath.Join(gen, n), filepath.Join(idx, n)); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(gen)
	os.Remove(filepath.Join(idx, index.CurrentName))
	_, err := index.Open(context.Background(), dir, nil)
	if !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), "layout of an older driftkit") {
		t.Fatalf("old layout: err %v, want ErrStale naming the old layout", err)
	}
	if _, err := index.ReadManifest(dir); !errors.Is(err, index.ErrStale) {
		t.Errorf("ReadManifest of the old layout: %v", err)
	}
	if _, err := index.Build(context.Background(), &workspace.Workspace{Dir: dir}, index.BuildOptions{HashDim: 64, Force: true}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{index.ManifestName, index.DocsName, index.VectorsName, index.UsageName} {
		if _, err := os.Stat(filepath.Join(idx, n)); !os.IsNotExist(err) {
			t.Errorf("old-layout %s left after a build: %v", n, err)
		}
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
}

func TestBuildCancelledKeepsOldIndex(t *testing.T) {
	dir := fixtureWS(t)
	before, _ := os.ReadFile(filepath.Join(dir, "index", index.ManifestName))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := index.Build(ctx, &workspace.Workspace{Dir: dir}, index.BuildOptions{HashDim: 32}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "index", index.ManifestName))
	if !bytes.Equal(before, after) {
		t.Error("cancelled build replaced the manifest")
	}
	if _, err := index.Open(context.Background(), dir, nil); err != nil {
		t.Fatalf("old index no longer opens: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "index"))
	for _, e := range ents {
		if workspace.IsTemporary(e.Name()) {
			t.Errorf("staging folder left behind: %s", e.Name())
		}
	}
}

// countdownCtx reports cancellation from its n-th Err call on, so a test can
// cancel a build at every point where it looks.
type countdownCtx struct {
	context.Context
	left, calls atomic.Int64
	saw         atomic.Bool
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		c.saw.Store(true)
		return context.Canceled
	}
	return nil
}

// TestBuildCancelAtEveryPoint cancels a rebuild at points spread over all of
// its context checks: a cancelled build returns context.Canceled and leaves
// every file of the previous index byte for byte, with no staging folder; a
// build that saw the cancellation never reports success.
func TestBuildCancelAtEveryPoint(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(filepath.Join(dir, "index"), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	opts := index.BuildOptions{HashDim: 64}
	full := &countdownCtx{Context: context.Background()}
	full.left.Store(1 << 40)
	if _, err := index.Build(full, ws, opts); err != nil {
		t.Fatal(err)
	}
	n := full.calls.Load()
	if n < 3 {
		t.Fatalf("only %d context checks in a build", n)
	}
	before := snapshot()
	for k := int64(0); k < n; k += max(1, n/30) {
		ctx := &countdownCtx{Context: context.Background()}
		ctx.left.Store(k)
		_, err := index.Build(ctx, ws, opts)
		switch {
		case err == nil && ctx.saw.Load():
			t.Fatalf("cancel after %d of %d checks: the build saw it and still succeeded", k, n)
		case err == nil:
			before = snapshot() // a complete rebuild is a new baseline
			continue
		case !errors.Is(err, context.Canceled):
			t.Fatalf("cancel after %d of %d checks: err %v, want context.Canceled", k, n, err)
		}
		after := snapshot()
		if len(after) != len(before) {
			t.Fatalf("cancel after %d of %d checks: %d files, want %d", k, n, len(after), len(before))
		}
		for p, b := range before {
			if after[p] != b {
				t.Fatalf("cancel after %d of %d checks: %s changed", k, n, p)
			}
		}
	}
}

func TestBuildRefusesConcurrentBuild(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	unlock, err := ws.TryLock("index")
	if err != nil {
		t.Fatal(err)
	}
	before := snapshotManifest(t, dir)
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); !errors.Is(err, workspace.ErrBusy) {
		t.Fatalf("build while another holds the workspace: err %v, want workspace.ErrBusy", err)
	}
	if snapshotManifest(t, dir) != before {
		t.Error("refused build changed the index")
	}
	unlock()
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatalf("build after the other finished: %v", err)
	}
}

func snapshotManifest(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(genDir(t, dir), index.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenErrors(t *testing.T) {
	if _, err := index.Open(context.Background(), t.TempDir(), nil); !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("empty workspace: %v", err)
	}
	dir := fixtureWS(t)
	gen := genDir(t, dir)
	if err := index.WriteNPY(filepath.Join(gen, index.VectorsName), make([]float32, 6), 3, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Open(context.Background(), dir, nil); !errors.Is(err, index.ErrStale) {
		t.Errorf("mismatched vectors: %v", err)
	}
	if _, err := index.Open(context.Background(), dir, &index.OpenOptions{NoDense: true}); err != nil {
		t.Errorf("NoDense should not read vectors: %v", err)
	}
	mp := filepath.Join(gen, index.ManifestName)
	os.WriteFile(mp, []byte(`{"format":`), 0o644)
	_, err := index.Open(context.Background(), dir, nil)
	var fe *workspace.FileError
	if !errors.As(err, &fe) || fe.Path != mp || !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), "malformed index manifest") {
		t.Errorf("truncated manifest: err %v, want a FileError naming it, wrapping ErrStale, saying it is malformed", err)
	}
	os.WriteFile(filepath.Join(dir, "index", index.CurrentName), []byte("../elsewhere\n"), 0o644)
	if _, err := index.Open(context.Background(), dir, nil); !errors.Is(err, index.ErrStale) {
		t.Errorf("CURRENT naming a path: %v", err)
	}
}

// A damaged file of a generation is refused, naming it: issue 14 found
// that one flipped bit in vectors.npy loaded as NaN rows and searched with
// exit status 0. The encoder state is checked at Open (sha256); the
// vectors, the table and the postings when first read (CRC32C): the read
// that finds the damage fails, and so does every search after it; the
// texts (docs.parquet) by EachDocument. A truncated file is refused at Open
// by its size.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{index.VectorsName, index.TableName, index.PostingsName, index.FormulaName, index.HashStateName, index.DocsName} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureWS(t)
			p := filepath.Join(genDir(t, dir), name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// The exponent bits of a float in the middle of the data: a
			// NaN in vectors.npy.
			i := len(b) - len(b)/3
			i -= i % 4
			b[i+3] ^= 0x7f
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			err = damageFound(ctx, dir)
			var fe *workspace.FileError
			if !errors.Is(err, index.ErrStale) || !errors.As(err, &fe) || fe.Path != p || !strings.Contains(err.Error(), "sha256") && !strings.Contains(err.Error(), "CRC32C") {
				t.Errorf("damaged %s: err %v, want ErrStale naming the file and its checksum", name, err)
			}
			// A truncated file says so by its size.
			os.WriteFile(p, b[:len(b)-1], 0o644)
			if name == index.DocsName {
				return // Open does not read it (see above)
			}
			if _, err := index.Open(ctx, dir, nil); !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), "bytes") {
				t.Errorf("truncated %s: err %v", name, err)
			}
		})
	}
}

// damageFound opens the index and reads all of it: searches in every
// mode and profile, every Lookup and UsedBy, every document's text. It
// returns the first error; after one, a search must fail with it too.
func damageFound(ctx context.Context, dir string) error {
	ix, err := index.Open(ctx, dir, nil)
	if err != nil {
		return err
	}
	defer ix.Close()
	first := func() error {
		for _, q := range []index.Query{{Text: "cloud of tangles", Mode: index.ModeBest}, {Text: "cloud", Filter: retrieval.Filter{AllKinds: true}},
			{Text: "litter", Mode: index.ModeBM25}, {Text: "litter", Mode: index.ModeDense},
			{Text: "`s ⊆ t → f '' s ⊆ f '' t`", Filter: retrieval.Filter{AllKinds: true}}} {
			if _, err := ix.Search(ctx, q); err != nil {
				return err
			}
		}
		g, release := ix.Pin()
		defer release()
		for d := range g.Len() {
			ix.Lookup(g.Table().Name(d))
			ix.UsedBy(g.Table().Name(d))
			if err := g.Table().Err(); err != nil {
				return err
			}
		}
		return g.EachDocument(ctx, func(int, *index.Doc) error { return nil })
	}()
	if first == nil {
		return nil
	}
	if _, err := ix.Search(ctx, index.Query{Text: "cloud"}); err == nil && !strings.Contains(first.Error(), index.DocsName) {
		return fmt.Errorf("a search after %v succeeded", first)
	}
	return first
}

func TestSearchModes(t *testing.T) {
	ix := openFixture(t)
	ctx := context.Background()
	q := "the cloud of a set of tangles, `ConNF.cloud`"
	for _, m := range []index.Mode{index.ModeDense, index.ModeBM25, index.ModeHybrid, index.ModeBest} {
		t.Run(string(m), func(t *testing.T) {
			hits, err := ix.Search(ctx, index.Query{Text: q, Mode: m, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Name != "ConNF.cloud" {
				t.Fatalf("hits %v, want ConNF.cloud first", names(hits))
			}
			for i, h := range hits {
				if h.Kind == "theorem" || h.Kind == "instance" {
					t.Errorf("non-premise kind returned: %+v", h)
				}
				if h.Rank != i+1 || (i > 0 && h.Score > hits[i-1].Score) {
					t.Errorf("ranks/scores out of order: %+v", hits)
				}
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	ix := openFixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		q       index.Query
		never   []string
		mustTop string
	}{
		{"exclude", index.Query{Text: "`ConNF.cloud` of tangles", Filter: retrieval.Filter{Exclude: []string{"ConNF.cloud"}}}, []string{"ConNF.cloud"}, ""},
		{"kinds", index.Query{Text: "litter", Filter: retrieval.Filter{Kinds: []string{"structure"}}}, []string{"ConNF.litterSet", "ConNF.Params"}, "ConNF.Litter"},
		{"all kinds", index.Query{Text: "cloud of the empty set of tangles is empty", Filter: retrieval.Filter{AllKinds: true}, Mode: index.ModeBM25}, nil, "ConNF.cloud_empty"},
		{"mention by suffix", index.Query{Text: "uses `litterSet` somewhere", Weights: &index.Weights{Mention: 1, RRFK: 10, Depth: 10}}, nil, "ConNF.litterSet"},
		{"mention prefix", index.Query{Text: "about ConNF.Litter.toNearLitter.fst_eq", Weights: &index.Weights{Mention: 1, RRFK: 10, Depth: 10}}, nil, "ConNF.Litter.toNearLitter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := ix.Search(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if slices.Contains(tc.never, h.Name) {
					t.Errorf("%s returned", h.Name)
				}
			}
			if tc.mustTop != "" && (len(hits) == 0 || hits[0].Name != tc.mustTop) {
				t.Errorf("hits %v, want %s first", names(hits), tc.mustTop)
			}
		})
	}
	if _, err := ix.Search(ctx, index.Query{Text: "  "}); !errors.Is(err, index.ErrEmptyQuery) {
		t.Errorf("empty query: %v", err)
	}
}

func TestUsageCountExcludes(t *testing.T) {
	ix := openFixture(t)
	if n := ix.UsageCount("ConNF.cloud", nil); n != 2 {
		t.Errorf("count %d", n)
	}
	if n := ix.UsageCount("ConNF.cloud", []string{"ConNF.cloud_empty"}); n != 1 {
		t.Errorf("count without the query's own declaration %d", n)
	}
}

// Neighbour voting must not use the query's own declaration: with only the
// neighbour list, excluding cloud_empty leaves cloud_nonempty to vote.
func TestNeighborsExcludeSelf(t *testing.T) {
	ix := openFixture(t)
	w := &index.Weights{Neighbors: 1, RRFK: 10, Depth: 10, NeighborDocs: 1}
	hits, err := ix.Search(context.Background(), index.Query{Text: "The cloud of the empty set of tangles is empty", Weights: w,
		Filter: retrieval.Filter{Exclude: []string{"ConNF.cloud_empty", "ConNF.cloud_nonempty"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Name == "ConNF.cloud" {
			t.Errorf("cloud reached through an excluded declaration's dependencies: %v", names(hits))
		}
	}
}

func TestEvalRetrievalGolden(t *testing.T) {
	ix := openFixture(t)
	items, err := eval.ReadBenchFile("testdata/bench.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var per bytes.Buffer
	enc := json.NewEncoder(&per)
	m := ix.Manifest()
	rep, err := eval.Retrieval(context.Background(), ix, ix, items, eval.Options{Ks: []int{1, 5}, BenchLabel: "bench.jsonl",
		Encoder: m.Encoder, EncoderFallback: m.EncoderFallback, Head: ix.Head(),
		PerItem: func(p eval.PerItem) error {
			if slices.Contains(p.Ranked, p.FullName) {
				t.Errorf("%s ranked itself", p.FullName)
			}
			return enc.Encode(p)
		}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	golden(t, "eval_report", append(b, '\n'))
	golden(t, "eval_per_item", per.Bytes())
	var tbl bytes.Buffer
	rep.WriteTable(&tbl)
	golden(t, "eval_table", tbl.Bytes())
}

func TestMetrics(t *testing.T) {
	// Perfect ranking at k = |gold| gives 1 everywhere.
	ix := openFixture(t)
	items := []eval.BenchItem{{InformalStmt: "`ConNF.cloud`", Gold: []string{"ConNF.cloud"}, FullName: "X"}}
	rep, err := eval.Retrieval(context.Background(), ix, ix, items, eval.Options{Ks: []int{1, 2}, Weights: &index.Weights{Mention: 1, RRFK: 1, Depth: 5}})
	if err != nil {
		t.Fatal(err)
	}
	m1, m2 := rep.AtK[0], rep.AtK[1]
	if m1.P != 1 || m1.R != 1 || m1.F1 != 1 || m1.NDCG != 1 || rep.MRR != 1 {
		t.Errorf("@1 %+v mrr %v", m1, rep.MRR)
	}
	if m2.P != 0.5 || m2.R != 1 || m2.NDCG != 1 {
		t.Errorf("@2 %+v", m2)
	}
}

// The association list (off by default) ranks premises that co-occur with
// the query's words in other declarations' statements.
func TestAssocSignal(t *testing.T) {
	ix := openFixture(t)
	hits, err := ix.Search(context.Background(), index.Query{Text: "near litter set", Filter: retrieval.Filter{Exclude: []string{"ConNF.toNearLitter_near"}},
		Weights: &index.Weights{Assoc: 1, AssocSmooth: 1, AssocMaxDF: 1, RRFK: 10, Depth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Signals["assoc"] != 1 {
		t.Fatalf("hits %+v", hits)
	}
	for _, h := range hits {
		if h.Kind == "theorem" {
			t.Errorf("theorem %s returned", h.Name)
		}
	}
}

// Plain words match premise names: "litters" → ConNF.Litter (plural), and
// only premise kinds.
func TestConceptSignal(t *testing.T) {
	ix := openFixture(t)
	hits, err := ix.Search(context.Background(), index.Query{Text: "about litters and clouds",
		Weights: &index.Weights{Concept: 1, ConceptTop: 2, RRFK: 10, Depth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	got := names(hits)
	slices.Sort(got)
	if !slices.Equal(got, []string{"ConNF.Litter", "ConNF.cloud"}) {
		t.Fatalf("hits %v", got)
	}
}

// Index is safe for concurrent use: run with -race.
func TestConcurrentSearch(t *testing.T) {
	ix := openFixture(t)
	ctx := context.Background()
	want, err := ix.Search(ctx, index.Query{Text: "the cloud of tangles"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 20 {
				got, err := ix.Search(ctx, index.Query{Text: "the cloud of tangles"})
				if err == nil && !slices.Equal(names(got), names(want)) {
					err = errors.New("concurrent search ranked differently")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestEvalHoldOutModule(t *testing.T) {
	ix := openFixture(t)
	items := []eval.BenchItem{{InformalStmt: "The cloud of the empty set of tangles is empty", Gold: []string{"ConNF.cloud"}, FullName: "ConNF.cloud_empty"}}
	// Only neighbour votes: with the sibling cloud_nonempty held out, nothing votes.
	w := &index.Weights{Neighbors: 1, RRFK: 10, Depth: 10, NeighborDocs: 5}
	open, err := eval.Retrieval(context.Background(), ix, ix, items, eval.Options{Ks: []int{10}, Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	held, err := eval.Retrieval(context.Background(), ix, ix, items, eval.Options{Ks: []int{10}, Weights: w, HoldOutModule: true})
	if err != nil {
		t.Fatal(err)
	}
	if open.AtK[0].R != 1 || held.AtK[0].R != 0 || held.Config.Protocol == "" {
		t.Errorf("open R@10 %v, held-out R@10 %v (%q)", open.AtK[0].R, held.AtK[0].R, held.Config.Protocol)
	}
}

// TestOpenRefusesPostingsOfAnotherCorpus: a postings file (bm25.dk,
// formula.dk) whose checksums are right but which was written for another
// corpus — a writer's bug, or a file copied between generations with its
// manifest entry — must not be read against this generation's table: its
// document ids would name other declarations. Open refuses it: the file
// names the generation it was written for, and behind that check the
// postings' document count must be the generation's (ErrStale either way;
// only with both checks removed is such a file read).
func TestOpenRefusesPostingsOfAnotherCorpus(t *testing.T) {
	ctx := context.Background()
	decls, infs := fixtureDecls()
	small := t.TempDir()
	ws, err := workspace.Open(small)
	if err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls[:len(decls)-2]); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs[:len(infs)-2]); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatal(err)
	}
	smallGen := genDir(t, small)
	smallMan, err := index.ReadManifest(small)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{index.PostingsName, index.FormulaName} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureWS(t)
			gen := genDir(t, dir)
			b, err := os.ReadFile(filepath.Join(smallGen, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gen, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := index.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			m.Files[name] = smallMan.Files[name]
			writeManifest(t, gen, m)
			_, err = index.Open(ctx, dir, nil)
			if !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), "written for generation") && !strings.Contains(err.Error(), "cover") {
				t.Fatalf("%s of a smaller corpus: err %v, want ErrStale naming its generation or its document count", name, err)
			}
		})
	}
}
