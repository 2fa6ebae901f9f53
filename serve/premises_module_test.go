package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/proof"
	"github.com/driftkit/driftkit/workspace"
)

// newModuleSystemServer serves the fixture library as module files:
// Basic `public import`s Defs and plainly imports Helper; Defs holds a
// public theorem, a declaration private by the module system's default
// (no `private` written) and a public def whose body is not exposed.
func newModuleSystemServer(t *testing.T) *testServer {
	t.Helper()
	decls := fixtureDecls()
	for i := range decls {
		decls[i].Visibility, decls[i].Exposed = workspace.VisibilityPublic, decls[i].Kind != workspace.KindTheorem
	}
	extra := func(name, kind, module, vis string, exposed bool) workspace.Declaration {
		d := decls[4]
		d.Name, d.Kind, d.Module, d.Visibility, d.Exposed = name, kind, module, vis, exposed
		return d
	}
	decls = append(decls,
		extra("Nat.Prime.two_le_default", workspace.KindTheorem, "Mathlib.Data.Nat.Prime.Defs", workspace.VisibilityPrivate, false),
		extra("Nat.Prime.hiddenBody", workspace.KindDefinition, "Mathlib.Data.Nat.Prime.Defs", workspace.VisibilityPublic, false),
		extra("Nat.Prime.helper", workspace.KindTheorem, "Mathlib.Data.Nat.Helper", workspace.VisibilityPublic, false))
	mods := []workspace.Module{
		{Name: "Init.Prelude", IsModule: true},
		{Name: "Mathlib.Data.Nat.Prime.Defs", Imports: []string{"Init.Prelude"}, ImportKinds: []string{"public"}, IsModule: true},
		{Name: "Mathlib.Data.Nat.Helper", Imports: []string{"Init.Prelude"}, ImportKinds: []string{"public"}, IsModule: true},
		{Name: "Mathlib.Data.Nat.Prime.Basic", IsModule: true,
			Imports:     []string{"Mathlib.Data.Nat.Prime.Defs", "Mathlib.Data.Nat.Helper"},
			ImportKinds: []string{"public", ""}},
		{Name: "Mathlib.Data.Nat.ModEq", Imports: []string{"Init.Prelude"}, ImportKinds: []string{"public"}, IsModule: true},
		{Name: "Mathlib.Analysis.SpecialFunctions.Sqrt", Imports: []string{"Init.Prelude"}, ImportKinds: []string{"public"}, IsModule: true},
	}
	return serveTables(t, decls, mods)
}

// TestPremiseServerModuleSystem: what Lean's module system lets a caller
// reference. A declaration its module keeps private (module file, outside
// `public section`) is never returned but through `import all`; a public
// one is. A def whose body is not exposed is not returned to a
// module-system caller (the reference server's filter) but through `import
// all`. A plain `import` is not re-exported: a module-system caller that
// imports Basic does not load Basic's private import Helper; a caller
// outside the module system loads everything.
func TestPremiseServerModuleSystem(t *testing.T) {
	ts := newModuleSystemServer(t)
	var mods []string
	_, body := ts.do(t, "GET", "/premises/indexed-modules", "", "")
	if err := json.Unmarshal([]byte(body), &mods); err != nil {
		t.Fatal(err)
	}
	index := func(m string) int {
		i := slices.Index(mods, m)
		if i < 0 {
			t.Fatalf("%s not in /indexed-modules %v", m, mods)
		}
		return i
	}
	basic, defs := index("Mathlib.Data.Nat.Prime.Basic"), index("Mathlib.Data.Nat.Prime.Defs")
	retrieve := func(inModule bool, imported, all []int) []string {
		b := fmt.Sprintf(`{"caller_in_module_system":%v,"imported_all_modules":%s,"imported_modules":%s,"k":32,`+
			`"local_premises":[],"new_premises":[],"state":"p : ℕ\nhp : Nat.Prime p\n⊢ LE.le 2 p"}`, inModule, ints(all), ints(imported))
		return hitNamesOf(retrieveHits(t, ts, "/premises/retrieve", b))
	}
	type want struct{ has, hasNot []string }
	for _, c := range []struct {
		what          string
		inModule      bool
		imported, all []int
		want
	}{
		{"module caller, import Basic", true, []int{basic}, nil, want{
			has:    []string{"Nat.Prime.two_le", "Nat.Prime.dvd_mul"},
			hasNot: []string{"Nat.Prime.two_le_default", "Nat.Prime.hiddenBody", "Nat.Prime.helper"}}},
		{"module caller, import all Defs", true, []int{basic, defs}, []int{defs}, want{
			has:    []string{"Nat.Prime.two_le", "Nat.Prime.two_le_default", "Nat.Prime.hiddenBody"},
			hasNot: []string{"Nat.Prime.helper"}}},
		{"caller outside the module system", false, []int{basic}, []int{defs}, want{
			has:    []string{"Nat.Prime.two_le", "Nat.Prime.hiddenBody", "Nat.Prime.helper"},
			hasNot: []string{"Nat.Prime.two_le_default"}}},
	} {
		got := retrieve(c.inModule, c.imported, c.all)
		for _, n := range c.has {
			if !slices.Contains(got, n) {
				t.Errorf("%s: %v lacks %s", c.what, got, n)
			}
		}
		for _, n := range c.hasNot {
			if slices.Contains(got, n) {
				t.Errorf("%s: %v has %s", c.what, got, n)
			}
		}
	}
}

