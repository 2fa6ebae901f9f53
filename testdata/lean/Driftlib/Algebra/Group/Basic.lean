import Driftlib.Algebra.Group.Defs
import Driftlib.Logic.Function

/-!
# Basic lemmas about monoids and groups

Every multiplicative lemma here carries `@[to_additive]`, so that an additive
twin is generated (`mul_left_cancel` ↦ `add_left_cancel`, `inv_inv` ↦ `neg_neg`, …).
-/

universe u v

namespace Driftlib

section DLSemigroup

variable {G : Type u} [DLSemigroup G]

@[to_additive]
theorem mul_assoc (a b c : G) : a * b * c = a * (b * c) := DLSemigroup.mul_assoc a b c

end DLSemigroup

section DLCommSemigroup

variable {G : Type u} [DLCommSemigroup G]

@[to_additive]
theorem mul_comm (a b : G) : a * b = b * a := DLCommSemigroup.mul_comm a b

@[to_additive]
lemma mul_left_comm (a b c : G) : a * (b * c) = b * (a * c) := by
  rw [← mul_assoc, mul_comm a b, mul_assoc]

@[to_additive]
theorem mul_right_comm (a b c : G) : a * b * c = a * c * b := by
  rw [mul_assoc, mul_comm b c, ← mul_assoc]

end DLCommSemigroup

section DLMonoid

variable {M : Type u} [DLMonoid M] {a b c : M}

@[simp, to_additive]
theorem one_mul (a : M) : 1 * a = a := DLMonoid.one_mul a

@[simp,
  to_additive "Adding zero on the right does nothing."]
theorem mul_one (a : M) : a * 1 = a := DLMonoid.mul_one a

/-- If `a` has a left inverse `b` and a right inverse `c`, then `b = c`. -/
@[to_additive "If `a` has a left negative `b` and a right negative `c`, then `b = c`."]
theorem left_inv_eq_right_inv (hba : b * a = 1) (hac : a * c = 1) : b = c := by
  rw [← one_mul c, ← hba, mul_assoc, hac, mul_one b]

