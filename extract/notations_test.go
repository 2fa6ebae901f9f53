package extract

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestNotationTable: extract writes every notation of the library with its
// head constants resolved where the notation is declared, its atoms, scope
// and place; ReadNotations and NotationHeads read it back.
func TestNotationTable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "Lib", "A.lean"), `namespace Num
def ENNReal := Nat
def Modeq (n a b : Nat) : Prop := a = b
def hvadd (a b : Nat) : Nat := a
end Num
namespace Num
scoped[Num] notation "ℝ≥0∞" => ENNReal
notation:50 a " ≡ " b " [MYMOD " n "]" => Modeq n a b
infixl:65 " +ᵥ " => hvadd
local postfix:max "⁺" => fun x => ENNReal
end Num
def AddAlg (R M : Type) : Type := R
syntax:max term noWs "[" term "]" : term
macro_rules | `+"`"+`($R[$M]) => `+"`"+`(AddAlg $R $M)
`)
	ws, err := workspace.Open(filepath.Join(dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNotations(ws); !errors.As(err, new(*workspace.MissingError)) {
		t.Fatalf("before extract: %v, want a MissingError", err)
	}
	if _, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: filepath.Join(dir, "src"), Library: "lib", Revision: "r"}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadNotations(ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]workspace.Notation{}
	for _, r := range rows {
		got[r.Symbol] = r
	}
	for _, w := range []workspace.Notation{
		{Symbol: "ℝ≥0∞", Kind: "notation", Heads: []string{"Num.ENNReal"}, Scope: "scoped", Namespace: "Num", Line: 7, Atoms: []string{"ℝ≥0∞"}},
		{Symbol: "≡", Kind: "notation", Heads: []string{"Num.Modeq"}, Line: 8, Atoms: []string{"≡", "[MYMOD", "]"}},
		{Symbol: "+ᵥ", Kind: "infixl", Heads: []string{"Num.hvadd"}, Line: 9, Atoms: []string{"+ᵥ"}},
		{Symbol: "⁺", Kind: "postfix", Heads: []string{"Num.ENNReal"}, Scope: "local", Line: 10, Atoms: []string{"⁺"}},
		{Symbol: "[", Kind: "macro_rules", Heads: []string{"AddAlg"}, Line: 14, Atoms: []string{"[", "]"}},
	} {
		g, ok := got[w.Symbol]
		if !ok {
			t.Errorf("no row for %s in %+v", w.Symbol, rows)
			continue
		}
		if g.Kind != w.Kind || !slices.Equal(g.Heads, w.Heads) || g.Scope != w.Scope || g.Namespace != w.Namespace ||
			g.Line != w.Line || !slices.Equal(g.Atoms, w.Atoms) || g.Module != "Lib.A" || g.Library != "lib" {
			t.Errorf("%s: got %+v, want %+v", w.Symbol, g, w)
		}
	}
	if len(rows) != 5 {
		t.Errorf("%d rows, want 5: %+v", len(rows), rows)
	}
	if h := NotationHeads(rows); !slices.Equal(h["ℝ≥0∞"], []string{"Num.ENNReal"}) || !slices.Equal(h["+ᵥ"], []string{"Num.hvadd"}) {
		t.Errorf("NotationHeads: %v", h)
	}
}
