package jixia

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestSharedSample imports the jixia sample kept outside the repository
// (../shared/samples/extractors, jixia's own Example.lean run through it);
// machines without it skip.
func TestSharedSample(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "samples", "extractors")
	decl := filepath.Join(dir, "jixia_Example.decl.json")
	if _, err := os.Stat(decl); err != nil {
		t.Skipf("sample not on this machine: %v", err)
	}
	ws, _ := workspace.Open(t.TempDir())
	st, err := Import(context.Background(), ws, []Pair{{Decl: decl, Sym: filepath.Join(dir, "jixia_Example.sym.json"), Module: "Example"}}, Options{Library: "ex"})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	m := map[string]workspace.Declaration{}
	for _, r := range rows {
		m[r.Name] = r
	}
	if st.WarningCount != 0 || len(rows) != 29 {
		t.Fatalf("%d rows, warnings %v", len(rows), st.Warnings)
	}
	for n, k := range map[string]string{"FermatTriple": "structure", "FermatTriple.eqn": "projection", "FermatTriple.mk": "constructor",
		"Option.IsSome.of_some": "constructor", "Option.instDecidablePredIsSome": "instance", "pow'": "definition"} {
		if m[n].Kind != k {
			t.Errorf("%s: kind %q, want %q", n, m[n].Kind, k)
		}
	}
	if _, ok := m["Demo.term_≋_"]; ok {
		t.Error("a notation parser became a row")
	}
	if d := m["comp_test"].ProofDeps; !slices.Contains(d, "rcases_test") {
		t.Errorf("comp_test proof deps %v", d)
	}
	if d := m["pow'"].Docstring; d == nil || *d != "pow' x n = x ^ (n + 1)" {
		t.Errorf("pow' docstring %v", d)
	}
}
