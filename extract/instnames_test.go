package extract

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// instLib is a small library whose anonymous instances exercise Lean ≥ 4.8
// naming: notation (ℝ≥0∞), namespace prefixes, binders (Of…), sections'
// variables, coercions to subtypes, literals, uniqueness and the project
// suffix. Each instance is followed by `-- want NAME` (Lean 4.8 rules).
var instLib = map[string]string{
	"Lib/Classes.lean": `universe u v
class CommSemiring (α : Type u) where
class PseudoMetricSpace (α : Type u) where
class Mul' (α : Type u) where
class SMul (M : Type u) (α : Type v) where
class Semiring (α : Type u) where
class AddCommMonoid (α : Type u) where
@[to_additive] class CommMonoid (α : Type u) where
@[to_additive] class CommGroup (G : Type u) extends CommMonoid G where
class Module (R : Type u) (M : Type v) [Semiring R] [AddCommMonoid M] extends SMul R M where
class IsScalarTower (M N α : Type u) [SMul M N] [SMul N α] [SMul M α] : Prop where
class AB4 (C : Type u) where
class Fintype (α : Type u) where
class NeZero (n : Nat) : Prop where
class Pointed (α : Sort u) where
structure Submonoid (M : Type u) where
  carrier : M → Prop
local notation "ℕ" => Int -- seen in this file only
`,
	"Lib/ENNReal.lean": `def ENNReal := Nat
scoped[ENNReal] notation "ℝ≥0∞" => ENNReal
namespace ENNReal
noncomputable instance : CommSemiring ℝ≥0∞ := ⟨⟩ -- want ENNReal.instCommSemiring
end ENNReal
instance : CommSemiring ENNReal := ⟨⟩ -- want instCommSemiringENNReal
`,
	"Lib/Hamming.lean": `def Hamming (β : Type u) := β
namespace Hamming
variable {β : Type u}
instance : PseudoMetricSpace (Hamming β) := ⟨⟩ -- want Hamming.instPseudoMetricSpace
instance : Pointed (Hamming ℕ → Prop) := ⟨⟩ -- want Hamming.instPointedForallNatProp
end Hamming
`,
	"Lib/Condensed.lean": `def Condensed (C : Type u) := C
abbrev CondensedMod (R : Type u) := Condensed R
namespace Condensed
variable (R : Type u)
instance : AB4 (CondensedMod.{u} R) := ⟨⟩ -- want Condensed.instAB4CondensedMod
end Condensed
`,
	"Lib/Rules.lean": `class Bot (α : Type u) where
  bot : α
notation "⊥" => Bot.bot
class Module.Finite (R : Type u) (M : Type v) : Prop where
structure IntermediateField (K : Type u) (L : Type v) where
  carrier : L → Prop
class RelCW.Finite {X : Type u} (C : IntermediateField X X) (D : Nat) : Prop where -- same last component, terms
structure Ideal (R : Type u) where
  carrier : R → Prop
class HasQuotient (A : outParam (Type u)) (B : Type v) where
  Quotient (A) : B → Type (max u v)
notation:35 G " ⧸ " H:34 => HasQuotient.Quotient G H
namespace IntermediateField
variable (F E : Type u)
instance : Module.Finite F (⊥ : IntermediateField F E) := ⟨⟩ -- want IntermediateField.instFiniteSubtypeMemBot
end IntermediateField
class SetLike (A : Type u) (B : outParam (Type v)) where
namespace GradeZero
variable {ι σ R : Type u} [SetLike σ R] (A : ι → σ)
instance : Pointed (A 0) := ⟨⟩ -- want GradeZero.instPointedSubtypeMemOfNat
instance : Pointed (Fin (2 : ℕ)) := ⟨⟩ -- want GradeZero.instPointedFinOfNatNat
end GradeZero
`,
	// notation3 over binders (Mathlib's DFinsupp): Π₀ i, β i is
	// DFinsupp fun i => β i, the fun not named (winnowExpr visits its
	// body, β a local); not a ∀ (…Forall…)
	"Lib/DFinsupp.lean": `class Zero (α : Type u) where
class AddZeroClass (α : Type u) extends Zero α where
class Add (α : Type u) where
class UniqueSums (α : Type u) where
structure DFinsupp {ι : Type u} (β : ι → Type v) [∀ i, Zero (β i)] : Type (max u v) where
  toFun : ∀ i, β i
notation3 "Π₀ "(...)", "r:(scoped f => DFinsupp f) => r
namespace DFinsupp
variable {ι : Type u} {β : ι → Type v}
instance [∀ i, Zero (β i)] : Zero (Π₀ i, β i) := ⟨⟩ -- want DFinsupp.instZero
instance [∀ i, AddZeroClass (β i)] : Add (Π₀ i, β i) := ⟨⟩ -- want DFinsupp.instAdd
end DFinsupp
instance {ι} (G : ι → Type v) [∀ i, AddZeroClass (G i)] [∀ i, UniqueSums (G i)] : UniqueSums (Π₀ i, G i) := ⟨⟩ -- want instUniqueSumsDFinsupp
instance {ι : Type u} (γ : ι → ι → Type v) [∀ i j, Zero (γ i j)] : Pointed (Π₀ (i : ι) j, γ i j) := ⟨⟩ -- want instPointedDFinsupp
`,
	// ⨆ i, P i is iSup fun i => P i: field notation on it is in the
	// namespace of the fun's body's type (iSup's α)
	"Lib/ISup.lean": `class SupSet (α : Type u) where
def iSup {α : Type u} {ι : Type v} [SupSet α] (s : ι → α) : α := s
notation3 "⨆ "(...)", "r:60:(scoped f => iSup f) => r
structure ObjProp (C : Type u) where
namespace ObjProp
class IsClosed {C : Type u} (P : ObjProp C) : Prop where
instance {C : Type u} [SupSet (ObjProp C)] {α : Type v} (P : α → ObjProp C) [∀ a, (P a).IsClosed] :
    (⨆ a, P a).IsClosed := ⟨⟩ -- want ObjProp.instIsClosedISup
end ObjProp
`,
	// two notations spelt alike (Mathlib's MulActionHom and AddActionHom):
	// Lean keeps the alternative that elaborates — the one whose instance
	// parameters the binders provide, else (undecided) the namespace's
	"Lib/ActionHom.lean": `class VAdd (G : Type u) (P : Type v) where
class AddAction (G : Type u) (P : Type v) extends VAdd G P where
structure MulActionHom {M N : Type u} (φ : M → N) (X : Type v) [SMul M X] (Y : Type v) [SMul N Y] where
  toFun : X → Y
notation:25 X " →ₑ[" φ:25 "] " Y:0 => MulActionHom φ X Y
structure AddActionHom {M N : Type u} (φ : M → N) (X : Type v) [VAdd M X] (Y : Type v) [VAdd N Y] where
  toFun : X → Y
notation:25 X " →ₑ[" φ:25 "] " Y:0 => AddActionHom φ X Y
namespace MulActionHom
variable {M N X Y : Type u} {σ : M → N} [SMul M X] [SMul N Y]
instance : Pointed (X →ₑ[σ] Y) := ⟨⟩ -- want MulActionHom.instPointed
end MulActionHom
namespace Act
instance {M X Y : Type u} {σ : M → M} [AddAction M X] [AddAction M Y] : Pointed (X →ₑ[σ] Y) := ⟨⟩ -- want Act.instPointedAddActionHom
instance {M X Y : Type u} {σ : M → M} [SMul M X] [SMul M Y] : Pointed (X →ₑ[σ] Y) := ⟨⟩ -- want Act.instPointedMulActionHom
end Act
namespace MulActionHom.Mul
variable {M : Type u} [Mul' M] {σ : M → M}
instance : Pointed (M →ₑ[σ] M) := ⟨⟩ -- want MulActionHom.Mul.instPointed
end MulActionHom.Mul
`,
	// a to_additive/to_dual twin's signature is its source's translated
	// (AddCommGrpCat.uliftFunctor is about AddCommGrpCat, its source's text
	// says CommGrpCat); a constant given no argument is a function of its
	// explicit binders (CauSeq α abs: abs : α → α fills no implicit with a
	// ∀)
	"Lib/TwinSig.lean": `class Lat (α : Type u) where
class Grp' (α : Type u) where
class AddGrp' (α : Type u) where
class Rng (α : Type u) where
@[to_additive] structure MonoidCat where
  carrier : Type u
class IsNice {C : Type u} (x : C) : Prop where
namespace MonoidCat
@[to_additive] def triv : MonoidCat := ⟨Nat⟩
end MonoidCat
namespace AddMonoidCat
instance : IsNice triv := ⟨⟩ -- want AddMonoidCat.instIsNiceTriv
end AddMonoidCat
section
variable {α : Type u} [Lat α] [Grp' α]
@[to_additive abs] def mabs (a : α) : α := a
end
def CauSeq {α : Type u} [Lat α] (β : Type u) [Rng β] (abv : β → α) : Type u := β
namespace CauSeq
variable {α : Type u} [Lat α] [Rng α] [AddGrp' α]
instance : Pointed (CauSeq α abs) := ⟨⟩ -- want CauSeq.instPointedAbs
end CauSeq
`,
	// DecidablePred's and DecidableRel's implicit types come first (core
	// Lean's signatures)
	"Lib/Decidable.lean": `def IsSq {α : Type u} [Mul' α] (a : α) : Prop := True
section
variable {α : Type u} [Mul' α]
instance : DecidablePred (IsSq : αᵐᵒᵖ → Prop) := sorry -- want instDecidablePredMulOppositeIsSq
end
`,
	// Core Lean's types are constants: their namespace names nothing
	// (Mathlib's Rat.instMetricSpace, BitVec.instCommRing).
	"Lib/CoreNs.lean": `namespace Rat
instance : Mul' Rat := ⟨⟩ -- want Rat.instMul'
end Rat
namespace BitVec
instance {n : Nat} : Mul' (BitVec n) := ⟨⟩ -- want BitVec.instMul'
end BitVec
`,
	"Lib/Implicit.lean": `structure Kernel (α β : Type u) where
  f : α → β
namespace Kernel
def swap (α β : Type u) : Kernel (α × β) (β × α) := ⟨fun p => (p.2, p.1)⟩
class IsMarkov {α β : Type u} (κ : Kernel α β) : Prop where
instance {α β : Type u} : IsMarkov (swap α β) := ⟨⟩ -- want Kernel.instIsMarkovProdSwap
end Kernel
instance {R : Type u} (I : Ideal R) : Pointed (R ⧸ I) := ⟨⟩ -- want instPointedQuotientIdeal
def MulOpposite (α : Type u) := α
postfix:max "ᵐᵒᵖ" => MulOpposite
instance {α : Type u} : SMul αᵐᵒᵖ α := ⟨⟩ -- want instSMulMulOpposite
structure Measure' (α : Type u) where
class Measure'.IsInv {α : Type u} (μ : Measure' α) : Prop where
def count (α : Type u) : Measure' α := ⟨⟩
instance {G : Type u} : (count G : Measure' G).IsInv := ⟨⟩ -- want instIsInvCount
`,
	"Lib/Misc.lean": `instance {α : Type u} [Mul' α] : SMul α α := ⟨⟩ -- want instSMulOfMul'
def Ore (R X : Type u) := X
notation:max X "[" R "⁻¹]" => Ore R X
namespace Ore
variable {R X : Type u} [Semiring R] [AddCommMonoid X] [Module R X]
instance {R₀ : Type u} [Semiring R₀] [Module R₀ X] [Module R₀ R] [IsScalarTower R₀ R X] [IsScalarTower R₀ R R] :
    Module R₀ X[R⁻¹] := ⟨⟩ -- want Ore.instModuleOfIsScalarTower
end Ore
namespace Submonoid
variable {M : Type u} (S : Submonoid M)
instance : Mul' S := ⟨⟩ -- want Submonoid.instMul'SubtypeMem
end Submonoid
instance {M : Type u} [Fintype M] (S : Submonoid M) : Fintype S := ⟨⟩ -- want instFintypeSubtypeMemSubmonoid
class IsNoethB (R M) [Semiring R] [AddCommMonoid M] : Prop where
section
variable {N₀ B : Type u}
variable (N₀ B)
class SMulWZ [Semiring N₀] extends SMul N₀ B where
end
namespace Submonoid
variable {M : Type u} [Semiring M] [AddCommMonoid M]
instance (S : Submonoid M) : IsNoethB M S := ⟨⟩ -- want Submonoid.instIsNoethBSubtypeMem
instance (S : Submonoid M) : SMulWZ M S := ⟨⟩ -- want Submonoid.instSMulWZSubtypeMem
end Submonoid
class IsNoeth (R : Type*) (M : Type*) : Prop where
class IsNoethU (R : Type u) (M : Type v) : Prop where
namespace Submonoid
instance {M : Type u} (S : Submonoid M) : IsNoeth M S := ⟨⟩ -- want Submonoid.instIsNoethSubtypeMem
instance {M : Type u} (S : Submonoid M) : IsNoethU M S := ⟨⟩ -- want Submonoid.instIsNoethUSubtypeMem
end Submonoid
instance (n : ℕ) [NeZero n] : Pointed (Fin n) := ⟨⟩ -- want instPointedFinOfNeZero
instance : Pointed (Fin 2) := ⟨⟩ -- want instPointedFinOfNatNat
instance : Mul' (ℕ × ℕ) := ⟨⟩ -- want instMul'ProdNat
instance : Mul' (ℕ × ℕ) := ⟨⟩ -- want instMul'ProdNat_1
instance : Inhabited Nat := ⟨0⟩ -- want instInhabitedNat_lib
instance : Pointed Prop := ⟨⟩ -- want instPointedProp
instance {R : Type u} [Semiring R] {M : Type u} [AddCommGroup M] [Module R M] [Fintype M] : Pointed (M × R) := ⟨⟩ -- want instPointedProdOfModuleOfFintype
instance : Pointed (Type u) := ⟨⟩ -- want instPointedType
instance : Pointed (Sort u) := ⟨⟩ -- want instPointedSort
-- core Lean's MData and ToLevel (Mathlib/Tactic/ToExpr's instances)
instance : Lean.ToExpr Lean.MData := sorry -- want instToExprMData_lib
instance [Lean.ToLevel.{u}] : Lean.ToExpr PUnit.{u+1} := sorry -- want instToExprPUnitOfToLevel_lib
`,
	// an outParam class's instance fills the implicit types it fixes:
	// IsLocalHom's R and S come from FunLike (R →+* S) R S, before F
	// (Mathlib's instIsLocalHomResidueFieldRingHomResidue); the class
	// takes [FunLike F R S] and R, S though its text mentions only F. An
	// implicit type filled with a term is the term coerced (α := ↥S)
	"Lib/OutParam.lean": `class FunLike (F : Sort u) (α : outParam (Sort v)) (β : outParam (Sort w)) where
class MonoidX (α : Type u) where
section
variable {G R S F : Type u} [MonoidX R] [MonoidX S] [FunLike F R S]
class IsLocalHom (f : F) : Prop where
  map_nonunit : ∀ a, f a = f a → True
end
class RelHomClass' (F : Type u) {α β : outParam (Type u)} (r : α → α → Prop) (s : β → β → Prop) [FunLike F α β] : Prop where
structure MonHom (M N : Type u) where
infixr:25 " →*' " => MonHom
namespace MonHom
variable {M N : Type u}
instance instFunLike : FunLike (M →*' N) M N := ⟨⟩ -- want MonHom.instFunLike
end MonHom
def ResField (R : Type u) := R
def residue (R : Type u) : R →*' ResField R := ⟨⟩
instance {R : Type u} : IsLocalHom (residue R) := ⟨⟩ -- want instIsLocalHomResFieldMonHomResidue
def leR (R : Type u) (a b : R) : Prop := True
structure Exh (X : Type u) where
instance {X : Type u} : FunLike (Exh X) Nat (List X) := ⟨⟩ -- want instFunLikeExhNatList
instance {X : Type u} : RelHomClass' (Exh X) (leR Nat) (leR (List X)) := ⟨⟩ -- want instRelHomClass'ExhNatListLeR
structure Box (α : Type u) where
class IsBoxy {α : Type u} (b : Box α) : Prop where
def Submonoid.box {M : Type u} (S : Submonoid M) : Box S := ⟨⟩
instance {M : Type u} (S : Submonoid M) : IsBoxy S.box := ⟨⟩ -- want instIsBoxySubtypeMemSubmonoidBox
`,
	// instance binders used through elaboration: Lean's winnowExpr drops
	// the domain of a ∀ its body depends on (Mathlib's own names)
	"Lib/Used.lean": `structure RingHom (R S : Type u) [Semiring R] [Semiring S] where
infixr:25 " →+* " => RingHom
class RingHomInvPair {R S : Type u} [Semiring R] [Semiring S] (σ : R →+* S) (σ' : outParam (S →+* R)) : Prop where
class EquivLike (E : Type u) (α β : outParam (Type u)) where
class SemilinearMapClass (F : Type u) {R S : outParam (Type u)} [Semiring R] [Semiring S] (σ : outParam (R →+* S)) (M M₂ : outParam (Type u)) : Prop where
class SemilinearEquivClass (F : Type*) {R S : outParam Type*} [Semiring R] [Semiring S]
  (σ : outParam <| R →+* S) {σ' : outParam <| S →+* R} [RingHomInvPair σ σ'] [RingHomInvPair σ' σ]
  (M M₂ : outParam Type*) [EquivLike F M M₂] : Prop where
namespace SemilinearEquivClass
variable {R S M M₂ : Type*} (F : Type*) [Semiring R] [Semiring S] {σ : R →+* S} {σ' : S →+* R}
instance (priority := 100) [RingHomInvPair σ σ'] [RingHomInvPair σ' σ]
    [EquivLike F M M₂] [s : SemilinearEquivClass F σ M M₂] : SemilinearMapClass F σ M M₂ := ⟨⟩ -- want SemilinearEquivClass.instSemilinearMapClass
end SemilinearEquivClass
class TopologicalSpace (α : Type u) where
class CompactSpace (α : Type u) [TopologicalSpace α] : Prop where
namespace TopologicalSpace
structure Compacts (α : Type*) [TopologicalSpace α] where
  carrier : α → Prop
namespace Compacts
variable {α : Type*} [TopologicalSpace α]
instance : SetLike (Compacts α) α where -- want TopologicalSpace.Compacts.instSetLike
instance (K : Compacts α) : CompactSpace K := ⟨⟩ -- want TopologicalSpace.Compacts.instCompactSpaceSubtypeMem
end Compacts
end TopologicalSpace
class Monoid (α : Type u) where
class AddMonoid (α : Type u) where
class MulAction (α : Type u) (β : Type u) [Monoid α] extends SMul α β where
def Multiplicative (α : Type u) := α
instance [AddMonoid α] : Monoid (Multiplicative α) := ⟨⟩ -- want instMonoidMultiplicativeOfAddMonoid
instance : Monoid Nat := ⟨⟩ -- want instMonoidNat
instance [AddMonoid M] : MulAction Nat M := ⟨⟩ -- want instMulActionNatOfAddMonoid
class Fact (p : Prop) : Prop where
def Splits (n : Nat) : Prop := True
instance [h : Fact (Splits 3)] : MulAction Nat Nat := ⟨⟩ -- want instMulActionNatOfFactSplitsOfNat
class MulOneClass (α : Type u) extends Mul' α where
class FaithfulSMul (M : Type u) (α : Type u) [SMul M α] : Prop where
instance Mul'.toSMulMulOpposite (α : Type u) [Mul' α] : SMul αᵐᵒᵖ α := ⟨⟩ -- want Mul'.toSMulMulOpposite
instance (R : Type u) [MulOneClass R] : FaithfulSMul Rᵐᵒᵖ R := ⟨⟩ -- want instFaithfulSMulMulOpposite
class CommRing (α : Type u) extends Semiring α where
structure SIdeal (R : Type u) [Semiring R] where
instance {R} [CommRing R] : HasQuotient R (SIdeal R) := ⟨⟩ -- want instHasQuotientSIdeal
class ContinuousSMul (M X : Type*) [SMul M X] [TopologicalSpace M] [TopologicalSpace X] : Prop where
section Main
variable {M X Y α : Type*} [TopologicalSpace M] [TopologicalSpace X] [TopologicalSpace Y]
instance {ι : Type*} {γ : ι → Type*} [∀ i, TopologicalSpace (γ i)] [∀ i, SMul M (γ i)]
    [∀ i, ContinuousSMul M (γ i)] : ContinuousSMul M (∀ i, γ i) := ⟨⟩ -- want instContinuousSMulForall
end Main
`,
	// universe levels are no terms: Type max u v, Type (max v uA uB) name
	// "Type" (Mathlib's Data/PFunctor/Univariate/Basic)
	"Lib/Levels.lean": `universe uA uB v
structure PFunctor where
  A : Type uA
  B : A → Type uB
namespace PFunctor
variable (P : PFunctor.{uA, uB})
def Obj (α : Type v) : Type (max v uA uB) :=
  Σ x : P.A, P.B x → α
instance : CoeFun PFunctor.{uA, uB} (fun _ => Type v → Type (max v uA uB)) where -- want PFunctor.instCoeFunForallType
  coe := Obj
instance : Pointed (Type max v uA → Type v) := ⟨⟩ -- want PFunctor.instPointedForallType
end PFunctor
namespace Lv
universe w w₁
class Foo (α : Sort u) where
-- every identifier after max is a level (a universe name, also when the
-- namer knows it as a local); review5 P3-1
instance : Foo (Type max w 3) := ⟨⟩ -- want Lv.instFooType
instance : Foo (Type max w (max w v) → Prop) := ⟨⟩ -- want Lv.instFooForallTypeProp
instance : Foo (Type max w (v + 1) → Nat) := ⟨⟩ -- want Lv.instFooForallTypeNat
-- w₁ is two characters, four bytes (review5 P3-6)
instance : Foo (Type w₁ → Bool) := ⟨⟩ -- want Lv.instFooForallTypeBool
end Lv
`,
	// notation resolved where it is declared (⥤ is CategoryTheory.Functor
	// though the root Functor is visible), field notation through a parent
	// structure (F.map is Prefunctor.map F.toPrefunctor: its implicit V is
	// named), x.f.g, and implicit arguments from the types of the terms
	// they are the types of (Mathlib's AlgebraicGeometry/RelativeGluing,
	// its names referred to by Sites/SmallAffineZariski and Normalization;
	// CategoryStruct.comp's obj from X : Scheme, Morphisms/UniversallyOpen,
	// by the rule: no reference)
	"Lib/Gluing.lean": `universe v u
class Quiver (V : Type u) where
  Hom : V → V → Sort v
infixr:10 " ⟶ " => Quiver.Hom
class Category (obj : Type u) extends Quiver obj where
class Quiver.IsThin (V : Type u) [Quiver V] : Prop where
namespace CategoryTheory
structure Prefunctor (V : Type u) [Quiver.{v} V] (W : Type u) [Quiver.{v} W] where
  obj : V → W
  map : ∀ {X Y : V}, (X ⟶ Y) → (obj X ⟶ obj Y)
structure Functor (C : Type u) [Category.{v} C] (D : Type u) [Category.{v} D] extends Prefunctor C D where
scoped infixr:26 " ⥤ " => Functor
namespace Functor
variable {C : Type u} [Category.{v} C] {D : Type u} [Category.{v} D] {E : Type u} [Category.{v} E]
def comp (F : C ⥤ D) (G : D ⥤ E) : C ⥤ E := ⟨⟩
end Functor
scoped infixr:80 " ⋙ " => Functor.comp
class Functor.IsLocallyDirected {J : Type u} [Category J] (F : J ⥤ Type u) : Prop where
class CategoryStruct (obj : Type u) extends Quiver.{v} obj where
  comp : ∀ {X Y Z : obj}, (X ⟶ Y) → (Y ⟶ Z) → (X ⟶ Z)
scoped infixr:80 " ≫ " => CategoryStruct.comp
structure NatTrans {C : Type u} [Category.{v} C] {D : Type u} [Category.{v} D] (F G : C ⥤ D) where
  app : ∀ X : C, F.obj X ⟶ G.obj X
instance Functor.category {C : Type u} [Category.{v} C] {D : Type u} [Category.{v} D] : Category (C ⥤ D) where -- want CategoryTheory.Functor.category
  Hom F G := NatTrans F G
class Epi {C : Type u} [Category.{v} C] {X Y : C} (f : X ⟶ Y) : Prop where
class HasPushouts (C : Type u) [Category.{v} C] : Prop where
section
-- Mathlib's Limits/FunctorCategory/EpiMono (instEpiAppOfFunctor, referred
-- to by Abelian/Preradical/Colon): f's type mentions F and G, whose type
-- K ⥤ C fills Epi's implicit category in [Epi f]; f.app is read on the
-- type F ⟶ G, not on its first identifier
variable {K : Type u} [Category.{v} K] {C : Type u} [Category.{v} C] {F G : K ⥤ C} (f : F ⟶ G)
variable [HasPushouts C]
instance [Epi f] (k : K) : Epi (f.app k) := ⟨⟩ -- want CategoryTheory.instEpiAppOfFunctor
end
-- f.app is NatTrans.app (F ⟶ G unfolds through the functor category's
-- Hom field), whose type F.obj k ⟶ G.obj k fills Epi's category: Mod
structure Mod where
  x : Nat
instance : Category Mod := sorry -- want CategoryTheory.instCategoryMod
section
variable {K : Type u} [Category.{v} K] {Φ Ψ : K ⥤ Mod} (f : Φ ⟶ Ψ)
instance (k : K) : Epi (f.app k) := ⟨⟩ -- want CategoryTheory.instEpiModApp
end
end CategoryTheory
open CategoryTheory
namespace AlgebraicGeometry
structure Scheme where
  carrier : Type u
instance : Category Scheme := ⟨⟩ -- want AlgebraicGeometry.instCategoryScheme
class IsOpenImmersion {X Y : Scheme} (f : X ⟶ Y) : Prop where
def Scheme.forget : Scheme ⥤ Type u := ⟨⟩
structure Scheme.OpenCover (X : Scheme) where
  I₀ : Type v
namespace Scheme.Cover
variable {S : Scheme.{u}} (𝒰 : S.OpenCover) [Category 𝒰.I₀]
structure RelativeGluingData where
  functor : 𝒰.I₀ ⥤ Scheme.{u}
variable {𝒰} (d : RelativeGluingData 𝒰)
namespace RelativeGluingData
instance {i j : 𝒰.I₀} (hij : i ⟶ j) : IsOpenImmersion (d.functor.map hij) := ⟨⟩ -- want AlgebraicGeometry.Scheme.Cover.RelativeGluingData.instIsOpenImmersionMapI₀Functor
instance [Quiver.IsThin 𝒰.I₀] : (d.functor ⋙ Scheme.forget).IsLocallyDirected := ⟨⟩ -- want AlgebraicGeometry.Scheme.Cover.RelativeGluingData.instIsLocallyDirectedI₀CompFunctorForgetOfIsThin
end RelativeGluingData
end Scheme.Cover
instance : CategoryStruct Scheme := ⟨⟩ -- want AlgebraicGeometry.instCategoryStructScheme
class UniversallyOpen {X Y : Scheme} (f : X ⟶ Y) : Prop where
namespace UniversallyOpen
instance {X Y Z : Scheme} (f : X ⟶ Y) (g : Y ⟶ Z)
    [hf : UniversallyOpen f] [hg : UniversallyOpen g] : UniversallyOpen (f ≫ g) := ⟨⟩ -- want AlgebraicGeometry.UniversallyOpen.instCompScheme
end UniversallyOpen
end AlgebraicGeometry
`,
	// Mathlib's CategoryTheory/EpiMono: f.op is Quiver.Hom.op, whose type
	// op Y ⟶ op X names Opposite.op (a declaration is not in scope in its
	// own header: not Quiver.Hom.op itself), and a structure constructor's
	// type is the structure applied (Opposite.op Y : Cᵒᵖ), which fills
	// IsSplitEpi's implicit category
	"Lib/Op.lean": `structure Opposite (α : Sort u) where
  op ::
  unop : α
notation:max α "ᵒᵖ" => Opposite α
open Opposite
namespace Quiver
def Hom.op {V} [Quiver V] {X Y : V} (f : X ⟶ Y) : op Y ⟶ op X := ⟨f⟩
end Quiver
class IsSplitEpi {C : Type u} [Category.{v} C] {X Y : C} (f : X ⟶ Y) : Prop where
class IsSplitMono {C : Type u} [Category.{v} C] {X Y : C} (f : X ⟶ Y) : Prop where
namespace CategoryTheory
variable {C : Type u} [Category.{v} C] {X Y : C} {f : X ⟶ Y}
instance [IsSplitMono f] : IsSplitEpi f.op := ⟨⟩ -- want CategoryTheory.instIsSplitEpiOppositeOpOfIsSplitMono
end CategoryTheory
`,
	// coercions to a type through the run's CoeSort instances, unfolded
	// as elaboration unfolds them (Mathlib's Stonean/Basic refers to
	// instExtremallyDisconnectedCarrierToTopTrueOfProjective): ↥X for X :
	// CompHaus, an abbreviation of CompHausLike fun _ ↦ True, is X.toTop
	// (CompHausLike's ⟨fun X => X.toTop⟩, the abbreviation unfolded to
	// find it and to fill toTop's P), a TopCat coerced again by
	// TopCat.carrier; ModuleCat.carrier's implicit R is named (Nat); a
	// term of type Set α is Set.Elem's (α named)
	"Lib/Coe.lean": `structure TopCat where
  carrier : Type u
  [str : TopologicalSpace carrier]
namespace TopCat
instance : CoeSort (TopCat) (Type u) := -- want TopCat.instCoeSortType
  ⟨TopCat.carrier⟩
end TopCat
section
variable (P : TopCat.{u} → Prop)
structure CompHausLike where
  toTop : TopCat
  prop : P toTop
namespace CompHausLike
instance : CoeSort (CompHausLike P) (Type u) := -- want CompHausLike.instCoeSortType
  ⟨fun X => X.toTop⟩
end CompHausLike
end
abbrev CompHaus := CompHausLike (fun _ ↦ True)
class ExtremallyDisconnected (X : Type u) [TopologicalSpace X] : Prop where
class Projective {C : Type u} (P : C) : Prop where
structure ModuleCat (R : Type u) where
  carrier : Type u
namespace ModuleCat
instance : CoeSort (ModuleCat R) (Type u) := ⟨ModuleCat.carrier⟩ -- want ModuleCat.instCoeSortType
end ModuleCat
def Set (α : Type u) := α → Prop
def Set.Elem {α : Type u} (s : Set α) : Type u := α
instance {α : Type u} : CoeSort (Set α) (Type u) := ⟨Set.Elem⟩ -- want instCoeSortSetType
def Set.univ' (α : Type u) : Set α := fun _ => True
namespace CompHaus
instance (X : CompHaus.{u}) [Projective X] : ExtremallyDisconnected X := ⟨⟩ -- want CompHaus.instExtremallyDisconnectedCarrierToTopTrueOfProjective
instance (M : ModuleCat Nat) : Pointed M := ⟨⟩ -- want CompHaus.instPointedCarrierNat
instance : Pointed (Set.univ' Bool) := ⟨⟩ -- want CompHaus.instPointedElemBoolUniv'
end CompHaus
`,
	// a CoeSort function over the instance's own binders ({R}) is applied
	// with them filled by the coerced term's type (Mod Nat: R := Nat)
	"Lib/CoeVar.lean": `structure Mod (R : Type u) where
  carrier : Type u
def Mod.Car (R : Type u) (M : Mod R) : Type u := M.carrier
namespace Mod
instance {R : Type u} : CoeSort (Mod R) (Type u) := ⟨fun M => Mod.Car R M⟩ -- want Mod.instCoeSortType
instance (M : Mod Nat) : Pointed M := ⟨⟩ -- want Mod.instPointedCarNat
end Mod
`,
	// `open _root_.Rb` opens the root's Rb only, not Sd.Rb (whose 𝕍,
	// declared later, the notation table would have preferred)
	"Lib/OpenRoot.lean": `namespace Rb
def Gv : Type := Nat
scoped notation "𝕍" => Gv
end Rb
namespace Sd
namespace Rb
def Fv : Type := Nat
scoped notation "𝕍" => Fv
end Rb
namespace Ox
open _root_.Rb
instance : Pointed 𝕍 := ⟨⟩ -- want Sd.Ox.instPointedGv
end Ox
end Sd
`,
	// a CoeSort function is read with the opens as the signatures are
	// (open Bk in Se.Ox opens Se.Bk: its scoped ⌈M⌉ is Car M)
	"Lib/CoeOpen.lean": `namespace Se
namespace Bk
structure Obj where
  carrier : Type u
def Car (M : Obj) : Type u := M.carrier
scoped notation "⌈" M "⌉" => Car M
end Bk
namespace Ox
open Bk
instance : CoeSort Obj (Type u) := ⟨fun M => ⌈M⌉⟩ -- want Se.Ox.instCoeSortObjType
instance (M : Obj) : Pointed M := ⟨⟩ -- want Se.Ox.instPointedCar
end Ox
end Se
`,
	// `open Bi` in namespace Sc.Ox opens Sc.Bi (Lean's resolveNamespace),
	// whose scoped notation is then in force (Mathlib's ⥤ᵒᵖᴸ in
	// Bicategory/Modification/Oplax: …HomOplaxFunctor, not …OppositeFunctor)
	"Lib/OpenRel.lean": `namespace Sc
namespace Bi
def Fz : Type := Nat
scoped notation "𝔽" => Fz
end Bi
namespace Ox
open Bi
instance : Pointed 𝔽 := ⟨⟩ -- want Sc.Ox.instPointedFz
end Ox
end Sc
`,
	// names real Lean gave: the jixia sample (../shared/samples/extractors,
	// Option.instDecidablePredIsSome, Demo.instBEqMyType), Batteries'
	// #instances test (Testing.instA…), the reference manual's example
	// (instBEqNatWrapper)
	"Lib/Real.lean": `namespace Option
variable {α : Type u}
inductive IsSome : Option α → Prop where
  | of_some {a : α} : IsSome (some a)
instance : DecidablePred (IsSome (α := α)) := fun a => by cases a <;> exact inferInstance -- want Option.instDecidablePredIsSome
end Option
structure MyType where
  x : Nat
namespace Demo
scoped instance : BEq MyType where beq _ _ := true -- want Demo.instBEqMyType
end Demo
namespace Testing
class A (α : Type)
instance (priority := high) : A Nat := ⟨⟩ -- want Testing.instANat
instance : A Int := ⟨⟩ -- want Testing.instAInt
instance : A Bool := ⟨⟩ -- want Testing.instABool
instance : A α := ⟨⟩ -- want Testing.instA
end Testing
structure NatWrapper where
  val : Nat
instance : BEq NatWrapper where -- want instBEqNatWrapper
  beq | ⟨x⟩, ⟨y⟩ => x == y
`,
}