/-- An element of a monoid is a unit if it has a two-sided inverse. -/
@[to_additive "An element of an additive monoid is an additive unit if it has a two-sided
negative."]
def IsUnit (a : M) : Prop := ∃ b : M, a * b = 1 ∧ b * a = 1

@[to_additive]
theorem isUnit_one : IsUnit (1 : M) := ⟨1, mul_one 1, mul_one 1⟩

@[to_additive]
theorem IsUnit.mul (ha : IsUnit a) (hb : IsUnit b) : IsUnit (a * b) := by
  obtain ⟨a', ha₁, ha₂⟩ := ha
  obtain ⟨b', hb₁, hb₂⟩ := hb
  refine ⟨b' * a', ?_, ?_⟩
  · calc a * b * (b' * a') = a * (b * b') * a' := by simp only [mul_assoc]
      _ = a * a' := by rw [hb₁, mul_one]
      _ = 1 := ha₁
  · calc b' * a' * (a * b) = b' * (a' * a) * b := by simp only [mul_assoc]
      _ = 1 := by rw [ha₂, mul_one, hb₂]

end DLMonoid

/-!
## Groups

Cancellation, inverses of products and conjugation.
-/

section DLGroup

variable {G : Type u} [DLGroup G] {a b c : G}

@[simp, to_additive]
theorem inv_mul_cancel (a : G) : a⁻¹ * a = 1 := DLGroup.inv_mul_cancel a

@[to_additive]
theorem inv_eq_of_mul_eq_one_right (h : a * b = 1) : a⁻¹ = b :=
  left_inv_eq_right_inv (inv_mul_cancel a) h

@[simp, to_additive]
theorem mul_inv_cancel (a : G) : a * a⁻¹ = 1 := by
  rw [← inv_mul_cancel a⁻¹, inv_eq_of_mul_eq_one_right (inv_mul_cancel a)]

@[simp, to_additive]
theorem inv_inv (a : G) : a⁻¹⁻¹ = a := inv_eq_of_mul_eq_one_right (inv_mul_cancel a)

/-- Left cancellation in a group. -/
@[to_additive "Left cancellation in an additive group."]
theorem mul_left_cancel (h : a * b = a * c) : b = c := by
  rw [← one_mul b, ← inv_mul_cancel a, mul_assoc, h, ← mul_assoc, inv_mul_cancel, one_mul]

@[to_additive]
theorem mul_right_cancel (h : b * a = c * a) : b = c :=
  calc b = b * a * a⁻¹ := by rw [mul_assoc, mul_inv_cancel, mul_one]
    _ = c * a * a⁻¹ := by rw [h]
    _ = c := by rw [mul_assoc, mul_inv_cancel, mul_one]

@[to_additive]
theorem mul_left_cancel_iff : a * b = a * c ↔ b = c :=
  ⟨mul_left_cancel, fun h => h ▸ rfl⟩

@[simp, to_additive]
theorem inv_one : (1 : G)⁻¹ = 1 := inv_eq_of_mul_eq_one_right (mul_one 1)

@[to_additive]
theorem mul_inv_rev (a b : G) : (a * b)⁻¹ = b⁻¹ * a⁻¹ := by
  apply inv_eq_of_mul_eq_one_right
  rw [mul_assoc, ← mul_assoc b, mul_inv_cancel, one_mul, mul_inv_cancel]

@[simp, to_additive]
theorem mul_inv_cancel_left (a b : G) : a * (a⁻¹ * b) = b := by
  rw [← mul_assoc, mul_inv_cancel, one_mul]

@[simp, to_additive]
theorem inv_mul_cancel_left (a b : G) : a⁻¹ * (a * b) = b := by
  rw [← mul_assoc, inv_mul_cancel, one_mul]

@[to_additive]
theorem eq_inv_of_mul_eq_one_left (h : a * b = 1) : a = b⁻¹ := by
  rw [← inv_eq_of_mul_eq_one_right h, inv_inv]

@[to_additive]
theorem mul_eq_one_iff_eq_inv : a * b = 1 ↔ a = b⁻¹ :=
  ⟨eq_inv_of_mul_eq_one_left, fun h => by rw [h, inv_mul_cancel]⟩

@[to_additive]
theorem div_eq_mul_inv (a b : G) : a / b = a * b⁻¹ := DLGroup.div_eq_mul_inv a b

@[simp, to_additive]
theorem div_self' (a : G) : a / a = 1 := by rw [div_eq_mul_inv, mul_inv_cancel]

@[to_additive]
theorem inv_injective : Function.Injective (DLInv.inv : G → G) := fun a b h => by
  rw [← inv_inv a, ← inv_inv b]
  exact congrArg DLInv.inv h

@[to_additive]
lemma inv_inj : a⁻¹ = b⁻¹ ↔ a = b := inv_injective.eq_iff

alias mul_left_cancel' := mul_left_cancel

/-- Conjugation of `b` by `a`. -/
@[to_additive addConj "Additive conjugation `a + b - a`."]
def conj (a b : G) : G := a * b * a⁻¹

@[to_additive addConj_zero]
theorem conj_one (a : G) : conj a 1 = 1 := by simp [conj]

end DLGroup

section DLCommGroup

variable {G : Type u} [DLCommGroup G]

@[to_additive]
theorem mul_inv (a b : G) : (a * b)⁻¹ = a⁻¹ * b⁻¹ := by
  rw [mul_inv_rev, mul_comm]

@[to_additive addConj_eq_self]
theorem conj_eq_self (a b : G) : conj a b = b := by
  rw [conj, mul_comm a b, mul_assoc, mul_inv_cancel, mul_one]

end DLCommGroup

/-- The permutations of a type form a group under composition. -/
instance DLEquiv.instDLGroupPerm {α : Type v} : DLGroup (DLEquiv.Perm α) where
  mul f g := g.trans f
  one := DLEquiv.refl α
  inv := DLEquiv.symm
  mul_assoc _ _ _ := rfl
  one_mul _ := rfl
  mul_one _ := rfl
  inv_mul_cancel e := by
    sorry

end Driftlib
