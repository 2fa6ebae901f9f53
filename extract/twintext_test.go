package extract

import (
	"maps"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// additiveTestDict is a to_additive dictionary as Mathlib's sources give
// it (core constants named as Mathlib/Tactic/ToAdditive.lean names them).
var additiveTestDict = twinDict{
	"HMul.hMul": "HAdd.hAdd", "HDiv.hDiv": "HSub.hSub", "Inv.inv": "Neg.neg", "One.one": "Zero.zero",
	"HPow.hPow": "HSMul.hSMul", "Finset.prod": "Finset.sum", "mabs": "abs", "finprod": "finsum", "tprod": "tsum",
}

func TestTranslateTwinText(t *testing.T) {
	syms, _ := additiveTestDict.symbolMap(nil)
	ids := map[string]string{"MulLeftMono": "AddLeftMono", "MulRightMono": "AddRightMono",
		"Finset.prod_congr": "Finset.sum_congr", "CommMonoid": "AddCommMonoid", "orderOf": "addOrderOf",
		"mulIndicator": "indicator"}
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
		{"{s : Finset α} (h : ∀ x ∈ s, f x = g x) : s.prod f = Finset.prod_congr h", "{s : Finset α} (h : ∀ x ∈ s, f x = g x) : s.sum f = Finset.sum_congr h"},
		{"(x : G) : orderOf x ∣ 1", "(x : G) : orderOf x ∣ 1"}, // 1 of ℕ? unknown: kept
		{"(a : M) : a / 1 = a", "(a : M) : a - 0 = a"},
		{"(mul : α) : mul = mul", "(mul : α) : mul = mul"},
		{"[CommMonoid M] (x : M) : (1 : M) * x = x ∧ (1 : ℕ) = 1", "[AddCommMonoid M] (x : M) : (0 : M) + x = x ∧ (1 : ℕ) = 1"},
		{"∏ᶠ i, f i = ∏' i, f i", "∑ᶠ i, f i = ∑' i, f i"},
		// (e : T) after the colon is an ascription, not a binder: e is a constant
		{"(x : G) : (orderOf : G → ℕ) x = orderOf x ∧ ∀ (y : G) (z : G), y = z", "(x : G) : (addOrderOf : G → ℕ) x = addOrderOf x ∧ ∀ (y : G) (z : G), y = z"},
		// the other branch of an if, a big operator, a set of a type variable
		{"{f : α → M} [Decidable (a ∈ s)] : g a = if a ∈ s then f a else 1", "{f : α → M} [Decidable (a ∈ s)] : g a = if a ∈ s then f a else 0"},
		{"{f : α → M} (hf : ∀ i, 1 ≤ f i) : 1 ≤ ∏ᶠ i, f i", "{f : α → M} (hf : ∀ i, 0 ≤ f i) : 0 ≤ ∑ᶠ i, f i"},
		{"{s : Set M} (hs : 1 ∈ s) : (1 : Set M) ⊆ s", "{s : Set M} (hs : 0 ∈ s) : (0 : Set M) ⊆ s"},
		{"{s : Finset ℕ} (hs : 1 ∈ s) : (1 : Fin 2) = 1", "{s : Finset ℕ} (hs : 1 ∈ s) : (1 : Fin 2) = 1"},
		// x.1 is a projection, not a numeral; it belongs to its operand
		{"{x : M × M} : x.1 * x.2 = 1 ∧ x.1⁻¹ = x.2 ^ 2", "{x : M × M} : x.1 + x.2 = 0 ∧ -x.1 = 2 • x.2"},
		// a constant's result type: orderOf x is a ℕ, mulIndicator s f a an M
		{"(x : G) : orderOf x = 1 ↔ x = 1", "(x : G) : addOrderOf x = 1 ↔ x = 0"},
		{"(x : G) : mulIndicator s f x = 1", "(x : G) : indicator s f x = 0"},
		// s.prod for s : Finset ι is Finset.prod's field: its translation
		{"(s : Finset ι) (l : List M) (p : Set M) : s.prod f = l.prod ∧ p.prod = p", "(s : Finset ι) (l : List M) (p : Set M) : s.sum f = l.sum ∧ p.prod = p"},
		// products of numbers stay: a field of a variable, a constant, with a ℕ result
		{"(H : Subgroup G) : H.index * Nat.card H = Nat.card G ∧ a * b = 1", "(H : Subgroup G) : H.index * Nat.card H = Nat.card G ∧ a + b = 0"},
		{"(H : Subgroup G) : H.index * H.index = 4", "(H : Subgroup G) : H.index * H.index = 4"},
		{"(H K : Subgroup G) : Nat.card H * Nat.card K = 4", "(H K : Subgroup G) : Nat.card H * Nat.card K = 4"},
		// + - bind looser than ⊔: a / c ⊔ b / c cannot become a - c ⊔ b - c
		{"(a b c : α) : (a ⊔ b) / c = a / c ⊔ b / c", "(a b c : α) : (a ⊔ b) / c = a / c ⊔ b / c"},
		// a variable of an infix type has no head constant (e : X ≅ Y)
		{"(e : X ≅ Y) (s : Y) : e.hom (e.inv s) = s", "(e : X ≅ Y) (s : Y) : e.hom (e.inv s) = s"},
		// a power of numbers stays, and so does its product
		{"{K : ℝ} (hA : #A ≤ K) : #(A * A) ≤ K ^ 3 * #A", "{K : ℝ} (hA : #A ≤ K) : #(A + A) ≤ K ^ 3 * #A"},
		// a power of numbers stays
		{"(s : Finset G) : Fintype.card G * s.card ^ 2 = a ^ 2", "(s : Finset G) : Fintype.card G * s.card ^ 2 = 2 • a"},
		// Type* is not a product; f^[n] is an iterate, not a power
		{"{M : Type*} (a : M) : (a * ·)^[n] x = a ^ n * x", "{M : Type*} (a : M) : (a + ·)^[n] x = n • a + x"},
		// ⁻¹ before field access; the preimage ⁻¹' is not an inverse
		{"(h : s.Nonempty) : s⁻¹.Nonempty ∧ f ⁻¹' s = s", "(h : s.Nonempty) : (-s).Nonempty ∧ f ⁻¹' s = s"},
		// R[S⁻¹] is OreLocalization's notation: kept
		{"(c : R) : X[S⁻¹] → X[S⁻¹]", "(c : R) : X[S⁻¹] → X[S⁻¹]"},
		// f 1 * f 2: 1 is f's argument, its type unknown: kept
		{"(f : Fin 3 → M) : ∏ i, f i = f 0 * f 1 * f 2", "(f : Fin 3 → M) : ∏ i, f i = f 0 * f 1 * f 2"},
		// C * ‖x‖ multiplies real numbers
		{"{C : ℝ≥0} (x : E) : ‖x⁻¹‖ ≤ C * ‖x‖", "{C : ℝ≥0} (x : E) : ‖-x‖ ≤ C * ‖x‖"},
		// a 1 compared with a variable of a type variable, of ℕ
		{"{x : M} {n : ℕ} (h : x ≠ 1) : n = 1 → x ^ n ≠ 1", "{x : M} {n : ℕ} (h : x ≠ 0) : n = 1 → n • x ≠ 0"},
	} {
		got, ok := (&twinText{text: c.in, ids: ids, consts: consts, syms: syms, inv: true, pow: true, one: true,
			results: map[string]string{"orderOf": "ℕ", "mulIndicator": "M", "Nat.card": "ℕ", "Fintype.card": "ℕ"},
			constResult: func(full string) string {
				return map[string]string{"Subgroup.index": "ℕ", "Finset.card": "ℕ"}[full]
			},
			dict: twinDict{"Finset.prod": "Finset.sum", "List.prod": "List.sum", "Set.prod": "Set.prod"}, fields: map[string]string{"prod": "", "inv": ""}}).translate()
		if got != c.want {
			t.Errorf("%q:\n got %q (ok %v)\nwant %q", c.in, got, ok, c.want)
		}
	}
}

