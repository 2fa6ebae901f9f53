import Driftlib.Data.Finset.Basic
import Driftlib.Algebra.Ring

/-!
# Sums and products over finite sets

Big operators `∑ᵈ x ∈ s, f x` (declared with `syntax` + `macro_rules`) and
`∏ᵈ x ∈ s, f x` (declared with `macro`).
-/

universe u v

namespace Driftlib

namespace DFinset

variable {α : Type u} {β : Type v}

/-- The sum of `f` over a finite set `s`. -/
def sum [DLAddCommMonoid β] (s : DFinset α) (f : α → β) : β :=
  s.val.foldr (fun a b => f a + b) 0

/-- The product of `f` over a finite set `s`. -/
def prod [DLCommMonoid β] (s : DFinset α) (f : α → β) : β :=
  s.val.foldr (fun a b => f a * b) 1

/-- `∑ᵈ x ∈ s, f x` is the sum of `f x` over `x ∈ s`. -/
syntax (name := bigsum) "∑ᵈ " ident " ∈ " term ", " term:67 : term

macro_rules (kind := bigsum)
  | `(∑ᵈ $x:ident ∈ $s, $f) => `(DFinset.sum $s (fun $x => $f))

/-- `∏ᵈ x ∈ s, f x` is the product of `f x` over `x ∈ s`. -/
macro "∏ᵈ " x:ident " ∈ " s:term ", " f:term:67 : term => `(DFinset.prod $s (fun $x => $f))

section AddCommMonoid

variable [DLAddCommMonoid β]

@[simp] theorem sum_empty (f : α → β) : (∑ᵈ x ∈ (∅ : DFinset α), f x) = 0 := rfl

theorem sum_add_distrib (s : DFinset α) (f g : α → β) :
    (∑ᵈ x ∈ s, (f x + g x)) = (∑ᵈ x ∈ s, f x) + ∑ᵈ x ∈ s, g x := by
  sorry

theorem sum_const_zero (s : DFinset α) : (∑ᵈ _x ∈ s, (0 : β)) = 0 := by
  sorry

theorem sum_congr {s : DFinset α} {f g : α → β} (h : ∀ x ∈ s, f x = g x) :
    s.sum f = s.sum g := by
  sorry

end AddCommMonoid

@[simp] theorem prod_empty [DLCommMonoid β] (f : α → β) :
    (∏ᵈ x ∈ (∅ : DFinset α), f x) = 1 := rfl

theorem prod_pow [DLCommMonoid β] (s : DFinset α) (f : α → β) (n : ℕ) :
    (∏ᵈ x ∈ s, f x ^ n) = (∏ᵈ x ∈ s, f x) ^ n := by
  sorry

/-- Adding the next term to a sum over `range n`. -/
theorem sum_range_succ [DLAddCommMonoid β] (f : ℕ → β) (n : ℕ) :
    (∑ᵈ i ∈ range (n + 1), f i) = (∑ᵈ i ∈ range n, f i) + f n := by
  sorry

/-- Gauss's summation formula. -/
theorem sum_range_id_mul_two (n : ℕ) : (∑ᵈ i ∈ range n, i) * 2 = n * (n - 1) := by
  sorry

theorem mul_sum [DLSemiring β] (s : DFinset α) (b : β) (f : α → β) :
    b * s.sum f = s.sum (fun x => b * f x) := by
  sorry

end DFinset

end Driftlib
