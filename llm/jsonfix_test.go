package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/driftkit/driftkit/llm"
)

// TestRepairJSONEscapes: LaTeX written with one backslash inside JSON
// strings decodes to the LaTeX, not to control characters or an error;
// real escapes and text outside strings are untouched.
func TestRepairJSONEscapes(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		fixed    int
	}{
		{`{"s": "$\frac{a}{b} \neq \times \beta \rho \big$"}`, `$\frac{a}{b} \neq \times \beta \rho \big$`, 6},
		{`{"s": "$\sum_i \alpha_i \{x\} \, \le \ubar$"}`, `$\sum_i \alpha_i \{x\} \, \le \ubar$`, 7},
		{`{"s": "line\nNext \"q\" \\ \/ \u00e9 x\n1\t2"}`, "line\nNext \"q\" \\ / é x\n1\t2", 0},
		{`{"s": "already \\frac{1}{2}"}`, `already \frac{1}{2}`, 0},
		{`{"s\alpha": "x"}`, "x", 1}, // keys are strings too
		// Lean code: newlines before keywords stay newlines.
		{`{"s": "import Mathlib\nlemma l (x : ℝ) :\n  0 < x := by\n  sorry\ttab"}`, "import Mathlib\nlemma l (x : ℝ) :\n  0 < x := by\n  sorry\ttab", 0},
		{`{"s": "\not \nu \to \top \forall \nabla"}`, `\not \nu \to \top \forall \nabla`, 6},
	} {
		got, n := llm.RepairJSONEscapes(tc.in)
		if n != tc.fixed {
			t.Errorf("%s: %d repairs, want %d", tc.in, n, tc.fixed)
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Errorf("%s → %s: %v", tc.in, got, err)
			continue
		}
		for _, v := range m {
			if v != tc.want {
				t.Errorf("%s decodes to %q, want %q", tc.in, v, tc.want)
			}
		}
	}
	if s, n := llm.RepairJSONEscapes(`{"a": 1} \x`); n != 0 || s != `{"a": 1} \x` {
		t.Errorf("text outside strings changed: %q (%d)", s, n)
	}
}

// FuzzRepairJSONEscapes: valid JSON stays valid, repairing twice changes
// nothing more, and every change only doubles a backslash.
func FuzzRepairJSONEscapes(f *testing.F) {
	for _, s := range []string{`{"s": "\frac{1}{2}"}`, `"\u12"`, `"\`, `{"a":"\\\n"}`, `"\ud83d\ude00 \underline"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := llm.RepairJSONEscapes(s)
		if json.Valid([]byte(s)) && !json.Valid([]byte(out)) {
			t.Fatalf("valid %q became invalid %q", s, out)
		}
		if again, m := llm.RepairJSONEscapes(out); m != 0 || again != out {
			t.Fatalf("not idempotent: %q → %q → %q", s, out, again)
		}
		if len(out) != len(s)+n {
			t.Fatalf("%q → %q with %d repairs", s, out, n)
		}
	})
}
