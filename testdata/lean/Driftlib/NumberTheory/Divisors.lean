import Driftlib.Data.Finset.Sum
import Driftlib.Data.Nat.Prime

/-!
# Divisors

The finite set of divisors of `n`, proper divisors, the divisor sum function and
perfect numbers.
-/

open Driftlib.DFinset (range filter card)

namespace Driftlib.Nat

/-- The positive divisors of `n` (empty for `n = 0`). -/
def divisors (n : ℕ) : DFinset ℕ := (range (n + 1)).filter (fun d => 0 < d ∧ d ∣ₙ n ∧ 0 < n)

/-- The divisors of `n` other than `n` itself. -/
def properDivisors (n : ℕ) : DFinset ℕ := (range n).filter (fun d => 0 < d ∧ d ∣ₙ n)

/-- `σ k n`, the sum of the `k`-th powers of the divisors of `n`. -/
def sigma (k n : ℕ) : ℕ := ∑ᵈ d ∈ divisors n, d ^ k

/-- A number is perfect if it is the sum of its proper divisors. -/
def Perfect (n : ℕ) : Prop := (∑ᵈ i ∈ properDivisors n, i) = n ∧ 0 < n

/-- The number of divisors of `n`. -/
def numDivisors (n : ℕ) : ℕ := card (divisors n)

variable {n m : ℕ}

theorem mem_divisors : m ∈ divisors n ↔ m ∣ₙ n ∧ n ≠ 0 := by
  sorry

theorem mem_properDivisors : m ∈ properDivisors n ↔ m ∣ₙ n ∧ m < n := by
  sorry

theorem divisors_zero : divisors 0 = ∅ := by
  sorry

theorem one_mem_divisors : 1 ∈ divisors n ↔ n ≠ 0 := by
  simp [mem_divisors]

/-- A prime has exactly two divisors. -/
theorem Prime.numDivisors {p : ℕ} (hp : Prime p) : numDivisors p = 2 := by
  sorry

theorem sum_divisors_eq_sum_properDivisors_add_self :
    (∑ᵈ i ∈ divisors n, i) = (∑ᵈ i ∈ properDivisors n, i) + n := by
  sorry

theorem perfect_iff_sum_divisors_eq_two_mul (h : 0 < n) :
    Perfect n ↔ (∑ᵈ i ∈ divisors n, i) = 2 * n := by
  sorry

/-- `6` is a perfect number. -/
theorem perfect_six : Perfect 6 := by
  sorry

theorem sigma_one_apply (n : ℕ) : sigma 1 n = ∑ᵈ d ∈ divisors n, d := by
  sorry

#eval (divisors 12).val

end Driftlib.Nat
