package serve

import (
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestDeclsLookupEitherSpelling: a name is found however a keyword
// component is spelt (Foo.structure, Foo.«structure»), in a table written
// in Lean's Name.toString form and in an older one with «».
func TestDeclsLookupEitherSpelling(t *testing.T) {
	for _, stored := range []string{"FirstOrder.Ultraproduct.structure", "FirstOrder.Ultraproduct.«structure»"} {
		path := filepath.Join(t.TempDir(), workspace.DeclarationsFile)
		rows := []workspace.Declaration{{Name: stored, Kind: "definition"}, {Name: "Demo.«term_≋_»", Kind: "definition"}}
		if err := workspace.WriteTable(path, rows); err != nil {
			t.Fatal(err)
		}
		d, err := OpenDecls(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"FirstOrder.Ultraproduct.structure", "FirstOrder.Ultraproduct.«structure»", "Demo.«term_≋_»"} {
			r, ok, err := d.Lookup(q)
			if err != nil || !ok {
				t.Errorf("stored %s: Lookup(%s) = %v, %v", stored, q, ok, err)
				continue
			}
			if q != "Demo.«term_≋_»" && r.Name != stored {
				t.Errorf("Lookup(%s) = %s", q, r.Name)
			}
		}
		if _, ok, _ := d.Lookup("FirstOrder.Ultraproduct.fun"); ok {
			t.Error("an unknown name was found")
		}
	}
}
