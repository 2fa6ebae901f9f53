import Driftlib.Algebra.Order
import Driftlib.Order.Monotone

/-!
# Sequences and limits

Sequences `ℕ → K` in a linear ordered field `K`: convergence, Cauchy sequences,
boundedness and subsequences, with the usual ε–N definitions.
-/

universe u

namespace Driftlib

/-- A sequence with values in `K`. -/
abbrev Seq (K : Type u) := ℕ → K

variable {K : Type u} [DLLinearOrderedField K]

/-- The sequence `u` tends to `l`: for every `ε > 0`, eventually `|u n - l| < ε`. -/
def TendsTo (u : ℕ → K) (l : K) : Prop :=
  ∀ ε, 0 < ε → ∃ N : ℕ, ∀ n, N ≤ n → |u n - l| < ε

/-- A sequence converges if it tends to some limit. -/
def Converges (u : ℕ → K) : Prop := ∃ l, TendsTo u l

/-- A Cauchy sequence: terms eventually get arbitrarily close to each other. -/
def IsCauchy (u : ℕ → K) : Prop :=
  ∀ ε, 0 < ε → ∃ N : ℕ, ∀ m n, N ≤ m → N ≤ n → |u m - u n| < ε

/-- A sequence is bounded if all its terms lie in some interval `[-M, M]`. -/
def SeqBounded (u : ℕ → K) : Prop := ∃ M, ∀ n, |u n| ≤ M

/-- The sequence `u` tends to `+∞`. -/
def TendsToInfinity (u : ℕ → K) : Prop := ∀ M, ∃ N : ℕ, ∀ n, N ≤ n → M < u n

/-- `v` is a subsequence of `u`. -/
def IsSubseq (v u : ℕ → K) : Prop := ∃ φ : ℕ → ℕ, StrictMono φ ∧ ∀ n, v n = u (φ n)

/-- The sequence of partial sums of `u`. -/
def partialSums (u : Seq K) : Seq K
  | 0 => 0
  | n + 1 => partialSums u n + u n

/-- A series is summable if its partial sums converge. -/
def Summable (u : Seq K) : Prop := Converges (partialSums u)

/-- Archimedean property of an ordered field. -/
class DLArchimedean (K : Type u) [DLLinearOrderedField K] : Prop where
  arch : ∀ x : K, ∃ n : ℕ, x < Nat.cast n

/-- A complete ordered field: every Cauchy sequence converges. -/
class DLCompleteField (K : Type u) [DLLinearOrderedField K] : Prop where
  cauchy_converges : ∀ u : ℕ → K, IsCauchy u → Converges u

theorem tendsTo_const (c : K) : TendsTo (fun _ => c) c := fun ε hε =>
  ⟨0, fun n _ => by simp only [sub_self', abs_zero]; exact hε⟩

/-- Limits are unique. -/
theorem TendsTo.unique {u : ℕ → K} {a b : K} (ha : TendsTo u a) (hb : TendsTo u b) : a = b := by
  sorry

theorem TendsTo.add {u v : ℕ → K} {a b : K} (hu : TendsTo u a) (hv : TendsTo v b) :
    TendsTo (fun n => u n + v n) (a + b) := by
  intro ε hε
  obtain ⟨N₁, hN₁⟩ := hu (ε / (1 + 1)) (half_pos hε)
  obtain ⟨N₂, hN₂⟩ := hv (ε / (1 + 1)) (half_pos hε)
  refine ⟨Nat.max N₁ N₂, fun n hn => ?_⟩
  sorry

theorem TendsTo.mul {u v : ℕ → K} {a b : K} (hu : TendsTo u a) (hv : TendsTo v b) :
    TendsTo (fun n => u n * v n) (a * b) := by
  sorry

/-- Squeeze theorem. -/
theorem tendsTo_of_le_of_le {u v w : ℕ → K} {l : K} (hu : TendsTo u l) (hw : TendsTo w l)
    (huv : ∀ n, u n ≤ v n) (hvw : ∀ n, v n ≤ w n) : TendsTo v l := by
  sorry

/-- A convergent sequence is bounded. -/
theorem TendsTo.bounded {u : ℕ → K} {l : K} (h : TendsTo u l) : SeqBounded u := by
  sorry

theorem Converges.isCauchy {u : ℕ → K} (h : Converges u) : IsCauchy u := by
  obtain ⟨l, hl⟩ := h
  intro ε hε
  obtain ⟨N, hN⟩ := hl (ε / (1 + 1)) (half_pos hε)
  refine ⟨N, fun m n hm hn => ?_⟩
  calc |u m - u n| = |(u m - l) + (l - u n)| := by sorry
    _ ≤ |u m - l| + |l - u n| := abs_add _ _
    _ < ε := by sorry

theorem TendsTo.subseq {u v : ℕ → K} {l : K} (hu : TendsTo u l) (hv : IsSubseq v u) :
    TendsTo v l := by
  sorry

/-- Monotone convergence: a bounded monotone sequence in a complete field converges. -/
theorem converges_of_monotone_of_bounded [DLCompleteField K] {u : ℕ → K} (hmono : Monotone u)
    (hbdd : SeqBounded u) : Converges u := by
  sorry

noncomputable section

/-- The limit of a convergent sequence (chosen). -/
def limUnder (u : ℕ → K) (h : Converges u) : K := Classical.choose h

theorem tendsTo_limUnder {u : ℕ → K} (h : Converges u) : TendsTo u (limUnder u h) :=
  Classical.choose_spec h

/-- The sum of a summable series. -/
def tsum' (u : Seq K) (h : Summable u) : K := limUnder (partialSums u) h

end

end Driftlib
