import Driftlib.Logic.Basic

/-!
# Monoids and groups

The algebraic hierarchy of `Driftlib`: semigroups, monoids, groups and their
commutative versions, in additive and multiplicative form. The additive classes
are declared first; `@[to_additive]` on a multiplicative class links it to the
existing additive class (no new declaration is generated for classes).
-/

universe u

namespace Driftlib

/-- Typeclass for the distinguished element `1`. -/
class DLOne (α : Type u) where
  /-- The element one. -/
  one : α

/-- Typeclass for the distinguished element `0`. -/
class DLZero (α : Type u) where
  /-- The element zero. -/
  zero : α

/-- Typeclass for the inverse operation `a⁻¹`. -/
class DLInv (α : Type u) where
  /-- The inverse. -/
  inv : α → α

@[inherit_doc] postfix:max "⁻¹" => DLInv.inv

instance (priority := low) DLZero.toOfNat {α : Type u} [DLZero α] : OfNat α 0 :=
  ⟨DLZero.zero⟩

@[to_additive existing DLZero.toOfNat]
instance (priority := low) DLOne.toOfNat {α : Type u} [DLOne α] : OfNat α 1 :=
  ⟨DLOne.one⟩

/-- Repeated addition `n • a`, the default for `DLAddMonoid.nsmul`. -/
def nsmulRec {M : Type u} [DLZero M] [Add M] : ℕ → M → M
  | 0, _ => 0
  | n + 1, a => nsmulRec n a + a

/-- Repeated multiplication `a ^ n`, the default for `DLMonoid.npow`. -/
@[to_additive existing]
def npowRec {M : Type u} [DLOne M] [Mul M] : ℕ → M → M
  | 0, _ => 1
  | n + 1, a => npowRec n a * a

/-- An additive semigroup: `+` is associative. -/
class DLAddSemigroup (G : Type u) extends Add G where
  add_assoc : ∀ a b c : G, a + b + c = a + (b + c)

/-- A semigroup: `*` is associative. -/
@[to_additive]
class DLSemigroup (G : Type u) extends Mul G where
  mul_assoc : ∀ a b c : G, a * b * c = a * (b * c)

/-- A commutative additive semigroup. -/
class DLAddCommSemigroup (G : Type u) extends DLAddSemigroup G where
  add_comm : ∀ a b : G, a + b = b + a

/-- A commutative semigroup. -/
@[to_additive]
class DLCommSemigroup (G : Type u) extends DLSemigroup G where
  mul_comm : ∀ a b : G, a * b = b * a

/-- An additive monoid: an additive semigroup with a neutral element `0`. -/
class DLAddMonoid (M : Type u) extends DLAddSemigroup M, DLZero M where
  zero_add : ∀ a : M, 0 + a = a
  add_zero : ∀ a : M, a + 0 = a
  /-- Scalar multiplication by natural numbers. -/
  nsmul : ℕ → M → M := nsmulRec
  nsmul_zero : ∀ x : M, nsmul 0 x = 0 := by intros; rfl
  nsmul_succ : ∀ (n : ℕ) (x : M), nsmul (n + 1) x = nsmul n x + x := by intros; rfl

/-- A monoid: a semigroup with a neutral element `1`. -/
@[to_additive]
class DLMonoid (M : Type u) extends DLSemigroup M, DLOne M where
  one_mul : ∀ a : M, 1 * a = a
  mul_one : ∀ a : M, a * 1 = a
  /-- Raising to natural number powers. -/
  npow : ℕ → M → M := npowRec
  npow_zero : ∀ x : M, npow 0 x = 1 := by intros; rfl
  npow_succ : ∀ (n : ℕ) (x : M), npow (n + 1) x = npow n x * x := by intros; rfl

instance DLAddMonoid.toNatSMul {M : Type u} [DLAddMonoid M] : SMul ℕ M :=
  ⟨DLAddMonoid.nsmul⟩

@[to_additive existing DLAddMonoid.toNatSMul]
instance DLMonoid.toNatPow {M : Type u} [DLMonoid M] : Pow M ℕ :=
  ⟨fun x n => DLMonoid.npow n x⟩

/-- A commutative additive monoid. -/
class DLAddCommMonoid (M : Type u) extends DLAddMonoid M, DLAddCommSemigroup M

/-- A commutative monoid. -/
@[to_additive]
class DLCommMonoid (M : Type u) extends DLMonoid M, DLCommSemigroup M

/-- An additive group: every element has a negative. -/
class DLAddGroup (G : Type u) extends DLAddMonoid G, Neg G, Sub G where
  sub := fun a b => a + -b
  sub_eq_add_neg : ∀ a b : G, a - b = a + -b := by intros; rfl
  neg_add_cancel : ∀ a : G, -a + a = 0

/-- A group: a monoid in which every element has an inverse. -/
@[to_additive]
class DLGroup (G : Type u) extends DLMonoid G, DLInv G, Div G where
  div := fun a b => a * b⁻¹
  div_eq_mul_inv : ∀ a b : G, a / b = a * b⁻¹ := by intros; rfl
  inv_mul_cancel : ∀ a : G, a⁻¹ * a = 1

/-- A commutative additive group. -/
class DLAddCommGroup (G : Type u) extends DLAddGroup G, DLAddCommMonoid G

/-- A commutative group, also called an abelian group. -/
@[to_additive]
class DLCommGroup (G : Type u) extends DLGroup G, DLCommMonoid G

/-- The trivial group structure on `Unit`. -/
instance instDLCommGroupUnit : DLCommGroup Unit :=
  { mul := fun _ _ => ()
    one := ()
    inv := fun _ => ()
    mul_assoc := fun _ _ _ => rfl
    one_mul := fun _ => rfl
    mul_one := fun _ => rfl
    inv_mul_cancel := fun _ => rfl
    mul_comm := fun _ _ => rfl }

/-- `Bool` with exclusive or is a group of order two. -/
instance : DLCommGroup Bool where
  mul a b := xor a b
  one := false
  inv := id
  mul_assoc := by decide
  one_mul := by decide
  mul_one := by decide
  inv_mul_cancel := by decide
  mul_comm := by decide

end Driftlib
