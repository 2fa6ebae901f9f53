module

public import Mathlib.Order.Basic
import Mathlib.Logic.Basic
import all Mathlib.Data.Foo
public meta import Mathlib.Tactic.Bar

/-! A module file: private by default. -/

def hidden (n : Nat) : Nat := n

public def shown (n : Nat) : Nat := n

@[expose] public def shownBody (n : Nat) : Nat := n

@[expose] public section

def exposedDef : Nat := 1

@[no_expose] def unexposedDef : Nat := 1

private theorem stillPrivate : exposedDef = 1 := rfl

theorem publicThm : exposedDef = 1 := rfl

namespace N

structure S where
  x : Nat

/-- A public type whose constructor and one field only this module can use. -/
structure Cat where
  /-- the constructor's doc -/
  private mk ::
  /-- The underlying type. -/
  carrier : Type
  private secret : Nat

inductive T where
  | open : T
  | private closed : T

end N

end

public section Inner

def plainDef : Nat := 2

abbrev plainAbbrev : Nat := 2

instance instInhabitedS' : Inhabited Nat := ⟨0⟩

opaque secret : Nat

alias plainAbbrev' := plainAbbrev

alias plainDef' := plainDef

alias publicThm' := publicThm

end Inner

theorem afterSections : True := trivial
