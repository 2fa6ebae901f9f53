package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// deriveLib has `deriving` clauses on structures declared with a namespace
// prefix and on definitions (Mathlib's commutator, GaloisField, Gal).
var deriveLib = map[string]string{"Lib/D.lean": `
class Normal (H : Nat) : Prop where
class Characteristic (H : Nat) : Prop where
class Inh (α : Type) where
class CharP (R : Type) (p : Nat) : Prop where
class Alg (R : Type) (A : Type) where
def ZMod (n : Nat) : Type := Nat
class Repr' (α : Type) where

namespace Grp
variable {G : Type}
def commutator (G : Type) : Nat := 0
deriving Normal, Characteristic
end Grp

def GaloisField (p n : Nat) : Type := Nat
deriving Inh, CharP _ p,
  Alg (ZMod p)

namespace Mathlib.Tactic.AtomM
structure Recurse.Config where
  x : Nat
deriving Inh, Repr'
end Mathlib.Tactic.AtomM
`}

func derivedNames(rows []workspace.Declaration) []string {
	var out []string
	for _, r := range rows {
		if r.Kind == workspace.KindInstance && strings.Contains(r.Code, "deriving") {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestDerivedInstanceNamesByVersion: the names Lean gives derived instances (read
// from Lean's deriving handlers and Term.processDefDeriving, before and
// after lean4#9800 in 4.23).
func TestDerivedInstanceNamesByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"v4.29.0", []string{
			"Grp.instCharacteristicCommutator", "Grp.instNormalCommutator", // Mathlib: attribute [to_additive] instNormalCommutator
			"Mathlib.Tactic.AtomM.Recurse.instInhConfig", "Mathlib.Tactic.AtomM.Recurse.instRepr'Config",
			"instAlgZModGaloisField", "instCharPGaloisField", "instInhGaloisField",
		}},
		{"4.7.0", []string{
			"Grp.instcommutatorCharacteristic", "Grp.instcommutatorNormal",
			"Mathlib.Tactic.AtomM.Recurse.instInhConfig", "Mathlib.Tactic.AtomM.Recurse.instRepr'Config",
			"instGaloisFieldInh",
		}},
	} {
		_, rows := extractLib(t, deriveLib, Source{Library: "Lib", Revision: "r", LeanVersion: tc.version})
		if got := derivedNames(rows); !slices.Equal(got, tc.want) {
			t.Errorf("Lean %s: derived instances\n got %v\nwant %v", tc.version, got, tc.want)
		}
	}
}

// TestSimpsSharedField: @[simps] on a structure whose parents share a field
// makes one lemma per projection (it made `_carrier` twice, and one was
// dropped as a duplicate: 61 rows on Mathlib v4.29.0).
func TestSimpsSharedField(t *testing.T) {
	res, rows := extractLib(t, map[string]string{"Lib/S.lean": `
structure Sub (α : Type) where
  carrier : Nat
structure AddSub (α : Type) where
  carrier : Nat
structure Both (α : Type) extends Sub α, AddSub α where
  extra : Nat

@[simps]
def b : Both Nat where
  carrier := 1
  extra := 2
`}, Source{Library: "Lib", Revision: "r", LeanVersion: "v4.29.0"})
	var got []string
	for _, r := range rows {
		if strings.HasPrefix(r.Name, "b_") {
			got = append(got, r.Name)
		}
	}
	slices.Sort(got)
	if want := []string{"b_carrier", "b_extra"}; !slices.Equal(got, want) || res.DuplicatesDropped != 0 {
		t.Errorf("simps lemmas %v (%d dropped as duplicates: %v), want %v and none", got, res.DuplicatesDropped, res.Duplicates, want)
	}
}
