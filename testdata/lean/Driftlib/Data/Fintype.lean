import Driftlib.Data.Finset.Basic
import Driftlib.Logic.Function

/-!
# Finite types

A type is a `DLFintype` if there is a finite set containing all of its elements.
-/

universe u v

namespace Driftlib

/-- A finite type: a finite set `elems` containing every element. -/
class DLFintype (α : Type u) where
  /-- The finite set of all elements. -/
  elems : DFinset α
  complete : ∀ x : α, x ∈ elems

/-- A type is finite if it admits a `DLFintype` structure. -/
class DLFinite (α : Type u) : Prop where
  exists_fintype : Nonempty (DLFintype α)

/-- A type is infinite if it is not finite. -/
class DLInfinite (α : Type u) : Prop where
  not_finite : ¬DLFinite α

namespace DLFintype

variable {α : Type u} {β : Type v}

/-- The number of elements of a finite type. -/
def card (α : Type u) [DLFintype α] : ℕ := (elems : DFinset α).card

theorem mem_elems [DLFintype α] (x : α) : x ∈ (elems : DFinset α) := complete x

instance : DLFintype Bool := ⟨⟨[true, false], by sorry⟩, fun b => by cases b <;> sorry⟩

instance instFintypeUnit : DLFintype Unit := ⟨⟨[()], by sorry⟩, fun _ => by sorry⟩

instance instFin (n : ℕ) : DLFintype (Fin n) := ⟨⟨_root_.List.finRange n, by sorry⟩, by sorry⟩

instance (priority := low) toFinite [DLFintype α] : DLFinite α := ⟨⟨inferInstance⟩⟩

theorem card_bool : card Bool = 2 := rfl

theorem card_unit : card Unit = 1 := rfl

theorem card_fin (n : ℕ) : card (Fin n) = n := by
  sorry

/-- An injection between finite types does not decrease cardinality. -/
theorem card_le_of_injective [DLFintype α] [DLFintype β] (f : α → β)
    (hf : Function.Injective f) : card α ≤ card β := by
  sorry

/-- Pigeonhole principle for finite types. -/
theorem exists_ne_map_eq_of_card_lt [DLFintype α] [DLFintype β] (f : α → β)
    (h : card β < card α) : ∃ x y, x ≠ y ∧ f x = f y := by
  sorry

theorem card_pos [DLFintype α] (a : α) : 0 < card α := by
  sorry

end DLFintype

end Driftlib
