import Driftlib.Data.Nat.Dvd

/-!
# Greatest common divisor

Euclid's algorithm (well-founded recursion with `termination_by`/`decreasing_by`),
the least common multiple, coprimality and Bézout's identity.
-/

namespace Driftlib.Nat

/-- The greatest common divisor, computed by Euclid's algorithm. -/
def gcd (m n : ℕ) : ℕ :=
  if h : m = 0 then n else gcd (n % m) m
termination_by m
decreasing_by exact Nat.mod_lt _ (Nat.pos_of_ne_zero h)

/-- The least common multiple. -/
def lcm (m n : ℕ) : ℕ := m * n / gcd m n

/-- Two numbers are coprime if their greatest common divisor is `1`. -/
def Coprime (m n : ℕ) : Prop := gcd m n = 1

instance (m n : ℕ) : Decidable (Coprime m n) := inferInstanceAs (Decidable (gcd m n = 1))

/-- Bézout coefficients for `m` and `n`, with constructor `BezoutData.mk'`. -/
structure BezoutData (m n : ℕ) where
  mk' ::
  (x y : ℤ)
  (eq : (m : ℤ) * x + (n : ℤ) * y = (gcd m n : ℤ))

variable {k m n : ℕ}

@[simp] theorem gcd_zero_left (n : ℕ) : gcd 0 n = n := by
  rw [gcd]
  rfl

theorem gcd_rec (m n : ℕ) : gcd m n = gcd (n % m) m := by
  sorry

theorem gcd_divides_left (m n : ℕ) : gcd m n ∣ₙ m := by
  sorry

theorem gcd_divides_right (m n : ℕ) : gcd m n ∣ₙ n := by
  sorry

/-- Every common divisor divides the greatest common divisor. -/
theorem divides_gcd : k ∣ₙ m → k ∣ₙ n → k ∣ₙ gcd m n := by
  sorry

theorem gcd_comm (m n : ℕ) : gcd m n = gcd n m := by
  apply divides_antisymm
  · exact divides_gcd (gcd_divides_right m n) (gcd_divides_left m n)
  · exact divides_gcd (gcd_divides_right n m) (gcd_divides_left n m)

@[simp] theorem gcd_self (n : ℕ) : gcd n n = n := by
  sorry

theorem gcd_mul_lcm (m n : ℕ) : gcd m n * lcm m n = m * n := by
  sorry

theorem Coprime.symm (h : Coprime m n) : Coprime n m := by
  unfold Coprime at *
  rw [gcd_comm]
  exact h

theorem coprime_comm : Coprime m n ↔ Coprime n m := ⟨Coprime.symm, Coprime.symm⟩

theorem coprime_one_left (n : ℕ) : Coprime 1 n := by
  sorry

/-- If `k` is coprime to `n` and divides `m * n`, then `k` divides `m`. -/
theorem Coprime.divides_of_divides_mul_right (h : Coprime k n) (hd : k ∣ₙ m * n) : k ∣ₙ m := by
  sorry

theorem Coprime.divides_of_divides_mul_left (h : Coprime k m) (hd : k ∣ₙ m * n) : k ∣ₙ n := by
  rw [Nat.mul_comm] at hd
  exact h.divides_of_divides_mul_right hd

/-- Bézout's identity. -/
theorem exists_bezout (m n : ℕ) :
    ∃ x y : ℤ, (m : ℤ) * x + (n : ℤ) * y = (gcd m n : ℤ) := by
  sorry

/-- A choice of Bézout coefficients. -/
noncomputable def bezout (m n : ℕ) : BezoutData m n :=
  BezoutData.mk' (Classical.choose (exists_bezout m n))
    (Classical.choose (Classical.choose_spec (exists_bezout m n)))
    (Classical.choose_spec (Classical.choose_spec (exists_bezout m n)))

#eval gcd 12 18

end Driftlib.Nat
