/-!
# Arithmetic facts that the change to `Small` does not touch
-/

namespace Bump

/-- Adding zero to a natural number gives it back. -/
theorem add_zero' (n : Nat) : n + 0 = n := rfl

/-- Ten is positive. -/
theorem ten_pos : 0 < 10 := Nat.zero_lt_succ 9

/-- Any two proofs that ten is positive are equal: the statement uses `ten_pos`. -/
theorem ten_pos_irrel (h : 0 < 10) : h = ten_pos := rfl

/-- Doubling a number. -/
def double (n : Nat) : Nat := n + n

theorem double_zero : double 0 = 0 := rfl

end Bump