// TestTwinSymbolMap: the notation table's symbols translate by the
// dictionary (MonoidHom ↦ AddMonoidHom: →* ↦ →+); a notation whose
// constant translates to one without notation (Units ↦ AddUnits: Mˣ) fails.
func TestTwinSymbolMap(t *testing.T) {
	table := []tableNotation{
		{atoms: []string{"x", "→*", "x"}, kind: "infixr", c: "MonoidHom"},
		{atoms: []string{"x", "→+", "x"}, kind: "infixr", c: "AddMonoidHom"},
		{atoms: []string{"x", "ˣ"}, kind: "postfix", c: "Units"},
		{atoms: []string{"AddU", "x"}, kind: "prefix", c: "AddUnits"}, // not the shape of ˣ
		{atoms: []string{"x", "*", "x"}, kind: "notation", c: "op"},   // a local reading of *: core's wins
	}
	d := twinDict{"MonoidHom": "AddMonoidHom", "Units": "AddUnits", "HMul.hMul": "HAdd.hAdd", "op": "addOp"}
	syms, fail := d.symbolMap(table)
	if syms["→*"] != "→+" || syms["*"] != "+" || len(syms) != 2 {
		t.Errorf("symbols %v", syms)
	}
	if !fail["ˣ"] || len(fail) != 1 {
		t.Errorf("fail %v", fail)
	}
	x := &twinText{text: "(f : M →* N) (u : Mˣ) : f (u * u) = f u * f u", ids: map[string]string{}, syms: syms,
		failSyms: fail, atoms: append([]string{"→*"}, twinAtoms...)}
	if out, ok := x.translate(); ok || x.fail != "notation" {
		t.Errorf("Mˣ: got %q %v (%q)", out, ok, x.fail)
	}
	x = &twinText{text: "(f : M →* N) : f (u * u) = f u * f u", ids: map[string]string{}, syms: syms, failSyms: fail,
		atoms: append([]string{"→*"}, twinAtoms...)}
	if out, ok := x.translate(); !ok || out != "(f : M →+ N) : f (u + u) = f u + f u" {
		t.Errorf("→*: got %q %v", out, ok)
	}
}

