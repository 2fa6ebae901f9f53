import Driftlib.Logic.Basic

/-!
# Order classes

Preorders, partial orders and linear orders, written as type classes extending
core's `LE` and `LT`. We also define order duals and an instance for `ℕ`.
-/

universe u v

namespace Driftlib

/-- A preorder is a reflexive, transitive relation `≤`; `<` defaults to the strict part. -/
class DLPreorder (α : Type u) extends LE α, LT α where
  le_refl : ∀ a : α, a ≤ a
  le_trans : ∀ a b c : α, a ≤ b → b ≤ c → a ≤ c
  lt := fun a b => a ≤ b ∧ ¬b ≤ a
  lt_iff_le_not_le : ∀ a b : α, a < b ↔ a ≤ b ∧ ¬b ≤ a := by intros; rfl

/-- A partial order is an antisymmetric preorder. -/
class DLPartialOrder (α : Type u) extends DLPreorder α where
  le_antisymm : ∀ a b : α, a ≤ b → b ≤ a → a = b

/-- A linear order is a partial order in which any two elements are comparable. -/
class DLLinearOrder (α : Type u) extends DLPartialOrder α where
  le_total : ∀ a b : α, a ≤ b ∨ b ≤ a
  /-- Comparisons are decidable. -/
  decidableLE : ∀ a b : α, Decidable (a ≤ b)

instance (priority := 100) {α : Type u} [DLLinearOrder α] (a b : α) : Decidable (a ≤ b) :=
  DLLinearOrder.decidableLE a b

export DLPreorder (le_refl le_trans)

section Preorder

variable {α : Type u} [DLPreorder α] {a b c : α}

theorem le_rfl : a ≤ a := le_refl a

@[trans] theorem le_trans' (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c := le_trans a b c h₁ h₂

theorem lt_iff_le_not_le : a < b ↔ a ≤ b ∧ ¬b ≤ a := DLPreorder.lt_iff_le_not_le a b

theorem le_of_lt (h : a < b) : a ≤ b := (lt_iff_le_not_le.mp h).1

theorem lt_irrefl (a : α) : ¬a < a := fun h => (lt_iff_le_not_le.mp h).2 (le_refl a)

theorem ne_of_lt (h : a < b) : a ≠ b := fun he => lt_irrefl a (he ▸ h)

@[trans] theorem lt_of_lt_of_le (h₁ : a < b) (h₂ : b ≤ c) : a < c := by
  rw [lt_iff_le_not_le] at *
  exact ⟨le_trans' h₁.1 h₂, fun h => h₁.2 (le_trans' h₂ h)⟩

@[trans] theorem lt_of_le_of_lt (h₁ : a ≤ b) (h₂ : b < c) : a < c := by
  rw [lt_iff_le_not_le] at *
  exact ⟨le_trans' h₁ h₂.1, fun h => h₂.2 (le_trans' h h₁)⟩

theorem lt_trans (h₁ : a < b) (h₂ : b < c) : a < c := lt_of_lt_of_le h₁ (le_of_lt h₂)

alias _root_.LT.lt.le := le_of_lt
alias _root_.LT.lt.trans := lt_trans

end Preorder

/-! ### Partial orders -/

section PartialOrder

variable {α : Type u} [DLPartialOrder α] {a b : α}

theorem le_antisymm (h₁ : a ≤ b) (h₂ : b ≤ a) : a = b := DLPartialOrder.le_antisymm a b h₁ h₂

theorem lt_of_le_of_ne (h₁ : a ≤ b) (h₂ : a ≠ b) : a < b :=
  lt_iff_le_not_le.mpr ⟨h₁, fun h => h₂ (le_antisymm h₁ h)⟩

theorem le_iff_lt_or_eq [∀ x y : α, Decidable (x = y)] : a ≤ b ↔ a < b ∨ a = b := by
  constructor
  · intro h
    by_cases hab : a = b
    · exact Or.inr hab
    · exact Or.inl (lt_of_le_of_ne h hab)
  · rintro (h | rfl)
    · exact le_of_lt h
    · exact le_rfl

end PartialOrder

section LinearOrder

variable {α : Type u} [DLLinearOrder α] {a b : α}

theorem le_total (a b : α) : a ≤ b ∨ b ≤ a := DLLinearOrder.le_total a b

theorem lt_trichotomy (a b : α) : a < b ∨ a = b ∨ b < a := by
  sorry

theorem not_le {a b : α} : ¬a ≤ b ↔ b < a := by
  sorry

/-- The maximum of two elements of a linear order. -/
def dlmax (a b : α) : α := if a ≤ b then b else a

/-- The minimum of two elements of a linear order. -/
def dlmin (a b : α) : α := if a ≤ b then a else b

theorem le_dlmax_left (a b : α) : a ≤ dlmax a b := by
  unfold dlmax
  split
  · assumption
  · exact le_rfl

end LinearOrder

/-!
## Order duals and instances
-/

/-- The order dual of `α`: the same type with the reversed order. -/
def OrderDual (α : Type u) : Type u := α

@[inherit_doc] postfix:max "ᵒᵈ" => OrderDual

instance {α : Type u} [DLPreorder α] : DLPreorder αᵒᵈ where
  le a b := @LE.le α _ b a
  le_refl a := le_refl (α := α) a
  le_trans _ _ _ h₁ h₂ := le_trans' (α := α) h₂ h₁

/-- The usual order on `ℕ` as a `DLLinearOrder`. -/
instance instDLLinearOrderNat : DLLinearOrder ℕ where
  le := Nat.le
  lt := Nat.lt
  le_refl := Nat.le_refl
  le_trans _ _ _ := Nat.le_trans
  lt_iff_le_not_le _ _ := Nat.lt_iff_le_not_le
  le_antisymm _ _ := Nat.le_antisymm
  le_total := Nat.le_total
  decidableLE := Nat.decLe

end Driftlib
