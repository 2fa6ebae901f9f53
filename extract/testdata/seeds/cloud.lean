import Foo.Bar
/-!
# A seed exercising many constructs (written for driftkit's tests)
-/
open Function Set
open scoped Classical

universe u v

namespace Seed

variable {α : Type u} {β : Type v} [Inhabited α] (f : α → β)

section Cloud
variable {s : Set α}

/-- The image cloud. -/
def cloud (s : Set α) : Set β := f '' s

@[simp]
theorem mem_cloud {b : β} : b ∈ cloud f s ↔ ∃ a ∈ s, f a = b := Iff.rfl

theorem _root_.Set.Nonempty.cloud (h : s.Nonempty) : (cloud f s).Nonempty := h.image f

open Classical in
noncomputable def pick (h : s.Nonempty) : α := h.choose

set_option maxHeartbeats 400000 in
@[to_additive (attr := simp) add_cloud_comm
  /-- additive doc -/]
lemma mul_cloud_comm [Mul β] (x y : β) : x * y = x * y := rfl

end Cloud

inductive Tree (α : Type u)
  | leaf : Tree α
  /-- a node -/
  | node (l : Tree α) (a : α) (r : Tree α) : Tree α
  deriving Repr

structure Pt where
  mk' ::
  (x y : Nat)
  label : String := "p"

instance : Inhabited Pt := ⟨⟨0, 0, ""⟩⟩

instance (priority := 100) ptRepr : Repr Pt where
  reprPrec p _ := repr p.x

def Tree.size : Tree α → Nat
  | .leaf => 0
  | .node l _ r => l.size + 1 + r.size

def count (n : Nat) : Nat := go n 0
where
  go : Nat → Nat → Nat
    | 0, acc => acc
    | k + 1, acc => go k (acc + 1)

alias card := count
alias ⟨mem_cloud_mp, _⟩ := mem_cloud

mutual
  def isEven : Nat → Bool
    | 0 => true
    | n + 1 => isOdd n
  def isOdd : Nat → Bool
    | 0 => false
    | n + 1 => isEven n
end

theorem strings : "a -/ b" = "a -/ b" ∧ '\'' = '\'' ∧ «weird name» = 1 := sorry

end Seed
