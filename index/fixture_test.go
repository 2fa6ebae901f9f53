package index_test

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

func str(s string) *string { return &s }

// fixtureDecls is a tiny ConNF-like library: premises (definitions, classes)
// and theorems whose statements use them.
func fixtureDecls() ([]workspace.Declaration, []workspace.Informal) {
	d := func(name, kind, sig string, deps ...string) workspace.Declaration {
		return workspace.Declaration{Library: "test", Name: name, Kind: kind, Module: "ConNF.Basic", Signature: sig, StatementDeps: deps}
	}
	decls := []workspace.Declaration{
		d("ConNF.Params", "class", ": Type (u + 1)"),
		d("ConNF.Litter", "structure", "[ConNF.Params] : Type u", "ConNF.Params"),
		d("ConNF.NearLitter", "definition", "[ConNF.Params] : Type u", "ConNF.Params"),
		d("ConNF.litterSet", "definition", "[ConNF.Params] (L : ConNF.Litter) : Set ConNF.Atom", "ConNF.Params", "ConNF.Litter"),
		d("ConNF.Litter.toNearLitter", "definition", "[ConNF.Params] (L : ConNF.Litter) : ConNF.NearLitter", "ConNF.Params", "ConNF.Litter", "ConNF.NearLitter"),
		d("ConNF.cloud", "definition", "[ConNF.Params] (s : Set Tangle) : Set ConNF.NearLitter", "ConNF.Params", "ConNF.NearLitter"),
		d("Nat", "inductive", ": Type"),
		d("instNatAdd", "instance", ": Add Nat", "Nat"),
		d("ConNF.cloud_empty", "theorem", "[ConNF.Params] : ConNF.cloud ∅ = ∅", "ConNF.Params", "ConNF.cloud"),
		d("ConNF.cloud_nonempty", "theorem", "[ConNF.Params] (h : s.Nonempty) : (ConNF.cloud s).Nonempty", "ConNF.Params", "ConNF.cloud"),
		d("ConNF.toNearLitter_near", "theorem", "[ConNF.Params] (L : ConNF.Litter) : L.toNearLitter ≈ ConNF.litterSet L", "ConNF.Params", "ConNF.Litter.toNearLitter", "ConNF.litterSet"),
		d("ConNF.toNearLitter_fst", "theorem", "[ConNF.Params] (L : ConNF.Litter) : L.toNearLitter.1 = L", "ConNF.Params", "ConNF.Litter.toNearLitter", "ConNF.Litter"),
	}
	decls[6].Docstring = str("The natural numbers.")
	inf := func(name, text string) workspace.Informal {
		return workspace.Informal{Name: name, InformalName: "", InformalStatement: text, Provider: "rauto"}
	}
	infs := []workspace.Informal{
		inf("ConNF.Params", "The parameters of the model: cardinals Λ and κ."),
		inf("ConNF.Litter", "A litter is a set of atoms indexed by an extended index."),
		inf("ConNF.NearLitter", "A near-litter is a set near some litter set."),
		inf("ConNF.litterSet", "The litter set of a litter: the atoms whose first component is the litter."),
		inf("ConNF.Litter.toNearLitter", "Turns a litter into the near-litter whose set is its litter set."),
		inf("ConNF.cloud", "The cloud map sends a set of tangles to all typed near-litters near the fuzzed tangles."),
		inf("ConNF.cloud_empty", "The cloud of the empty set of tangles is empty, where `ConNF.cloud` maps tangles to near-litters."),
		inf("ConNF.cloud_nonempty", "The cloud of a nonempty set of tangles is nonempty."),
		inf("ConNF.toNearLitter_near", "A near litter of a litter is near the litter set."),
		inf("ConNF.toNearLitter_fst", "The litter of the near-litter of a litter is that litter."),
	}
	return decls, infs
}

// fixtureWS writes the fixture workspace and builds its hash index.
func fixtureWS(t testing.TB) string {
	t.Helper()
	return fixtureWSWith(t, index.BuildOptions{HashDim: 64})
}

// fixtureWSWith is fixtureWS with other build options (the bleve index).
func fixtureWSWith(t testing.TB, o index.BuildOptions) string {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	decls, infs := fixtureDecls()
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

func openFixture(t testing.TB) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), fixtureWS(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}
