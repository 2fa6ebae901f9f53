package extract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// writeTree writes files (path → text) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatteriesNextToMathlib: a Mathlib-shaped library that imports a
// Batteries-shaped one (both written here, laid out like the real ones:
// Mathlib/ next to Mathlib.lean, Batteries/ next to Batteries.lean).
// Extracted alone, the report names Batteries as a missing package and the
// name it provides as missing_package; with `--src …/Batteries=batteries`
// the name is a row of library batteries, Mathlib's statement depends on
// it, and nothing is unresolved.
func TestBatteriesNextToMathlib(t *testing.T) {
	root := t.TempDir()
	writeTree(t, filepath.Join(root, "mathlib"), map[string]string{
		"Mathlib.lean": "import Mathlib.Data.Coprime\n",
		"Mathlib/Data/Coprime.lean": `import Batteries.Data.Nat.Gcd

namespace Nat

/-- Coprime numbers have gcd one. -/
theorem coprime_iff_gcd_eq_one' {m n : Nat} : Coprime m n ↔ gcd m n = 1 := Iff.rfl

end Nat
`})
	writeTree(t, filepath.Join(root, "batteries"), map[string]string{
		"Batteries.lean": "import Batteries.Data.Nat.Gcd\n",
		"Batteries/Data/Nat/Gcd.lean": `namespace Nat

/-- m and n are coprime when their gcd is one. -/
def Coprime (m n : Nat) : Prop := gcd m n = 1

end Nat
`})
	writeTree(t, filepath.Join(root, "proj"), map[string]string{
		"Proj/Use.lean": "import Mathlib.Data.Coprime\n\ntheorem Proj.t : zzzTypo = 0 := sorry\n",
	})
	proj := Source{Dir: filepath.Join(root, "proj"), Library: "proj", Revision: "p"}
	mathlib := Source{Dir: filepath.Join(root, "mathlib", "Mathlib"), Library: "mathlib", Revision: "m"}
	batteries := Source{Dir: filepath.Join(root, "batteries", "Batteries"), Library: "batteries", Revision: "b"}

	ws, _ := workspace.Open(t.TempDir())
	res, err := Run(context.Background(), ws, Options{Report: true, Sources: []Source{proj, mathlib}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.MissingPackages) != 1 || res.Report.MissingPackages[0].Package != "Batteries" {
		t.Fatalf("missing packages %+v", res.Report.MissingPackages)
	}
	libs := map[string]LibraryUnresolved{}
	for _, l := range res.Report.Libraries {
		libs[l.Library] = l
	}
	if l := libs["mathlib"]; l.ByClass[UnresolvedMissingPackage] != 1 || l.Unresolved != 1 {
		t.Errorf("mathlib alone: %+v", l)
	}
	// the project sees Batteries only through Mathlib: its typo is not
	// blamed on Batteries
	if l := libs["proj"]; l.ByClass[UnresolvedUnknown] != 1 || l.Unresolved != 1 {
		t.Errorf("project: %+v", l)
	}
	mods, _ := workspace.ReadTable[workspace.Module](ws.Path(workspace.ModulesFile))
	if !slices.ContainsFunc(mods, func(m workspace.Module) bool { return m.Name == "Mathlib" }) {
		t.Errorf("the root file Mathlib.lean is not a module: %+v", mods)
	}

	ws2, _ := workspace.Open(t.TempDir())
	res, err = Run(context.Background(), ws2, Options{Report: true, Sources: []Source{mathlib, batteries}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.MissingPackages) != 0 || res.Unresolved != 0 {
		t.Errorf("with batteries: missing %+v, %d unresolved", res.Report.MissingPackages, res.Unresolved)
	}
	rows, _ := workspace.ReadTable[workspace.Declaration](ws2.Path(workspace.DeclarationsFile))
	m := rowsByName(rows)
	if m["Nat.Coprime"].Library != "batteries" || m["Nat.Coprime"].Module != "Batteries.Data.Nat.Gcd" {
		t.Errorf("Nat.Coprime row %+v", m["Nat.Coprime"])
	}
	if !slices.Contains(m["Nat.coprime_iff_gcd_eq_one'"].StatementDeps, "Nat.Coprime") {
		t.Errorf("statement deps %v", m["Nat.coprime_iff_gcd_eq_one'"].StatementDeps)
	}
	cov, err := Coverage(ws2.Path(workspace.DeclarationsFile), []string{"Nat.Coprime", "Nat.gcd", "Nat.coprime_iff_gcd_eq_one'", "Int.gcd", "Nat.Coprime"})
	if err != nil {
		t.Fatal(err)
	}
	if cov.Gold != 4 || cov.Rows != 2 || cov.ByLibrary["batteries"] != 1 || !slices.Equal(cov.Core, []string{"Nat.gcd"}) ||
		!slices.Equal(cov.Absent, []string{"Int.gcd"}) {
		t.Errorf("coverage %+v", cov)
	}
}
