import Porting.Basic

/-!
# Tactic proofs

Project tactics (`my_tac` is a macro of the project, like PFR's `rpow_ring`)
are not constants: the reader must not report them as unresolved, nor take
a term after `fun x =>` inside a tactic block for one.
-/

namespace Porting

macro "my_tac" : tactic => `(tactic| trivial)

theorem tac_heads (p q : Prop) (hp : p) (hq : q) : p ∧ q := by
  constructor
  · my_tac
    exact hp
  all_goals try my_tac
  first | my_tac | exact hq

theorem tac_in_term (n : Nat) : n = n ∧ True :=
  ⟨rfl, (by my_tac)⟩

theorem tac_braces : True := by { my_tac }

theorem tac_config (a : Nat) (h : a = 0) : a + 0 = 0 := by
  simp +contextual [h]

theorem tac_fun_arrow (s : Nat → Prop) (h : ∀ n, s n) : ∀ n, s n := by
  exact fun n => h n

theorem cases_arms (n : Nat) : n = n := by
  cases n with
  | zero => my_tac
  | succ k => rfl

/-- `Ent[f]` resolves to `entropy`, not to an unknown word. -/
theorem ent_zero (f : Nat → Nat) : Ent[f] = 0 := rfl

/-- A set-builder binds `x`, although a constant `x` exists. -/
theorem set_builder : {x : Nat | x > 0} = {y : Nat | y > 0} := rfl

theorem subtype_binder (s : Nat → Prop) : {x : Nat // s x} = {x : Nat // s x} := rfl

theorem rcases_alternatives (a b : Nat) (h : a = b ∨ a < b) : a ≤ b := by
  rcases h with hab | hlt
  · exact Nat.le_of_eq hab
  · exact Nat.le_of_lt hlt

theorem obtain_patterns (a : Nat) (h : ∃ b, b = a ∧ 0 < b) : 0 < a := by
  obtain ⟨b, rfl, hb⟩ :=
    h
  exact hb

theorem rcases_continued (p : Nat → Prop) (h : ∃ n, p n) : ∃ n, p n := by
  rcases h with
    ⟨n, hn⟩
  exact ⟨n, hn⟩

theorem ascribed_pattern (h : ∃ f : Nat → Nat, f 0 = 0) : True := by
  rcases h with ⟨g : Nat → Nat, hg⟩
  have := hg
  exact trivial

theorem this_field (a b : Nat) (h : a = b) : b = a := by
  have : a = b := h
  exact this.symm

theorem replace_and_choose (h : ∀ n : Nat, ∃ m, n < m) : True := by
  replace h' : ∀ n : Nat, ∃ m, n < m := h
  observe h'' : ∀ n : Nat, ∃ m, n < m
  choose! f hf using h''
  exact trivial

theorem universe_names {α : Type u_1} {β : Type u_2} (a : α) (b : β) : (a, b).1 = a := rfl

theorem mod_notation (a : Nat) : a ≡≡ a [MYMOD 3] := rfl

open Porting Measure in
theorem relative_open : True := map_apply'

theorem rfl_used : (1 : Nat) = 1 := rfl

theorem cyc_notation (a : Cyc(3)) : a = a := rfl

/-- `qwzzyx` is a genuine typo: the report calls it unknown. -/
theorem uses_typo : qwzzyx = 0 := sorry

theorem neg_twin_used {a : Int} (h : a < 0) : True := by
  have := abs_of_neg h
  trivial

end Porting
