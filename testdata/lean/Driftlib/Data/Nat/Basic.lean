module

public import Driftlib.Logic.Basic

/-!
# Natural numbers: basic definitions

Elementary functions on `ℕ` used by the rest of the library, including a
least-witness operator `Nat.leastWitness` given by an `opaque` constant and an
`axiom` describing it.
-/

@[expose] public section

universe u

/-- A variant of core's `Nat.succ_le` stated with `m.succ`. Declared in the root namespace. -/
theorem Nat.succ_le_iff' {m n : ℕ} : m.succ ≤ n ↔ m < n := Nat.succ_le

namespace Driftlib.Nat

/-- Truncated predecessor. -/
def pred' : ℕ → ℕ
  | 0 => 0
  | n + 1 => n

/-- `n` is a perfect square. -/
def IsSquare (n : ℕ) : Prop := ∃ k, n = k * k

/-- The sum `0 + 1 + ⋯ + n`. -/
def sumTo (n : ℕ) : ℕ :=
  match n with
  | 0 => 0
  | k + 1 => sumTo k + (k + 1)

/-- The Fibonacci numbers. -/
def fib : ℕ → ℕ
  | 0 => 0
  | 1 => 1
  | n + 2 => fib n + fib (n + 1)

/-- Integer base-2 logarithm (with `log2' 0 = 0`). -/
def log2' (n : ℕ) : ℕ :=
  if h : n < 2 then 0 else 1 + log2' (n / 2)
termination_by n
decreasing_by exact Nat.div_lt_self (by omega) (by decide)

/-- The sum of the digits of `n` in base `b`. -/
def digitSum (b n : ℕ) : ℕ := go n (n + 1)
where
  /-- Fuel-bounded digit sum. -/
  go : ℕ → ℕ → ℕ
    | _, 0 => 0
    | m, fuel + 1 => if m = 0 then 0 else m % b + go (m / b) fuel

/-- Some least element satisfying `p`, if there is one (unspecified otherwise). -/
opaque leastWitness (p : ℕ → Prop) : ℕ

/-- The specification of `leastWitness`. -/
axiom leastWitness_spec (p : ℕ → Prop) (h : ∃ n, p n) :
  p (leastWitness p) ∧ ∀ m, p m → leastWitness p ≤ m

/-- A constant that is not unfolded by the elaborator. -/
@[irreducible] def secretConst : ℕ := 42

theorem sumTo_succ (n : ℕ) : sumTo (n + 1) = sumTo n + (n + 1) := rfl

/-- Gauss's formula. -/
theorem two_mul_sumTo (n : ℕ) : 2 * sumTo n = n * (n + 1) := by
  induction n with
  | zero => rfl
  | succ n ih =>
    rw [sumTo_succ, Nat.mul_add, ih]
    sorry

theorem fib_add_two (n : ℕ) : fib (n + 2) = fib n + fib (n + 1) := rfl

theorem fib_pos {n : ℕ} (h : 0 < n) : 0 < fib n := by
  sorry

theorem fib_mono : ∀ n, fib n ≤ fib (n + 1)
  | 0 => Nat.zero_le _
  | n + 1 => by rw [fib_add_two]; exact Nat.le_add_left _ _

theorem leastWitness_le {p : ℕ → Prop} {m : ℕ} (hm : p m) : leastWitness p ≤ m :=
  (leastWitness_spec p ⟨m, hm⟩).2 m hm

theorem isSquare_mul_self (k : ℕ) : IsSquare (k * k) := ⟨k, rfl⟩

private theorem pred'_le (n : ℕ) : pred' n ≤ n := by
  cases n <;> simp [pred']

theorem pred'_lt {n : ℕ} (h : 0 < n) : pred' n < n := by
  cases n with
  | zero => exact absurd h (Nat.lt_irrefl 0)
  | succ n => exact Nat.lt_succ_self n

example : fib 10 = 55 := rfl

set_option maxRecDepth 2000 in
example : sumTo 100 = 5050 := by decide

#eval digitSum 10 2024

end Driftlib.Nat

end
