/-!
# Small numbers

A fixture for informalize's reuse rule (informalize/bump_test.go): a tiny
library in two versions, `v1` and `v2`. This module documentation is the same
in both, so that only the declarations' own changes count.
-/

namespace Bump

/-- A natural number is *small* if it is below ten. -/
def Small (n : Nat) (bound : Nat := 10) : Prop := n < bound

/-- Zero is small. -/
theorem small_zero : Small 0 := Nat.zero_lt_succ 9

/-- The identity on small numbers: it keeps the proof that its argument is small. -/
def Smaller (n : Nat) (h : Small n) : Nat := n

theorem smaller_le (n : Nat) (h : Small n) : Smaller n h ≤ n := Nat.le_refl n

/-- `Smaller` is the identity. Its statement mentions `Smaller` but not `Small`. -/
theorem smaller_eq (n : Nat) (h : n < 10) : Smaller n h = n := rfl

/-- One is small. -/
theorem small_one : Small 1 := Nat.succ_lt_succ (Nat.zero_lt_succ 8)

end Bump