// TestTwinFieldMap: x.prod translates only when every constant named .prod
// translates alike.
func TestTwinFieldMap(t *testing.T) {
	f := twinDict{"List.prod": "List.sum", "Multiset.prod": "Multiset.sum", "MonoidHom.prod": "AddMonoidHom.prod",
		"List.inv": "List.neg"}.fieldMap()
	if f["inv"] != "neg" || f["prod"] != "" {
		t.Errorf("fields %v", f)
	}
	x := &twinText{text: "(l : List M) : l.inv = (l.map f).inv", ids: map[string]string{}, fields: f}
	if out, ok := x.translate(); !ok || out != "(l : List M) : l.neg = (l.map f).neg" {
		t.Errorf("got %q %v", out, ok)
	}
	x = &twinText{text: "(l : List M) : l.prod = 1", ids: map[string]string{}, fields: f}
	if _, ok := x.translate(); ok || x.fail != "field" {
		t.Errorf("ambiguous .prod translated (%q)", x.fail)
	}
}

// TestTwinSignatureEndToEnd: a twin's signature row, through parsing and
// resolution: the identifiers as the source writes them (namespaced and
// open), the core operators named by `attribute [to_additive existing]`,
// section variables' types for the 1s.
func TestTwinSignatureEndToEnd(t *testing.T) {
	src := `
attribute [to_additive existing] Inv Mul One
attribute [to_additive existing HAdd] HMul

@[to_additive]
class MulFoo (α : Type*) [Mul α] : Prop

namespace Foo

@[to_additive]
def mulBar {α : Type*} [Mul α] (a : α) : α := a * a

end Foo

open Foo

variable {α : Type*} [Mul α] [One α] [Inv α] {a b : α}

@[to_additive add_baz]
theorem mul_baz [MulFoo α] (h : a * b = 1) : mulBar a⁻¹ = Foo.mulBar (a * b) ∧ a = 1 := sorry
`
	rows, _, errs := ParseFile([]byte(src), "Mathlib/Foo.lean", "mathlib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := "[AddFoo α] (h : a + b = 0) : addBar (-a) = Foo.addBar (a + b) ∧ a = 0"
	for _, r := range rows {
		if r.Name == "add_baz" {
			if r.Signature != want {
				t.Errorf("add_baz: %q, want %q", r.Signature, want)
			}
			return
		}
	}
	t.Fatal("no add_baz row")
}

// TestTwinBracketNotation: a notation whose first atom ends in a bracket
// (Eₘ[s, t], which the lexer reads Eₘ [) becomes the translated one's.
func TestTwinBracketNotation(t *testing.T) {
	table := []tableNotation{
		{atoms: []string{"Eₘ[", "x", ",", "x", "]"}, kind: "notation", c: "Finset.mulEnergy"},
		{atoms: []string{"E[", "x", ",", "x", "]"}, kind: "notation", c: "Finset.addEnergy"},
	}
	syms, _ := twinDict{"Finset.mulEnergy": "Finset.addEnergy"}.symbolMap(table)
	x := &twinText{text: ": Eₘ[s, t] = Eₘ[t, s]", ids: map[string]string{}, syms: syms}
	if out, ok := x.translate(); !ok || out != ": E[s, t] = E[t, s]" {
		t.Errorf("got %q %v", out, ok)
	}
}

// TestTwinDepsTranslated: a twin's statement and proof dependencies are its
// source's translated by the dictionary its text is (twinDicts): core
// translations (Mul → Add, HMul.hMul → HAdd.hAdd), [to_additive existing]
// pairs and the sources' twins; a to_dual twin's by to_dual's only.
func TestTwinDepsTranslated(t *testing.T) {
	src := `
attribute [to_additive existing] Mul One
attribute [to_additive existing HAdd] HMul

class MulLeftQux (α : Type*) [Mul α] : Prop
class AddLeftQux (α : Type*) [Add α] : Prop
attribute [to_additive existing] MulLeftQux

@[to_additive]
def mulBar {α : Type*} [Mul α] (a : α) : α := a * a

@[to_dual]
def mulTop {α : Type*} [Mul α] (a : α) : α := a * a

variable {α : Type*} [Mul α] [One α] {a b : α}

@[to_additive add_baz]
theorem mul_baz [MulLeftQux α] (h : a * b = 1) : mulBar a = a * 1 := mulBar a

@[to_dual]
theorem mulTop_eq [MulLeftQux α] : mulTop a = mulBar a := mulTop a
`
	rows, _, errs := ParseFile([]byte(src), "Mathlib/Foo.lean", "mathlib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m := map[string]workspace.Declaration{}
	for _, r := range rows {
		m[r.Name] = r
	}
	check := func(name string, got, want, not []string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: deps %v lack %s", name, got, w)
			}
		}
		for _, n := range not {
			if slices.Contains(got, n) {
				t.Errorf("%s: deps %v have %s", name, got, n)
			}
		}
	}
	add, ok := m["add_baz"]
	if !ok {
		t.Fatal("no add_baz row")
	}
	check("add_baz statement", add.StatementDeps, []string{"Add", "Zero", "AddLeftQux", "addBar"},
		[]string{"Mul", "One", "HMul.hMul", "MulLeftQux", "mulBar"})
	check("add_baz proof", add.ProofDeps, []string{"addBar"}, []string{"mulBar"})
	dual, ok := m["mulBot_eq"]
	if !ok {
		t.Fatalf("no mulBot_eq row: %v", slices.Collect(maps.Keys(m)))
	}
	check("mulBot_eq statement", dual.StatementDeps, []string{"Mul", "One", "MulLeftQux", "mulBot", "mulBar"},
		[]string{"Add", "HAdd.hAdd", "AddLeftQux", "mulTop", "addBar"})
}

// TestTwinDepsFromSource: a twin's dependencies are its source's
// translated, not its own identifiers resolved in its namespace: there
// coe_inj names the dual already, which to_dual's two-way dictionary would
// translate back (WithTop.coe_eq_coe's proof used WithBot.coe_inj).
func TestTwinDepsFromSource(t *testing.T) {
	src := `
@[to_dual]
def WithBot (α : Type*) := Option α

namespace WithBot

variable {α : Type*} {a b : α}

@[to_dual]
theorem coe_inj : (some a : WithBot α) = some b ↔ a = b := sorry

@[to_dual]
theorem coe_eq_coe : (some a : WithBot α) = some b ↔ a = b := coe_inj

end WithBot
`
	rows, _, errs := ParseFile([]byte(src), "Mathlib/Foo.lean", "mathlib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, r := range rows {
		if r.Name == "WithTop.coe_eq_coe" {
			if !slices.Equal(r.ProofDeps, []string{"WithTop.coe_inj"}) {
				t.Errorf("WithTop.coe_eq_coe: proof deps %v, want [WithTop.coe_inj]", r.ProofDeps)
			}
			return
		}
	}
	t.Fatal("no WithTop.coe_eq_coe row")
}
