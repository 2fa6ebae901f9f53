import Driftlib.Data.List.Perm
import Driftlib.Data.Set.Basic

/-!
# Finite sets

`DFinset α` is a duplicate-free list. Note that inside `namespace Driftlib`,
`List.Nodup` resolves to `Driftlib.List.Nodup`.
-/

universe u v

namespace Driftlib

/-- A finite set of elements of `α`, represented by a list without duplicates. -/
structure DFinset (α : Type u) where
  /-- The underlying list. -/
  val : List α
  /-- The list has no duplicates. -/
  nodup : List.Nodup val

namespace DFinset

variable {α : Type u} {β : Type v}

instance : Membership α (DFinset α) := ⟨fun s a => a ∈ s.val⟩

theorem mem_def {s : DFinset α} {a : α} : a ∈ s ↔ a ∈ s.val := Iff.rfl

/-- The number of elements of a finite set. -/
def card (s : DFinset α) : ℕ := s.val.length

/-- The empty finite set. -/
protected def empty : DFinset α := ⟨[], List.Nodup.nil⟩

instance : EmptyCollection (DFinset α) := ⟨DFinset.empty⟩

/-- The finite set `{0, 1, …, n - 1}`. -/
def range (n : ℕ) : DFinset ℕ := ⟨_root_.List.range n, by sorry⟩

/-- The elements of `s` satisfying `p`. -/
def filter (p : α → Prop) [DecidablePred p] (s : DFinset α) : DFinset α :=
  ⟨s.val.filter (fun a => decide (p a)), by sorry⟩

/-- Insert an element into a finite set. -/
def insert [DecidableEq α] (a : α) (s : DFinset α) : DFinset α :=
  if h : a ∈ s then s else ⟨a :: s.val, .cons h s.nodup⟩

/-- The singleton `{a}`. -/
def singleton (a : α) : DFinset α := ⟨[a], .cons (by simp) .nil⟩

/-- The union of two finite sets. -/
def union [DecidableEq α] (s t : DFinset α) : DFinset α := s.val.foldr insert t

instance [DecidableEq α] : Union (DFinset α) := ⟨union⟩

/-- The image of a finite set under a function. -/
def image [DecidableEq β] (f : α → β) (s : DFinset α) : DFinset β :=
  s.val.foldr (fun a t => insert (f a) t) DFinset.empty

/-- `s ⊆ t` for finite sets. -/
protected def Subset (s t : DFinset α) : Prop := ∀ ⦃a⦄, a ∈ s → a ∈ t

instance : HasSubset (DFinset α) := ⟨DFinset.Subset⟩

/-- The set of elements of a finite set. -/
def toSet (s : DFinset α) : DSet α := fun a => a ∈ s

@[ext] theorem ext {s t : DFinset α} (h : ∀ a, a ∈ s ↔ a ∈ t) : s = t := by
  sorry

@[simp] theorem card_empty : (∅ : DFinset α).card = 0 := rfl

@[simp] theorem card_range (n : ℕ) : (range n).card = n := _root_.List.length_range

@[simp] theorem mem_range {n m : ℕ} : m ∈ range n ↔ m < n := _root_.List.mem_range

@[simp] theorem mem_filter {p : α → Prop} [DecidablePred p] {s : DFinset α} {a : α} :
    a ∈ s.filter p ↔ a ∈ s ∧ p a := by
  simp [filter, mem_def]

theorem card_filter_le (p : α → Prop) [DecidablePred p] (s : DFinset α) :
    (s.filter p).card ≤ s.card := by
  sorry

theorem card_le_of_subset {s t : DFinset α} (h : s ⊆ t) : s.card ≤ t.card := by
  sorry

theorem card_insert_of_not_mem [DecidableEq α] {a : α} {s : DFinset α} (h : a ∉ s) :
    (s.insert a).card = s.card + 1 := by
  simp [insert, h, card]

theorem card_image_le [DecidableEq β] (f : α → β) (s : DFinset α) : (s.image f).card ≤ s.card := by
  sorry

theorem mem_toSet {s : DFinset α} {a : α} : a ∈ s.toSet ↔ a ∈ s := Iff.rfl

theorem card_singleton (a : α) : (singleton a).card = 1 := rfl

/-- The pigeonhole principle for finite sets. -/
theorem exists_ne_map_eq_of_card_lt [DecidableEq β] {s : DFinset α} {t : DFinset β}
    (hc : t.card < s.card) {f : α → β} (hf : ∀ a ∈ s, f a ∈ t) :
    ∃ x ∈ s, ∃ y ∈ s, x ≠ y ∧ f x = f y := by
  sorry

end DFinset

end Driftlib
