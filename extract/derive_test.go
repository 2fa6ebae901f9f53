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

// standaloneLib has `deriving instance … for …` commands: a target applied
// to a section variable, in a namespace that is the target's own name
// (Mathlib's SplittingField; MathlibTest refers to
// Polynomial.SplittingField.instAlgebra), classes on several lines, and a
// class and type Lean declares (no constant from the project: the
// project's suffix, as Mathlib's Lean.instToJsonPUnit_mathlib). Lean's
// ToExpr handler adds a binder [ToLevel.{u}] per universe of the type
// (Deriving/ToExpr.lean): …OfToLevel for ULift, not for String.Pos.Raw
// (toExprLib: structures deriving it).
var standaloneLib = map[string]string{"Lib/Standalone.lean": `
class Algebra (R : Type) (A : Type) where
class IsScalarTower (M N α : Type) : Prop where
class Inhabited' (α : Type) where

namespace Polynomial
variable {K : Type}
def SplittingField (f : Nat) : Type := Nat
namespace SplittingField
variable (f : Nat)
variable {R : Type} in
deriving instance Algebra R, IsScalarTower R K for SplittingField f
end SplittingField
end Polynomial

def ENat : Type := Nat
deriving instance Inhabited',
  Algebra Nat for ENat

namespace Lean
deriving instance ToJson for PUnit
set_option autoImplicit true in
deriving instance ToExpr for ULift
deriving instance ToExpr for String.Pos.Raw
end Lean
`}

// toExprLib: a structure's `deriving ToExpr` (the handler's [ToLevel.{u}]
// binders when it has universes; Pair's field `α : Type` is followed by
// the next field, not a level)
var toExprLib = map[string]string{"Lib/ToExpr.lean": `
universe u
structure Box (α : Type u) where
  x : α
  deriving Lean.ToExpr
structure Plain where
  x : Nat
  deriving Lean.ToExpr
structure Pair where
  α : Type
  n : Nat
deriving instance Lean.ToExpr for Pair
`}

