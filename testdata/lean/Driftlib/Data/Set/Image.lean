module

public import Driftlib.Data.Set.Basic
public import Driftlib.Logic.Function

/-!
# Images and preimages

`f '' s` is the image of `s` under `f` and `f ⁻¹' t` the preimage of `t`.
Note for lexers: `''` is a token here, not the start of a character literal.
-/

@[expose] public section

universe u v w

namespace Driftlib

namespace DSet

variable {α : Type u} {β : Type v} {γ : Type w}

/-- The image of a set under a function. -/
def image (f : α → β) (s : DSet α) : DSet β := fun b => ∃ a, a ∈ s ∧ f a = b

@[inherit_doc] infixl:80 " '' " => image

/-- The preimage of a set under a function. -/
def preimage (f : α → β) (t : DSet β) : DSet α := fun a => f a ∈ t

@[inherit_doc] infixl:80 " ⁻¹' " => preimage

/-- The range of a function. -/
def range (f : α → β) : DSet β := fun b => ∃ a, f a = b

/-- `f` is injective on `s`. -/
def InjOn (f : α → β) (s : DSet α) : Prop :=
  ∀ ⦃a₁⦄, a₁ ∈ s → ∀ ⦃a₂⦄, a₂ ∈ s → f a₁ = f a₂ → a₁ = a₂

/-- `f` maps `s` into `t`. -/
def MapsTo (f : α → β) (s : DSet α) (t : DSet β) : Prop := ∀ ⦃a⦄, a ∈ s → f a ∈ t

/-- `f` maps `s` onto `t`. -/
def SurjOn (f : α → β) (s : DSet α) (t : DSet β) : Prop := t ⊆ f '' s

/-- `f` is a bijection from `s` to `t`. -/
def BijOn (f : α → β) (s : DSet α) (t : DSet β) : Prop :=
  MapsTo f s t ∧ InjOn f s ∧ SurjOn f s t

theorem mem_image_of_mem (f : α → β) {s : DSet α} {a : α} (h : a ∈ s) : f a ∈ f '' s :=
  ⟨a, h, rfl⟩

@[simp] theorem mem_preimage {f : α → β} {t : DSet β} {a : α} : a ∈ f ⁻¹' t ↔ f a ∈ t := Iff.rfl

theorem image_subset {f : α → β} {s t : DSet α} (h : s ⊆ t) : f '' s ⊆ f '' t :=
  fun _ ⟨a, ha, hfa⟩ => ⟨a, h ha, hfa⟩

theorem image_union (f : α → β) (s t : DSet α) : f '' (s ∪ t) = f '' s ∪ f '' t := by
  ext b
  constructor
  · rintro ⟨a, ha | ha, rfl⟩
    · exact Or.inl ⟨a, ha, rfl⟩
    · exact Or.inr ⟨a, ha, rfl⟩
  · rintro (⟨a, ha, rfl⟩ | ⟨a, ha, rfl⟩)
    · exact ⟨a, Or.inl ha, rfl⟩
    · exact ⟨a, Or.inr ha, rfl⟩

theorem preimage_union (f : α → β) (s t : DSet β) : f ⁻¹' (s ∪ t) = f ⁻¹' s ∪ f ⁻¹' t := rfl

theorem preimage_inter (f : α → β) (s t : DSet β) : f ⁻¹' (s ∩ t) = f ⁻¹' s ∩ f ⁻¹' t := rfl

theorem preimage_compl (f : α → β) (s : DSet β) : f ⁻¹' sᶜ = (f ⁻¹' s)ᶜ := rfl

theorem preimage_comp (g : β → γ) (f : α → β) (s : DSet γ) :
    (g ∘ f) ⁻¹' s = f ⁻¹' (g ⁻¹' s) := rfl

theorem image_preimage_subset (f : α → β) (t : DSet β) : f '' (f ⁻¹' t) ⊆ t :=
  fun _ ⟨_, ha, hfa⟩ => hfa ▸ ha

theorem subset_preimage_image (f : α → β) (s : DSet α) : s ⊆ f ⁻¹' (f '' s) :=
  fun a ha => ⟨a, ha, rfl⟩

theorem image_comp (g : β → γ) (f : α → β) (s : DSet α) : (g ∘ f) '' s = g '' (f '' s) := by
  sorry

theorem range_comp_subset_range (g : β → γ) (f : α → β) : range (g ∘ f) ⊆ range g :=
  λ _ ⟨a, ha⟩ => ⟨f a, ha⟩

theorem MapsTo.comp {g : β → γ} {f : α → β} {s : DSet α} {t : DSet β} {u : DSet γ}
    (hg : MapsTo g t u) (hf : MapsTo f s t) : MapsTo (g ∘ f) s u :=
  fun _ h => hg (hf h)

theorem _root_.Driftlib.Function.Injective.injOn {f : α → β} (hf : Function.Injective f)
    (s : DSet α) : InjOn f s :=
  fun _ _ _ _ h => hf h

theorem InjOn.mono {f : α → β} {s t : DSet α} (h : s ⊆ t) (ht : InjOn f t) : InjOn f s :=
  fun _ ha _ hb => ht (h ha) (h hb)

end DSet

end Driftlib

end
