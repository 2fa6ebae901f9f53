package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// TestNotationsIndexed: index reads the workspace's notation table into
// the table (the manifest says how many symbols) and theorem search reads
// a query's notation through it; a table written before the notations
// group existed opens with none.
func TestNotationsIndexed(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := func(name, kind string) workspace.Declaration {
		return workspace.Declaration{Library: "test", Name: name, Kind: kind, Module: "M", Signature: ": Prop"}
	}
	decls := []workspace.Declaration{d("Set.image", "definition"), d("Set.mem_image", "theorem"), d("Set.mem_union", "theorem"), d("Nat.succ_le", "theorem")}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	notes := []workspace.Notation{{Symbol: "''", Heads: []string{"Set.image"}, Kind: "infix"}, {Symbol: "σ", Heads: []string{"x"}, Kind: "notation", Scope: "local"}}
	if err := workspace.WriteTable(ws.Path(workspace.NotationsFile), notes); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, ws, BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(ctx, ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n := ix.Manifest().Notations; n != 1 {
		t.Errorf("manifest notations = %d, want 1 ('' kept, the local σ dropped)", n)
	}
	w := retrieval.TheoremWeights()
	w.Notation, w.Rerank = 1, false
	hits, err := ix.Search(ctx, retrieval.Query{Text: "x ∈ f '' s", Mode: ModeBest, Profile: retrieval.ProfileTheorem, Filter: retrieval.Filter{AllKinds: true}, Weights: &w, K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "Set.mem_image" && hits[0].Name != "Set.image" || hits[0].Signals["notation"]+hits[0].Signals["name"] == 0 {
		t.Errorf("hits %+v: want Set.image or Set.mem_image first, found through the notation", hits)
	}

	// The same table without the notation sections (an index built
	// before them) opens, and finds no notation.
	g, release := ix.Pin()
	defer release()
	f, err := openFlat(g.Dir(), TableName, g.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c retrieval.TableColumns
	for _, grp := range []string{retrieval.GroupCore, retrieval.GroupEntries, retrieval.GroupUsage, retrieval.GroupNames} {
		if err := loadColumns(f, grp, &c); err != nil {
			t.Fatal(err)
		}
	}
	old := filepath.Join(t.TempDir(), TableName)
	err = writeFlat(old, "gen", func(w *flat.Writer) {
		for _, col := range c.Columns() {
			if col.Group == retrieval.GroupNotations {
				continue
			}
			writeColumn(w, col)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	of, err := openFlat(filepath.Dir(old), TableName, "gen")
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	if slices.Contains(of.Sections(), "notation_symbols.off") {
		t.Fatal("the old table has notation sections")
	}
	tb, err := openTable(of)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.NotationHeads("x ∈ f '' s"); got != nil || tb.Err() != nil {
		t.Errorf("old table: notation heads %q, err %v", got, tb.Err())
	}
	if got := g.Table().NotationHeads("x ∈ f '' s"); !slices.Equal(got, []string{"Set.image"}) {
		t.Errorf("new table: notation heads %q", got)
	}
}
