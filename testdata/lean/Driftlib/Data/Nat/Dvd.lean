import Driftlib.Data.Nat.Basic

/-!
# Divisibility on `ℕ`

`Driftlib.Nat.Divides a b` (notation `a ∣ₙ b`, scoped in `Driftlib.Nat`) means that
`b = a * c` for some `c`.
-/

namespace Driftlib.Nat

/-- `a` divides `b` if `b = a * c` for some natural number `c`. -/
def Divides (a b : ℕ) : Prop := ∃ c, b = a * c

@[inherit_doc] scoped infix:50 " ∣ₙ " => Divides

instance decidableDivides (a b : ℕ) : Decidable (a ∣ₙ b) :=
  decidable_of_iff (b % a = 0) (by sorry)

variable {a b c : ℕ}

@[refl] theorem divides_refl (a : ℕ) : a ∣ₙ a := ⟨1, (Nat.mul_one a).symm⟩

theorem divides_trans : a ∣ₙ b → b ∣ₙ c → a ∣ₙ c
  | ⟨d, hd⟩, ⟨e, he⟩ => ⟨d * e, by rw [he, hd, Nat.mul_assoc]⟩

alias Divides.trans := divides_trans

@[simp] theorem divides_zero (a : ℕ) : a ∣ₙ 0 := ⟨0, (Nat.mul_zero a).symm⟩

@[simp] theorem one_divides (a : ℕ) : 1 ∣ₙ a := ⟨a, (Nat.one_mul a).symm⟩

lemma divides_mul_right (a b : ℕ) : a ∣ₙ a * b := ⟨b, rfl⟩

lemma divides_mul_left (a b : ℕ) : a ∣ₙ b * a := ⟨b, Nat.mul_comm b a⟩

theorem Divides.mul_right (h : a ∣ₙ b) (c : ℕ) : a ∣ₙ b * c :=
  h.trans (divides_mul_right b c)

theorem Divides.mul_left (h : a ∣ₙ b) (c : ℕ) : a ∣ₙ c * b :=
  h.trans (divides_mul_left b c)

/-- If `a` divides `b` and `c`, it divides `b + c`. -/
theorem divides_add (h₁ : a ∣ₙ b) (h₂ : a ∣ₙ c) : a ∣ₙ b + c := by
  obtain ⟨d, rfl⟩ := h₁
  obtain ⟨e, rfl⟩ := h₂
  exact ⟨d + e, by rw [Nat.mul_add]⟩

theorem divides_sub' (h₁ : a ∣ₙ b) (h₂ : a ∣ₙ c) : a ∣ₙ b - c := by
  obtain ⟨d, rfl⟩ := h₁
  obtain ⟨e, rfl⟩ := h₂
  exact ⟨d - e, by rw [Nat.mul_sub]⟩

theorem divides_add_right_iff (h : a ∣ₙ b) : a ∣ₙ b + c ↔ a ∣ₙ c := by
  sorry

/-- A positive number is at least as large as each of its divisors. -/
theorem le_of_divides (hb : 0 < b) (h : a ∣ₙ b) : a ≤ b := by
  obtain ⟨c, rfl⟩ := h
  cases c with
  | zero => rw [Nat.mul_zero] at hb; exact absurd hb (Nat.lt_irrefl 0)
  | succ c =>
    calc a = a * 1 := (Nat.mul_one a).symm
      _ ≤ a * (c + 1) := Nat.mul_le_mul_left a (Nat.succ_le_succ (Nat.zero_le c))

theorem divides_antisymm (h₁ : a ∣ₙ b) (h₂ : b ∣ₙ a) : a = b := by
  sorry

theorem divides_iff_mod_eq_zero : a ∣ₙ b ↔ b % a = 0 := by
  sorry

theorem divides_one : a ∣ₙ 1 ↔ a = 1 := by
  sorry

theorem eq_zero_of_zero_divides (h : 0 ∣ₙ a) : a = 0 := by
  obtain ⟨c, rfl⟩ := h
  exact Nat.zero_mul c

theorem Divides.pow (h : a ∣ₙ b) {n : ℕ} (hn : 0 < n) : a ∣ₙ b ^ n := by
  sorry

/-- The set of multiples of `n` is closed under addition (stated with a lambda). -/
theorem multiples_closed (n : ℕ) :
    ∀ x y, (fun m => n ∣ₙ m) x → (fun m => n ∣ₙ m) y → n ∣ₙ x + y :=
  λ _ _ hx hy => divides_add hx hy

#eval decide (3 ∣ₙ 12)

end Driftlib.Nat
