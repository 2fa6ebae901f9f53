import Driftlib.Algebra.Group.Pow

/-!
# Monoid homomorphisms

Bundled homomorphisms `M →*' N` and isomorphisms `M ≃*' N`. The structure of
isomorphisms extends the homomorphism structure through its notation.
-/

universe u v w

namespace Driftlib

/-- Bundled additive monoid homomorphisms. -/
structure DLAddMonoidHom (M : Type u) (N : Type v) [DLAddMonoid M] [DLAddMonoid N] where
  /-- The underlying function. -/
  toFun : M → N
  map_zero' : toFun 0 = 0
  map_add' : ∀ x y, toFun (x + y) = toFun x + toFun y

/-- Bundled monoid homomorphisms: maps preserving `1` and `*`. -/
@[to_additive]
structure DLMonoidHom (M : Type u) (N : Type v) [DLMonoid M] [DLMonoid N] where
  /-- The underlying function. -/
  toFun : M → N
  map_one' : toFun 1 = 1
  map_mul' : ∀ x y, toFun (x * y) = toFun x * toFun y

@[inherit_doc] infixr:25 " →*' " => DLMonoidHom
@[inherit_doc] infixr:25 " →+' " => DLAddMonoidHom

namespace DLMonoidHom

variable {M : Type u} {N : Type v} {P : Type w} [DLMonoid M] [DLMonoid N] [DLMonoid P]

instance : CoeFun (M →*' N) (fun _ => M → N) := ⟨DLMonoidHom.toFun⟩

@[simp] theorem map_one (f : M →*' N) : f 1 = 1 := f.map_one'

@[simp] theorem map_mul (f : M →*' N) (x y : M) : f (x * y) = f x * f y := f.map_mul' x y

theorem map_pow (f : M →*' N) (x : M) (n : ℕ) : f (x ^ n) = f x ^ n := by
  induction n with
  | zero => simp [pow_zero]
  | succ n ih => rw [pow_succ, map_mul, ih, pow_succ]

/-- The identity homomorphism. -/
protected def id (M : Type u) [DLMonoid M] : M →*' M where
  toFun := id
  map_one' := rfl
  map_mul' _ _ := rfl

/-- Composition of monoid homomorphisms. -/
def comp (g : N →*' P) (f : M →*' N) : M →*' P where
  toFun := g ∘ f
  map_one' := by simp [Function.comp]
  map_mul' x y := by simp [Function.comp]

/-- The homomorphism sending everything to `1`. -/
instance : DLOne (M →*' N) :=
  ⟨{ toFun := fun _ => 1, map_one' := rfl, map_mul' := fun _ _ => (mul_one 1).symm }⟩

theorem comp_apply (g : N →*' P) (f : M →*' N) (x : M) : g.comp f x = g (f x) := rfl

theorem map_inv {G : Type u} {H : Type v} [DLGroup G] [DLGroup H] (f : G →*' H) (x : G) :
    f x⁻¹ = (f x)⁻¹ := by
  symm
  apply inv_eq_of_mul_eq_one_right
  rw [← map_mul, mul_inv_cancel, map_one]

end DLMonoidHom

/-- Bundled monoid isomorphisms. -/
structure DLMulEquiv (M : Type u) (N : Type v) [DLMonoid M] [DLMonoid N] extends M →*' N where
  /-- The inverse map. -/
  invFun : N → M
  left_inv : Function.LeftInverse invFun toFun
  right_inv : Function.RightInverse invFun toFun

@[inherit_doc] infixl:25 " ≃*' " => DLMulEquiv

namespace DLMulEquiv

variable {M : Type u} {N : Type v} [DLMonoid M] [DLMonoid N]

/-- The identity isomorphism. -/
@[refl] protected def refl (M : Type u) [DLMonoid M] : M ≃*' M :=
  { DLMonoidHom.id M with
    invFun := id
    left_inv := fun _ => rfl
    right_inv := fun _ => rfl }

/-- The inverse of an isomorphism. -/
@[symm] protected def symm (e : M ≃*' N) : N ≃*' M where
  toFun := e.invFun
  invFun := e.toFun
  map_one' := by sorry
  map_mul' := by sorry
  left_inv := e.right_inv
  right_inv := e.left_inv

theorem bijective (e : M ≃*' N) : Function.Bijective e.toFun :=
  ⟨e.left_inv.injective, e.right_inv.surjective⟩

end DLMulEquiv

/-- Two monoids are isomorphic if there is an isomorphism between them. -/
def IsIsomorphic (M : Type u) (N : Type v) [DLMonoid M] [DLMonoid N] : Prop :=
  Nonempty (M ≃*' N)

end Driftlib
