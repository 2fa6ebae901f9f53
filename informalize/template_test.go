package informalize

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestHumanizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Nat.Prime.two_le":          "Two less than or equal (natural numbers, prime)",
		"IsOpen.inter":              "Intersection (is open)",
		"HasDerivAt.add":            "Addition (has derivative at)",
		"Finset.card_union_le":      "Cardinality union less than or equal (finite sets)",
		"mul_comm":                  "Multiplication commutativity",
		"Real.sqrt_eq_iff":          "Square root equals if and only if (real numbers)",
		"_private.Foo.0.bar_baz":    "Bar baz (foo)",
		"NormedAddCommGroup.toNorm": "To norm (normed addition commutativity group)",
		"ZMod.natCast_self":         "Natural number cast itself (integers modulo n)",
		"IsHTTPServer":              "Is HTTP server",
		"List.length_append":        "Length append (lists)",
	} {
		if got := HumanizeName(in); got != want {
			t.Errorf("HumanizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTemplateGolden renders a set of Mathlib-style declarations; run with
// -update to accept changes to testdata/template.golden.
func TestTemplateGolden(t *testing.T) {
	cases := []Input{
		{Name: "Nat.Prime.two_le", Kind: "theorem", Signature: "{p : ℕ} (hp : p.Prime) : 2 ≤ p"},
		{Name: "Nat.Prime.eq_one_or_self_of_dvd", Kind: "theorem", Signature: "{p : ℕ} (pp : p.Prime) (a : ℕ) (h : a ∣ p) : a = 1 ∨ a = p"},
		{Name: "Set.inter_subset_left", Kind: "theorem", Signature: "{α : Type u} {s t : Set α} : s ∩ t ⊆ s"},
		{Name: "mul_inv_cancel₀", Kind: "theorem", Signature: "{G₀ : Type*} [GroupWithZero G₀] {a : G₀} (h : a ≠ 0) : a * a⁻¹ = 1"},
		{Name: "exists_prime_gt", Kind: "theorem", Signature: "(n : ℕ) : ∃ p, Nat.Prime p ∧ n < p"},
		{Name: "Function.Injective.comp", Kind: "theorem", Signature: "{f : β → γ} {g : α → β} (hf : Injective f) (hg : Injective g) : Injective (f ∘ g)"},
		{Name: "Real.add_pow_le_pow_mul_pow_of_sq_le_sq", Kind: "theorem", Signature: "(n : ℕ) (hab : a ≤ b) : (a + b) ^ n ≤ 2 ^ n * b ^ n"},
		{Name: "Nat.Prime", Kind: "definition", Signature: "(p : ℕ) : Prop", Docstring: "`Nat.Prime p` means that `p` is a prime number, that is, a natural number\n  at least 2 whose only divisors are `p` and `1`.\n\nMore text."},
		{Name: "Finset.sum", Kind: "definition", Signature: "{β : Type u} {α : Type v} [AddCommMonoid β] (s : Finset α) (f : α → β) : β"},
		{Name: "TopologicalSpace", Kind: "class", Signature: "(X : Type u) : Type u"},
		{Name: "Subgroup.mk", Kind: "constructor", Signature: "(toSubmonoid : Submonoid G) (inv_mem' : ∀ {x}, x ∈ carrier → x⁻¹ ∈ carrier) : Subgroup G"},
		{Name: "Nat.instCommSemiring", Kind: "instance", Signature: ": CommSemiring ℕ"},
		{Name: "iff_of_true", Kind: "theorem", Signature: "(ha : a) (hb : b) : a ↔ b"},
		{Name: "foo", Kind: "theorem", Signature: "foo : True"},
	}
	var b strings.Builder
	for _, in := range cases {
		r, err := Template{}.Informalize(context.Background(), &in)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s [%s] %s\n  name: %s\n  statement: %s\n\n", in.Name, in.Kind, in.Signature, r.InformalName, r.InformalStatement)
	}
	golden := filepath.Join("testdata", "template.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTemplateGolden -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("template output differs from %s (rerun with -update if intended):\n%s", golden, b.String())
	}
}

// The template fallback is labelled as such in every row it writes and in
// the run's manifest, and gives every declaration — of every kind, with or
// without a signature or docstring — a non-empty name and statement, so a
// downstream index never mistakes template text for a model's.
func TestTemplateRunLabelsEveryRow(t *testing.T) {
	dir := t.TempDir()
	ds := synthDecls(40, 7)
	bare := []workspace.Declaration{
		{Library: "lib", Name: "Lib.bare", Kind: workspace.KindAxiom, Module: "Lib.M0"},
		{Library: "lib", Name: "x", Kind: workspace.KindTheorem, Module: "Lib.M0"},
		{Library: "lib", Name: "Lib.Ind.mk", Kind: workspace.KindConstructor, Module: "Lib.M1", Signature: ": Lib.Ind"},
	}
	writeFixture(t, dir, append(ds, bare...))
	ws := &workspace.Workspace{Dir: dir}
	if _, err := Run(context.Background(), ws, quietOpts(Template{})); err != nil {
		t.Fatal(err)
	}
	rows := readInformal(t, dir)
	if len(rows) != len(ds)+len(bare) {
		t.Fatalf("%d informal rows for %d declarations", len(rows), len(ds)+len(bare))
	}
	for _, r := range rows {
		if r.Provider != "template" || r.PromptVersion != TemplateVersion || strings.TrimSpace(r.InformalName) == "" || strings.TrimSpace(r.InformalStatement) == "" {
			t.Errorf("row %+v", r)
		}
	}
	m, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	run := m.LastRun("informalize")
	if run == nil {
		t.Fatal("no informalize run in the manifest")
	}
	labelled := false
	for _, n := range run.Notes {
		labelled = labelled || strings.Contains(n, "template")
	}
	if !labelled {
		t.Errorf("the manifest's run does not say the text is the template fallback: notes %q", run.Notes)
	}
}

func FuzzTemplateStatement(f *testing.F) {
	for _, s := range []string{"{p : ℕ} (hp : p.Prime) : 2 ≤ p", ":= 3", "(x : ℕ) := foo", "foo:bar", "(((", "[Group G] : G", "⦃x⦄ : x", ": ∀ x, x = x"} {
		f.Add("A.b_c", "theorem", s)
	}
	f.Fuzz(func(t *testing.T, name, kind, sig string) {
		in := Input{Name: name, Kind: kind, Signature: sig}
		r, err := Template{}.Informalize(context.Background(), &in)
		if err != nil || r.InformalStatement == "" {
			t.Fatalf("%+v: %+v %v", in, r, err)
		}
	})
}

func TestRenderExpr(t *testing.T) {
	for in, want := range map[string]string{
		"a ∣ₙ b ^ n":        "a divides b to the power n",
		"h₁ ≤ x₂":           "h₁ is at most x₂",
		"∀ x ∈ s, f x = 0":  "for all x is in s, f x equals 0",
		"¬(a ∧ b) ↔ a → ¬b": "not (a and b) if and only if a implies not b",
		"f ∘ g = id":        "f composed with g equals id",
	} {
		if got := RenderExpr(in); got != want {
			t.Errorf("RenderExpr(%q) = %q, want %q", in, got, want)
		}
	}
}
