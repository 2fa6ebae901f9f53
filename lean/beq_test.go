package lean

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/leantest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestBEqTextGolden pins the exact Lean text of BEq+ on a real ProofNet
// statement against a reformulation with its own header.
func TestBEqTextGolden(t *testing.T) {
	it := proofNet(t)[0]
	cand := "open Complex in\n/-- the real part is constant -/\ntheorem cand_13a {f : ℂ → ℂ} (Ω : Set ℂ) (a b : Ω) (h : IsOpen Ω)\n" +
		"  (hf : DifferentiableOn ℂ f Ω) (hc : ∃ (c : ℝ), ∀ z ∈ Ω, (f z).re = c) : -- conclusion:\n  f a = f b := by\n  sorry"
	task, err := NewBEqTask(BEqPair{ID: it.FullName, Ref: it.FormalStmt, Cand: cand, Header: it.Header,
		CandHeader: "import Mathlib\nimport Aesop\nopen Complex Filter\nset_option maxHeartbeats 400000"}, BEqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# header\n%s", task.Header)
	for _, dir := range []bool{true, false} {
		steps := append([][2]string{{"sorry", "sorry"}}, task.Proofs(dir)...)
		for _, p := range steps {
			code, line := task.Text(dir, p[1])
			fmt.Fprintf(&sb, "\n# refToCand=%v step %q, judged from line %d\n%s\n", dir, p[0], line, code)
		}
	}
	golden(t, "testdata/beq_text.golden", sb.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update after checking):\n%s", path, got)
	}
}

// TestBEqTextProofNet builds the texts for every ProofNet statement against
// itself and against its neighbour: the theorem names are fresh, each is
// declared once, the judged line is the reformulated theorem's first, and
// the header is merged.
func TestBEqTextProofNet(t *testing.T) {
	items := proofNet(t)
	for i, it := range items {
		other := items[(i+1)%len(items)]
		for _, cand := range []proofNetItem{it, other} {
			task, err := NewBEqTask(BEqPair{ID: it.FullName, Ref: it.FormalStmt, Cand: cand.FormalStmt, RefHeader: it.Header, CandHeader: cand.Header}, BEqOptions{})
			if err != nil {
				t.Fatalf("%s vs %s: %v", it.FullName, cand.FullName, err)
			}
			if containsWord(it.FormalStmt+cand.FormalStmt+it.Header+cand.Header, task.BaseName) || task.BaseName == task.ReformName {
				t.Fatalf("names %q %q clash", task.BaseName, task.ReformName)
			}
			if !strings.HasPrefix(task.Header, "import Mathlib\n") || strings.Count(task.Header, "import") != 1 {
				t.Errorf("header %q", task.Header)
			}
			for _, dir := range []bool{true, false} {
				for _, p := range task.Proofs(dir) {
					code, line := task.Text(dir, p[1])
					ls := strings.Split(code, "\n")
					if !strings.HasPrefix(ls[line-1], "theorem "+task.ReformName+" ") {
						t.Fatalf("%s: line %d is %q", it.FullName, line, ls[line-1])
					}
					if !strings.HasPrefix(code, "theorem "+task.BaseName+" ") || strings.Count(code, "theorem "+task.BaseName+" ") != 1 || strings.Count(code, "theorem "+task.ReformName+" ") != 1 {
						t.Fatalf("%s: %q", it.FullName, code)
					}
					if strings.Count(code, ":= sorry") != 1 || strings.Contains(code, it.FullName[strings.LastIndexByte(it.FullName, '.')+1:]+" ") {
						t.Fatalf("%s: the old proof or name survived: %q", it.FullName, code)
					}
				}
			}
		}
	}
}

