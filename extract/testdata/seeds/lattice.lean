import Driftlib.Order.Defs

/-!
# Lattices

Join- and meet-semilattices, lattices (a class with two parents), distributive
lattices and bounded orders. The notations `⊔`, `⊓`, `⊤`, `⊥` are scoped in
`Driftlib.Lattice`; use `open scoped Driftlib.Lattice`.
-/

universe u v

namespace Driftlib

/-- A join-semilattice: a partial order with a least upper bound `sup` of two elements. -/
class DLSemilatticeSup (α : Type u) extends DLPartialOrder α where
  /-- The binary supremum. -/
  sup : α → α → α
  le_sup_left : ∀ a b : α, a ≤ sup a b
  le_sup_right : ∀ a b : α, b ≤ sup a b
  sup_le : ∀ a b c : α, a ≤ c → b ≤ c → sup a b ≤ c

/-- A meet-semilattice: a partial order with a greatest lower bound `inf` of two elements. -/
class DLSemilatticeInf (α : Type u) extends DLPartialOrder α where
  /-- The binary infimum. -/
  inf : α → α → α
  inf_le_left : ∀ a b : α, inf a b ≤ a
  inf_le_right : ∀ a b : α, inf a b ≤ b
  le_inf : ∀ a b c : α, a ≤ b → a ≤ c → a ≤ inf b c

/-- A lattice is both a join-semilattice and a meet-semilattice. -/
class DLLattice (α : Type u) extends DLSemilatticeSup α, DLSemilatticeInf α

/-- A distributive lattice. -/
class DLDistribLattice (α : Type u) extends DLLattice α where
  le_sup_inf : ∀ x y z : α, inf (sup x y) (sup x z) ≤ sup x (inf y z)

/-- An order with a greatest element. -/
class DLOrderTop (α : Type u) [LE α] where
  /-- The top element. -/
  top : α
  le_top : ∀ a : α, a ≤ top

/-- An order with a least element. -/
class DLOrderBot (α : Type u) [LE α] where
  /-- The bottom element. -/
  bot : α
  bot_le : ∀ a : α, bot ≤ a

/-- A bounded order has both a top and a bottom element. -/
class DLBoundedOrder (α : Type u) [LE α] extends DLOrderTop α, DLOrderBot α

namespace Lattice

@[inherit_doc] scoped infixl:68 " ⊔ " => DLSemilatticeSup.sup
@[inherit_doc] scoped infixl:69 " ⊓ " => DLSemilatticeInf.inf
@[inherit_doc] scoped notation "⊤" => DLOrderTop.top
@[inherit_doc] scoped notation "⊥" => DLOrderBot.bot

end Lattice

open scoped Driftlib.Lattice

section SemilatticeSup

variable {α : Type u} [DLSemilatticeSup α] {a b c : α}

theorem le_sup_left (a b : α) : a ≤ a ⊔ b := DLSemilatticeSup.le_sup_left a b

theorem le_sup_right (a b : α) : b ≤ a ⊔ b := DLSemilatticeSup.le_sup_right a b

theorem sup_le (h₁ : a ≤ c) (h₂ : b ≤ c) : a ⊔ b ≤ c := DLSemilatticeSup.sup_le a b c h₁ h₂

@[simp] theorem sup_le_iff : a ⊔ b ≤ c ↔ a ≤ c ∧ b ≤ c :=
  ⟨fun h => ⟨le_trans' (le_sup_left a b) h, le_trans' (le_sup_right a b) h⟩,
   fun ⟨h₁, h₂⟩ => sup_le h₁ h₂⟩

theorem sup_comm (a b : α) : a ⊔ b = b ⊔ a :=
  le_antisymm (sup_le (le_sup_right b a) (le_sup_left b a))
    (sup_le (le_sup_right a b) (le_sup_left a b))

theorem sup_assoc (a b c : α) : a ⊔ b ⊔ c = a ⊔ (b ⊔ c) := by
  sorry

@[simp] lemma sup_idem (a : α) : a ⊔ a = a :=
  le_antisymm (sup_le le_rfl le_rfl) (le_sup_left a a)

theorem sup_eq_right : a ⊔ b = b ↔ a ≤ b :=
  ⟨fun h => h ▸ le_sup_left a b, fun h => le_antisymm (sup_le h le_rfl) (le_sup_right a b)⟩

theorem sup_le_sup {d : α} (h₁ : a ≤ b) (h₂ : c ≤ d) : a ⊔ c ≤ b ⊔ d :=
  sup_le (le_trans' h₁ (le_sup_left b d)) (le_trans' h₂ (le_sup_right b d))

end SemilatticeSup

section SemilatticeInf

variable {α : Type u} [DLSemilatticeInf α] {a b c : α}

theorem inf_le_left (a b : α) : a ⊓ b ≤ a := DLSemilatticeInf.inf_le_left a b

theorem inf_le_right (a b : α) : a ⊓ b ≤ b := DLSemilatticeInf.inf_le_right a b

theorem le_inf (h₁ : a ≤ b) (h₂ : a ≤ c) : a ≤ b ⊓ c := DLSemilatticeInf.le_inf a b c h₁ h₂

theorem inf_comm (a b : α) : a ⊓ b = b ⊓ a :=
  le_antisymm (le_inf (inf_le_right a b) (inf_le_left a b))
    (le_inf (inf_le_right b a) (inf_le_left b a))

@[simp] theorem inf_idem (a : α) : a ⊓ a = a :=
  le_antisymm (inf_le_left a a) (le_inf le_rfl le_rfl)

end SemilatticeInf

section Lattice

variable {α : Type u} [DLLattice α]

lemma inf_le_sup (a b : α) : a ⊓ b ≤ a ⊔ b := le_trans' (inf_le_left a b) (le_sup_left a b)

/-- Absorption law. -/
theorem sup_inf_self (a b : α) : a ⊔ a ⊓ b = a :=
  le_antisymm (sup_le le_rfl (inf_le_left a b)) (le_sup_left a _)

theorem inf_sup_self (a b : α) : a ⊓ (a ⊔ b) = a :=
  le_antisymm (inf_le_left a _) (le_inf le_rfl (le_sup_left a b))

end Lattice

section Bounded

variable {α : Type u} [LE α]

theorem le_top [DLOrderTop α] (a : α) : a ≤ ⊤ := DLOrderTop.le_top a

theorem bot_le [DLOrderBot α] (a : α) : ⊥ ≤ a := DLOrderBot.bot_le a

end Bounded

/-- The linear order on `ℕ` makes it a lattice with `max` and `min`. -/
instance : DLLattice ℕ where
  sup := Nat.max
  inf := Nat.min
  le_sup_left := Nat.le_max_left
  le_sup_right := Nat.le_max_right
  sup_le _ _ _ := Nat.max_le_of_le_of_le
  inf_le_left := Nat.min_le_left
  inf_le_right := Nat.min_le_right
  le_inf _ _ _ := Nat.le_min_of_le_of_le

instance : DLOrderBot ℕ := ⟨0, Nat.zero_le⟩

end Driftlib
