module

/-!
# Basic logic

Elementary logical definitions and lemmas used throughout `Driftlib`.
This file also introduces the notations `ℕ` and `ℤ`, since the library does not
depend on Mathlib.

Lexer stress: this file contains string literals that contain comment
markers, character literals such as `'"'`, nested block comments and
«guillemet» names.
-/

@[expose] public section

universe u v

/-- The natural numbers, written as in Mathlib. -/
notation "ℕ" => Nat

/-- The integers, written as in Mathlib. -/
notation "ℤ" => Int

namespace Driftlib

/- outer comment /- inner comment -/ still inside the outer comment
theorem not_a_declaration : True := trivial
def also_not_a_declaration : Nat := 0
-/

/-- `Xor' a b` holds when exactly one of `a` and `b` holds. -/
def Xor' (a b : Prop) : Prop := (a ∧ ¬b) ∨ (b ∧ ¬a)

theorem xor_comm' (a b : Prop) : Xor' a b ↔ Xor' b a := by
  unfold Xor'
  exact Or.comm

instance {a b : Prop} [Decidable a] [Decidable b] : Decidable (Xor' a b) := by
  unfold Xor'
  infer_instance

/-- `ExistsUnique' p` says that exactly one element satisfies `p`. -/
def ExistsUnique' {α : Sort u} (p : α → Prop) : Prop :=
  ∃ x, p x ∧ ∀ y, p y → y = x

/-- Notation `∃!' x, p x` for `ExistsUnique'`. -/
macro "∃!' " x:ident ", " b:term : term => `(ExistsUnique' fun $x => $b)

/-- A type is nontrivial if it contains two distinct elements. -/
class DLNontrivial (α : Type u) : Prop where
  /-- There are two distinct elements. -/
  exists_pair_ne : ∃ x y : α, x ≠ y

/-- A proposition together with its proof, packaged as a structure. -/
structure Fact' (p : Prop) : Prop where
  out : p

theorem not_not_intro' {p : Prop} (h : p) : ¬¬p := fun hn => hn h

theorem and_swap' {p q : Prop} : p ∧ q ↔ q ∧ p :=
  ⟨fun ⟨hp, hq⟩ => ⟨hq, hp⟩, fun ⟨hq, hp⟩ => ⟨hp, hq⟩⟩

lemma imp_trans' {p q r : Prop} (hpq : p → q) (hqr : q → r) : p → r := hqr ∘ hpq

theorem or_swap' {p q : Prop} : p ∨ q ↔ q ∨ p := Or.comm

/-- An identity lemma with a name that needs guillemets. -/
theorem «my weird lemma» (p : Prop) : p → p := id

/-- A definition whose last component needs guillemets. -/
def Fact'.«bar baz» (n : Nat) : Nat := n + 1

alias not_not_of := not_not_intro'

theorem existsUnique'_of_exists_of_unique {α : Sort u} {p : α → Prop}
    (hex : ∃ x, p x) (hun : ∀ y₁ y₂, p y₁ → p y₂ → y₁ = y₂) : ExistsUnique' p := by
  obtain ⟨x, hx⟩ := hex
  exact ⟨x, hx, fun y hy => hun y x hy hx⟩

theorem ExistsUnique'.exists {α : Sort u} {p : α → Prop} (h : ExistsUnique' p) : ∃ x, p x :=
  let ⟨x, hx, _⟩ := h
  ⟨x, hx⟩

section Strings

/-- A banner; the lexer must not treat the comment markers inside the string as comments. -/
def banner : String := "Driftlib -- a library /- not a comment -/ with \"quotes\""

/-- A double quote character. -/
def quoteChar : Char := '"'

/-- An apostrophe, escaped. -/
def tickChar : Char := '\''

/-- A lone backslash. -/
def backslash : String := "\\"

/-- A string ending in what looks like a comment opener. -/
def trickyString : String := "ends with /-"

#eval banner.length
#check @«my weird lemma»

end Strings

section Decidable

variable {p q : Prop}

theorem decide_and' [Decidable p] [Decidable q] :
    decide (p ∧ q) = (decide p && decide q) := by
  by_cases hp : p <;> by_cases hq : q <;> simp [hp, hq]

set_option linter.unusedVariables false in
/-- A tautology whose hypothesis is deliberately unused. -/
theorem true_of_anything (h : p) : True := trivial

end Decidable

example : Xor' True False := Or.inl ⟨trivial, id⟩

end Driftlib

end
