package workspace

import (
	"slices"
	"testing"
)

func TestRender(t *testing.T) {
	doc := "Doc text."
	d := &Declaration{Library: "lib", Kind: "definition", Name: "Foo.bar", Module: "Foo", Signature: "(n : Nat)\n   : Nat", Docstring: &doc,
		StatementDeps: []string{"Nat"}}
	tests := []struct {
		name     string
		inf      *Informal
		want     string
		src      string
		infName  string
		infStmt  string
		wantDeps []string
	}{
		{"informal", &Informal{InformalName: " Bar ", InformalStatement: "The bar of n. ", Provider: "template"}, "definition Foo.bar (n : Nat) : Nat\nBar: The bar of n.", "template", "Bar", "The bar of n.", []string{"Nat"}},
		{"no informal name", &Informal{InformalStatement: "The bar.", Provider: "rauto"}, "definition Foo.bar (n : Nat) : Nat\nThe bar.", "rauto", "", "The bar.", []string{"Nat"}},
		{"docstring fallback", nil, "definition Foo.bar (n : Nat) : Nat\nDoc text.", "docstring", "", "Doc text.", []string{"Nat"}},
		{"blank informal falls back to the docstring", &Informal{InformalName: "X", InformalStatement: "  ", Provider: "template"}, "definition Foo.bar (n : Nat) : Nat\nDoc text.", "docstring", "", "Doc text.", []string{"Nat"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, src := Render(d, tc.inf)
			if got != tc.want || src != tc.src {
				t.Errorf("got %q (%s), want %q (%s)", got, src, tc.want, tc.src)
			}
			doc := RenderDocument(d, tc.inf)
			if doc.Text != tc.want || doc.InformalSource != tc.src || doc.InformalName != tc.infName || doc.InformalStatement != tc.infStmt ||
				doc.Signature != d.Signature || doc.Library != "lib" || doc.Module != "Foo" || !slices.Equal(doc.Deps, tc.wantDeps) {
				t.Errorf("document %+v", doc)
			}
		})
	}
	bare := &Declaration{Kind: "axiom", Name: "A"}
	if got, src := Render(bare, nil); got != "axiom A" || src != "" {
		t.Errorf("bare: %q %q", got, src)
	}
}

func TestLoadDocuments(t *testing.T) {
	ws, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDocuments(ws); err == nil {
		t.Fatal("no declarations: want an error")
	}
	doc := "The docstring."
	decls := []Declaration{
		{Library: "a", Name: "X", Kind: "definition", Module: "M", Signature: ": Nat", StatementDeps: []string{"Nat"}},
		{Library: "a", Name: "", Kind: "definition"},
		{Library: "b", Name: "Y", Kind: "theorem", Module: "N", Signature: ": X = X", Docstring: &doc, StatementDeps: []string{"X", "Eq"}},
		{Library: "b", Name: "X", Kind: "theorem", Module: "N"},
	}
	if err := WriteTable(ws.Path(DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(ws.Path(InformalFile), []Informal{{Name: "X", InformalName: "Ex", InformalStatement: "An x.", Provider: "rauto"}}); err != nil {
		t.Fatal(err)
	}
	docs, err := LoadDocuments(ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []Document{
		{Name: "X", Kind: "definition", Module: "M", Library: "a", Text: "definition X : Nat\nEx: An x.", Signature: ": Nat", InformalName: "Ex", InformalStatement: "An x.", InformalSource: "rauto", Deps: []string{"Nat"}},
		{Name: "Y", Kind: "theorem", Module: "N", Library: "b", Text: "theorem Y : X = X\nThe docstring.", Signature: ": X = X", InformalStatement: "The docstring.", InformalSource: "docstring", Deps: []string{"X", "Eq"}},
	}
	if len(docs) != len(want) {
		t.Fatalf("%d documents, want %d: %+v", len(docs), len(want), docs)
	}
	for i := range want {
		g, w := docs[i], want[i]
		if g.Name != w.Name || g.Kind != w.Kind || g.Module != w.Module || g.Library != w.Library || g.Text != w.Text || g.Signature != w.Signature ||
			g.InformalName != w.InformalName || g.InformalStatement != w.InformalStatement || g.InformalSource != w.InformalSource || !slices.Equal(g.Deps, w.Deps) {
			t.Errorf("document %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestProofUses(t *testing.T) {
	ws, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ProofUses(ws); err == nil {
		t.Fatal("no declarations: want an error")
	}
	decls := []Declaration{
		{Name: "A", Kind: "theorem", ProofDeps: []string{"L", "M", "L"}}, // L twice in one proof: once
		{Name: "B", Kind: "theorem", ProofDeps: []string{"L"}},
		{Name: "A", Kind: "theorem", ProofDeps: []string{"M"}}, // a repeated declaration: its first row only
		{Name: "", Kind: "theorem", ProofDeps: []string{"M"}},
		{Name: "C", Kind: "definition"},
	}
	if err := WriteTable(ws.Path(DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	got, err := ProofUses(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["L"] != 2 || got["M"] != 1 {
		t.Errorf("ProofUses = %v, want L 2, M 1", got)
	}
}
