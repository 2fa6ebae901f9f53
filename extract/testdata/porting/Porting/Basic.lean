/-!
# Basic definitions for the porting fixture

A small library written for driftkit's extract tests: each declaration
exercises one thing the source reader once misread on a real project (PFR).
-/

universe u v

namespace Porting

/-- An entropy-like functional, used through a word-led notation. -/
def entropy {α : Type u} (f : α → Nat) : Nat := 0

/-- `Ent[f]` is `entropy f`: notation whose first token is a word. -/
notation "Ent[" f "]" => entropy f

/-- A constant with the name a set-builder binds below. -/
def x : Nat := 0

/-- Congruence modulo `n`, with a bracket-led notation word. -/
def ModEq' (n a b : Nat) : Prop := a % n = b % n

notation:50 a " ≡≡ " b " [MYMOD " n "]" => ModEq' n a b

/-- The cyclic group of order `n`, written `Cyc(n)`: notation led by a word
and a parenthesis, like Mathlib's `SL(n, R)`. -/
def Cyclic (n : Nat) : Type := Fin n

notation "Cyc(" n ")" => Cyclic n

/-- A multiplicative absolute value. -/
def mabs {α : Type u} [Max α] [Inv α] (a : α) : α := max a a⁻¹

@[to_additive]
theorem mabs_of_lt_one {α : Type u} [Max α] [Inv α] [LT α] [One α] {a : α} (h : a < 1) :
    mabs a = a⁻¹ := sorry

/-- A class whose anonymous instances get Lean's generated names. -/
class Finiteish (α : Type u) : Prop where
  finite : True

instance {α : Type u} {β : Type v} (f : α → β) (g : β → α) : Finiteish (α → α) := ⟨trivial⟩

instance {α : Type u} {β : Type v} : Finiteish (α × β) := ⟨trivial⟩

/-- A class of functions, for an instance on a composition. -/
class Nice (f : Nat → Nat) : Prop where
  nice : True

instance (f g : Nat → Nat) : Nice (f ∘ g) := ⟨trivial⟩

/-- A field with strict-implicit binders between named hypotheses: the
reader still takes `hx` for a constant (reported as a binder). -/
structure Uniformish (s : Nat → Prop) : Prop where
  eq_of_mem ⦃x⦄ (hx : s x) ⦃y⦄ (hy : s y) : x = y

namespace Measure

/-- Lives in `Porting.Measure`; used as `map_apply'` after `open Porting Measure`. -/
theorem map_apply' : True := trivial

end Measure

end Porting

/-- A root namespace with the same last name, so that `open Porting Measure`
must open both `Measure` and `Porting.Measure`. -/
theorem Measure.root_lemma : True := trivial

namespace Porting

/-- Semilinear maps, written `E →SL[σ] F`: the word `SL` belongs to the
notation, not to the names to resolve. -/
def SemilinearMap' (σ E F : Type u) : Type u := E → F

notation:25 E " →SL[" σ "] " F => SemilinearMap' σ E F

theorem semilinear_notation (σ E : Type u) (f : E →SL[σ] E) : f = f := rfl

end Porting
