import Driftlib.Algebra.Group.Basic

/-!
# Powers in monoids and groups

Natural number powers `a ^ n` (additively `n • a`) and integer powers `zpow`.
Several `@[to_additive]` attributes give the additive name explicitly.
-/

universe u

namespace Driftlib

section DLMonoid

variable {M : Type u} [DLMonoid M] (a b : M) (m n : ℕ)

@[to_additive zero_nsmul]
theorem pow_zero : a ^ 0 = 1 := DLMonoid.npow_zero a

@[to_additive succ_nsmul]
theorem pow_succ : a ^ (n + 1) = a ^ n * a := DLMonoid.npow_succ n a

@[to_additive (attr := simp) one_nsmul "Scalar multiplication by one is the identity."]
theorem pow_one : a ^ 1 = a := by rw [pow_succ, pow_zero, one_mul]

@[to_additive add_nsmul]
theorem pow_add : a ^ (m + n) = a ^ m * a ^ n := by
  induction n with
  | zero => rw [Nat.add_zero, pow_zero, mul_one]
  | succ n ih => rw [← Nat.add_assoc, pow_succ, ih, pow_succ, mul_assoc]

@[simp, to_additive nsmul_zero]
theorem one_pow : (1 : M) ^ n = 1 := by
  induction n with
  | zero => exact pow_zero 1
  | succ n ih => rw [pow_succ, ih, one_mul]

@[to_additive]
theorem pow_mul_comm : a ^ m * a ^ n = a ^ n * a ^ m := by
  rw [← pow_add, Nat.add_comm, pow_add]

@[to_additive mul_nsmul']
theorem pow_mul : a ^ (m * n) = (a ^ m) ^ n := by
  induction n with
  | zero => rw [Nat.mul_zero, pow_zero, pow_zero]
  | succ n ih => rw [Nat.mul_succ, pow_add, ih, pow_succ]

@[to_additive two_nsmul]
theorem sq : a ^ 2 = a * a := by rw [pow_succ, pow_one]

end DLMonoid

@[to_additive nsmul_add]
theorem mul_pow {M : Type u} [DLCommMonoid M] (a b : M) (n : ℕ) :
    (a * b) ^ n = a ^ n * b ^ n := by
  induction n with
  | zero => simp [pow_zero]
  | succ n ih =>
    rw [pow_succ, ih, pow_succ, pow_succ, mul_assoc, mul_assoc, mul_left_comm (b ^ n)]

section DLGroup

variable {G : Type u} [DLGroup G]

/-- Integer powers in a group. -/
@[to_additive zsmul "Integer multiples in an additive group."]
def zpow (a : G) : ℤ → G
  | .ofNat n => a ^ n
  | .negSucc n => (a ^ (n + 1))⁻¹

@[to_additive zero_zsmul]
theorem zpow_zero (a : G) : zpow a 0 = 1 := pow_zero a

@[to_additive]
theorem inv_pow (a : G) (n : ℕ) : a⁻¹ ^ n = (a ^ n)⁻¹ := by
  sorry

@[to_additive]
theorem pow_inv_comm (a : G) (m n : ℕ) : a⁻¹ ^ m * a ^ n = a ^ n * a⁻¹ ^ m := by
  sorry

end DLGroup

#check @pow_add

end Driftlib
