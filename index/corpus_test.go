package index_test

import (
	"context"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// The index is the corpus its hits come from: Lookup gives what a consumer
// shows or puts in a prompt, UsedBy the usage graph.
func TestIndexIsCorpus(t *testing.T) {
	ix := openFixture(t)
	var c retrieval.Corpus = ix
	if c.Len() != 12 {
		t.Errorf("Len %d, want 12", c.Len())
	}
	e, ok := c.Lookup("ConNF.litterSet")
	want := retrieval.Entry{Name: "ConNF.litterSet", Kind: "definition", Module: "ConNF.Basic", Library: "test",
		Signature: "[ConNF.Params] (L : ConNF.Litter) : Set ConNF.Atom", InformalStatement: "The litter set of a litter: the atoms whose first component is the litter.",
		InformalSource: "rauto", StatementDeps: []string{"ConNF.Params", "ConNF.Litter"}}
	if !ok || e.Name != want.Name || e.Kind != want.Kind || e.Module != want.Module || e.Library != want.Library || e.Signature != want.Signature ||
		e.InformalName != want.InformalName || e.InformalStatement != want.InformalStatement || e.InformalSource != want.InformalSource ||
		!slices.Equal(e.StatementDeps, want.StatementDeps) {
		t.Errorf("Lookup:\n got %+v\nwant %+v", e, want)
	}
	// A declaration without an informal row falls back to its docstring.
	if e, ok := c.Lookup("Nat"); !ok || e.InformalStatement != "The natural numbers." || e.InformalSource != "docstring" {
		t.Errorf("Lookup(Nat) = %+v", e)
	}
	if _, ok := c.Lookup("ConNF.nothing"); ok {
		t.Error("unknown name found")
	}
	if got := c.UsedBy("ConNF.cloud"); !slices.Equal(got, []string{"ConNF.cloud_empty", "ConNF.cloud_nonempty"}) {
		t.Errorf("UsedBy(cloud) = %v", got)
	}
	if got := c.UsedBy("ConNF.cloud_empty"); len(got) != 0 {
		t.Errorf("UsedBy of an unused theorem = %v", got)
	}
}

// twoLibraryWS is a workspace whose premises come from two libraries with the
// same words in them.
func twoLibraryWS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := func(lib, name, kind, sig string, deps ...string) workspace.Declaration {
		return workspace.Declaration{Library: lib, Name: name, Kind: kind, Module: lib + ".Basic", Signature: sig, StatementDeps: deps}
	}
	decls := []workspace.Declaration{
		d("mathlib", "Set.cloud", "definition", "(s : Set α) : Set α"),
		d("mathlib", "Set.cloud_empty", "theorem", ": Set.cloud ∅ = ∅", "Set.cloud"),
		d("con-nf", "ConNF.cloud", "definition", "(s : Set Tangle) : Set NearLitter"),
		d("con-nf", "ConNF.cloud_empty", "theorem", ": ConNF.cloud ∅ = ∅", "ConNF.cloud"),
		d("con-nf", "ConNF.fuzz", "definition", "(t : Tangle) : Litter"),
	}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFilterLibrary(t *testing.T) {
	ix, err := index.Open(context.Background(), twoLibraryWS(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, m := range []index.Mode{index.ModeDense, index.ModeBM25, index.ModeHybrid, index.ModeBest} {
		for _, lib := range []string{"mathlib", "con-nf"} {
			hits, err := ix.Search(context.Background(), index.Query{Text: "the cloud of the empty set", Mode: m, K: 10,
				Filter: retrieval.Filter{Library: lib, AllKinds: true}})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Errorf("%s, library %s: no hits", m, lib)
			}
			for _, h := range hits {
				if e, _ := ix.Lookup(h.Name); e.Library != lib {
					t.Errorf("%s, library %s: %s of library %s returned", m, lib, h.Name, e.Library)
				}
			}
		}
		all, err := ix.Search(context.Background(), index.Query{Text: "the cloud of the empty set", Mode: m, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names(all), "Set.cloud") || !slices.Contains(names(all), "ConNF.cloud") {
			t.Errorf("%s without a library filter: %v, want both clouds", m, names(all))
		}
	}
	// Votes go only to the library's premises (Set.cloud_empty votes for Set.cloud, which is filtered out).
	hits, err := ix.Search(context.Background(), index.Query{Text: "the cloud of the empty set", K: 10,
		Weights: &index.Weights{Neighbors: 1, RRFK: 10, Depth: 10, NeighborDocs: 5}, Filter: retrieval.Filter{Library: "con-nf"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(hits), []string{"ConNF.cloud"}) {
		t.Errorf("neighbour votes within con-nf: %v", names(hits))
	}
}
