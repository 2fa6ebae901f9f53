module

public import Driftlib.Logic.Basic

/-!
# Sets as predicates

`DSet α` is the type of sets of elements of `α`, represented by their membership
predicate `α → Prop`. We provide membership, subset, union, intersection,
complement, difference, powerset and set-builder notation `{ₛ x | p x }`.
-/

@[expose] public section

universe u v

namespace Driftlib

/-- A set of elements of `α`, represented by its membership predicate. -/
def DSet (α : Type u) : Type u := α → Prop

namespace DSet

variable {α : Type u} {β : Type v}

/-- Membership in a set. -/
protected def Mem (s : DSet α) (a : α) : Prop := s a

instance : Membership α (DSet α) := ⟨DSet.Mem⟩

theorem mem_def {s : DSet α} {a : α} : a ∈ s ↔ s a := Iff.rfl

/-- The set of elements satisfying a predicate. -/
def setOf (p : α → Prop) : DSet α := p

/-- Set-builder notation for `DSet`. -/
syntax "{ₛ " ident " | " term " }" : term

macro_rules
  | `({ₛ $x:ident | $p }) => `(DSet.setOf fun $x => $p)

@[simp] theorem mem_setOf {p : α → Prop} {a : α} : a ∈ setOf p ↔ p a := Iff.rfl

/-- `s ⊆ t` means every element of `s` is an element of `t`. -/
protected def Subset (s t : DSet α) : Prop := ∀ ⦃a⦄, a ∈ s → a ∈ t

instance : HasSubset (DSet α) := ⟨DSet.Subset⟩

/-- The union of two sets. -/
protected def union (s t : DSet α) : DSet α := fun a => a ∈ s ∨ a ∈ t

instance : Union (DSet α) := ⟨DSet.union⟩

/-- The intersection of two sets. -/
protected def inter (s t : DSet α) : DSet α := fun a => a ∈ s ∧ a ∈ t

instance : Inter (DSet α) := ⟨DSet.inter⟩

/-- The set of all elements of `α`. -/
def univ : DSet α := fun _ => True

/-- The empty set. -/
protected def empty : DSet α := fun _ => False

instance : EmptyCollection (DSet α) := ⟨DSet.empty⟩

/-- The complement of a set. -/
def compl (s : DSet α) : DSet α := fun a => ¬a ∈ s

@[inherit_doc] postfix:max "ᶜ" => DSet.compl

/-- The difference `s \ t`. -/
protected def diff (s t : DSet α) : DSet α := fun a => a ∈ s ∧ ¬a ∈ t

instance : SDiff (DSet α) := ⟨DSet.diff⟩

instance : Singleton α (DSet α) := ⟨fun a b => b = a⟩

instance : Insert α (DSet α) := ⟨fun a s b => b = a ∨ b ∈ s⟩

/-- The set of all subsets of `s`. -/
def powerset (s : DSet α) : DSet (DSet α) := fun t => t ⊆ s

@[inherit_doc] prefix:100 "𝒫" => DSet.powerset

/-- A set is nonempty if it has an element. -/
protected def Nonempty (s : DSet α) : Prop := ∃ a, a ∈ s

/-- The union of a set of sets. -/
def sUnion (S : DSet (DSet α)) : DSet α := fun a => ∃ t, t ∈ S ∧ a ∈ t

@[inherit_doc] prefix:110 "⋃₀ " => DSet.sUnion

/-- The union of an indexed family of sets. -/
def iUnion {ι : Sort v} (f : ι → DSet α) : DSet α := fun a => ∃ i, a ∈ f i

/-- The intersection of an indexed family of sets. -/
def iInter {ι : Sort v} (f : ι → DSet α) : DSet α := fun a => ∀ i, a ∈ f i