// instWants returns the names the -- want comments expect.
func instWants() []string {
	var out []string
	for _, src := range instLib {
		for _, line := range strings.Split(src, "\n") {
			if _, w, ok := strings.Cut(line, "-- want "); ok {
				out = append(out, strings.TrimSpace(w))
			}
		}
	}
	slices.Sort(out)
	return out
}

func extractInstances(t *testing.T, leanVersion string) []string {
	t.Helper()
	_, rows := extractLib(t, instLib, Source{Library: "lib", Revision: "r", LeanVersion: leanVersion})
	var got []string
	for _, r := range rows {
		if r.Kind == workspace.KindInstance {
			got = append(got, r.Name)
		}
	}
	slices.Sort(got)
	return got
}

// extractLib writes files (path → source) to a folder, extracts it as
// src (Dir set here) and returns the result and the rows written.
func extractLib(t *testing.T, files map[string]string, src Source) (*Result, []workspace.Declaration) {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		writeFile(t, filepath.Join(dir, "src", p), s)
	}
	ws, err := workspace.Open(filepath.Join(dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	src.Dir = filepath.Join(dir, "src")
	res, err := Run(context.Background(), ws, Options{Sources: []Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ErrorCount > 0 {
		t.Fatalf("parse errors: %v", res.Errors)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	return res, rows
}

// TestInstanceNamesLean48: every anonymous instance gets the name Lean ≥
// 4.8 gives it.
func TestInstanceNamesLean48(t *testing.T) {
	got, want := extractInstances(t, "v4.29.0"), instWants()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("unexpected %s", g)
		}
	}
}

// TestInstanceNamesLean47: Lean ≤ 4.7 sources keep the older names, the
// written type's identifiers in order (an approximation of Lean's: con-nf,
// the Lean 4.7 library here, names its instances).
func TestInstanceNamesLean47(t *testing.T) {
	got := extractInstances(t, "4.7.0")
	for _, w := range []string{"Hamming.instPseudoMetricSpaceHammingΒ", "instSMul", "instMul'ℕProd", "instMul'ℕProd_1"} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in %v", w, got)
		}
	}
	if slices.Contains(got, "ENNReal.instCommSemiring") {
		t.Error("Lean 4.7 names follow the 4.8 rules")
	}
}

