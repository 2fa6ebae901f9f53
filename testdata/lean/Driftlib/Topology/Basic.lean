module

public import Driftlib.Data.Set.Image
import Driftlib.Logic.Function

/-!
# Topological spaces

Open and closed sets, interior, closure, neighbourhoods, continuity and
Hausdorff spaces.
-/

@[expose] public section

universe u v w

namespace Driftlib

open DSet

/-- A topology on `α`: a collection of open sets containing `univ`, closed under
binary intersections and arbitrary unions. -/
class DLTopologicalSpace (α : Type u) where
  /-- The predicate of being open. -/
  IsOpen : DSet α → Prop
  isOpen_univ : IsOpen DSet.univ
  isOpen_inter : ∀ s t, IsOpen s → IsOpen t → IsOpen (s ∩ t)
  isOpen_sUnion : ∀ S : DSet (DSet α), (∀ t, t ∈ S → IsOpen t) → IsOpen (⋃₀ S)

variable {α : Type u} {β : Type v} {γ : Type w}

section Defs

variable [DLTopologicalSpace α]

/-- A set is open if it belongs to the topology. -/
def IsOpen (s : DSet α) : Prop := DLTopologicalSpace.IsOpen s

/-- A set is closed if its complement is open. -/
def IsClosed (s : DSet α) : Prop := IsOpen sᶜ

/-- The interior: the union of all open subsets. -/
def interior (s : DSet α) : DSet α := ⋃₀ (fun t => IsOpen t ∧ t ⊆ s)

/-- The closure: the intersection of all closed supersets. -/
def closure (s : DSet α) : DSet α := fun a => ∀ t, IsClosed t → s ⊆ t → a ∈ t

/-- `s` is a neighbourhood of `a` if it contains an open set containing `a`. -/
def IsNhd (s : DSet α) (a : α) : Prop := ∃ t, IsOpen t ∧ a ∈ t ∧ t ⊆ s

/-- A set is dense if its closure is everything. -/
def Dense (s : DSet α) : Prop := ∀ a, a ∈ closure s

/-- The boundary (frontier) of a set. -/
def frontier (s : DSet α) : DSet α := closure s \ interior s

theorem isOpen_univ : IsOpen (univ : DSet α) := DLTopologicalSpace.isOpen_univ

theorem IsOpen.inter {s t : DSet α} (hs : IsOpen s) (ht : IsOpen t) : IsOpen (s ∩ t) :=
  DLTopologicalSpace.isOpen_inter s t hs ht

theorem isOpen_sUnion {S : DSet (DSet α)} (h : ∀ t, t ∈ S → IsOpen t) : IsOpen (⋃₀ S) :=
  DLTopologicalSpace.isOpen_sUnion S h

theorem isOpen_empty : IsOpen (∅ : DSet α) := by
  have : (∅ : DSet α) = ⋃₀ (∅ : DSet (DSet α)) := by
    ext a
    exact ⟨False.elim, fun ⟨_, h, _⟩ => h⟩
  rw [this]
  exact isOpen_sUnion fun _ h => False.elim h

theorem IsOpen.union {s t : DSet α} (hs : IsOpen s) (ht : IsOpen t) : IsOpen (s ∪ t) := by
  sorry

theorem isClosed_empty : IsClosed (∅ : DSet α) := by
  sorry

theorem IsClosed.union {s t : DSet α} (hs : IsClosed s) (ht : IsClosed t) :
    IsClosed (s ∪ t) := by
  unfold IsClosed at *
  rw [compl_union]
  exact hs.inter ht

theorem interior_subset (s : DSet α) : interior s ⊆ s :=
  fun _ ⟨_, ⟨_, hts⟩, hat⟩ => hts hat

theorem isOpen_interior (s : DSet α) : IsOpen (interior s) :=
  isOpen_sUnion fun _ h => h.1

lemma subset_closure (s : DSet α) : s ⊆ closure s := fun _ ha _ _ hst => hst ha

theorem isOpen_iff_forall_mem_open {s : DSet α} :
    IsOpen s ↔ ∀ x, x ∈ s → ∃ t, t ⊆ s ∧ IsOpen t ∧ x ∈ t := by
  sorry

private theorem closure_mono_aux {s t : DSet α} (h : s ⊆ t) (a : α) (ha : a ∈ closure s) :
    a ∈ closure t :=
  fun u hu htu => ha u hu (Subset.trans h htu)

theorem closure_mono {s t : DSet α} (h : s ⊆ t) : closure s ⊆ closure t :=
  fun a ha => closure_mono_aux h a ha

end Defs

/-- A function between topological spaces is continuous if preimages of open sets are open. -/
def Continuous [DLTopologicalSpace α] [DLTopologicalSpace β] (f : α → β) : Prop :=
  ∀ s, IsOpen s → IsOpen (f ⁻¹' s)

/-- A homeomorphism: a continuous bijection with continuous inverse. -/
structure DLHomeomorph (α : Type u) (β : Type v) [DLTopologicalSpace α] [DLTopologicalSpace β]
    extends α ≃' β where
  continuous_toFun : Continuous toFun
  continuous_invFun : Continuous invFun

/-- A Hausdorff (T₂) space: distinct points have disjoint open neighbourhoods. -/
class DLT2Space (α : Type u) [DLTopologicalSpace α] : Prop where
  t2 : ∀ x y : α, x ≠ y → ∃ u v, IsOpen u ∧ IsOpen v ∧ x ∈ u ∧ y ∈ v ∧ Disjoint u v

theorem continuous_id [DLTopologicalSpace α] : Continuous (id : α → α) := fun _ h => h

theorem Continuous.comp [DLTopologicalSpace α] [DLTopologicalSpace β] [DLTopologicalSpace γ]
    {g : β → γ} {f : α → β} (hg : Continuous g) (hf : Continuous f) : Continuous (g ∘ f) :=
  fun s hs => hf _ (hg s hs)

theorem continuous_const [DLTopologicalSpace α] [DLTopologicalSpace β] {b : β} :
    Continuous (fun _ : α => b) := by
  sorry

theorem Continuous.isClosed_preimage [DLTopologicalSpace α] [DLTopologicalSpace β] {f : α → β}
    (hf : Continuous f) {s : DSet β} (hs : IsClosed s) : IsClosed (f ⁻¹' s) :=
  hf _ hs

/-- The discrete topology, in which every set is open. -/
def DLTopologicalSpace.discrete (α : Type u) : DLTopologicalSpace α where
  IsOpen _ := True
  isOpen_univ := trivial
  isOpen_inter _ _ _ _ := trivial
  isOpen_sUnion _ _ := trivial

/-- The indiscrete topology, in which only `∅` and `univ` are open. -/
def DLTopologicalSpace.indiscrete (α : Type u) : DLTopologicalSpace α where
  IsOpen s := s = ∅ ∨ s = univ
  isOpen_univ := Or.inr rfl
  isOpen_inter := by sorry
  isOpen_sUnion := by sorry

end Driftlib

end
