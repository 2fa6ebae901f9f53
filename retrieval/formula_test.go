package retrieval

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func layout(s string) string { return strings.Join(FormulaLayout(s), " ") }

func TestFormulaLayout(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"p ∣ a * b → p ∣ a ∨ p ∣ b", "_ ∣ _ * _ → _ ∣ _ ∨ _ ∣ _"},
		// Applications and dotted names are one placeholder; 0 and 1 stay.
		{"Real.log (x * y) = Real.log x + Real.log y", "_ ( _ * _ ) = _ + _"},
		{"x⁻¹ * x = 1", "_ ⁻¹ * _ = 1"},
		{"a ≠ 0", "_ ≠ 0"},
		{"a ^ 2", "_ ^ _"},
		// A prime is part of a name; '' and ⁻¹' are operators.
		{"f' x = f '' s", "_ = _ '' _"},
		{"f ⁻¹' s ⊆ t", "_ ⁻¹' _ ⊆ _"},
		// A run of operator characters is one token, subscripts against it too.
		{"f : R →+* S", "_ : _ →+* _"},
		{"e : M ≃ₗ[R] N", "_ : _ ≃ₗ [ _ ] _"},
		// Superscripts are operators, subscripts are parts of names.
		{"(s ∪ t)ᶜ = sᶜ ∩ tᶜ", "( _ ∪ _ ) ᶜ = _ ᶜ ∩ _ ᶜ"},
		{"a₁ ≤ a₂", "_ ≤ _"},
		// Coercion arrows and universe levels are not layout; ASCII digraphs are read as Lean's symbols.
		{"↑n = Cardinal.lift.{u} m", "_ = _"},
		{"a <= b -> b >= a", "_ ≤ _ → _ ≥ _"},
		{"", ""},
	} {
		if got := layout(c.in); got != c.want {
			t.Errorf("FormulaLayout(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormulaQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"`p.Prime → p ∣ a * b → p ∣ a ∨ p ∣ b`", "_ → _ ∣ _ * _ → _ ∣ _ ∨ _ ∣ _"},
		// Only the spans of a sentence that has them.
		{"if `b > 0` then `b * a ≤ b * c → a ≤ c`", "_ > 0 , _ * _ ≤ _ * _ → _ ≤ _"},
		// LaTeX read as Lean writes it.
		{"$(A \\cup B)^c = A^c \\cap B^c$", "( _ ∪ _ ) ᶜ = _ ᶜ ∩ _ ᶜ"},
		{"$x^{-1} \\cdot x = 1$ in a group", "_ ⁻¹ * _ = 1"},
		{"$\\|x+y\\| \\le \\|x\\|+\\|y\\|$", "‖ _ + _ ‖ ≤ ‖ _ ‖ + ‖ _ ‖"},
		{"$\\frac{a}{b} = \\frac{ad}{bd}$", "_ / _ = ( _ * _ ) / ( _ * _ )"},
		{"$e^{x+y}$", "_ ^ ( _ + _ )"},
		{"$a^2 + b^2 \\ge 2ab$", "_ ^ _ + _ ^ _ ≥ _ * _ * _"},
		// Function names are not products.
		{"$\\sin^2 x + \\cos^2 x = 1$", "_ ^ _ + _ ^ _ = 1"},
		// A backquoted Lean span is not LaTeX: `ab` stays a name.
		{"`ab + c`", "_ + _"},
		// Prose, names, hyphenated nicknames: no formula.
		{"the log of a product is the sum of the logs", ""},
		{"Cauchy-Schwarz inequality", ""},
		{"Nat.Prime.dvd_mul", ""},
		{"`(a, b)`", ""},
	} {
		if got := layout(FormulaQuery(c.in)); got != c.want {
			t.Errorf("FormulaQuery(%q) reads as %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormulaStatement(t *testing.T) {
	for _, c := range []struct{ sig, want string }{
		// Implicit and instance binders are not hypotheses; explicit ones
		// named h… are, whatever their layout.
		{"{p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n", "_ ∣ _ * _ ↔ _ ∣ _ ∨ _ ∣ _"},
		{"{s t : Set α} (f : α → β) (h : s ⊆ t) : f '' s ⊆ f '' t", "_ ⊆ _ → _ '' _ ⊆ _ '' _"},
		{"[TopologicalSpace α] (hs : IsCompact s) (hf : Continuous f) : IsCompact (f '' s)", "_ → _ → _ ( _ '' _ )"},
		// An implicit binder is no hypothesis even when
		// its type holds an operator.
		{"{f g : R →+* S} {h : f = g} (x : R) : f x = g x", "_ = _"},
		// A binder of a function type is data, not a hypothesis.
		{"(c : F → M → M) (h1 : c 1 = id) : c 1 = 1", "_ = _ → _ = 1"},
		// Comments and := are skipped; a structure field is name : type.
		{"/-- a field: x -/\n  prop : ∀ x, x ≤ x", "∀ _ , _ ≤ _"},
		{"(a : α := 0) : a = a", "_ = _"},
		{": a ≡ b [ZMOD n] ↔ n ∣ b - a", "_ ≡ _ [ _ ] ↔ _ ∣ _ - _"},
		{"(x : ℕ", ""},
		{"", ""},
	} {
		if got := layout(FormulaStatement(c.sig)); got != c.want {
			t.Errorf("FormulaStatement(%q) reads as %q, want %q", c.sig, got, c.want)
		}
	}
}

func TestFormulaGrams(t *testing.T) {
	var got []string
	FormulaGrams(FormulaLayout("(a + b) ^ 2"), func(g string) { got = append(got, g) })
	// Grams of placeholders and brackets alone are left out.
	want := []string{"_ +", "+ _", ") ^", "^ _", "( _ +", "_ + _", "+ _ )", "_ ) ^", ") ^ _"}
	if !slices.Equal(got, want) {
		t.Errorf("grams %q, want %q", got, want)
	}
	got = nil
	FormulaGrams(FormulaLayout("f (g x)"), func(g string) { got = append(got, g) })
	if got != nil {
		t.Errorf("a layout without an operator gave grams %q", got)
	}
}

// FuzzFormulaQuery: any text (a query is outside input) is read without
// a panic, and its formula's layout holds an operator or is empty.
func FuzzFormulaQuery(f *testing.F) {
	for _, s := range []string{"`p ∣ a * b`", "$\\frac{a}{b}$", "$x^{-1}$ and `a ⁻¹' s`", "\\(a\\) \\[b\\]", "$$", "`", "(((", "/- -/ --", "$\\frac{\\frac{a}{b}}{c}^{\\{}$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := FormulaQuery(s)
		if q != "" && !hasFormulaSymbol(FormulaLayout(q)) {
			t.Fatalf("FormulaQuery(%q) = %q has no operator", s, q)
		}
		for _, tok := range FormulaLayout(s) {
			if tok == "" || !utf8.ValidString(tok) && utf8.ValidString(s) {
				t.Fatalf("FormulaLayout(%q) gave token %q", s, tok)
			}
		}
		FormulaStatement(s)
	})
}

// The reranker reads a hit's rank in the formula list.
func TestRerankFormulaFeature(t *testing.T) {
	hits := []Hit{{Name: "a", Kind: "theorem", Signals: map[string]int{"formula": 2}}, {Name: "b", Kind: "theorem"}}
	f := RerankFeatures("`a ∣ b * c`", "", hits, nil)
	i := slices.Index(rerankFeatureNames, "formula")
	if f[0][i] != 0.5 || f[1][i] != 0 {
		t.Errorf("formula features %v, %v; want 0.5, 0", f[0][i], f[1][i])
	}
}

func TestFormulaLaTeXApplication(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"$f(b) - f(a) = 0$", "_ - _ = 0"},
		{"$\\gcd(m,n) \\cdot \\operatorname{lcm}(m,n) = mn$", "_ * _ = _ * _"},
		{"$x \\in (a, b)$", "_ ∈ ( _ , _ )"},
		{"$f(x + y)$", "_ ( _ + _ )"},
	} {
		if got := layout(FormulaQuery(c.in)); got != c.want {
			t.Errorf("FormulaQuery(%q) reads as %q, want %q", c.in, got, c.want)
		}
	}
}

// A query nested thousands deep (\frac{\frac{…, x^{x^{…) is read in time
// linear in its length: each pass over the nesting rewrote only the
// innermost groups, so 64 KB of x^{ took minutes.
func TestFormulaQueryDeepNesting(t *testing.T) {
	for _, q := range []string{
		"$" + strings.Repeat(`x^{`, 16000) + strings.Repeat("}", 16000) + "$",
		"$" + strings.Repeat(`\frac{`, 8000) + "a" + strings.Repeat("}{b}", 8000) + "$",
	} {
		done := make(chan string, 1)
		go func() { done <- FormulaQuery(q) }()
		select {
		case f := <-done:
			if f == "" {
				t.Errorf("a nested formula of %d bytes has no formula", len(q))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("FormulaQuery of a formula nested %d bytes deep still running after 10 s", len(q))
		}
	}
	// A formula nested as deep as a real one is read whole.
	if got := layout(FormulaQuery(`$\frac{\frac{a}{b}}{\frac{c}{d}} = x^{y^{z^{2}}}$`)); got != "( _ / _ ) / ( _ / _ ) = _ ^ ( _ ^ ( _ ^ _ ) )" {
		t.Errorf("nested formula reads as %q", got)
	}
}