// TestDerivedInstanceNamesByVersion: the names Lean gives derived instances (read
// from Lean's deriving handlers and Term.processDefDeriving, before and
// after lean4#9800 in 4.23). Since 4.23 a definition's derived instance is
// named by the instance-name generator applied to the elaborated type
// C args (f xs) (deltaLib): notation in the class's arguments is expanded
// (R ⧸ I is HasQuotient.Quotient R (B := Ideal R) I, S ⊗[R] S is
// TensorProduct R S S, K(p, k) is FractionRing (WittVector p k)), namespace
// components that are declarations are seen (Ring), and f's arguments (its
// parameters, section variables included: G ε) name nothing. Before, only
// classes written as names derive (f's name, inst, the class). A
// standalone `deriving instance` command is named by the generator since
// 4.23 (standaloneLib) and makes no row before.
func TestDerivedInstanceNamesByVersion(t *testing.T) {
	for _, tc := range []struct {
		lib     map[string]string
		version string
		want    []string
	}{
		{deltaLib, "v4.29.0", []string{
			"Ideal.instModuleQuotientCotangent", "Ring.instDirectLimit", "SimpleGraph.instDecidableIsUniform",
			"WittVector.instModuleFractionRingStandardOneDimIsocrystal",
			"instIsScalarTowerTensorProductKaehlerDifferential", "instModuleTensorProductKaehlerDifferential",
		}},
		{deltaLib, "v4.22.0", []string{"Ring.instDirectLimitRing", "SimpleGraph.instIsUniformDecidable"}},
		{deriveLib, "v4.29.0", []string{
			"Grp.instCharacteristicCommutator", "Grp.instNormalCommutator", // Mathlib: attribute [to_additive] instNormalCommutator
			"Mathlib.Tactic.AtomM.Recurse.instInhConfig", "Mathlib.Tactic.AtomM.Recurse.instRepr'Config",
			"instAlgZModGaloisField", "instCharPGaloisField", "instInhGaloisField",
		}},
		{standaloneLib, "v4.29.0", []string{
			"Lean.instToExprRaw_lib", "Lean.instToExprULiftOfToLevel_lib",
			"Lean.instToJsonPUnit_lib", "Polynomial.SplittingField.instAlgebra", "Polynomial.SplittingField.instIsScalarTower",
			"instAlgebraNatENat", "instInhabited'ENat",
		}},
		{toExprLib, "v4.29.0", []string{"instToExprBoxOfToLevel", "instToExprPair", "instToExprPlain"}},
		{standaloneLib, "v4.22.0", nil},
		{deriveLib, "4.7.0", []string{
			"Grp.instcommutatorCharacteristic", "Grp.instcommutatorNormal",
			"Mathlib.Tactic.AtomM.Recurse.instInhConfig", "Mathlib.Tactic.AtomM.Recurse.instRepr'Config",
			"instGaloisFieldInh",
		}},
	} {
		_, rows := extractLib(t, tc.lib, Source{Library: "Lib", Revision: "r", LeanVersion: tc.version})
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

// deltaLib: Mathlib v4.29.0's delta-derived instances whose class
// arguments use notation or whose namespace is a declaration, with
// stand-ins for what they use (RingTheory/Ideal/Cotangent.lean:42,
// RingTheory/Kaehler/Basic.lean:155, RingTheory/WittVector/Isocrystal.lean:159,
// Algebra/Colimit/Ring.lean:62, Combinatorics/SimpleGraph/Regularity/Uniform.lean:64).
var deltaLib = map[string]string{"Lib/Delta.lean": `
class Module (R : Type) (M : Type) where
class IsScalarTower (M N α : Type) : Prop where
class Ring (R : Type) where
class Decidable (p : Prop) where
class HasQuotient (A : outParam Type) (B : Type) where
def HasQuotient.Quotient (A : outParam Type) {B : Type} [HasQuotient A B] (b : B) : Type := Nat
notation:35 G " ⧸ " H:34 => HasQuotient.Quotient G H
structure Ideal (R : Type) where
  x : Nat
def TensorProduct (R : Type) (M N : Type) : Type := Nat
notation:100 M " ⊗[" R "] " N:100 => TensorProduct R M N
def WittVector (p : Nat) (k : Type) : Type := Nat
def FractionRing (R : Type) : Type := R
scoped[Isocrystal] notation "K(" p ", " k ")" => FractionRing (WittVector p k)
structure Finset (α : Type) where
  x : Nat
structure SimpleGraph (V : Type) where
  x : Nat

namespace Ideal
variable {R : Type} (I : Ideal R)
def Cotangent : Type := Nat
deriving Module (R ⧸ I)
end Ideal

variable (R : Type) (S : Type)
def KaehlerDifferential : Type := Nat
deriving Module (S ⊗[R] S), IsScalarTower S (S ⊗[R] S)

namespace WittVector
variable (p : Nat) (k : Type)
open scoped Isocrystal
def StandardOneDimIsocrystal (_m : Int) : Type := K(p, k)
deriving Module K(p, k)
end WittVector

namespace Ring
def DirectLimit (G : Nat → Type) : Type := Nat
deriving Ring
end Ring

namespace SimpleGraph
variable {α 𝕜 : Type} (G : SimpleGraph α) (ε : 𝕜)
def IsUniform (s t : Finset α) : Prop := True
deriving Decidable
end SimpleGraph
`}

// TestDerivingCommandRow: a standalone deriving command's row says what it
// is: the instance type it asks for (the target in parentheses where it is
// applied), its keyword, lines and code, and the class and target among its
// statement dependencies.
func TestDerivingCommandRow(t *testing.T) {
	_, rows := extractLib(t, standaloneLib, Source{Library: "Lib", Revision: "r", LeanVersion: "v4.29.0"})
	want := map[string]string{
		"Polynomial.SplittingField.instAlgebra":       "Algebra R (SplittingField f)",
		"Polynomial.SplittingField.instIsScalarTower": "IsScalarTower R K (SplittingField f)",
		"instAlgebraNatENat":                          "Algebra Nat ENat",
	}
	for _, r := range rows {
		sig, ok := want[r.Name]
		if !ok {
			continue
		}
		delete(want, r.Name)
		if r.Signature != sig || r.Keyword != "deriving instance" || !strings.HasPrefix(r.Code, "deriving instance") {
			t.Errorf("%s: signature %q keyword %q code %q, want signature %q from a deriving instance command", r.Name, r.Signature, r.Keyword, r.Code, sig)
		}
		if r.Name == "instAlgebraNatENat" && (r.LineStart != 17 || r.LineEnd != 18 || !slices.Contains(r.StatementDeps, "ENat") || !slices.Contains(r.StatementDeps, "Algebra")) {
			t.Errorf("%s: lines %d-%d, statement deps %v; want 17-18 and Algebra, ENat", r.Name, r.LineStart, r.LineEnd, r.StatementDeps)
		}
	}
	if len(want) > 0 {
		t.Errorf("no rows for %v", want)
	}
}

// TestDerivingCommandHypotheses: a class item written with hypotheses
// (`[DiscreteTopology A] → CompactSpace _`, Mathlib's PontryaginDual)
// asks for an instance over them — Lean's processDefDeriving opens the
// item's ∀ and closes the instance over it — so a hypothesis the type does
// not mention names the instance "Of…", and one whose class the type
// already names adds nothing (Skeleton's `[CoeSort C α] → CoeSort _ α`).
func TestDerivingCommandHypotheses(t *testing.T) {
	lib := map[string]string{"Lib/Dual.lean": `
class DiscreteTopology (A : Type) : Prop where
class CompactSpace (A : Type) : Prop where
class CoeSort (C : Type) (α : outParam (Sort u)) where
structure Circle where
variable (A : Type)
def PontryaginDual := A → Circle
def Skeleton (C : Type) := C
namespace PontryaginDual
deriving instance
  [DiscreteTopology A] → CompactSpace _
for PontryaginDual A
deriving instance (α : Sort _) → [CoeSort A α] → CoeSort _ α for Skeleton A
end PontryaginDual
`}
	_, rows := extractLib(t, lib, Source{Library: "Lib", Revision: "r", LeanVersion: "v4.29.0"})
	want := map[string]string{
		"PontryaginDual.instCompactSpaceOfDiscreteTopology": "∀ [DiscreteTopology A], CompactSpace (PontryaginDual A)",
		"PontryaginDual.instCoeSortSkeleton":                "∀ (α : Sort _) [CoeSort A α], CoeSort (Skeleton A) α",
	}
	var got []string
	for _, r := range rows {
		if r.Keyword != "deriving instance" {
			continue
		}
		got = append(got, r.Name+" : "+r.Signature)
		if sig, ok := want[r.Name]; ok && r.Signature == sig {
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("want %v; got %v", want, got)
	}
}