// TestCanonicalNames: the tables spell names as Lean's Name.toString (a
// keyword component plain, a non-identifier one in «»), in every name
// column, however the source spells them.
func TestCanonicalNames(t *testing.T) {
	rows, _, errs := ParseFile([]byte("namespace Foo\ndef «structure» : Nat := 1\ndef «term_≋_» : Nat := 2\ntheorem t : Foo.«structure» = 1 := rfl\nend Foo\n"), "Lib/A.lean", "lib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	names := map[string]workspace.Declaration{}
	var got []string
	for _, r := range rows {
		c := canonicalRow(r)
		names[c.Name] = c
		got = append(got, c.Name)
	}
	slices.Sort(got)
	if want := []string{"Foo.structure", "Foo.t", "Foo.«term_≋_»"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if r := names["Foo.t"]; !slices.Contains(r.StatementDeps, "Foo.structure") {
		t.Errorf("statement deps %v, want Foo.structure", r.StatementDeps)
	}
	r := canonicalRow(workspace.Declaration{Name: "A.«structure»", StatementDeps: []string{"B", "A.«fun»"}, GeneratedFrom: strp("A.«at»")})
	if r.Name != "A.structure" || !slices.Equal(r.StatementDeps, []string{"B", "A.fun"}) || *r.GeneratedFrom != "A.at" {
		t.Errorf("canonicalRow: %+v", r)
	}
}

// TestDerivedInstanceNames: `deriving` clauses make instances named as
// Lean's handlers do, in the namespace of the declaration.
func TestDerivedInstanceNames(t *testing.T) {
	src := "namespace Mathlib.Tactic.RingNF\nstructure Config where\n  red : Nat := 0\n  deriving Inhabited, BEq, Repr\nend Mathlib.Tactic.RingNF\ninductive Num where\n  | zero\n  | pos (n : Nat)\n  deriving DecidableEq\ntheorem t : True := trivial\n"
	rows, _, errs := ParseFile([]byte(src), "Lib/A.lean", "lib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, r := range rows {
		if r.Kind == workspace.KindInstance {
			got = append(got, r.Name)
		}
	}
	want := []string{"Mathlib.Tactic.RingNF.instInhabitedConfig", "Mathlib.Tactic.RingNF.instBEqConfig", "Mathlib.Tactic.RingNF.instReprConfig", "instDecidableEqNum"}
	if !slices.Equal(got, want) {
		t.Errorf("derived instances %v, want %v", got, want)
	}
}

// TestInstanceNamesImportOrder: an anonymous instance is made unique
// against the names of the modules it imports, as Lean's mkUnusedBaseName
// does, whatever the order of the files (Lib/A imports Lib/B: B's instance
// is named first); a module that imports neither still gets a name of its
// own (a fallback, counted) and no row is dropped.
func TestInstanceNamesImportOrder(t *testing.T) {
	res, rows := extractLib(t, map[string]string{
		"Lib/Cls.lean": "universe u\nclass Pointed (α : Sort u) where\ndef Thing := Nat\n",
		"Lib/A.lean":   "import Lib.B\ninstance : Pointed Thing := ⟨⟩\ninstance : Pointed Thing := ⟨⟩\n",
		"Lib/B.lean":   "import Lib.Cls\ninstance : Pointed Thing := ⟨⟩\n",
		"Lib/C.lean":   "import Lib.Cls\ninstance : Pointed Thing := ⟨⟩\n",
	}, Source{Library: "Lib", Revision: "r", LeanVersion: "4.29.0"})
	got := map[string]string{}
	for _, r := range rows {
		if r.Kind == workspace.KindInstance {
			got[r.Name] = fmt.Sprintf("%s:%d", r.Module, r.LineStart)
		}
	}
	want := map[string]string{"instPointedThing": "Lib.B:2", "instPointedThing_1": "Lib.A:2", "instPointedThing_2": "Lib.A:3",
		"instPointedThing_3": "Lib.C:2"}
	if !maps.Equal(got, want) {
		t.Errorf("instances %v, want %v", got, want)
	}
	if res.DuplicatesDropped != 0 || res.InstanceNameFallbacks != 1 {
		t.Errorf("%d rows dropped (%v), %d fallbacks; want 0 and 1 (Lib.C's)", res.DuplicatesDropped, res.Duplicates, res.InstanceNameFallbacks)
	}
}

// TestInstanceNamesIndependentOfWorkers: base names are computed on
// several goroutines (baseNames) and made unique in import order; the
// names must not depend on how many workers computed them. Under -race it
// also checks that the namer's shared tables are read, not written,
// unsynchronised.
func TestInstanceNamesIndependentOfWorkers(t *testing.T) {
	src := filepath.Join("..", "testdata", "lean")
	names := func(workers int) []string {
		ws, err := workspace.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: src, Library: "driftlib", Revision: "r"}}, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Module+" "+r.Name)
		}
		return out
	}
	one, many := names(1), names(8)
	insts := 0
	for _, n := range one {
		if strings.Contains(n, ".inst") || strings.Contains(n, " inst") {
			insts++
		}
	}
	if insts < 20 {
		t.Fatalf("only %d generated instance names in the bundled library: the test sees too little", insts)
	}
	if !slices.Equal(one, many) {
		for i := range min(len(one), len(many)) {
			if one[i] != many[i] {
				t.Fatalf("row %d: 1 worker %q, 8 workers %q", i, one[i], many[i])
			}
		}
		t.Fatalf("1 worker: %d rows, 8 workers: %d", len(one), len(many))
	}
	t.Logf("%d rows, %d instance names, equal with 1 and 8 workers", len(one), insts)
}