/-- The elements of a set, as a type. -/
abbrev Elem (s : DSet α) : Type u := {x : α // x ∈ s}

instance : CoeSort (DSet α) (Type u) := ⟨Elem⟩

/-- Two sets are disjoint if their intersection is empty. -/
def Disjoint (s t : DSet α) : Prop := ∀ ⦃a⦄, a ∈ s → a ∈ t → False

@[ext] theorem ext {s t : DSet α} (h : ∀ a, a ∈ s ↔ a ∈ t) : s = t :=
  funext fun a => propext (h a)

@[simp] theorem mem_union (a : α) (s t : DSet α) : a ∈ s ∪ t ↔ a ∈ s ∨ a ∈ t := Iff.rfl

@[simp] theorem mem_inter (a : α) (s t : DSet α) : a ∈ s ∩ t ↔ a ∈ s ∧ a ∈ t := Iff.rfl

@[simp] theorem mem_compl {s : DSet α} {a : α} : a ∈ sᶜ ↔ ¬a ∈ s := Iff.rfl

@[simp] theorem mem_univ (a : α) : a ∈ (univ : DSet α) := trivial

@[simp] theorem not_mem_empty (a : α) : ¬a ∈ (∅ : DSet α) := id

theorem Subset.refl (s : DSet α) : s ⊆ s := fun _ h => h

theorem Subset.rfl {s : DSet α} : s ⊆ s := Subset.refl s

theorem Subset.trans {s t u : DSet α} (h₁ : s ⊆ t) (h₂ : t ⊆ u) : s ⊆ u := fun _ h => h₂ (h₁ h)

theorem Subset.antisymm {s t : DSet α} (h₁ : s ⊆ t) (h₂ : t ⊆ s) : s = t :=
  ext fun _ => ⟨fun h => h₁ h, fun h => h₂ h⟩

theorem empty_subset (s : DSet α) : ∅ ⊆ s := fun _ h => False.elim h

theorem subset_univ (s : DSet α) : s ⊆ univ := fun _ _ => trivial

theorem subset_union_left {s t : DSet α} : s ⊆ s ∪ t := fun _ h => Or.inl h

theorem subset_union_right {s t : DSet α} : t ⊆ s ∪ t := fun _ h => Or.inr h

lemma inter_subset_left {s t : DSet α} : s ∩ t ⊆ s := fun _ h => h.1

lemma inter_subset_right {s t : DSet α} : s ∩ t ⊆ t := fun _ h => h.2

theorem union_subset {s t u : DSet α} (hs : s ⊆ u) (ht : t ⊆ u) : s ∪ t ⊆ u :=
  fun _ h => h.elim (fun h => hs h) (fun h => ht h)

theorem subset_inter {s t u : DSet α} (ht : s ⊆ t) (hu : s ⊆ u) : s ⊆ t ∩ u :=
  fun _ h => ⟨ht h, hu h⟩

lemma union_comm (s t : DSet α) : s ∪ t = t ∪ s := ext fun _ => Or.comm

theorem inter_comm (s t : DSet α) : s ∩ t = t ∩ s := ext fun _ => And.comm

theorem union_assoc (s t u : DSet α) : s ∪ t ∪ u = s ∪ (t ∪ u) := ext fun _ => or_assoc

theorem inter_assoc (s t u : DSet α) : s ∩ t ∩ u = s ∩ (t ∩ u) := ext fun _ => and_assoc

theorem inter_union_distrib_left (s t u : DSet α) : s ∩ (t ∪ u) = s ∩ t ∪ s ∩ u :=
  ext fun _ => and_or_left

@[simp] theorem compl_compl (s : DSet α) : sᶜᶜ = s := ext fun _ => Classical.not_not

/-- De Morgan's law for sets. -/
lemma compl_union (s t : DSet α) : (s ∪ t)ᶜ = sᶜ ∩ tᶜ := ext fun _ => not_or

theorem compl_inter (s t : DSet α) : (s ∩ t)ᶜ = sᶜ ∪ tᶜ := by
  ext a
  exact Classical.not_and_iff_or_not_not

theorem mem_powerset_iff {s t : DSet α} : t ∈ 𝒫 s ↔ t ⊆ s := Iff.rfl

theorem nonempty_iff_ne_empty {s : DSet α} : s.Nonempty ↔ s ≠ ∅ := by
  sorry

alias ⟨Nonempty.ne_empty, nonempty_of_ne_empty⟩ := nonempty_iff_ne_empty

theorem Nonempty.mono {s t : DSet α} (h : s ⊆ t) : s.Nonempty → t.Nonempty
  | ⟨a, ha⟩ => ⟨a, h ha⟩

theorem subset_sUnion_of_mem {S : DSet (DSet α)} {t : DSet α} (h : t ∈ S) : t ⊆ ⋃₀ S :=
  fun _ ha => ⟨t, h, ha⟩

theorem Disjoint.symm {s t : DSet α} (h : Disjoint s t) : Disjoint t s :=
  fun _ ht hs => h hs ht

private theorem union_self_aux (s : DSet α) (a : α) : a ∈ s ∪ s → a ∈ s :=
  fun h => h.elim id id

@[simp] theorem union_self (s : DSet α) : s ∪ s = s :=
  Subset.antisymm (union_self_aux s) subset_union_left

attribute [simp] mem_setOf mem_def

end DSet

end Driftlib

end
