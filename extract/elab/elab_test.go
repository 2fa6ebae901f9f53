package elab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]struct {
		name    string
		private bool
	}{
		"Nat.add_comm":                        {"Nat.add_comm", false},
		"_private.Mathlib.Logic.Basic.0.foo":  {"foo", true},
		"_private.M.0.Nat.bar.match_1":        {"Nat.bar.match_1", true},
		"_private.Broken":                     {"_private.Broken", false},
		"_private.A.B.12.C.d":                 {"C.d", true},
		"not_private._private.X.0.y":          {"not_private._private.X.0.y", false},
		"_private.Init.Data.0._private.X.0.y": {"_private.X.0.y", true},
	} {
		n, p := Normalize(in)
		if n != want.name || p != want.private {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", in, n, p, want.name, want.private)
		}
	}
}

func TestIsAuxiliary(t *testing.T) {
	for name, want := range map[string]bool{
		"Nat.add_comm": false, "Nat.rec": true, "Nat.brecOn.go": true, "Foo.match_1": true, "Foo.proof_12": true,
		"Foo.bar.eq_1": true, "Foo.bar.eq_def": true, "Foo._sizeOf_1": true, "_aux_Mathlib_x": true,
		"x._@.M._hyg.3": true, "Foo.mk.injEq": true, "List.map.induct": true, "FermatTriple.eqn": false,
		"Demo.MyType.val": false, "eq_comm": false, "rec": false, "Nat.recAux": false, "Set.proof_irrel": false,
		"Foo.noConfusion": true, "Foo.casesOn": true, "": true, "Foo.eq_zero": false, "Nat.below_succ": false,
	} {
		if got := IsAuxiliary(name); got != want {
			t.Errorf("IsAuxiliary(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsInstanceName(t *testing.T) {
	for name, want := range map[string]bool{
		"instAddNat": true, "Foo.instBEqFoo": true, "Nat.instCommSemiring": true, "instance_foo": false,
		"inst": false, "Real.field": false, "installer": false, "Foo.instα": true,
	} {
		if got := IsInstanceName(name); got != want {
			t.Errorf("IsInstanceName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRecordError(t *testing.T) {
	err := fmt.Errorf("import: %w", Errorf("x.ndjson", 7, -1, "bad %s", "thing"))
	var re *RecordError
	if !errors.As(err, &re) || re.Line != 7 || !errors.Is(err, ErrFormat) || err.Error() != "import: x.ndjson:7: malformed export record: bad thing" {
		t.Fatalf("%v", err)
	}
	if e := Errorf("a.json", 1, 3, "x").Error(); e != "a.json:1: record 3: malformed export record: x" {
		t.Errorf("%q", e)
	}
}

// TestSink: one row per name, nil lists become empty, both tables and the
// manifest entry appear on Commit, and Abort leaves the previous tables.
func TestSink(t *testing.T) {
	ws, _ := workspace.Open(t.TempDir())
	s, err := NewSink(ws, "import jixia", false, map[string]any{"x": 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "a"} {
		if err := s.Add(workspace.Declaration{Name: n, Kind: "theorem", StatementDeps: []string{"c"}}); err != nil {
			t.Fatal(err)
		}
	}
	s.AddModule(workspace.Module{Name: "M"})
	if !s.Has("a") || s.Has("c") || s.Duplicates() != 1 {
		t.Fatalf("has/dups wrong: %d", s.Duplicates())
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil || len(rows) != 2 || rows[0].ProofDeps == nil || rows[0].Opens == nil {
		t.Fatalf("rows %+v %v", rows, err)
	}
	man, _ := ws.ReadManifest()
	run := man.LastRun("import jixia")
	if run == nil || run.RowCounts["declarations"] != 2 || run.RowCounts["duplicate_names_dropped"] != 1 || len(run.Outputs) != 2 {
		t.Fatalf("manifest %+v", run)
	}
	before, _ := os.ReadFile(ws.Path(workspace.DeclarationsFile))
	s2, err := NewSink(ws, "import jixia", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2.Add(workspace.Declaration{Name: "z"})
	s2.Abort()
	after, _ := os.ReadFile(ws.Path(workspace.DeclarationsFile))
	if string(before) != string(after) {
		t.Error("Abort replaced the table")
	}
	// a cancelled commit aborts too
	s3, _ := NewSink(ws, "import jixia", false, nil)
	s3.Add(workspace.Declaration{Name: "z"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s3.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("commit after cancel: %v", err)
	}
	after, _ = os.ReadFile(ws.Path(workspace.DeclarationsFile))
	if string(before) != string(after) {
		t.Error("a cancelled commit replaced the table")
	}
	// a table edited by hand is not replaced without force
	os.WriteFile(ws.Path(workspace.ModulesFile), []byte("hand-made"), 0o644)
	if _, err := NewSink(ws, "import jixia", false, nil); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("err %v, want ErrForeignOutput", err)
	}
}

// TestSinkDropsStaleNotations: an import of elaborated output (jixia,
// lean4export) replaces the declarations, so an earlier extract's notation
// table goes in the same commit.
func TestSinkDropsStaleNotations(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := ws.StartRun("extract", nil)
	tx := ws.Begin("extract")
	if err := workspace.WriteStagedTable(tx, workspace.NotationsFile, []workspace.Notation{{Symbol: "ℝ≥0∞"}}); err != nil {
		t.Fatal(err)
	}
	tx.Output(workspace.NotationsFile, 1)
	if err := tx.Commit(run); err != nil {
		t.Fatal(err)
	}
	s, err := NewSink(ws, "import jixia", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add(workspace.Declaration{Name: "Foo.bar", Kind: workspace.KindTheorem}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ws.Has(workspace.NotationsFile) {
		t.Error("import left the earlier extract's notations.parquet")
	}
}
