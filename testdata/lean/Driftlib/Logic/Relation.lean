import Driftlib.Logic.Basic

/-!
# Relations

Properties of binary relations, equivalence relations, and the reflexive
transitive closure as an inductive family.
-/

universe u

namespace Driftlib.Relation

variable {α : Type u} (r : α → α → Prop)

/-- A relation is reflexive if every element is related to itself. -/
def Reflexive : Prop := ∀ x, r x x

/-- A relation is symmetric if `r x y` implies `r y x`. -/
def Symmetric : Prop := ∀ ⦃x y⦄, r x y → r y x

/-- A relation is transitive if `r x y` and `r y z` imply `r x z`. -/
def Transitive : Prop := ∀ ⦃x y z⦄, r x y → r y z → r x z

/-- An equivalence relation: reflexive, symmetric and transitive.
(Written with the legacy `:=` structure syntax.) -/
structure Equivalence' : Prop :=
  (refl : Reflexive r)
  (symm : Symmetric r)
  (trans : Transitive r)

/-- The reflexive transitive closure of `r`. -/
inductive ReflTransGen : α → α → Prop
  | refl {a : α} : ReflTransGen a a
  | tail {a b c : α} : ReflTransGen a b → r b c → ReflTransGen a c

/-- The transitive closure of `r`. -/
inductive TransGen : α → α → Prop
  | single {a b : α} : r a b → TransGen a b
  | tail {a b c : α} : TransGen a b → r b c → TransGen a c

variable {r}

namespace ReflTransGen

theorem single {a b : α} (h : r a b) : ReflTransGen r a b := tail refl h

theorem trans {a b c : α} (hab : ReflTransGen r a b) (hbc : ReflTransGen r b c) :
    ReflTransGen r a c := by
  induction hbc with
  | refl => exact hab
  | tail _ hcd ih => exact tail ih hcd

end ReflTransGen

theorem TransGen.to_reflTransGen {a b : α} (h : TransGen r a b) : ReflTransGen r a b := by
  induction h with
  | single h => exact .single h
  | tail _ hbc ih => exact ih.tail hbc

theorem reflexive_reflTransGen : Reflexive (ReflTransGen r) := fun _ => .refl

theorem transitive_reflTransGen : Transitive (ReflTransGen r) := fun _ _ _ => ReflTransGen.trans

/-- The equality relation is an equivalence. -/
theorem equivalence_eq : Equivalence' (@Eq α) :=
  ⟨fun _ => rfl, fun _ _ h => h.symm, fun _ _ _ h₁ h₂ => h₁.trans h₂⟩

theorem Symmetric.iff (hr : Symmetric r) (x y : α) : r x y ↔ r y x :=
  ⟨fun h => hr h, fun h => hr h⟩

end Driftlib.Relation

namespace Driftlib

/-- A setoid: a type together with an equivalence relation. -/
class DLSetoid (α : Type u) where
  /-- The relation. -/
  rel : α → α → Prop
  iseqv : Relation.Equivalence' rel

end Driftlib
