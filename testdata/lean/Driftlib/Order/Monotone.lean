import Driftlib.Order.Lattice
import Driftlib.Logic.Function

/-!
# Monotone functions

Monotone, antitone and strictly monotone maps between preorders, and their
behaviour under composition.
-/

universe u v w

namespace Driftlib

open scoped Driftlib.Lattice

variable {α : Type u} {β : Type v} {γ : Type w}

section Preorder

variable [DLPreorder α] [DLPreorder β] [DLPreorder γ]

/-- A function between preorders is monotone if `a ≤ b` implies `f a ≤ f b`. -/
def Monotone (f : α → β) : Prop := ∀ ⦃a b⦄, a ≤ b → f a ≤ f b

/-- A function between preorders is antitone if `a ≤ b` implies `f b ≤ f a`. -/
def Antitone (f : α → β) : Prop := ∀ ⦃a b⦄, a ≤ b → f b ≤ f a

/-- A function is strictly monotone if `a < b` implies `f a < f b`. -/
def StrictMono (f : α → β) : Prop := ∀ ⦃a b⦄, a < b → f a < f b

/-- A function is strictly antitone if `a < b` implies `f b < f a`. -/
def StrictAnti (f : α → β) : Prop := ∀ ⦃a b⦄, a < b → f b < f a

theorem monotone_id : Monotone (id : α → α) := fun _ _ h => h

theorem monotone_const {c : β} : Monotone (fun _ : α => c) := fun _ _ _ => le_refl c

theorem strictMono_id : StrictMono (id : α → α) := fun _ _ h => h

/-- The composition of monotone functions is monotone. -/
theorem Monotone.comp {g : β → γ} {f : α → β} (hg : Monotone g) (hf : Monotone f) :
    Monotone (g ∘ f) :=
  fun _ _ h => hg (hf h)

theorem Monotone.comp_antitone {g : β → γ} {f : α → β} (hg : Monotone g) (hf : Antitone f) :
    Antitone (g ∘ f) :=
  fun _ _ h => hg (hf h)

/-- The composition of two antitone functions is monotone. -/
theorem Antitone.comp {g : β → γ} {f : α → β} (hg : Antitone g) (hf : Antitone f) :
    Monotone (g ∘ f) :=
  fun _ _ h => hg (hf h)

theorem StrictMono.comp {g : β → γ} {f : α → β} (hg : StrictMono g) (hf : StrictMono f) :
    StrictMono (g ∘ f) :=
  fun _ _ h => hg (hf h)

omit [DLPreorder γ] in
theorem Monotone.iterate {f : α → α} (hf : Monotone f) (n : ℕ) : Monotone (Nat.repeat f n) := by
  induction n with
  | zero => exact monotone_id
  | succ n ih => exact fun a b h => hf (ih h)

end Preorder

section Include

variable [DLPreorder α] [DLPreorder β] {f : α → β} ⦃a b : α⦄ (hf : Monotone f)

include hf

theorem Monotone.imp (h : a ≤ b) : f a ≤ f b := hf h

theorem Monotone.le_of_le_of_le {c : α} (h₁ : a ≤ b) (h₂ : b ≤ c) : f a ≤ f c :=
  le_trans' (hf h₁) (hf h₂)

end Include

section PartialOrder

variable [DLPartialOrder α] [DLPreorder β]

/-- A strictly monotone function on a partial order is monotone (when equality is decidable). -/
theorem StrictMono.monotone [∀ x y : α, Decidable (x = y)] {f : α → β} (hf : StrictMono f) :
    Monotone f := by
  intro a b h
  rcases le_iff_lt_or_eq.mp h with h | rfl
  · exact le_of_lt (hf h)
  · exact le_rfl

end PartialOrder

section LinearOrder

variable [DLLinearOrder α] [DLPreorder β]

/-- A strictly monotone function on a linear order is injective. -/
theorem StrictMono.injective {f : α → β} (hf : StrictMono f) : Function.Injective f := by
  intro a b h
  rcases lt_trichotomy a b with hab | hab | hab
  · exact absurd h (ne_of_lt (hf hab))
  · exact hab
  · exact absurd h.symm (ne_of_lt (hf hab))

theorem StrictMono.lt_iff_lt {f : α → β} (hf : StrictMono f) {a b : α} : f a < f b ↔ a < b := by
  sorry

end LinearOrder

section Lattice

variable [DLLattice α] [DLLattice β]

theorem Monotone.le_map_sup {f : α → β} (hf : Monotone f) (a b : α) : f a ⊔ f b ≤ f (a ⊔ b) :=
  sup_le (hf (le_sup_left a b)) (hf (le_sup_right a b))

theorem Monotone.map_inf_le {f : α → β} (hf : Monotone f) (a b : α) : f (a ⊓ b) ≤ f a ⊓ f b :=
  le_inf (hf (inf_le_left a b)) (hf (inf_le_right a b))

end Lattice

/-- On `ℕ`, a function with `f n < f (n + 1)` for all `n` is strictly monotone. -/
theorem strictMono_nat_of_lt_succ [DLPreorder β] {f : ℕ → β} (hf : ∀ n, f n < f (n + 1)) :
    StrictMono f := by
  intro a b hab
  induction b with
  | zero => exact absurd hab (Nat.not_lt_zero a)
  | succ b ih =>
    rcases Nat.lt_succ_iff_lt_or_eq.mp hab with h | rfl
    · exact lt_trans (ih h) (hf b)
    · exact hf a

theorem monotone_nat_of_le_succ [DLPreorder β] {f : ℕ → β} (hf : ∀ n, f n ≤ f (n + 1)) :
    Monotone f := by
  intro a b hab
  induction hab with
  | refl => exact le_rfl
  | step _ ih => exact le_trans' ih (hf _)

example : Monotone (fun n : ℕ => n + 1) := fun _ _ h => Nat.succ_le_succ h

end Driftlib
