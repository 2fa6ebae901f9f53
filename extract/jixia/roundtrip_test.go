package jixia

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

var driftlib = filepath.Join("..", "..", "testdata", "lean")

func driftlibRows(t testing.TB) []workspace.Declaration {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extract.Run(context.Background(), ws, extract.Options{Sources: []extract.Source{{Dir: driftlib, Library: "driftlib", Revision: "t"}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func importTo(dir string, pairs []Pair) (*Stats, error) {
	ws, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	return Import(context.Background(), ws, pairs, Options{Library: "driftlib", Revision: "t"})
}

func importPairs(t *testing.T, pairs []Pair, src string) (*Stats, map[string]workspace.Declaration, []workspace.Module) {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(context.Background(), ws, pairs, Options{Library: "driftlib", Revision: "t", Src: src})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := workspace.ReadTable[workspace.Module](ws.Path(workspace.ModulesFile))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]workspace.Declaration{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return st, m, mods
}

func clean(deps []string, self string) []string {
	out := []string{}
	for _, d := range deps {
		if d != self && !elab.IsAuxiliary(d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// TestRoundTrip writes the bundled library's rows as jixia output (byte
// ranges into the real sources, auxiliary matchers to inline) and checks
// that the importer, given the sources, gives back every row: name, kind,
// dependencies, and for declarations as written their lines, code,
// signature and docstring.
func TestRoundTrip(t *testing.T) {
	rows := driftlibRows(t)
	mods, err := elabtest.WriteJixia(t.TempDir(), driftlib, rows, true)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []Pair
	for _, m := range mods {
		pairs = append(pairs, Pair{Decl: m.Decl, Sym: m.Sym, Module: ModuleFromFile(m.Decl, "")})
	}
	st, got, modules := importPairs(t, pairs, driftlib)
	if st.WarningCount != 0 {
		t.Fatalf("warnings: %v", st.Warnings)
	}
	if st.Auxiliary == 0 || st.Generated == 0 || st.Written == 0 {
		t.Fatalf("stats %+v: the fixture must exercise written, generated and auxiliary constants", st)
	}
	if len(modules) != len(mods) || modules[0].Path == "" || len(modules[0].Imports) == 0 && len(modules[1].Imports) == 0 {
		t.Errorf("modules %+v", modules)
	}
	n := 0
	for i := range rows {
		want := &rows[i]
		if elab.IsAuxiliary(want.Name) {
			continue
		}
		n++
		g, ok := got[want.Name]
		if !ok {
			t.Errorf("%s (%s) missing", want.Name, want.Kind)
			continue
		}
		if g.Kind != want.Kind {
			t.Errorf("%s: kind %s, want %s", want.Name, g.Kind, want.Kind)
		}
		if w := clean(want.StatementDeps, want.Name); !slices.Equal(g.StatementDeps, w) {
			t.Errorf("%s: statement deps\n got %v\nwant %v", want.Name, g.StatementDeps, w)
		}
		if want.Kind != workspace.KindProjection {
			if w := clean(want.ProofDeps, want.Name); !slices.Equal(g.ProofDeps, w) {
				t.Errorf("%s: proof deps\n got %v\nwant %v", want.Name, g.ProofDeps, w)
			}
		}
		if g.Module != want.Module || g.Path != want.Path {
			t.Errorf("%s: module %s %s, want %s %s", want.Name, g.Module, g.Path, want.Module, want.Path)
		}
		if want.GeneratedFrom != nil {
			continue
		}
		if g.LineStart != want.LineStart || g.LineEnd != want.LineEnd {
			t.Errorf("%s: lines %d-%d, want %d-%d", want.Name, g.LineStart, g.LineEnd, want.LineStart, want.LineEnd)
		}
		if g.Code != want.Code {
			t.Errorf("%s: code\n got %q\nwant %q", want.Name, g.Code, want.Code)
		}
		if g.Signature != want.Signature {
			t.Errorf("%s: signature %q, want %q", want.Name, g.Signature, want.Signature)
		}
		if (g.Docstring == nil) != (want.Docstring == nil) || g.Docstring != nil && *g.Docstring != *want.Docstring {
			t.Errorf("%s: docstring %v, want %v", want.Name, g.Docstring, want.Docstring)
		}
		if g.Namespace != want.Namespace || !slices.Equal(g.Attributes, want.Attributes) || !slices.Equal(g.Modifiers, want.Modifiers) {
			t.Errorf("%s: namespace %q attrs %v mods %v, want %q %v %v", want.Name, g.Namespace, g.Attributes, g.Modifiers,
				want.Namespace, want.Attributes, want.Modifiers)
		}
	}
	t.Logf("%d rows compared; %+v", n, *st)
	if len(got) != n {
		t.Errorf("%d rows imported, want %d", len(got), n)
	}
}
