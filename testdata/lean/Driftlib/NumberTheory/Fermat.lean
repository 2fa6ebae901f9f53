import Driftlib.NumberTheory.ModEq
import Driftlib.Data.Nat.Factorial
import Driftlib.Data.Nat.Parity

/-!
# Classical theorems of elementary number theory

Fermat's little theorem, Euler's theorem, Wilson's theorem, quadratic residues,
Mersenne and Fermat numbers.
-/

open Driftlib.Nat (ModEq Prime totient Coprime)
open scoped Driftlib.Nat

namespace Driftlib.NumberTheory

/-- `a` is a quadratic residue modulo `p` if it is congruent to a square. -/
def IsQuadraticResidue (p a : ℕ) : Prop := ∃ x, x ^ 2 ≡ a [MOD p]

open Classical in
/-- The Legendre symbol `(a / p)` as an integer in `{-1, 0, 1}`. -/
noncomputable def legendreSym (p a : ℕ) : ℤ :=
  if a % p = 0 then 0 else if IsQuadraticResidue p a then 1 else -1

/-- The Mersenne number `2 ^ p - 1`. -/
def mersenne (p : ℕ) : ℕ := 2 ^ p - 1

/-- The Fermat number `2 ^ (2 ^ n) + 1`. -/
def fermatNumber (n : ℕ) : ℕ := 2 ^ 2 ^ n + 1

/-- `n` is a sum of two squares. -/
def IsSumOfTwoSquares (n : ℕ) : Prop := ∃ a b, n = a ^ 2 + b ^ 2

/-- **Fermat's little theorem**. -/
theorem fermat_little {p a : ℕ} (hp : Prime p) (ha : Coprime a p) : a ^ (p - 1) ≡ 1 [MOD p] := by
  sorry

/-- **Euler's theorem**. -/
theorem euler_totient {n a : ℕ} (ha : Coprime a n) : a ^ φ n ≡ 1 [MOD n] := by
  sorry

/-- **Wilson's theorem**. -/
theorem wilson {p : ℕ} (hp : Prime p) : (p - 1)! ≡ p - 1 [MOD p] := by
  sorry

theorem Prime.of_mersenne {p : ℕ} (h : Prime (mersenne p)) : Prime p := by
  sorry

theorem fermatNumber_odd (n : ℕ) : Nat.Odd (fermatNumber n) := by
  sorry

/-- Fermat's theorem on sums of two squares. -/
theorem isSumOfTwoSquares_of_prime_mod_four {p : ℕ} (hp : Prime p) (h : p % 4 = 1) :
    IsSumOfTwoSquares p := by
  sorry

/-- Euler's criterion. -/
theorem euler_criterion {p a : ℕ} (hp : Prime p) (hp2 : p ≠ 2) (ha : ¬p ∣ₙ a) :
    IsQuadraticResidue p a ↔ a ^ ((p - 1) / 2) ≡ 1 [MOD p] := by
  sorry

theorem mersenne_lt_two_pow (p : ℕ) : mersenne p < 2 ^ p := by
  unfold mersenne
  have := Nat.pos_pow_of_pos p (by decide : 0 < 2)
  omega

example : mersenne 5 = 31 := rfl

#eval (List.range 5).map fermatNumber

end Driftlib.NumberTheory
