import Driftlib.Data.Nat.Prime

/-!
# Even and odd natural numbers

Propositional `Even`/`Odd` and the Boolean tests `isEven`/`isOdd`, defined by
mutual recursion.
-/

namespace Driftlib.Nat

/-- `n` is even if `n = k + k` for some `k`. -/
def Even (n : ℕ) : Prop := ∃ k, n = k + k

/-- `n` is odd if `n = 2 * k + 1` for some `k`. -/
def Odd (n : ℕ) : Prop := ∃ k, n = 2 * k + 1

mutual
  /-- Boolean evenness, by mutual recursion with `isOdd`. -/
  def isEven : ℕ → Bool
    | 0 => true
    | n + 1 => isOdd n

  /-- Boolean oddness, by mutual recursion with `isEven`. -/
  def isOdd : ℕ → Bool
    | 0 => false
    | n + 1 => isEven n
end

variable {m n : ℕ}

lemma even_zero : Even 0 := ⟨0, rfl⟩

theorem odd_one : Odd 1 := ⟨0, rfl⟩

theorem even_iff_two_divides : Even n ↔ 2 ∣ₙ n :=
  ⟨fun ⟨k, hk⟩ => ⟨k, by omega⟩, fun ⟨k, hk⟩ => ⟨k, by omega⟩⟩

theorem even_or_odd (n : ℕ) : Even n ∨ Odd n := by
  induction n with
  | zero => exact Or.inl even_zero
  | succ n ih =>
    rcases ih with ⟨k, hk⟩ | ⟨k, hk⟩
    · exact Or.inr ⟨k, by omega⟩
    · exact Or.inl ⟨k + 1, by omega⟩

theorem not_even_iff_odd : ¬Even n ↔ Odd n := by
  sorry

lemma Even.add (hm : Even m) (hn : Even n) : Even (m + n) := by
  obtain ⟨a, rfl⟩ := hm
  obtain ⟨b, rfl⟩ := hn
  exact ⟨a + b, by omega⟩

theorem Odd.add_odd (hm : Odd m) (hn : Odd n) : Even (m + n) := by
  obtain ⟨a, rfl⟩ := hm
  obtain ⟨b, rfl⟩ := hn
  exact ⟨a + b + 1, by omega⟩

theorem Even.mul_right (hm : Even m) (n : ℕ) : Even (m * n) := by
  obtain ⟨a, rfl⟩ := hm
  exact ⟨a * n, Nat.add_mul a a n⟩

theorem Odd.mul (hm : Odd m) (hn : Odd n) : Odd (m * n) := by
  sorry

theorem Odd.pow (hm : Odd m) : ∀ k : ℕ, Odd (m ^ k)
  | 0 => odd_one
  | k + 1 => by rw [Nat.pow_succ]; exact (hm.pow k).mul hm

theorem isEven_iff (n : ℕ) : isEven n = true ↔ Even n := by
  sorry

/-- Every prime other than `2` is odd. -/
theorem Prime.eq_two_or_odd {p : ℕ} (hp : Prime p) : p = 2 ∨ Odd p := by
  rcases even_or_odd p with he | ho
  · left
    have h2 : 2 ∣ₙ p := even_iff_two_divides.mp he
    exact ((hp.eq_one_or_self_of_divides 2 h2).resolve_left (by decide)).symm
  · exact Or.inr ho

example : isEven 10 = true := rfl

end Driftlib.Nat
