package extract

import (
	"slices"
	"testing"
)

// TestLocalBinders: names a declaration binds are not references to
// constants of the same name (which made wrong dependency edges, or, once
// another module's private rows stopped resolving, unresolved identifiers:
// `toFun I := ⟨I.asIdeal, …⟩`), and terms that only look like binders are
// references.
func TestLocalBinders(t *testing.T) {
	src := `
def I : Nat := 0
def J : Nat := 0
def x : Nat := 0
def neg : Nat := 0
def pos : Nat := 0
def sup_le : Nat := 0
def eq_thing (n : Nat) : n = n ∨ True := Or.inl rfl
structure S where
  toFun : Nat → Nat
  rel : ∀ {a b : Nat}, a = b → True
  oka : ∀ {a : Nat} (b : Nat), a = b → True
  sup_le : Nat → Nat → Nat
def mk1 : S where
  toFun I := I + 1
  rel {I J} h := trivial
  oka {I} (x : Nat) _ := trivial
  sup_le _ _ := 0
theorem t1 (n : Nat) : True := by
  cases' (eq_thing n) with c hc
  · trivial
  · trivial
theorem t2 (n : Nat) : True := by
  by_cases h : n = 0
  case pos => trivial
  case neg => trivial
`
	m := parse(t, src)
	for _, tc := range []struct {
		name      string
		want, not []string
	}{
		{"mk1", nil, []string{"I", "J", "x", "sup_le", "S.sup_le"}},
		{"t1", []string{"eq_thing"}, nil},
		{"t2", nil, []string{"neg", "pos"}},
	} {
		deps := m[tc.name].ProofDeps
		for _, w := range tc.want {
			if !slices.Contains(deps, w) {
				t.Errorf("%s: proof deps %v lack %s", tc.name, deps, w)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(deps, n) {
				t.Errorf("%s: proof deps %v have %s, a local name", tc.name, deps, n)
			}
		}
	}
}

// TestAbbrevClassInstanceVariable: under Lean < 4.10 rules a section
// variable `[IsFrac R K]`, where IsFrac is an abbrev for a class, is
// included when the proof uses a lemma that needs the class it unfolds to
// (con-nf's Mathlib: IsFractionRing.injective and IsLocalization; the
// dependency had been found only through a wrong resolution to another
// module's private `I`).
func TestAbbrevClassInstanceVariable(t *testing.T) {
	_, rows := extractLib(t, map[string]string{"Lib/A.lean": `
class IsLoc (R K : Type) : Prop where
  inj : True

abbrev IsFrac (R K : Type) := IsLoc R K

namespace IsLoc
variable {R K : Type} [IsLoc R K]
theorem injective : True := IsLoc.inj (R := R) (K := K)
end IsLoc

namespace IsFrac
variable {R K : Type} [IsFrac R K]
theorem injective : True := IsLoc.injective (R := R) (K := K)
end IsFrac
`}, Source{Library: "Lib", Revision: "r", LeanVersion: "4.7.0"})
	m := rowsByName(rows)
	if d := m["IsFrac.injective"].StatementDeps; !slices.Contains(d, "IsFrac") {
		t.Errorf("IsFrac.injective statement deps %v lack IsFrac (IsLoc.injective: %v)", d, m["IsLoc.injective"].StatementDeps)
	}
}

// TestFieldBindersOnlyInFieldPosition: `C (f x) y :=` after a binder comma or
// continuing a type after `:` is a term followed by a default value or a
// `have`'s proof, not a structure-instance field with binders: C is a
// reference and f, y stay free (Mathlib v4.29.0: `have h1 : ∀ᶠ n in φ,
// ContinuousOn (F n) (cthickening δ K) := by` had bound cthickening as a
// local; `(hf : ∀ i ∈ s, ContinuousOn (f i) (σₙ R a) := by cfc_cont_tac)`;
// HasLimitsOfShape's `has_limit : ∀ F : J ⥤ C, HasLimit F := by
// infer_instance`).
func TestFieldBindersOnlyInFieldPosition(t *testing.T) {
	src := `
def Cont (f : Nat → Nat) (s : Nat) : Prop := True
def cthick (n : Nat) : Nat := n
def g (n : Nat) : Nat := n
class HasL (n : Nat) : Prop where
  h : True
class HasAll : Prop where
  has : ∀ n : Nat, HasL n := by infer_instance
theorem t3 (F : Nat → Nat → Nat) : True := by
  have h1 : ∀ n : Nat, Cont (F n) (cthick n) := fun _ => trivial
  have h2 : Cont (g 0) (cthick 1) := trivial
  trivial
theorem t4 (hf : ∀ i : Nat, Cont (g i) (cthick i) := fun _ => trivial) : True := trivial
structure P where
  a : Nat
  b : Nat → Nat
def t6 : P := { a := 1, b x := g x }
`
	m := parse(t, src)
	for _, tc := range []struct {
		name string
		kind string
		want []string
	}{
		{"t3", "proof", []string{"Cont", "cthick"}},
		{"t4", "statement", []string{"Cont", "g", "cthick"}},
		{"HasAll", "statement", []string{"HasL"}},
		{"t6", "proof", []string{"g"}},
	} {
		deps := m[tc.name].ProofDeps
		if tc.kind == "statement" {
			deps = m[tc.name].StatementDeps
		}
		for _, w := range tc.want {
			if !slices.Contains(deps, w) {
				t.Errorf("%s: %s deps %v lack %s", tc.name, tc.kind, deps, w)
			}
		}
	}
	if d := m["t6"].ProofDeps; slices.Contains(d, "x") {
		t.Errorf("t6: proof deps %v have the field binder x", d)
	}
}
