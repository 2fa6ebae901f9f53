import Driftlib.Algebra.Field
import Driftlib.Order.Lattice

/-!
# Ordered algebraic structures

Ordered additive groups and linear ordered fields, absolute values `|a|` and
distances. The notation `|a|` is a `macro`.
-/

universe u

namespace Driftlib

/-- An ordered additive commutative group: addition is monotone. -/
class DLOrderedAddCommGroup (G : Type u) extends DLAddCommGroup G, DLPartialOrder G where
  add_le_add_left : ∀ a b : G, a ≤ b → ∀ c : G, c + a ≤ c + b

/-- A linear ordered field, such as the rationals or the reals. -/
class DLLinearOrderedField (K : Type u) extends DLField K, DLLinearOrder K where
  add_le_add_left : ∀ a b : K, a ≤ b → ∀ c : K, c + a ≤ c + b
  zero_le_one : (0 : K) ≤ 1
  mul_pos : ∀ a b : K, 0 < a → 0 < b → 0 < a * b

section LinearOrderedField

variable {K : Type u} [DLLinearOrderedField K] {a b c : K}

/-- The absolute value of an element of a linear ordered field. -/
def abs (a : K) : K := if a ≤ 0 then -a else a

/-- Notation `|a|` for the absolute value. -/
macro:max atomic("|" noWs) a:term noWs "|" : term => `(abs $a)

/-- The distance between two elements. -/
def dist (a b : K) : K := |a - b|

/-- An element is positive. -/
def IsPos (a : K) : Prop := 0 < a

theorem abs_nonneg (a : K) : 0 ≤ |a| := by
  sorry

@[simp] theorem abs_zero : |(0 : K)| = 0 := by
  sorry

theorem abs_neg (a : K) : |-a| = |a| := by
  sorry

theorem le_abs_self (a : K) : a ≤ |a| := by
  unfold abs
  split
  · sorry
  · exact le_rfl

/-- The triangle inequality. -/
theorem abs_add (a b : K) : |a + b| ≤ |a| + |b| := by
  sorry

theorem abs_sub_comm (a b : K) : |a - b| = |b - a| := by
  sorry

theorem abs_mul (a b : K) : |a * b| = |a| * |b| := by
  sorry

theorem abs_lt : |a| < b ↔ -b < a ∧ a < b := by
  sorry

theorem dist_comm (a b : K) : dist a b = dist b a := abs_sub_comm a b

theorem dist_triangle (a b c : K) : dist a c ≤ dist a b + dist b c := by
  unfold dist
  have h : a - c = (a - b) + (b - c) := by sorry
  rw [h]
  exact abs_add _ _

theorem add_pos (ha : 0 < a) (hb : 0 < b) : 0 < a + b := by
  sorry

/-- Half of a positive number is positive. -/
theorem half_pos (ha : 0 < a) : 0 < a / (1 + 1) := by
  sorry

theorem zero_lt_one' : (0 : K) < 1 := by
  sorry

end LinearOrderedField

end Driftlib
