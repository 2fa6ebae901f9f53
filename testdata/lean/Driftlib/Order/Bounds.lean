import Driftlib.Order.Monotone
import Driftlib.Data.Set.Image

/-!
# Upper and lower bounds

Bounds, least upper bounds and greatest lower bounds of sets in a preorder, and
complete lattices.
-/

universe u v

namespace Driftlib

open DSet

variable {α : Type u} {β : Type v}

section Preorder

variable [DLPreorder α] {s t : DSet α} {a b : α}

/-- The set of upper bounds of a set. -/
def upperBounds (s : DSet α) : DSet α := fun x => ∀ ⦃a⦄, a ∈ s → a ≤ x

/-- The set of lower bounds of a set. -/
def lowerBounds (s : DSet α) : DSet α := fun x => ∀ ⦃a⦄, a ∈ s → x ≤ a

/-- A set is bounded above if it has an upper bound. -/
def BddAbove (s : DSet α) : Prop := (upperBounds s).Nonempty

/-- A set is bounded below if it has a lower bound. -/
def BddBelow (s : DSet α) : Prop := (lowerBounds s).Nonempty

/-- `a` is a greatest element of `s`. -/
def IsGreatest (s : DSet α) (a : α) : Prop := a ∈ s ∧ a ∈ upperBounds s

/-- `a` is a least element of `s`. -/
def IsLeast (s : DSet α) (a : α) : Prop := a ∈ s ∧ a ∈ lowerBounds s

/-- `a` is a least upper bound of `s`. -/
def IsLUB (s : DSet α) : α → Prop := IsLeast (upperBounds s)

/-- `a` is a greatest lower bound of `s`. -/
def IsGLB (s : DSet α) : α → Prop := IsGreatest (lowerBounds s)

theorem mem_upperBounds : a ∈ upperBounds s ↔ ∀ x, x ∈ s → x ≤ a :=
  ⟨fun h x hx => h hx, fun h x hx => h x hx⟩

theorem upperBounds_mono (h : s ⊆ t) : upperBounds t ⊆ upperBounds s :=
  fun _ hb _ ha => hb (h ha)

theorem BddAbove.mono (h : s ⊆ t) : BddAbove t → BddAbove s :=
  fun ⟨b, hb⟩ => ⟨b, upperBounds_mono h hb⟩

theorem BddBelow.mono (h : s ⊆ t) : BddBelow t → BddBelow s := by
  sorry

theorem IsLUB.upperBounds_mem (h : IsLUB s a) : a ∈ upperBounds s := h.1

theorem IsLUB.le_of_mem_upperBounds (h : IsLUB s a) (hb : b ∈ upperBounds s) : a ≤ b := h.2 hb

theorem isLUB_le_iff (h : IsLUB s a) : a ≤ b ↔ b ∈ upperBounds s :=
  ⟨fun hab _ hx => le_trans' (h.1 hx) hab, fun hb => h.2 hb⟩

theorem IsGreatest.isLUB (h : IsGreatest s a) : IsLUB s a :=
  ⟨h.2, fun _ hb => hb h.1⟩

theorem IsGreatest.bddAbove (h : IsGreatest s a) : BddAbove s := ⟨a, h.2⟩

theorem Monotone.mem_upperBounds_image [DLPreorder β] {f : α → β} (hf : Monotone f)
    (ha : a ∈ upperBounds s) : f a ∈ upperBounds (f '' s) :=
  fun _ ⟨_, hx, hfx⟩ => hfx ▸ hf (ha hx)

theorem BddAbove.image [DLPreorder β] {f : α → β} (hf : Monotone f) (hs : BddAbove s) :
    BddAbove (f '' s) :=
  let ⟨b, hb⟩ := hs
  ⟨f b, hf.mem_upperBounds_image hb⟩

end Preorder

section PartialOrder

variable [DLPartialOrder α] {s : DSet α} {a b : α}

/-- Least elements are unique. -/
theorem IsLeast.unique (ha : IsLeast s a) (hb : IsLeast s b) : a = b :=
  le_antisymm (ha.2 hb.1) (hb.2 ha.1)

/-- Least upper bounds are unique. -/
theorem IsLUB.unique (ha : IsLUB s a) (hb : IsLUB s b) : a = b := IsLeast.unique ha hb

end PartialOrder

/-- A complete lattice: every set has a supremum and an infimum. -/
class DLCompleteLattice (α : Type u) extends DLLattice α where
  /-- Supremum of a set. -/
  sSup : DSet α → α
  /-- Infimum of a set. -/
  sInf : DSet α → α
  le_sSup : ∀ (s : DSet α) (a : α), a ∈ s → a ≤ sSup s
  sSup_le : ∀ (s : DSet α) (a : α), (∀ b, b ∈ s → b ≤ a) → sSup s ≤ a
  sInf_le : ∀ (s : DSet α) (a : α), a ∈ s → sInf s ≤ a
  le_sInf : ∀ (s : DSet α) (a : α), (∀ b, b ∈ s → a ≤ b) → a ≤ sInf s

section CompleteLattice

variable [DLCompleteLattice α]

theorem isLUB_sSup (s : DSet α) : IsLUB s (DLCompleteLattice.sSup s) :=
  ⟨fun _ h => DLCompleteLattice.le_sSup s _ h, fun _ h => DLCompleteLattice.sSup_le s _ h⟩

theorem isGLB_sInf (s : DSet α) : IsGLB s (DLCompleteLattice.sInf s) :=
  ⟨fun _ h => DLCompleteLattice.sInf_le s _ h, fun _ h => DLCompleteLattice.le_sInf s _ h⟩

/-- Knaster–Tarski: a monotone map on a complete lattice has a fixed point. -/
theorem exists_fixedPoint_of_monotone {f : α → α} (hf : Monotone f) : ∃ a, f a = a := by
  sorry

end CompleteLattice

end Driftlib
