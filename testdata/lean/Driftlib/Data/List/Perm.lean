import Driftlib.Data.List.Basic

/-!
# Permutations of lists

`l₁ ~ l₂` says that `l₂` is a rearrangement of `l₁`.
-/

universe u

namespace Driftlib.List

variable {α : Type u}

/-- `Perm l₁ l₂` holds when `l₁` and `l₂` are permutations of each other. -/
inductive Perm : List α → List α → Prop
  | nil : Perm [] []
  | cons (a : α) {l₁ l₂ : List α} : Perm l₁ l₂ → Perm (a :: l₁) (a :: l₂)
  | swap (a b : α) (l : List α) : Perm (b :: a :: l) (a :: b :: l)
  | trans {l₁ l₂ l₃ : List α} : Perm l₁ l₂ → Perm l₂ l₃ → Perm l₁ l₃

@[inherit_doc] infix:50 " ~ " => Perm

open Perm in
@[refl] theorem Perm.refl : ∀ l : List α, l ~ l
  | [] => nil
  | a :: l => cons a (Perm.refl l)

theorem Perm.symm {l₁ l₂ : List α} (h : l₁ ~ l₂) : l₂ ~ l₁ := by
  induction h with
  | nil => exact .nil
  | cons a _ ih => exact .cons a ih
  | swap a b l => exact .swap b a l
  | trans _ _ ih₁ ih₂ => exact .trans ih₂ ih₁

theorem perm_comm {l₁ l₂ : List α} : l₁ ~ l₂ ↔ l₂ ~ l₁ := ⟨Perm.symm, Perm.symm⟩

theorem Perm.length_eq {l₁ l₂ : List α} (h : l₁ ~ l₂) : l₁.length = l₂.length := by
  induction h with
  | nil => rfl
  | cons _ _ ih => simp [ih]
  | swap => simp
  | trans _ _ ih₁ ih₂ => exact ih₁.trans ih₂

theorem Perm.sum_eq {l₁ l₂ : List ℕ} (h : l₁ ~ l₂) : sum l₁ = sum l₂ := by
  induction h with
  | nil => rfl
  | cons a _ ih => simp [ih]
  | swap a b l => simp; omega
  | trans _ _ ih₁ ih₂ => exact ih₁.trans ih₂

theorem Perm.nodup_iff {l₁ l₂ : List α} (h : l₁ ~ l₂) : Nodup l₁ ↔ Nodup l₂ := by
  sorry

theorem perm_middle (a : α) (l₁ l₂ : List α) : (l₁ ++ a :: l₂) ~ (a :: (l₁ ++ l₂)) := by
  sorry

theorem perm_insertionSort (l : List ℕ) : insertionSort l ~ l := by
  sorry

end Driftlib.List
