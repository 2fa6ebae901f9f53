package retrieval

import (
	"strings"
	"testing"
)

func TestNormalizeLaTeX(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`$p \mid ab$`, "p ∣ ab"},
		{`$\mathbb{R}$ and \mathbb N`, "ℝ and ℕ"},
		{`$x^{-1} \cdot x = 1$`, "x⁻¹ * x = 1"},
		{`$\int_a^b f = F(b) - F(a)$`, "∫ _a^b f = F(b) - F(a)"},
		{`$a \equiv b \pmod n$`, "a ≡ b mod n"},
		{`$\sin^2 x + \cos^2 x$`, "sin ^2 x + cos ^2 x"},
		{`$\frac{1}{n} \to 0$`, "1 n → 0"},
		{`$A \sqcup B \le \top$`, "A ⊔ B ≤ ⊤"},
		{`$p \lor q$`, "p ∨ q"},
		{"no latex here", "no latex here"},
	} {
		if got := strings.Join(strings.Fields(NormalizeLaTeX(tc.in)), " "); got != tc.want {
			t.Errorf("NormalizeLaTeX(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if HasLaTeX(`p ∣ a * b`) || !HasLaTeX(`$p \mid ab$`) || HasLaTeX(`a \ b`) {
		t.Error("HasLaTeX")
	}
}

func TestSymbolWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"`p ∣ a * b → p ∣ a ∨ p ∣ b`", "dvd mul or"},
		{"a ≤ b ↔ a ⊔ b = b", "iff le sup"},
		{"x⁻¹ * x = 1", "inv mul one"},
		{"x^2 + y^2", "add pow"},
		{"(s ∪ t)ᶜ = sᶜ ∩ tᶜ", "compl inter union"},
		{"a - b and -x", "neg sub"},
		// Not notation: hyphens, slashes between words, digits in numbers.
		{"the Gregory-Newton formula", ""},
		{"a field extension E/F of degree 10 over ℚ", "div"},
		{"version 1.0", ""},
		{"", ""},
	} {
		got := SymbolWords(tc.in)
		if strings.Join(sortedFields(got), " ") != strings.Join(sortedFields(tc.want), " ") {
			t.Errorf("SymbolWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := SymbolWords(NormalizeLaTeX(`$p \mid ab \implies p \mid a \lor p \mid b$`)); !strings.Contains(got, "dvd") || !strings.Contains(got, "or") {
		t.Errorf("LaTeX query's symbols: %q", got)
	}
}

func sortedFields(s string) []string {
	f := strings.Fields(s)
	sortStrings(f)
	return f
}

func FuzzSymbols(f *testing.F) {
	f.Add(`$p \mid ab$`)
	f.Add("`a ≤ b` \\mathbb{ \\frac{")
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeLaTeX(s)
		if SymbolWords(n) != SymbolWords(n) {
			t.Fatal("SymbolWords not deterministic")
		}
	})
}