func ints(xs []int) string {
	b, _ := json.Marshal(append([]int{}, xs...))
	return string(b)
}

// TestSearchLeavesOutPrivate: the search answers (the API, LeanSearch,
// Lean Finder, LeanStateSearch) never hand out a declaration its module
// keeps private — its name cannot be written elsewhere — and keep their
// length: the private declaration ranks first for this query, the answer
// still has k public hits.
func TestSearchLeavesOutPrivate(t *testing.T) {
	ts := newModuleSystemServer(t)
	const priv = "Nat.Prime.two_le_default"
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/search?q=two_le_default+prime&all_kinds=1&k=2", ""},
		{"POST", "/search", `{"query": ["two_le_default prime"], "num_results": "2"}`},
		{"POST", "/leanfinder", `{"inputs":"two_le_default prime","top_k":2}`},
		{"GET", "/statesearch/api/search?query=" + escapeURI("hp : Nat.Prime p\n⊢ two_le_default 2 p") + "&results=8", ""},
	} {
		resp, body := ts.do(t, c.method, c.path, "application/json", c.body)
		if resp.StatusCode != 200 {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, body)
			continue
		}
		if strings.Contains(body, priv) {
			t.Errorf("%s %s answers the private %s: %s", c.method, c.path, priv, body)
		}
		if !strings.Contains(body, "Nat.Prime") {
			t.Errorf("%s %s: no public hit: %s", c.method, c.path, body)
		}
	}
	// The unfiltered engine does rank it first (the test is not vacuous).
	hits, err := ts.idx.Search(context.Background(), retrieval.Query{Text: "two_le_default prime", K: 1, Filter: retrieval.Filter{AllKinds: true}})
	if err != nil || len(hits) != 1 || hits[0].Name != priv {
		t.Fatalf("engine: %v %v", hits, err)
	}
}

// legacyDeclaration is a declarations.parquet row as extracted before the
// module-system columns (visibility, exposed).
type legacyDeclaration struct {
	Library       string   `parquet:"library,dict"`
	Revision      string   `parquet:"revision,dict"`
	Name          string   `parquet:"name"`
	Kind          string   `parquet:"kind,dict"`
	Keyword       string   `parquet:"keyword,dict"`
	Module        string   `parquet:"module,dict"`
	Path          string   `parquet:"path,dict"`
	LineStart     int32    `parquet:"line_start"`
	LineEnd       int32    `parquet:"line_end"`
	Namespace     string   `parquet:"namespace,dict"`
	Opens         []string `parquet:"opens,list"`
	Modifiers     []string `parquet:"modifiers,list"`
	Attributes    []string `parquet:"attributes,list"`
	Docstring     *string  `parquet:"docstring,optional"`
	Signature     string   `parquet:"signature"`
	Code          string   `parquet:"code"`
	StatementDeps []string `parquet:"statement_deps,list"`
	ProofDeps     []string `parquet:"proof_deps,list"`
	GeneratedFrom *string  `parquet:"generated_from,optional"`
}

// TestOldWorkspaceServes: a declarations.parquet written before the
// module-system columns opens, looks rows up, and its `private` modifier
// still marks private rows.
func TestOldWorkspaceServes(t *testing.T) {
	path := filepath.Join(t.TempDir(), workspace.DeclarationsFile)
	rows := []legacyDeclaration{{Name: "a", Kind: "theorem", Signature: ": True", Modifiers: []string{"private"}}, {Name: "b", Kind: "theorem", Signature: ": False"}}
	if err := workspace.WriteTable(path, rows); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDecls(path)
	if err != nil {
		t.Fatalf("old declarations.parquet: %v", err)
	}
	defer d.release()
	got, ok, err := d.Lookup("b")
	if err != nil || !ok || got.Signature != ": False" || got.Visibility != "" {
		t.Fatalf("Lookup(b) = %+v, %v, %v", got, ok, err)
	}
	if !d.Private("a") || d.Private("b") {
		t.Errorf("private: a %v b %v", d.Private("a"), d.Private("b"))
	}
	g, err := proof.Load(path, "")
	if err != nil {
		t.Fatalf("proof graph of an old table: %v", err)
	}
	if id, _ := g.ID("a"); !g.Private(id) {
		t.Error("proof graph: a is not private")
	}
}
