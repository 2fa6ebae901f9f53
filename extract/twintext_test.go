package extract

import "testing"

// additiveTestDict is a to_additive dictionary as Mathlib's sources give
// it (core constants named as Mathlib/Tactic/ToAdditive.lean names them).
var additiveTestDict = twinDict{
	"HMul.hMul": "HAdd.hAdd", "HDiv.hDiv": "HSub.hSub", "Inv.inv": "Neg.neg", "One.one": "Zero.zero",
	"HPow.hPow": "HSMul.hSMul", "Finset.prod": "Finset.sum", "mabs": "abs", "finprod": "finsum", "tprod": "tsum",
}

func TestTranslateTwinText(t *testing.T) {
	syms, _ := additiveTestDict.symbolMap(nil)
	ids := map[string]string{"MulLeftMono": "AddLeftMono", "MulRightMono": "AddRightMono",
		"Finset.prod_congr": "Finset.sum_congr", "CommMonoid": "AddCommMonoid", "orderOf": "addOrderOf"}
	consts := map[string]bool{"ℕ": true}
	for w := range ids {
		consts[w] = true
	}
	for _, c := range []struct{ in, want string }{
		{"[MulLeftMono α] [MulRightMono α] {a b c d : α} (h₁ : a ≤ b) (h₂ : c ≤ d) : a * c ≤ b * d",
			"[AddLeftMono α] [AddRightMono α] {a b c d : α} (h₁ : a ≤ b) (h₂ : c ≤ d) : a + c ≤ b + d"},
		{"(a b : α) : |a * b|ₘ ≤ |a|ₘ * |b|ₘ", "(a b : α) : |a + b| ≤ |a| + |b|"},
		{": ∏ x ∈ ∅, f x = 1", ": ∑ x ∈ ∅, f x = 0"},
		{"(a b : G) : (a * b)⁻¹ = b⁻¹ * a⁻¹", "(a b : G) : -(a + b) = -b + -a"},
		{"(a : M) (n : ℕ) : a ^ (n + 1) = a ^ n * a", "(a : M) (n : ℕ) : (n + 1) • a = n • a + a"},
		{"(a : M) : a ^ 1 = a", "(a : M) : 1 • a = a"},
		{"(f : α → G) : f x⁻¹ = (f x)⁻¹", "(f : α → G) : f (-x) = -f x"},
		{"{s : Finset α} (h : ∀ x ∈ s, f x = g x) : s.prod f = Finset.prod_congr h", "{s : Finset α} (h : ∀ x ∈ s, f x = g x) : s.prod f = Finset.sum_congr h"},
		{"(x : G) : orderOf x ∣ 1", "(x : G) : orderOf x ∣ 1"}, // 1 of ℕ? unknown: kept
		{"(a : M) : a / 1 = a", "(a : M) : a - 0 = a"},
		{"(mul : α) : mul = mul", "(mul : α) : mul = mul"},
		{"[CommMonoid M] (x : M) : (1 : M) * x = x ∧ (1 : ℕ) = 1", "[AddCommMonoid M] (x : M) : (0 : M) + x = x ∧ (1 : ℕ) = 1"},
		{"∏ᶠ i, f i = ∏' i, f i", "∑ᶠ i, f i = ∑' i, f i"},
	} {
		got, ok := translateTwinText(c.in, ids, consts, syms, true, true, true)
		if got != c.want {
			t.Errorf("%q:\n got %q (ok %v)\nwant %q", c.in, got, ok, c.want)
		}
	}
}