func TestBEqClash(t *testing.T) {
	_, err := NewBEqTask(BEqPair{Ref: "def g := 1\ntheorem a : g = 1 := rfl", Cand: "theorem b : g = 1 := rfl", Header: "def g := 2"}, BEqOptions{})
	if err == nil || !strings.Contains(err.Error(), `"g"`) {
		t.Fatalf("a prelude redefining a header name: %v", err)
	}
	task, err := NewBEqTask(BEqPair{Ref: "def g := 1\ntheorem a : g = 1 := rfl", Cand: "def g := 1\n\ntheorem b : g = 1 := rfl", Header: "def g := 1"}, BEqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := task.Text(true, "sorry")
	if strings.Contains(code, "def g") {
		t.Errorf("identical copies of a header definition must be dropped: %q", code)
	}
	task, err = NewBEqTask(BEqPair{Ref: "theorem base_theorem : True := trivial", Cand: "theorem x (base_theorem_1 : Prop) : True := trivial"}, BEqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if task.BaseName != "base_theorem_2" {
		t.Errorf("base name %q, want base_theorem_2", task.BaseName)
	}
}

// scripted is a Checker whose verdicts a test writes as a function of the
// step being tried and the direction.
type scripted struct {
	mu    sync.Mutex
	calls []Snippet
	// verdict returns "ok", "error", "sorry", "uncheckable" or "try:TEXT"
	// for a step ("sorry", "exact?", "assumption", "apply", "have",
	// "convert using k") in a direction (true: the candidate from the
	// reference).
	verdict func(step string, refToCand bool) string
	// line0 simulates a backend that reports positions in Header+Code.
	line0 int
}

const refStmt = "theorem ref_stmt (x : ℕ) (h : 0 < x) : 0 < x + 1 := sorry"
const candStmt = "theorem cand_stmt (x : ℕ) : 0 < x + 1 := by\n  omega"

func stepOf(code string) (step string, refToCand bool, line int) {
	refToCand = strings.HasPrefix(code, "theorem base_theorem (x : ℕ) (h : 0 < x)")
	ls := strings.Split(code, "\n")
	for i, l := range ls {
		if strings.TrimSpace(l) == "symm_saturate" {
			p := strings.TrimSpace(ls[i+1])
			line = i + 2
			switch {
			case strings.HasPrefix(p, "apply base"):
				return "apply", refToCand, line
			case strings.HasPrefix(p, "have :"):
				return "have", refToCand, line
			case strings.HasPrefix(p, "convert"):
				return "convert using " + p[len(p)-1:], refToCand, line
			}
			return p, refToCand, line
		}
	}
	return "?", refToCand, 0
}

func (c *scripted) Backend() string { return "scripted" }
func (c *scripted) Close() error    { return nil }

func (c *scripted) Check(ctx context.Context, snippets []Snippet) ([]Result, error) {
	var out []Result
	for _, s := range snippets {
		c.mu.Lock()
		c.calls = append(c.calls, s)
		c.mu.Unlock()
		step, dir, line := stepOf(s.Code)
		r := Result{ID: s.ID, Backend: "scripted", CodeLine0: c.line0}
		shift := max(c.line0-1, 0)
		// The base theorem's sorry always warns, above the judged range.
		r.Messages = append(r.Messages, Message{Severity: "warning", Pos: Pos{1 + shift, 8}, EndPos: &Pos{1 + shift, 20}, Data: SorryWarning})
		at := Pos{line + shift, 2}
		switch v := c.verdict(step, dir); {
		case v == "ok":
		case v == "error":
			r.Messages = append(r.Messages, Message{Severity: "error", Pos: at, EndPos: &at, Data: "tactic failed"})
		case v == "base-error":
			r.Messages = append(r.Messages, Message{Severity: "error", Pos: Pos{1 + shift, 30}, Data: "unknown identifier"})
		case v == "sorry":
			r.Sorries = append(r.Sorries, Sorry{Pos: at, EndPos: &at, Goal: "⊢ False"})
		case v == "uncheckable":
			r.Error = "REPL worker timeout: no answer within 60s"
		case strings.HasPrefix(v, "try:"):
			r.Messages = append(r.Messages, Message{Severity: "info", Pos: at, EndPos: &at, Data: "Try this: " + v[4:]})
		}
		r.judge()
		out = append(out, r)
	}
	return out, nil
}

func TestBEqPlusDecisions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verdict  func(step string, refToCand bool) string
		outcome  BEqOutcome
		r2c, c2r string // strategies
		checks   [2]int
	}{
		{"exact both ways", func(s string, _ bool) string {
			if s == "exact?" {
				return "try:exact base_theorem x"
			}
			return "ok"
		}, Equivalent, "exact?", "exact?", [2]int{2, 2}},
		{"apply one way", func(s string, d bool) string {
			if s == "sorry" || (d && s == "apply") {
				return "ok"
			}
			return "error"
		}, OneDirection, "apply", "no tactic closed it", [2]int{4, 10}},
		{"exact? without the base theorem does not count", func(s string, d bool) string {
			switch s {
			case "sorry", "have":
				return "ok"
			case "exact?":
				return "try:exact Nat.succ_pos x"
			}
			return "error"
		}, Equivalent, "have", "have", [2]int{5, 5}},
		{"trivial by assumption", func(s string, d bool) string {
			if s == "sorry" || s == "convert using 0" || (s == "assumption" && d) {
				return "ok"
			}
			return "error"
		}, OneDirection, "trivial by assumption", "convert using 0", [2]int{3, 6}},
		{"ill-typed", func(s string, d bool) string {
			if s == "sorry" && !d {
				return "base-error"
			}
			return "ok"
		}, NotProved, "trivial by assumption", "ill-typed", [2]int{3, 1}},
		{"unchecked tries fail, later ones decide", func(s string, d bool) string {
			switch s {
			case "sorry", "convert using 3":
				return "ok"
			case "exact?", "apply":
				return "uncheckable"
			}
			return "error"
		}, Equivalent, "convert using 3", "convert using 3", [2]int{9, 9}},
		{"sorry in the proof does not count", func(s string, d bool) string {
			if s == "sorry" {
				return "ok"
			}
			return "sorry"
		}, NotProved, "no tactic closed it", "no tactic closed it", [2]int{10, 10}},
	} {
		for _, line0 := range []int{0, 7} {
			t.Run(fmt.Sprintf("%s/line0=%d", tc.name, line0), func(t *testing.T) {
				c := &scripted{verdict: tc.verdict, line0: line0}
				res, err := BEqPlus(context.Background(), c, BEqPair{ID: "p", Ref: refStmt, Cand: candStmt, Header: "import Mathlib"}, BEqOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Outcome != tc.outcome || res.RefToCand.Strategy != tc.r2c || res.CandToRef.Strategy != tc.c2r {
					t.Fatalf("outcome %s, strategies %q / %q; want %s, %q / %q", res.Outcome, res.RefToCand.Strategy, res.CandToRef.Strategy, tc.outcome, tc.r2c, tc.c2r)
				}
				if got := [2]int{res.RefToCand.Checks, res.CandToRef.Checks}; got != tc.checks {
					t.Errorf("checks %v, want %v", got, tc.checks)
				}
				for _, s := range c.calls {
					step, _, _ := stepOf(s.Code)
					if s.NoRetry != (step != "sorry") || s.Timeout != 60*time.Second || s.Header != "import Mathlib\n" {
						t.Errorf("%s: NoRetry %v timeout %v header %q", step, s.NoRetry, s.Timeout, s.Header)
					}
				}
			})
		}
	}
}

// TestBEqPlusThroughREPL runs BEq+ end to end over the REPL backend and the
// fake REPL, on a real ProofNet statement.
func TestBEqPlusThroughREPL(t *testing.T) {
	c, _ := openREPL(t, Options{Workers: 2})
	it := proofNet(t)[0]
	res, err := BEqPlus(context.Background(), c, BEqPair{ID: "same", Ref: it.FormalStmt, Cand: it.FormalStmt, Header: it.Header}, BEqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Equivalent || res.RefToCand.Proof != "exact base_theorem" {
		t.Fatalf("%+v", res)
	}
	// In an environment where every tactic fails, nothing is proved.
	res, err = BEqPlus(context.Background(), c, BEqPair{ID: "fail", Ref: it.FormalStmt, Cand: it.FormalStmt, Header: it.Header + "\n--! flag tactics-fail\n"}, BEqOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != NotProved || res.RefToCand.Checks != 10 || res.CandToRef.Strategy != "no tactic closed it" {
		t.Fatalf("%+v", res)
	}
	results, errs, err := BEqPlusAll(context.Background(), c, []BEqPair{
		{ID: "a", Ref: it.FormalStmt, Cand: it.FormalStmt, Header: it.Header},
		{ID: "bad", Ref: "def f := 1", Cand: it.FormalStmt},
	}, BEqOptions{})
	if err != nil || results[0].Outcome != Equivalent || errs[1] == nil || results[1].Outcome != NotProved {
		t.Fatalf("%+v %v %v", results, errs, err)
	}
	_ = leantest.FakeREPL
}
