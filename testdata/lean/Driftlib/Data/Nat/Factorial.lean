import Driftlib.Data.Nat.Prime

/-!
# Factorials and binomial coefficients

The notation `n !` is scoped in `Driftlib.Nat`.
-/

namespace Driftlib.Nat

/-- The factorial `n! = 1 * 2 * ⋯ * n`. -/
def factorial : ℕ → ℕ
  | 0 => 1
  | n + 1 => (n + 1) * factorial n

@[inherit_doc] scoped notation:10000 n "!" => factorial n

/-- Binomial coefficients, by Pascal's rule. -/
def choose : ℕ → ℕ → ℕ
  | _, 0 => 1
  | 0, _ + 1 => 0
  | n + 1, k + 1 => choose n k + choose n (k + 1)

/-- The descending factorial `n (n - 1) ⋯ (n - k + 1)`. -/
def descFactorial (n : ℕ) : ℕ → ℕ
  | 0 => 1
  | k + 1 => (n - k) * descFactorial n k

variable {m n k : ℕ}

@[simp] theorem factorial_zero : 0 ! = 1 := rfl

theorem factorial_succ (n : ℕ) : (n + 1)! = (n + 1) * n ! := rfl

theorem factorial_pos : ∀ n : ℕ, 0 < n !
  | 0 => Nat.zero_lt_one
  | n + 1 => Nat.mul_pos (Nat.succ_pos n) (factorial_pos n)

/-- Every positive `m ≤ n` divides `n!`. -/
theorem self_divides_factorial (h0 : 0 < m) (h : m ≤ n) : m ∣ₙ n ! := by
  induction n with
  | zero => omega
  | succ n ih =>
    rw [factorial_succ]
    rcases Nat.lt_or_eq_of_le h with hlt | rfl
    · exact (ih (Nat.le_of_lt_succ hlt)).mul_left _
    · exact divides_mul_right _ _

theorem factorial_le_factorial (h : m ≤ n) : m ! ≤ n ! := by
  sorry

@[simp] theorem choose_zero_right (n : ℕ) : choose n 0 = 1 := by cases n <;> rfl

theorem choose_self (n : ℕ) : choose n n = 1 := by
  sorry

theorem choose_symm (h : k ≤ n) : choose n (n - k) = choose n k := by
  sorry

theorem choose_mul_factorial_mul_factorial (h : k ≤ n) :
    choose n k * k ! * (n - k)! = n ! := by
  sorry

/-- A prime divides `n!` if and only if it is at most `n`. -/
theorem Prime.divides_factorial {p : ℕ} (hp : Prime p) : p ∣ₙ n ! ↔ p ≤ n := by
  sorry

/-- Euclid's theorem: there are infinitely many primes. -/
theorem exists_infinite_primes (n : ℕ) : ∃ p, n ≤ p ∧ Prime p := by
  let p := minFac (n ! + 1)
  have hne : n ! + 1 ≠ 1 := by have := factorial_pos n; omega
  have hp : Prime p := minFac_prime hne
  refine ⟨p, ?_, hp⟩
  apply Classical.byContradiction
  intro hlt
  have h₁ : p ∣ₙ n ! := self_divides_factorial hp.pos (by omega)
  have h₂ : p ∣ₙ n ! + 1 := minFac_divides _
  have : p ∣ₙ 1 := by
    have := divides_sub' h₂ h₁
    simpa using this
  exact hp.ne_one (divides_one.mp this)

#eval (List.range 8).map factorial
#eval choose 10 3

end Driftlib.Nat