// translateFiles are a library's Mathlib.Tactic.Translate dictionaries in
// the form Mathlib v4.29.0 declares them (the entries these tests use; a
// comment with quotes, as Mathlib's has, must not be read as an entry).
var translateFiles = map[string]string{
	"Tactic/Translate/ToAdditive.lean": `namespace Mathlib.Tactic.ToAdditive
@[inherit_doc GuessName.GuessNameData.nameDict]
def nameDict : Std.HashMap String (List String) := .ofList [
  ("one", ["Zero"]),
  ("mul", ["Add"]),
  ("inv", ["Neg"]),
  ("prod", ["Sum"]),
  ("monoid", ["Add", "Monoid"]),
  ("haar", ["Add", "Haar"]),
  ("square", ["Even"])]

@[inherit_doc GuessName.GuessNameData.abbreviationDict]
def abbreviationDict : Std.HashMap String String := .ofList [
  ("commAdd", "AddComm"),
  -- "Regular" is well-used ("regular", "addRegular")
  ("isEven", "Even")]

end Mathlib.Tactic.ToAdditive
`,
	"Tactic/Translate/ToDual.lean": `namespace Mathlib.Tactic.ToDual
def nameDict : Std.HashMap String (List String) := .ofList [
  ("top", ["Bot"]),
  ("bot", ["Top"]),
  ("epi", ["Mono"]),
  ("mono", ["Epi"])]

def abbreviationDict : Std.HashMap String String := .ofList [
  ("wellFoundedLT", "WellFoundedGT")]

end Mathlib.Tactic.ToDual
`,
}

