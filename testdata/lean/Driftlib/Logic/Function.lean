module

public import Driftlib.Logic.Basic

/-!
# Functions

Injective, surjective and bijective functions, one-sided inverses, and bundled
equivalences `α ≃' β` (with a custom constructor `DLEquiv.mk'`).
-/

@[expose] public section

universe u v w

namespace Driftlib.Function

variable {α : Type u} {β : Type v} {γ : Type w}

/-- A function is injective if it maps distinct points to distinct points. -/
def Injective (f : α → β) : Prop := ∀ ⦃a₁ a₂⦄, f a₁ = f a₂ → a₁ = a₂

/-- A function is surjective if every point of the codomain is hit. -/
def Surjective (f : α → β) : Prop := ∀ b, ∃ a, f a = b

/-- A function is bijective if it is injective and surjective. -/
def Bijective (f : α → β) : Prop := Injective f ∧ Surjective f

/-- `g` is a left inverse of `f` if `g (f x) = x` for all `x`. -/
def LeftInverse (g : β → α) (f : α → β) : Prop := ∀ x, g (f x) = x

/-- `g` is a right inverse of `f` if `f (g y) = y` for all `y`. -/
def RightInverse (g : β → α) (f : α → β) : Prop := LeftInverse f g

/-- A function is an involution if applying it twice is the identity. -/
def Involutive (f : α → α) : Prop := ∀ x, f (f x) = x

theorem Injective.comp {g : β → γ} {f : α → β} (hg : Injective g) (hf : Injective f) :
    Injective (g ∘ f) :=
  fun _ _ h => hf (hg h)

theorem Surjective.comp {g : β → γ} {f : α → β} (hg : Surjective g) (hf : Surjective f) :
    Surjective (g ∘ f) := fun c =>
  let ⟨b, hb⟩ := hg c
  let ⟨a, ha⟩ := hf b
  ⟨a, show g (f a) = c by rw [ha, hb]⟩

/-- The composition of two bijections is a bijection. -/
theorem Bijective.comp {g : β → γ} {f : α → β} (hg : Bijective g) (hf : Bijective f) :
    Bijective (g ∘ f) :=
  ⟨hg.1.comp hf.1, hg.2.comp hf.2⟩

theorem LeftInverse.injective {g : β → α} {f : α → β} (h : LeftInverse g f) : Injective f :=
  fun a b hab => by rw [← h a, ← h b, hab]

theorem RightInverse.surjective {g : β → α} {f : α → β} (h : RightInverse g f) :
    Surjective f :=
  fun b => ⟨g b, h b⟩

theorem Involutive.injective {f : α → α} (h : Involutive f) : Injective f :=
  LeftInverse.injective h

theorem injective_id : Injective (id : α → α) := fun _ _ h => h

theorem surjective_id : Surjective (id : α → α) := fun a => ⟨a, rfl⟩

/-- The identity function is bijective. -/
theorem bijective_id : Bijective (id : α → α) := ⟨injective_id, surjective_id⟩

theorem Injective.eq_iff {f : α → β} (hf : Injective f) {a b : α} : f a = f b ↔ a = b :=
  ⟨fun h => hf h, fun h => h ▸ rfl⟩

theorem Injective.of_comp {g : β → γ} {f : α → β} (h : Injective (g ∘ f)) : Injective f :=
  fun a b hab => h (show g (f a) = g (f b) by rw [hab])

theorem Surjective.of_comp {g : β → γ} {f : α → β} (h : Surjective (g ∘ f)) : Surjective g :=
  fun c => let ⟨a, ha⟩ := h c; ⟨f a, ha⟩

end Driftlib.Function

namespace Driftlib

/-- An equivalence between `α` and `β`: a function with a two-sided inverse.
The constructor is called `DLEquiv.mk'`. -/
structure DLEquiv (α : Type u) (β : Type v) where
  mk' ::
  /-- The forward map. -/
  toFun : α → β
  /-- The backward map. -/
  invFun : β → α
  left_inv : Function.LeftInverse invFun toFun
  right_inv : Function.RightInverse invFun toFun

@[inherit_doc] infixl:25 " ≃' " => DLEquiv

namespace DLEquiv

variable {α : Type u} {β : Type v} {γ : Type w}

/-- The identity equivalence. -/
@[refl] protected def refl (α : Type u) : α ≃' α where
  toFun := id
  invFun := id
  left_inv _ := rfl
  right_inv _ := rfl

/-- The inverse of an equivalence. -/
@[symm] protected def symm (e : α ≃' β) : β ≃' α :=
  DLEquiv.mk' e.invFun e.toFun e.right_inv e.left_inv

/-- Composition of equivalences. -/
@[trans] protected def trans (e₁ : α ≃' β) (e₂ : β ≃' γ) : α ≃' γ where
  toFun := e₂.toFun ∘ e₁.toFun
  invFun := e₁.invFun ∘ e₂.invFun
  left_inv x := by simp [Function.comp, e₂.left_inv (e₁.toFun x), e₁.left_inv x]
  right_inv y := by simp [Function.comp, e₁.right_inv (e₂.invFun y), e₂.right_inv y]

instance : CoeFun (α ≃' β) (fun _ => α → β) := ⟨DLEquiv.toFun⟩

theorem bijective (e : α ≃' β) : Function.Bijective e :=
  ⟨e.left_inv.injective, e.right_inv.surjective⟩

@[simp] theorem symm_apply_apply (e : α ≃' β) (x : α) : e.symm (e x) = x := e.left_inv x

@[simp] theorem apply_symm_apply (e : α ≃' β) (y : β) : e (e.symm y) = y := e.right_inv y

/-- The permutations of a type. -/
abbrev Perm (α : Type u) := α ≃' α

end DLEquiv

end Driftlib

end
