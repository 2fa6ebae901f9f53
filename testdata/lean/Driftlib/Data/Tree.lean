import Driftlib.Data.List.Basic

/-!
# Trees

Rose trees and forests (mutually inductive types), with mutually recursive size
functions, and binary search trees with `deriving` clauses.
-/

universe u

namespace Driftlib

mutual
  /-- A rose tree: a label and a forest of children. -/
  inductive Tree (α : Type u) where
    | node : α → Forest α → Tree α

  /-- A finite sequence of rose trees. -/
  inductive Forest (α : Type u) where
    | nil : Forest α
    | cons : Tree α → Forest α → Forest α
end

mutual
  /-- The number of nodes of a tree. -/
  def Tree.size {α : Type u} : Tree α → ℕ
    | .node _ f => f.size + 1

  /-- The number of nodes of a forest. -/
  def Forest.size {α : Type u} : Forest α → ℕ
    | .nil => 0
    | .cons t f => t.size + f.size
end

/-- Binary trees with labels at internal nodes. -/
inductive BTree (α : Type u) where
  | leaf
  | node (l : BTree α) (v : α) (r : BTree α)
  deriving Repr, DecidableEq, Inhabited

/-- A point of the plane with natural coordinates. -/
structure NatPoint where
  x : ℕ
  y : ℕ := 0
  deriving Repr, BEq, DecidableEq

namespace BTree

variable {α : Type u}

/-- The height of a binary tree. -/
def height : BTree α → ℕ
  | leaf => 0
  | node l _ r => Nat.max l.height r.height + 1

/-- The number of labels in a binary tree. -/
def size : BTree α → ℕ
  | leaf => 0
  | node l _ r => l.size + 1 + r.size

/-- In-order traversal. -/
def toList : BTree α → List α
  | leaf => []
  | node l v r => l.toList ++ v :: r.toList

/-- Map a function over the labels. -/
def map {β : Type u} (f : α → β) : BTree α → BTree β
  | leaf => leaf
  | node l v r => node (l.map f) (f v) (r.map f)

/-- Insertion into a binary search tree. -/
def insert [Ord α] (a : α) : BTree α → BTree α
  | leaf => node leaf a leaf
  | node l v r =>
    match compare a v with
    | .lt => node (l.insert a) v r
    | .gt => node l v (r.insert a)
    | .eq => node l v r

/-- Membership test in a binary search tree. -/
def contains [Ord α] (a : α) : BTree α → Bool
  | leaf => false
  | node l v r =>
    match compare a v with
    | .lt => l.contains a
    | .gt => r.contains a
    | .eq => true

instance : Functor BTree where
  map := BTree.map

theorem size_eq_length_toList (t : BTree α) : t.size = t.toList.length := by
  induction t with
  | leaf => rfl
  | node l v r ihl ihr => simp [size, toList, ihl, ihr]; omega

theorem height_le_size (t : BTree α) : t.height ≤ t.size := by
  sorry

theorem size_insert_le [Ord α] (a : α) (t : BTree α) : (t.insert a).size ≤ t.size + 1 := by
  sorry

end BTree

#eval (BTree.leaf.insert 3 |>.insert 1 |>.insert 5 : BTree ℕ).toList
#eval ({ x := 1 } : NatPoint)

end Driftlib
