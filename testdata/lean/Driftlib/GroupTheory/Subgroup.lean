import Driftlib.Algebra.Group.Hom
import Driftlib.Data.Set.Image
import Driftlib.Order.Lattice

/-!
# Subgroups

Subgroups of a group `G` (structure with constructor `Subgroup.mk'`), the
trivial subgroup, the whole group, intersections, the center, normal subgroups,
preimages and kernels of homomorphisms.
-/

universe u v

namespace Driftlib

/-- A subgroup of a group `G`: a set containing `1` and closed under `*` and `⁻¹`. -/
structure Subgroup (G : Type u) [DLGroup G] where
  mk' ::
  /-- The underlying set. -/
  carrier : DSet G
  one_mem' : (1 : G) ∈ carrier
  mul_mem' {a b : G} : a ∈ carrier → b ∈ carrier → a * b ∈ carrier
  inv_mem' {a : G} : a ∈ carrier → a⁻¹ ∈ carrier

namespace Subgroup

variable {G : Type u} [DLGroup G] (H K : Subgroup G)

instance : Membership G (Subgroup G) := ⟨fun H x => x ∈ H.carrier⟩

@[simp] theorem mem_carrier {x : G} : x ∈ H.carrier ↔ x ∈ H := Iff.rfl

theorem one_mem : (1 : G) ∈ H := H.one_mem'

theorem mul_mem {x y : G} : x ∈ H → y ∈ H → x * y ∈ H := H.mul_mem'

theorem inv_mem {x : G} : x ∈ H → x⁻¹ ∈ H := H.inv_mem'

@[simp] theorem inv_mem_iff {x : G} : x⁻¹ ∈ H ↔ x ∈ H :=
  ⟨fun h => inv_inv x ▸ H.inv_mem h, H.inv_mem⟩

theorem div_mem {x y : G} (hx : x ∈ H) (hy : y ∈ H) : x / y ∈ H := by
  rw [div_eq_mul_inv]
  exact H.mul_mem hx (H.inv_mem hy)

theorem pow_mem {x : G} (hx : x ∈ H) : ∀ n : ℕ, x ^ n ∈ H
  | 0 => by rw [pow_zero]; exact H.one_mem
  | n + 1 => by rw [pow_succ]; exact H.mul_mem (pow_mem hx n) hx

@[ext] theorem ext {H K : Subgroup G} (h : ∀ x, x ∈ H ↔ x ∈ K) : H = K := by
  sorry

/-- The trivial subgroup `{1}`. -/
protected def bot : Subgroup G where
  carrier := fun x => x = 1
  one_mem' := rfl
  mul_mem' {a b} ha hb := by
    show a * b = 1
    rw [show a = 1 from ha, show b = 1 from hb, mul_one]
  inv_mem' {a} ha := by
    show a⁻¹ = 1
    rw [show a = 1 from ha, inv_one]

/-- The subgroup consisting of the whole group. -/
protected def top : Subgroup G := mk' DSet.univ trivial (fun _ _ => trivial) (fun _ => trivial)

/-- The intersection of two subgroups. -/
protected def inf : Subgroup G where
  carrier := H.carrier ∩ K.carrier
  one_mem' := ⟨H.one_mem, K.one_mem⟩
  mul_mem' ha hb := ⟨H.mul_mem ha.1 hb.1, K.mul_mem ha.2 hb.2⟩
  inv_mem' ha := ⟨H.inv_mem ha.1, K.inv_mem ha.2⟩

/-- Subgroups are ordered by inclusion. -/
instance : DLPartialOrder (Subgroup G) where
  le H K := H.carrier ⊆ K.carrier
  le_refl H := DSet.Subset.refl H.carrier
  le_trans _ _ _ h₁ h₂ := DSet.Subset.trans h₁ h₂
  le_antisymm _ _ h₁ h₂ := ext fun _ => ⟨fun h => h₁ h, fun h => h₂ h⟩

theorem mem_bot {x : G} : x ∈ (Subgroup.bot : Subgroup G) ↔ x = 1 := Iff.rfl

lemma mem_top (x : G) : x ∈ (Subgroup.top : Subgroup G) := trivial

theorem mem_inf {x : G} : x ∈ H.inf K ↔ x ∈ H ∧ x ∈ K := Iff.rfl

/-- The center of `G`: the elements commuting with everything. -/
def center (G : Type u) [DLGroup G] : Subgroup G where
  carrier := fun z => ∀ g : G, g * z = z * g
  one_mem' := fun g => by rw [mul_one, one_mul]
  mul_mem' := by sorry
  inv_mem' := by sorry

theorem mem_center_iff {z : G} : z ∈ center G ↔ ∀ g : G, g * z = z * g := Iff.rfl

/-- A subgroup is normal if it is closed under conjugation. -/
class Normal (H : Subgroup G) : Prop where
  conj_mem : ∀ n, n ∈ H → ∀ g : G, g * n * g⁻¹ ∈ H

instance normal_bot : (Subgroup.bot : Subgroup G).Normal :=
  ⟨fun n hn g => by
    show g * n * g⁻¹ = 1
    rw [show n = 1 from hn, mul_one, mul_inv_cancel]⟩

instance normal_center : (center G).Normal := by
  sorry

/-- The normalizer of `H`. -/
def normalizer : Subgroup G where
  carrier := fun g => ∀ n, n ∈ H ↔ g * n * g⁻¹ ∈ H
  one_mem' := by sorry
  mul_mem' := by sorry
  inv_mem' := by sorry

/-- In a commutative group every subgroup is normal. -/
theorem normal_of_comm {G : Type u} [DLCommGroup G] (H : Subgroup G) : H.Normal :=
  ⟨fun n hn g => by rwa [mul_comm g n, mul_assoc, mul_inv_cancel, mul_one]⟩

section Hom

variable {N : Type v} [DLGroup N]

/-- The preimage of a subgroup under a homomorphism. -/
def comap (f : G →*' N) (K : Subgroup N) : Subgroup G where
  carrier := f ⁻¹' K.carrier
  one_mem' := by
    show f 1 ∈ K
    rw [DLMonoidHom.map_one]
    exact K.one_mem
  mul_mem' {a b} ha hb := by
    show f (a * b) ∈ K
    rw [DLMonoidHom.map_mul]
    exact K.mul_mem ha hb
  inv_mem' {a} ha := by
    show f a⁻¹ ∈ K
    rw [DLMonoidHom.map_inv]
    exact K.inv_mem ha

/-- The kernel of a group homomorphism. -/
def ker (f : G →*' N) : Subgroup G := comap f Subgroup.bot

theorem mem_ker {f : G →*' N} {x : G} : x ∈ ker f ↔ f x = 1 := Iff.rfl

instance ker_normal (f : G →*' N) : (ker f).Normal := by
  sorry

/-- A homomorphism is injective iff its kernel is trivial. -/
theorem ker_eq_bot_iff (f : G →*' N) :
    ker f = Subgroup.bot ↔ Function.Injective f := by
  sorry

end Hom

end Subgroup

end Driftlib
