package extract

import (
	"slices"
	"testing"
)

// TestPrivateRowsAcrossModules: a reference resolves to another module's
// private declaration only when that module is imported with `import all`
// (Lean forbids it otherwise: the name is mangled); a private row renamed
// to _private.<module>.0.<name> is referred to under that name from the
// modules that `import all` it as well as from its own.
func TestPrivateRowsAcrossModules(t *testing.T) {
	_, rows := extractLib(t, map[string]string{
		"Lib/A.lean": "module\npublic section\nprivate def helper : Nat := 1\nprivate def dup : Nat := 2\ndef insert : Nat := 3\nend\n",
		"Lib/D.lean": "module\npublic section\nprivate def dup : Nat := 4\nend\n",
		"Lib/B.lean": "module\npublic import Lib.A\npublic section\ndef usesB : Nat := helper + insert\nend\n",
		"Lib/C.lean": "module\npublic import Lib.D\nimport all Lib.A\npublic section\ndef usesC : Nat := helper + dup\nend\n",
	}, Source{Library: "Lib", Revision: "r", LeanVersion: "4.29.0"})
	m := rowsByName(rows)
	if b := m["usesB"]; slices.Contains(b.ProofDeps, "helper") || !slices.Contains(b.ProofDeps, "insert") {
		t.Errorf("usesB deps %v: want insert, not Lib.A's private helper", b.ProofDeps)
	}
	c := m["usesC"]
	if !slices.Contains(c.ProofDeps, "helper") || !slices.Contains(c.ProofDeps, "_private.Lib.A.0.dup") {
		t.Errorf("usesC deps %v: want helper and _private.Lib.A.0.dup (import all Lib.A)", c.ProofDeps)
	}
}
