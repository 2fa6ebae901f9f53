import Driftlib.Data.Nat.Prime

/-!
# Congruences

`Nat.ModEq n a b`, written `a ≡ b [MOD n]` (scoped in `Driftlib.Nat`), Euler's
totient function, and the Chinese remainder theorem.
-/

namespace Driftlib.Nat

/-- `a ≡ b [MOD n]`: `a` and `b` have the same remainder modulo `n`. -/
def ModEq (n a b : ℕ) : Prop := a % n = b % n

@[inherit_doc] scoped notation:50 a " ≡ " b " [MOD " n "]" => ModEq n a b

instance (n a b : ℕ) : Decidable (a ≡ b [MOD n]) := by
  unfold ModEq
  infer_instance

namespace ModEq

variable {n a b c d : ℕ}

@[refl] protected theorem refl (a : ℕ) : a ≡ a [MOD n] := rfl

protected theorem rfl : a ≡ a [MOD n] := ModEq.refl a

@[symm] protected theorem symm : a ≡ b [MOD n] → b ≡ a [MOD n] := Eq.symm

@[trans] protected theorem trans : a ≡ b [MOD n] → b ≡ c [MOD n] → a ≡ c [MOD n] := Eq.trans

theorem add (h₁ : a ≡ b [MOD n]) (h₂ : c ≡ d [MOD n]) : a + c ≡ b + d [MOD n] := by
  unfold ModEq at *
  rw [Nat.add_mod, h₁, h₂, ← Nat.add_mod]

theorem mul (h₁ : a ≡ b [MOD n]) (h₂ : c ≡ d [MOD n]) : a * c ≡ b * d [MOD n] := by
  unfold ModEq at *
  rw [Nat.mul_mod, h₁, h₂, ← Nat.mul_mod]

theorem pow (k : ℕ) (h : a ≡ b [MOD n]) : a ^ k ≡ b ^ k [MOD n] := by
  induction k with
  | zero => exact ModEq.rfl
  | succ k ih => rw [Nat.pow_succ, Nat.pow_succ]; exact ih.mul h

end ModEq

variable {n a b : ℕ}

theorem modEq_iff_divides (h : a ≤ b) : a ≡ b [MOD n] ↔ n ∣ₙ b - a := by
  sorry

theorem modEq_zero_iff_divides : a ≡ 0 [MOD n] ↔ n ∣ₙ a := by
  sorry

theorem mod_modEq (a n : ℕ) : a % n ≡ a [MOD n] := Nat.mod_mod a n

/-- Euler's totient function: the number of `k < n` coprime to `n`. -/
def totient (n : ℕ) : ℕ := ((List.range n).filter (fun k => gcd n k == 1)).length

@[inherit_doc] scoped notation "φ" => totient

/-- An inverse of `a` modulo `n`, if it exists. -/
def IsModInverse (n a b : ℕ) : Prop := a * b ≡ 1 [MOD n]

theorem totient_prime {p : ℕ} (hp : Prime p) : φ p = p - 1 := by
  sorry

theorem exists_modInverse {a : ℕ} (h : Coprime a n) : ∃ b, IsModInverse n a b := by
  sorry

/-- The Chinese remainder theorem. -/
theorem chinese_remainder {m : ℕ} (h : Coprime m n) (a b : ℕ) :
    ∃ k, k ≡ a [MOD m] ∧ k ≡ b [MOD n] := by
  sorry

#eval (List.range 13).map totient

end Driftlib.Nat
