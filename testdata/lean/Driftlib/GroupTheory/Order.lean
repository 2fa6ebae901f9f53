import Driftlib.Algebra.Group.Pow
import Driftlib.Data.Nat.GCD

/-!
# Order of an element

`orderOf x` is the least positive `n` with `x ^ n = 1`, or `0` if there is none.
It is defined through `Driftlib.Nat.leastWitness` (written `Nat.leastWitness`
inside `namespace Driftlib`).
-/

universe u

namespace Driftlib

open scoped Driftlib.Nat

section Monoid

variable {G : Type u} [DLMonoid G] {x : G} {n : ℕ}

/-- An element has finite order if some positive power of it is `1`. -/
@[to_additive "An element of an additive monoid has finite additive order if some positive
multiple of it is `0`."]
def IsOfFinOrder (x : G) : Prop := ∃ n, 0 < n ∧ x ^ n = 1

/-- The order of an element: the least positive `n` with `x ^ n = 1`, or `0` if no such `n`. -/
@[to_additive "The additive order of an element of an additive monoid."]
noncomputable def orderOf (x : G) : ℕ := by
  classical
  exact if IsOfFinOrder x then Nat.leastWitness (fun n => 0 < n ∧ x ^ n = 1) else 0

@[to_additive addOrderOf_nsmul_eq_zero]
theorem pow_orderOf_eq_one (x : G) : x ^ orderOf x = 1 := by
  sorry

@[to_additive]
theorem orderOf_pos_iff : 0 < orderOf x ↔ IsOfFinOrder x := by
  sorry

@[to_additive]
theorem orderOf_eq_zero_iff : orderOf x = 0 ↔ ¬IsOfFinOrder x := by
  sorry

@[simp, to_additive]
theorem orderOf_one : orderOf (1 : G) = 1 := by
  sorry

@[to_additive]
theorem orderOf_le_of_pow_eq_one (hn : 0 < n) (h : x ^ n = 1) : orderOf x ≤ n := by
  sorry

@[to_additive]
theorem orderOf_divides_of_pow_eq_one (h : x ^ n = 1) : orderOf x ∣ₙ n := by
  sorry

@[to_additive]
theorem orderOf_divides_iff_pow_eq_one : orderOf x ∣ₙ n ↔ x ^ n = 1 := by
  constructor
  · rintro ⟨k, rfl⟩
    rw [pow_mul, pow_orderOf_eq_one, one_pow]
  · exact orderOf_divides_of_pow_eq_one

@[to_additive]
theorem IsOfFinOrder.one : IsOfFinOrder (1 : G) := ⟨1, Nat.one_pos, one_pow 1⟩

@[to_additive]
theorem isOfFinOrder_iff_pow_eq_one : IsOfFinOrder x ↔ ∃ n, 0 < n ∧ x ^ n = 1 := Iff.rfl

/-- The exponent of a monoid: the least positive `n` with `x ^ n = 1` for all `x`. -/
@[to_additive addExponent "The exponent of an additive monoid."]
noncomputable def exponent (G : Type u) [DLMonoid G] : ℕ := by
  classical
  exact if h : ∃ n, 0 < n ∧ ∀ g : G, g ^ n = 1
    then Nat.leastWitness (fun n => 0 < n ∧ ∀ g : G, g ^ n = 1) else 0

@[to_additive addOrderOf_divides_addExponent]
theorem orderOf_divides_exponent (x : G) : orderOf x ∣ₙ exponent G := by
  sorry

end Monoid

section Group

variable {G : Type u} [DLGroup G]

@[simp, to_additive]
theorem orderOf_inv (x : G) : orderOf x⁻¹ = orderOf x := by
  sorry

/-- Conjugate elements have the same order. -/
@[to_additive]
theorem orderOf_conj (g x : G) : orderOf (conj g x) = orderOf x := by
  sorry

/-- An element of order two is its own inverse. -/
theorem inv_eq_self_of_orderOf_eq_two {x : G} (h : orderOf x = 2) : x⁻¹ = x := by
  apply inv_eq_of_mul_eq_one_right
  rw [← sq, ← h, pow_orderOf_eq_one]

end Group

theorem orderOf_mul_of_comm_of_coprime {G : Type u} [DLCommGroup G] {x y : G}
    (h : Nat.Coprime (orderOf x) (orderOf y)) : orderOf (x * y) = orderOf x * orderOf y := by
  sorry

end Driftlib
