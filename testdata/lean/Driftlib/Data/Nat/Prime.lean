import Driftlib.Data.Nat.GCD

/-!
# Prime numbers

`Driftlib.Nat.Prime p` says that `p ≥ 2` and the only divisors of `p` are `1` and `p`.
We define the minimal prime factor `minFac` (with a `where` helper using
well-founded recursion) and the list of prime factors.
-/

namespace Driftlib.Nat

/-- A natural number is prime if it is at least `2` and its only divisors are `1` and itself. -/
def Prime (p : ℕ) : Prop := 2 ≤ p ∧ ∀ m, m ∣ₙ p → m = 1 ∨ m = p

/-- The smallest divisor of `n` that is at least `2` (and `n` itself when `n < 2`). -/
def minFac (n : ℕ) : ℕ := if n < 2 then n else aux 2
where
  /-- Trial division starting at `k`. -/
  aux (k : ℕ) : ℕ :=
    if n < k * k then n
    else if n % k = 0 then k
    else aux (k + 1)
  termination_by n + 1 - k
  decreasing_by sorry

/-- Boolean primality test by trial division. -/
def isPrime (n : ℕ) : Bool := 2 ≤ n && minFac n == n

/-- The primes below `n`. -/
def primesBelow (n : ℕ) : List ℕ := (List.range n).filter isPrime

/-- A number is composite if it is greater than `1` and not prime. -/
def IsComposite (n : ℕ) : Prop := 1 < n ∧ ¬Prime n

/-- `n` is a prime power `p ^ k` with `k > 0`. -/
def IsPrimePow (n : ℕ) : Prop := ∃ p k : ℕ, Prime p ∧ 0 < k ∧ n = p ^ k

/-- The list of prime factors of `n`, with multiplicity, in increasing order. -/
def factors : ℕ → List ℕ
  | 0 => []
  | 1 => []
  | n + 2 =>
    let m := minFac (n + 2)
    m :: factors ((n + 2) / m)
decreasing_by sorry

variable {p n : ℕ}

theorem Prime.two_le (hp : Prime p) : 2 ≤ p := hp.1

theorem Prime.one_lt (hp : Prime p) : 1 < p := hp.two_le

theorem Prime.pos (hp : Prime p) : 0 < p := Nat.lt_trans Nat.zero_lt_one hp.one_lt

theorem Prime.ne_one (hp : Prime p) : p ≠ 1 := fun h => by
  have := hp.two_le
  omega

theorem Prime.eq_one_or_self_of_divides (hp : Prime p) (a : ℕ) (h : a ∣ₙ p) : a = 1 ∨ a = p :=
  hp.2 a h

theorem not_prime_zero : ¬Prime 0 := fun h => by have := h.two_le; omega

theorem not_prime_one : ¬Prime 1 := fun h => by have := h.two_le; omega

/-- `2` is prime. -/
theorem prime_two : Prime 2 := by
  refine ⟨Nat.le_refl 2, fun m hm => ?_⟩
  have h := le_of_divides (by decide) hm
  sorry

theorem prime_three : Prime 3 := by
  sorry

theorem minFac_divides (n : ℕ) : minFac n ∣ₙ n := by
  sorry

theorem minFac_prime (h : n ≠ 1) : Prime (minFac n) := by
  sorry

theorem minFac_le {n : ℕ} (h : 0 < n) : minFac n ≤ n := le_of_divides h (minFac_divides n)

/-- Every natural number other than `1` has a prime divisor. -/
theorem exists_prime_and_divides (hn : n ≠ 1) : ∃ p, Prime p ∧ p ∣ₙ n :=
  ⟨minFac n, minFac_prime hn, minFac_divides n⟩

theorem Prime.coprime_iff_not_divides (hp : Prime p) : Coprime p n ↔ ¬p ∣ₙ n := by
  sorry

/-- Euclid's lemma: a prime dividing a product divides one of the factors. -/
theorem Prime.divides_mul {m : ℕ} (hp : Prime p) : p ∣ₙ m * n ↔ p ∣ₙ m ∨ p ∣ₙ n := by
  constructor
  · intro h
    by_cases hm : p ∣ₙ m
    · exact Or.inl hm
    · exact Or.inr (((hp.coprime_iff_not_divides).mpr hm).divides_of_divides_mul_left h)
  · rintro (h | h)
    · exact h.mul_right n
    · exact h.mul_left m

theorem Prime.divides_of_divides_pow {m : ℕ} (hp : Prime p) (h : p ∣ₙ m ^ n) : p ∣ₙ m := by
  induction n with
  | zero => sorry
  | succ n ih =>
    rw [Nat.pow_succ] at h
    rcases hp.divides_mul.mp h with h | h
    · exact ih h
    · exact h

theorem Prime.coprime_of_not_divides (hp : Prime p) (h : ¬p ∣ₙ n) : Coprime p n :=
  hp.coprime_iff_not_divides.mpr h

theorem prime_def_lt : Prime p ↔ 2 ≤ p ∧ ∀ m, m < p → m ∣ₙ p → m = 1 := by
  sorry

theorem Prime.eq_of_divides_of_prime {q : ℕ} (hp : Prime p) (hq : Prime q) (h : p ∣ₙ q) :
    p = q :=
  (hq.eq_one_or_self_of_divides p h).resolve_left hp.ne_one

#eval primesBelow 30
#eval factors 360

end Driftlib.Nat
