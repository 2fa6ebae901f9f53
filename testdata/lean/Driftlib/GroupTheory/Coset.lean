import Driftlib.GroupTheory.Subgroup
import Driftlib.GroupTheory.Order
import Driftlib.Data.Fintype
import Driftlib.Logic.Relation

/-!
# Cosets and Lagrange's theorem

Left and right cosets of a subgroup, the index, and Lagrange's theorem for
finite groups (stated, with `sorry` proofs).
-/

universe u

namespace Driftlib

open scoped Driftlib.Nat

namespace Subgroup

variable {G : Type u} [DLGroup G]

/-- The left coset `a H = {a * h | h ∈ H}`. -/
def leftCoset (a : G) (H : Subgroup G) : DSet G := fun x => a⁻¹ * x ∈ H

/-- The right coset `H a = {h * a | h ∈ H}`. -/
def rightCoset (H : Subgroup G) (a : G) : DSet G := fun x => x * a⁻¹ ∈ H

/-- The relation "same left coset". -/
def LeftCosetRel (H : Subgroup G) (a b : G) : Prop := a⁻¹ * b ∈ H

theorem mem_leftCoset_iff {H : Subgroup G} {a x : G} : x ∈ leftCoset a H ↔ a⁻¹ * x ∈ H :=
  Iff.rfl

theorem mem_leftCoset_self (H : Subgroup G) (a : G) : a ∈ leftCoset a H := by
  show a⁻¹ * a ∈ H
  rw [inv_mul_cancel]
  exact H.one_mem

theorem leftCosetRel_equivalence (H : Subgroup G) : Relation.Equivalence' (LeftCosetRel H) where
  refl a := by show a⁻¹ * a ∈ H; rw [inv_mul_cancel]; exact H.one_mem
  symm := @fun a b h => by
    show b⁻¹ * a ∈ H
    have := H.inv_mem h
    rwa [mul_inv_rev, inv_inv] at this
  trans := @fun a b c h₁ h₂ => by
    show a⁻¹ * c ∈ H
    have := H.mul_mem h₁ h₂
    rwa [mul_assoc, mul_inv_cancel_left] at this

theorem leftCoset_eq_iff {H : Subgroup G} {a b : G} :
    leftCoset a H = leftCoset b H ↔ a⁻¹ * b ∈ H := by
  sorry

theorem leftCoset_one (H : Subgroup G) : leftCoset 1 H = H.carrier := by
  ext x
  show (1 : G)⁻¹ * x ∈ H ↔ x ∈ H
  rw [inv_one, one_mul]

noncomputable section

/-- The index of `H`: the least number of left cosets needed to cover `G`. -/
def index (H : Subgroup G) : ℕ :=
  Nat.leastWitness (fun n => ∃ f : Fin n → G, ∀ g : G, ∃ i, g ∈ leftCoset (f i) H)

/-- The number of elements of a subgroup of a finite group. -/
def card [DLFintype G] (H : Subgroup G) [DecidablePred (· ∈ H)] : ℕ :=
  ((DLFintype.elems : DFinset G).filter (· ∈ H)).card

end

/-- **Lagrange's theorem**: `|H| * [G : H] = |G|`. -/
theorem card_mul_index [DLFintype G] (H : Subgroup G) [DecidablePred (· ∈ H)] :
    H.card * H.index = DLFintype.card G := by
  sorry

/-- The order of a subgroup divides the order of the group. -/
theorem card_divides_card [DLFintype G] (H : Subgroup G) [DecidablePred (· ∈ H)] :
    H.card ∣ₙ DLFintype.card G :=
  ⟨H.index, (card_mul_index H).symm⟩

theorem index_top : (Subgroup.top : Subgroup G).index = 1 := by
  sorry

end Subgroup

/-- The order of an element of a finite group divides the order of the group. -/
theorem orderOf_divides_card {G : Type u} [DLGroup G] [DLFintype G] (x : G) :
    orderOf x ∣ₙ DLFintype.card G := by
  sorry

/-- In a finite group, `x ^ |G| = 1`. -/
theorem pow_card_eq_one {G : Type u} [DLGroup G] [DLFintype G] (x : G) :
    x ^ DLFintype.card G = 1 :=
  orderOf_divides_iff_pow_eq_one.mp (orderOf_divides_card x)

end Driftlib
