package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestPorting extracts testdata/porting, a library written for these tests
// with one declaration per thing the reader misread on PFR (tactic names,
// word-led notation, set-builder and pattern binders, rcases alternatives,
// this.field, u_1 universes, relative opens, instance names, to_additive
// order words), and checks the rows and the unresolved report against
// testdata/golden/porting*.golden (go test -run TestPorting -update).
func TestPorting(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), ws, Options{Report: true,
		Sources: []Source{{Dir: filepath.Join("testdata", "porting"), Library: "porting", Revision: "golden"}}})
	if err != nil {
		t.Fatal(err)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	m := rowsByName(decls)
	has := func(l []string, n string) bool { return slices.Contains(l, n) }
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"Ent[f] resolves to entropy", has(m["Porting.ent_zero"].StatementDeps, "Porting.entropy")},
		{"set-builder x is a binder, not Porting.x", !has(m["Porting.set_builder"].StatementDeps, "Porting.x")},
		{"subtype binder", !has(m["Porting.subtype_binder"].StatementDeps, "Porting.x")},
		{"rfl term is a dependency", has(m["Porting.rfl_used"].ProofDeps, "rfl")},
		{"rfl pattern is not", !has(m["Porting.obtain_patterns"].ProofDeps, "rfl")},
		{"fun n => h n inside a tactic keeps no tactic", len(m["Porting.tac_fun_arrow"].ProofDeps) == 0},
		{"open Porting Measure opens Porting.Measure", has(m["Porting.relative_open"].ProofDeps, "Porting.Measure.map_apply'")},
		{"× in instance names", m["Porting.instFiniteishProd"].Kind == workspace.KindInstance},
		{"∘ in instance names (Function.comp visits its implicit type Nat)", m["Porting.instNiceCompNat"].Kind == workspace.KindInstance},
		{"to_additive: mabs_of_lt_one → abs_of_neg", m["Porting.abs_of_neg"].GeneratedFrom != nil},
		{"the twin is used", has(m["Porting.neg_twin_used"].ProofDeps, "Porting.abs_of_neg")},
		{"a field's own binders are locals", !has(m["Porting.Uniformish.eq_of_mem"].StatementDeps, "Porting.x")},
		{"… in the structure's row too", !has(m["Porting.Uniformish"].StatementDeps, "Porting.x")},
		{"Cyc(n) resolves to its notation", has(m["Porting.cyc_notation"].StatementDeps, "Porting.Cyclic")},
		{"→SL[σ] resolves, SL is not a name", has(m["Porting.semilinear_notation"].StatementDeps, "Porting.SemilinearMap'")},
	} {
		if !c.ok {
			t.Errorf("%s", c.what)
		}
	}
	rep := res.Report
	if rep == nil || len(rep.Libraries) != 1 {
		t.Fatalf("report %+v", rep)
	}
	lib := rep.Libraries[0]
	byName := map[string]IdentifierCount{}
	for _, mod := range rep.Modules {
		for _, id := range mod.Identifiers {
			byName[id.Name] = id
		}
	}
	for name, class := range map[string]string{"frobnicate": UnresolvedMissingPackage, "qwzzyx": UnresolvedUnknown,
		"MYMOD": UnresolvedSyntax} {
		if got := byName[name]; got.Class != class {
			t.Errorf("%s: class %q, want %q (%+v)", name, got.Class, class, got)
		}
	}
	if p := byName["frobnicate"].Package; p != "Missing" {
		t.Errorf("frobnicate attributed to %q", p)
	}
	if len(rep.MissingPackages) != 1 || rep.MissingPackages[0].Package != "Missing" || rep.MissingPackages[0].ImportedBy != 1 {
		t.Errorf("missing packages %+v", rep.MissingPackages)
	}
	// no tactic name, pattern or field is left unresolved
	for _, mod := range rep.Modules {
		for _, id := range mod.Identifiers {
			switch id.Name {
			case "frobnicate", "qwzzyx", "MYMOD":
			default:
				t.Errorf("unexpected unresolved %+v", id)
			}
		}
	}
	if lib.Unresolved != int64(res.Unresolved) {
		t.Errorf("report counts %d, extract counted %d", lib.Unresolved, res.Unresolved)
	}

	var rows strings.Builder
	for _, d := range decls {
		j, _ := json.Marshal(d)
		rows.Write(j)
		rows.WriteByte('\n')
	}
	var report bytes.Buffer
	if err := rep.WriteJSON(&report); err != nil {
		t.Fatal(err)
	}
	var summary bytes.Buffer
	rep.WriteSummary(&summary, 10, 25)
	for name, got := range map[string]string{"porting.golden": rows.String(), "porting_unresolved.golden": report.String(),
		"porting_summary.golden": summary.String()} {
		golden := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if string(want) != got {
			t.Errorf("%s differs (run with -update and review the diff)", golden)
		}
	}
}

// TestClassifyUnresolved: the classes of identifiers the reader could not
// resolve, decided from the declaration's text and the missing packages.
func TestClassifyUnresolved(t *testing.T) {
	for _, c := range []struct {
		name, code string
		missing    []string
		class, pkg string
	}{
		{"hx", "theorem t : p := by\n  obtain ⟨x, hx⟩ := h\n  exact hx", nil, UnresolvedBinder, ""},
		{"y", "theorem t : ∑ y ∈ s, f y = 0 := sorry", []string{"Batteries"}, UnresolvedBinder, ""},
		{"q", "theorem t : (fun q ↦ q) = id := rfl", nil, UnresolvedBinder, ""},
		{"hab'", "theorem t : p := foo hab'", []string{"Batteries"}, UnresolvedBinder, ""}, // hypothesis name
		{"happy", "theorem t : happy = 1 := rfl", nil, UnresolvedUnknown, ""},
		{"and_congr_right", "theorem t : p := and_congr_right fun _ => h", nil, UnresolvedUnknown, ""},
		{"ring_nf", "theorem t : p := by\n  ring_nf", nil, UnresolvedUnknown, ""},
		{"simp", "theorem t : p := by\n  (simp)", nil, UnresolvedSyntax, ""},
		{"ZMOD", "theorem t : a ≡ b [ZMOD n] := sorry", []string{"Std"}, UnresolvedSyntax, ""},
		{"List.foo", "theorem t : List.foo = 1 := rfl", []string{"Batteries", "Aesop"}, UnresolvedMissingPackage, "Batteries,Aesop"},
		{"frob", "theorem t : frob = 1 := rfl", nil, UnresolvedUnknown, ""},
	} {
		d := &pdecl{}
		d.row.Code = c.code
		class, pkg := classifyUnresolved(unresolvedUse{name: c.name, decl: d}, c.missing)
		if class != c.class || pkg != c.pkg {
			t.Errorf("%s in %q: %s %q, want %s %q", c.name, c.code, class, pkg, c.class, c.pkg)
		}
	}
}
