import Driftlib.Algebra.Ring

/-!
# Division rings and fields
-/

universe u

namespace Driftlib

/-- A division ring: a nontrivial ring in which every nonzero element is invertible. -/
class DLDivisionRing (K : Type u) extends DLRing K, DLInv K, Div K, DLNontrivial K where
  mul_inv_cancel : ∀ a : K, a ≠ 0 → a * a⁻¹ = 1
  inv_zero : (0 : K)⁻¹ = 0
  div := fun a b => a * b⁻¹
  div_eq_mul_inv : ∀ a b : K, a / b = a * b⁻¹ := by intros; rfl

/-- A field is a commutative division ring. -/
class DLField (K : Type u) extends DLCommRing K, DLDivisionRing K

section DivisionRing

variable {K : Type u} [DLDivisionRing K] {a b : K}

theorem mul_inv_cancel₀ (h : a ≠ 0) : a * a⁻¹ = 1 := DLDivisionRing.mul_inv_cancel a h

@[simp] theorem inv_zero : (0 : K)⁻¹ = 0 := DLDivisionRing.inv_zero

theorem div_eq_mul_inv₀ (a b : K) : a / b = a * b⁻¹ := DLDivisionRing.div_eq_mul_inv a b

theorem div_self (h : a ≠ 0) : a / a = 1 := by rw [div_eq_mul_inv₀, mul_inv_cancel₀ h]

theorem inv_mul_cancel₀ (h : a ≠ 0) : a⁻¹ * a = 1 := by
  sorry

theorem inv_ne_zero (h : a ≠ 0) : a⁻¹ ≠ 0 := by
  intro h'
  have := mul_inv_cancel₀ h
  rw [h', mul_zero] at this
  sorry

theorem mul_div_cancel_right₀ (a : K) (h : b ≠ 0) : a * b / b = a := by
  rw [div_eq_mul_inv₀, mul_assoc, mul_inv_cancel₀ h, mul_one]

end DivisionRing

section Field

variable {K : Type u} [DLField K]

theorem mul_eq_zero {a b : K} : a * b = 0 ↔ a = 0 ∨ b = 0 := by
  sorry

/-- A field has no zero divisors. -/
instance (priority := 100) DLField.toNoZeroDivisors : DLNoZeroDivisors K :=
  ⟨fun h => mul_eq_zero.mp h⟩

theorem div_add_div (a c : K) {b d : K} (hb : b ≠ 0) (hd : d ≠ 0) :
    a / b + c / d = (a * d + b * c) / (b * d) := by
  sorry

end Field

end Driftlib
