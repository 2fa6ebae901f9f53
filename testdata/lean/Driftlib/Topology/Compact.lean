import Driftlib.Topology.Basic
import Driftlib.Data.Fintype

/-!
# Compactness and connectedness

Compact sets are defined by finite subcovers; connected sets cannot be split by
two disjoint open sets.
-/

universe u v

namespace Driftlib

open DSet

variable {α : Type u} {β : Type v} [DLTopologicalSpace α]

/-- A set is compact if every open cover has a finite subcover. -/
def IsCompact (s : DSet α) : Prop :=
  ∀ (ι : Type u) (U : ι → DSet α), (∀ i, IsOpen (U i)) → s ⊆ iUnion U →
    ∃ t : DFinset ι, s ⊆ iUnion (fun i : {i // i ∈ t} => U i.1)

/-- A compact space: `univ` is compact. -/
class DLCompactSpace (α : Type u) [DLTopologicalSpace α] : Prop where
  isCompact_univ : IsCompact (univ : DSet α)

/-- A set is preconnected if it cannot be split by two open sets into nonempty pieces. -/
def IsPreconnected (s : DSet α) : Prop :=
  ∀ u v : DSet α, IsOpen u → IsOpen v → s ⊆ u ∪ v → (s ∩ u).Nonempty → (s ∩ v).Nonempty →
    (s ∩ (u ∩ v)).Nonempty

/-- A set is connected if it is nonempty and preconnected. -/
def IsConnected (s : DSet α) : Prop := s.Nonempty ∧ IsPreconnected s

/-- A connected space. -/
class DLConnectedSpace (α : Type u) [DLTopologicalSpace α] : Prop where
  isConnected_univ : IsConnected (univ : DSet α)

theorem isCompact_empty : IsCompact (∅ : DSet α) :=
  fun _ _ _ _ => ⟨∅, empty_subset _⟩

theorem IsCompact.union {s t : DSet α} (hs : IsCompact s) (ht : IsCompact t) :
    IsCompact (s ∪ t) := by
  sorry

/-- The continuous image of a compact set is compact. -/
theorem IsCompact.image [DLTopologicalSpace β] {s : DSet α} {f : α → β}
    (hs : IsCompact s) (hf : Continuous f) : IsCompact (f '' s) := by
  sorry

/-- A compact subset of a Hausdorff space is closed. -/
theorem IsCompact.isClosed [DLT2Space α] {s : DSet α} (hs : IsCompact s) : IsClosed s := by
  sorry

/-- A closed subset of a compact set is compact. -/
theorem IsCompact.of_isClosed_subset {s t : DSet α} (hs : IsCompact s) (ht : IsClosed t)
    (h : t ⊆ s) : IsCompact t := by
  sorry

/-- The continuous image of a connected set is connected. -/
theorem IsConnected.image [DLTopologicalSpace β] {s : DSet α} {f : α → β}
    (hs : IsConnected s) (hf : Continuous f) : IsConnected (f '' s) := by
  sorry

theorem isPreconnected_empty : IsPreconnected (∅ : DSet α) :=
  fun _ _ _ _ _ ⟨_, h, _⟩ => False.elim h

end Driftlib
