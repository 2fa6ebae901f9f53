import Driftlib.Data.Nat.Basic

/-!
# Lists

Sums, counts, duplicate-free lists (`Driftlib.List.Nodup`, an inductive predicate),
sorted lists, reversal through a `where` helper, and length-indexed vectors
(`Driftlib.Vec`, an indexed family).
-/

universe u v

namespace Driftlib.List

variable {α : Type u} {β : Type v}

/-- The sum of a list of natural numbers. -/
def sum : List ℕ → ℕ
  | [] => 0
  | a :: l => a + sum l

/-- The number of occurrences of `a` in a list. -/
def count [DecidableEq α] (a : α) : List α → ℕ
  | [] => 0
  | b :: l => if a = b then count a l + 1 else count a l

/-- A list has no duplicates. -/
inductive Nodup : List α → Prop
  | nil : Nodup []
  | cons {a : α} {l : List α} : a ∉ l → Nodup l → Nodup (a :: l)

/-- A list is sorted with respect to `r` if each element is related to all later ones. -/
inductive Sorted (r : α → α → Prop) : List α → Prop
  | nil : Sorted r []
  | cons {a : α} {l : List α} : (∀ b ∈ l, r a b) → Sorted r l → Sorted r (a :: l)

/-- Reverse a list using an accumulator. -/
def rev (l : List α) : List α := go l []
where
  /-- Accumulating helper for `rev`. -/
  go : List α → List α → List α
    | [], acc => acc
    | a :: l, acc => go l (a :: acc)

/-- Insert into a sorted list of naturals. -/
def orderedInsert (a : ℕ) : List ℕ → List ℕ
  | [] => [a]
  | b :: l => if a ≤ b then a :: b :: l else b :: orderedInsert a l

/-- Insertion sort on lists of naturals. -/
def insertionSort : List ℕ → List ℕ
  | [] => []
  | a :: l => orderedInsert a (insertionSort l)

/-- The maximum of a list of naturals (`0` for the empty list). -/
def maximum' (l : List ℕ) : ℕ := l.foldl (fun m a => match compare m a with
  | .lt => a
  | _ => m) 0

@[simp] theorem sum_nil : sum [] = 0 := rfl

@[simp] theorem sum_cons (a : ℕ) (l : List ℕ) : sum (a :: l) = a + sum l := rfl

theorem sum_append (l₁ l₂ : List ℕ) : sum (l₁ ++ l₂) = sum l₁ + sum l₂ := by
  induction l₁ with
  | nil => simp
  | cons a l ih => simp [ih, Nat.add_assoc]

theorem nodup_nil : Nodup ([] : List α) := .nil

theorem Nodup.of_cons {a : α} {l : List α} (h : Nodup (a :: l)) : Nodup l := by
  cases h with
  | cons _ h => exact h

theorem Nodup.not_mem {a : α} {l : List α} (h : Nodup (a :: l)) : a ∉ l := by
  cases h with
  | cons h _ => exact h

theorem rev_go_length (l acc : List α) : (rev.go l acc).length = l.length + acc.length := by
  induction l generalizing acc with
  | nil => simp [rev.go]
  | cons a l ih => simp [rev.go, ih]; omega

theorem length_rev (l : List α) : (rev l).length = l.length := by
  simp [rev, rev_go_length]

theorem count_le_length [DecidableEq α] (a : α) (l : List α) : count a l ≤ l.length := by
  sorry

theorem sorted_insertionSort (l : List ℕ) : Sorted (· ≤ ·) (insertionSort l) := by
  sorry

#eval sum [1, 2, 3]
#eval insertionSort [3, 1, 2]

end Driftlib.List

namespace Driftlib

/-- Vectors of length `n`: an inductive family indexed by `ℕ`. -/
inductive Vec (α : Type u) : ℕ → Type u
  | nil : Vec α 0
  | cons {n : ℕ} : α → Vec α n → Vec α (n + 1)
  deriving Repr

namespace Vec

variable {α : Type u} {n : ℕ}

/-- Forget the length of a vector. -/
def toList : {n : ℕ} → Vec α n → List α
  | _, .nil => []
  | _, .cons a v => a :: toList v

/-- The first element of a nonempty vector. -/
def head : Vec α (n + 1) → α
  | .cons a _ => a

/-- Map a function over a vector. -/
def map {β : Type u} (f : α → β) : {n : ℕ} → Vec α n → Vec β n
  | _, .nil => .nil
  | _, .cons a v => .cons (f a) (map f v)

theorem length_toList (v : Vec α n) : v.toList.length = n := by
  induction v with
  | nil => rfl
  | cons a v ih => simp [toList, ih]

end Vec

end Driftlib