// TestTwinNamesFromLibraryDictionary: with the library's own
// Translate/ToAdditive.lean and ToDual.lean among its sources, twins are
// named by Mathlib's guessName with those dictionaries (haar → AddHaar,
// which the built-in word table lacks; a prime splits tokens;
// isSquare → even by the abbreviation), and a named instance in a
// namespace that is a declaration keeps it (Measure.prod stays, Lean's
// `prod.instIsAddHaarMeasure`).
func TestTwinNamesFromLibraryDictionary(t *testing.T) {
	files := map[string]string{
		"Lib/Measure.lean": `universe u
class Group (G : Type u) where
class IsHaarMeasure (μ : Nat) : Prop where
namespace Measure
def prod (μ ν : Nat) : Nat := μ
@[to_additive]
instance prod.instIsHaarMeasure (μ ν : Nat) [IsHaarMeasure μ] : IsHaarMeasure (prod μ ν) := ⟨⟩
@[to_additive] theorem isSquare_mul_self (a : Nat) : True := trivial
@[to_additive] theorem prod_inv' (a : Nat) : True := trivial
end Measure
`,
	}
	for k, v := range translateFiles {
		files[k] = v
	}
	_, rows := extractLib(t, files, Source{Library: "lib", Revision: "r", LeanVersion: "4.29.0"})
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Name] = true
	}
	for _, w := range []string{"Measure.prod.instIsAddHaarMeasure", "Measure.even_add_self", "Measure.sum_neg'"} {
		if !got[w] {
			t.Errorf("missing %s in %v", w, slices.Sorted(maps.Keys(got)))
		}
	}
	g := parseGuessDict(translateFiles["Tactic/Translate/ToAdditive.lean"])
	if g == nil || len(g.abbrs) != 2 || g.abbrs["regular"] != "" {
		t.Fatalf("dictionary read as %+v", g)
	}
	for in, want := range map[string]string{"CommMonoid": "AddCommMonoid", "IsSquare": "Even", "instOneHaar": "instZeroAddHaar",
		"mul_one": "add_zero", "InvHMulLE_ne": "NegHMulLE_ne"} {
		if got := g.guessName(in); got != want {
			t.Errorf("guessName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInstanceNamesAroundTwins: a to_dual twin named like a written
// declaration (BotHom's twin TopHom, Mono's twin Epi) does not replace the
// written one's signature, whose [Top β] the type uses (Lean:
// TopHom.instPreorder); an anonymous instance whose placeholder does not
// translate still has its twin (OrderDual.instBotOfTop), named from the
// instance's final name also when that is its placeholder (Lean ≤ 4.7
// rules), and no twin named like its instance is made; and an instance
// [Subsingleton M] : Zero (Iso Q) or [Subsingleton α] : Zero (Free α)
// gives no Zero about M or α, so [Subsingleton k] is not used by
// `Alg k G`'s [Zero k] (Lean:
// SkewMonoidAlgebra.instUniqueOfSubsingleton), while [IsDomain R] :
// IsIntegral (Spec R) makes [IsDomain R] used by functionField (Spec R)'s
// [IsIntegral X] (Lean: AlgebraicGeometry.instAlgebraFunctionFieldSpec).
func TestInstanceNamesAroundTwins(t *testing.T) {
	files := map[string]string{
		"Lib/A.lean": `universe u
class Top (α : Type u) where
class Bot (α : Type u) where
class Preorder (α : Type u) where
class Zero (α : Type u) where
class Subsingleton (α : Type u) : Prop where
class Unique (α : Type u) where
variable {F α β : Type*}
structure TopHom (α β : Type*) [Top α] [Top β] where
  toFun : α → β
@[to_dual]
structure BotHom (α β : Type*) [Bot α] [Bot β] where
  toFun : α → β
namespace TopHom
variable [Top α]
@[to_dual]
instance [Preorder β] [Top β] : Preorder (TopHom α β) := sorry
end TopHom
structure Iso (M : Type u) where
  f : M
instance Iso.hasZeroOfSubsingleton {M : Type u} [Subsingleton M] : Zero (Iso Nat) := sorry
def Free (α : Type u) := α
instance Free.instZero {α : Type u} [Subsingleton α] : Zero (Free α) := sorry
class IsDomain (R : Type u) : Prop where
class IsIntegral (X : Type u) : Prop where
class Algebra (R A : Type u) where
def Spec (R : Type u) := R
instance Spec.isIntegral {R : Type u} [IsDomain R] : IsIntegral (Spec R) := sorry
def functionField (X : Type u) [IsIntegral X] := X
instance (R : Type u) [IsDomain R] : Algebra R (functionField (Spec R)) := sorry
structure Alg (k G : Type u) [Zero k] where
  f : G → k
namespace Alg
variable {k G : Type u} [Zero k]
instance [Subsingleton k] : Unique (Alg k G) := sorry
end Alg
`,
		// apart: its instances give Top from Bot and back, which would make
		// any [Top β] used through BotHom's [Bot β]
		"Lib/B.lean": `universe u
class Top (α : Type u) where
class Bot (α : Type u) where
def OrderDual (α : Type u) := α
notation:max α "ᵒᵈ" => OrderDual α
namespace OrderDual
variable (α)
@[to_dual]
instance [h : Bot α] : Top αᵒᵈ := ⟨h.bot⟩
end OrderDual
class Pointed (α : Type u) where
@[to_additive] instance : Pointed Nat := ⟨⟩
`,
	}
	var got []string
	for _, lib := range []string{"Lib/A.lean", "Lib/B.lean"} {
		fs := maps.Clone(translateFiles)
		fs[lib] = files[lib]
		_, rows := extractLib(t, fs, Source{Library: "lib", Revision: "r", LeanVersion: "4.29.0"})
		for _, r := range rows {
			if r.Kind == workspace.KindInstance {
				got = append(got, r.Name)
			}
		}
	}
	// under Lean 4.7 rules the instance keeps its written-type name: its
	// twin is still named from it, not left with toAdditive's placeholder
	res, rows := extractLib(t, map[string]string{"Lib/B.lean": files["Lib/B.lean"]}, Source{Library: "lib", Revision: "r", LeanVersion: "4.7.0"})
	if res.DuplicatesDropped != 0 {
		t.Errorf("%d rows dropped: %v (a twin named like its instance is no row)", res.DuplicatesDropped, res.Duplicates)
	}
	for _, r := range rows {
		if strings.HasSuffix(r.Name, ".to_dual") || strings.HasSuffix(r.Name, ".to_additive") {
			t.Errorf("placeholder name %s", r.Name)
		}
	}
	for _, w := range []string{"TopHom.instPreorder", "BotHom.instPreorder", "OrderDual.instTopOfBot", "OrderDual.instBotOfTop",
		"Alg.instUniqueOfSubsingleton", "instAlgebraFunctionFieldSpec"} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in %v", w, got)
		}
	}
}
