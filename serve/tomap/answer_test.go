package tomap

import (
	"errors"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/lean"
)

func TestParseRubric(t *testing.T) {
	r, err := ParseRubric(`{"faithful": {"score": 0.8, "critique": "l2 merges two steps"}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 0.5, "critique": " x has no type "}}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Scores != (Vector{0.8, 1, 0.5}) || r.Critiques[2] != "x has no type" {
		t.Errorf("%+v", r)
	}
	for _, bad := range []string{
		`{"faithful": {"score": 1.2, "critique": ""}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 1, "critique": ""}}`,
		`{"faithful": {"score": -0.1, "critique": ""}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 1, "critique": ""}}`,
		`{"faithful": {"score": "high", "critique": ""}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 1, "critique": ""}}`,
		`{"faithful": {"score": 1, "critique": ""}, "provable": {"score": 1, "critique": ""}}`,
		`{"faithful": {"score": 1}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 1, "critique": ""}}`,
		`{"faithful": {"score": 1, "critique": ""}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 1, "critique": ""}, "overall": 1}`,
		`The decomposition is great: 10/10`,
		`{"faithful": 0.9, "provable": 0.9, "lean_friendly": 0.9}`,
	} {
		if _, err := ParseRubric(bad); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s: %v", clip(bad, 60), err)
		}
	}
}

// TestParseLaTeXAnswers: a critique or reason with LaTeX in one backslash
// is the LaTeX, and Lean code's newlines stay newlines.
func TestParseLaTeXAnswers(t *testing.T) {
	v, err := ParseVerdict(`{"faithful": false, "reason": "needs $x \neq 0$ and $\frac{1}{x}$"}`)
	if err != nil || v.Reason != `needs $x \neq 0$ and $\frac{1}{x}$` {
		t.Errorf("verdict %+v %v", v, err)
	}
	stmt, _, err := ParseStatement(`{"lean": "lemma l2 (x : ℝ) (hx : x \neq 0) :\n  0 < x ^ 2 := by\n  sorry"}`, "l2")
	if err != nil || !strings.Contains(stmt, "\n  0 < x ^ 2") {
		t.Errorf("statement %q %v", stmt, err)
	}
}

func TestParseVerdict(t *testing.T) {
	v, err := ParseVerdict(`{"faithful": false, "reason": "extra hypothesis"}`)
	if err != nil || v.Faithful || v.Reason != "extra hypothesis" {
		t.Fatalf("%+v %v", v, err)
	}
	for _, bad := range []string{`{"faithful": "yes", "reason": ""}`, `{"reason": "x"}`, `{"faithful": true}`, `yes`} {
		if _, err := ParseVerdict(bad); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestParseStatement(t *testing.T) {
	stmt, sig, err := ParseStatement(`{"lean": "import Mathlib\nlemma l2 (x : ℝ) (hx : 0 < x) :\n  0 < x ^ 2 := by\n  sorry"}`, "l2")
	if err != nil {
		t.Fatal(err)
	}
	if stmt != "lemma l2 (x : ℝ) (hx : 0 < x) :\n  0 < x ^ 2 := by sorry" || !strings.HasPrefix(sig, "(x : ℝ)") {
		t.Errorf("stmt %q sig %q", stmt, sig)
	}
	if _, _, err := ParseStatement(`{"lean": "theorem main {n : ℕ} : n = n := by sorry"}`, "main"); err != nil {
		t.Errorf("theorem keyword: %v", err)
	}
	for _, tc := range []struct{ content, why string }{
		{`{"lean": "lemma l3 (x : ℝ) : x = x := by sorry"}`, "wrong name"},
		{`{"lean": "lemma l2 (x : ℝ) : x = x := by simp"}`, "not sorry"},
		{`{"lean": "lemma l2 (x : ℝ) : x = x := by sorry\nlemma l4 : True := by sorry"}`, "two lemmas"},
		{`{"lean": "lemma l2 (h : sorry) : x = x := by sorry"}`, "sorry in the statement"},
		{`{"lean": "lemma l2 := by sorry"}`, "no statement"},
		{`{"lean": "def l2 : ℕ := 3"}`, "not a lemma"},
		{`{"proof": "simp"}`, "wrong field"},
		{`lemma l2 : True := by sorry`, "not JSON"},
	} {
		if _, _, err := ParseStatement(tc.content, "l2"); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s: %v", tc.why, err)
		}
	}
}

func TestParseProof(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"proof": "simp"}`, "simp"},
		{`{"proof": "by\n  intro x\n  simp"}`, "intro x\nsimp"},
		{`{"proof": "by nlinarith [sq_nonneg x]"}`, "nlinarith [sq_nonneg x]"},
		{`{"proof": "  constructor\n  · simp\n  · ring"}`, "constructor\n· simp\n· ring"},
		{`{"proof": "have h : 0 < 2 := by\n  norm_num\nlinarith"}`, "have h : 0 < 2 := by\n  norm_num\nlinarith"},
		{`{"proof": "\n\n  intro x\n    exact foo x\n"}`, "intro x\n  exact foo x"},
	} {
		got, err := ParseProof(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s → %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{"proof": "sorry"}`, `{"proof": "simp\nadmit"}`, `{"proof": "exact (by native_decide)"}`, `{"proof": ""}`, `{"proof": "by"}`, `{"lean": "x"}`} {
		if _, err := ParseProof(bad); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s accepted: %v", bad, err)
		}
	}
	// Names that merely contain a forbidden word are fine.
	if _, err := ParseProof(`{"proof": "exact sorry_free_lemma x"}`); err != nil {
		t.Errorf("identifier containing sorry: %v", err)
	}
}

func TestParseLeanFile(t *testing.T) {
	code, err := ParseLeanFile(`{"lean": "import Mathlib\nimport Aesop\n\ntheorem t : 1 + 1 = 2 := by norm_num"}`)
	if err != nil || code != "theorem t : 1 + 1 = 2 := by norm_num" {
		t.Errorf("%q %v", code, err)
	}
	for _, bad := range []string{`{"lean": "axiom cheat : False"}`, `{"lean": "theorem t : False := by sorry"}`, `{"lean": "import Mathlib"}`} {
		if _, err := ParseLeanFile(bad); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s accepted: %v", bad, err)
		}
	}
}

func TestWithProofAndAxiom(t *testing.T) {
	stmt := "lemma l1 (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by sorry"
	got := withProof(stmt, "have := h\npositivity")
	want := "lemma l1 (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by\n  have := h\n  positivity"
	if got != want {
		t.Errorf("withProof:\n%s\nwant\n%s", got, want)
	}
	if a := axiomOf(UnitOutcome{ID: "l1", Statement: stmt}); a != "axiom l1 (x : ℝ) (h : 0 < x) : 0 < x ^ 2" {
		t.Errorf("axiom %q", a)
	}
}

func TestFeedbackLines(t *testing.T) {
	ctx := "axiom a : True\n\naxiom b : True"
	code, line := withContext(ctx, "lemma c : True := by\n  exact BROKEN")
	if line != 5 || strings.Split(code, "\n")[line-1] != "lemma c : True := by" {
		t.Fatalf("code starts at %d in\n%s", line, code)
	}
	for _, base := range []int{1, 8} { // header elaborated apart, or prepended (7 header lines)
		res := lean.Result{CodeLine0: base, Messages: []lean.Message{
			{Severity: "error", Pos: lean.Pos{Line: base - 1 + 6, Column: 8}, Data: "unknown identifier 'BROKEN'"},
			{Severity: "warning", Pos: lean.Pos{Line: base - 1 + 5}, Data: "unused variable"},
			{Severity: "error", Pos: lean.Pos{Line: base}, Data: "in the context"},
		}}
		fb := feedback(res, line, false)
		if !strings.Contains(fb, "line 2, column 8: error: unknown identifier 'BROKEN'") || strings.Contains(fb, "unused") || !strings.Contains(fb, "earlier units") {
			t.Errorf("base %d:\n%s", base, fb)
		}
	}
	res := lean.Result{Pass: true, Complete: false, CodeLine0: 1, Messages: []lean.Message{{Severity: "warning", Pos: lean.Pos{Line: 5}, Data: "declaration uses 'sorry'"}}}
	if fb := feedback(res, line, true); !strings.Contains(fb, "line 1") || !strings.Contains(fb, "sorry") {
		t.Errorf("sorry feedback: %s", fb)
	}
	if fb := feedback(lean.Result{Error: "timeout after 5m"}, 1, true); !strings.Contains(fb, "could not check") {
		t.Errorf("error feedback: %s", fb)
	}
}
