package lean

import "testing"

// TestJudgeComplete: Complete means Lean judged the snippet, printed no
// error, and nothing uses sorry — by either signal. A warning-only sorry
// (term-mode `:= sorry`, and every sorry under `lean --json`, which has no
// sorries list) counts as a sorry: the REPL lists only tactic-mode sorries,
// so the warning is the one signal every backend gives. A sorries entry
// without the warning counts too (a review that made Complete ignore the
// list passed every backend test, whose fakes print both; #24).
func TestJudgeComplete(t *testing.T) {
	warn := func(s string) Message { return Message{Severity: "warning", Data: s} }
	sorry := []Sorry{{Pos: Pos{Line: 2, Column: 2}, Goal: "⊢ True"}}
	for _, c := range []struct {
		name           string
		r              Result
		pass, complete bool
	}{
		{"clean", Result{}, true, true},
		{"unrelated warning", Result{Messages: []Message{warn("unused variable `h`")}}, true, true},
		{"info naming sorry", Result{Messages: []Message{{Severity: "info", Data: "declaration uses 'sorry'"}}}, true, true},
		{"warning-only sorry", Result{Messages: []Message{warn("declaration uses 'sorry'")}}, true, false},
		{"sorries list only", Result{Sorries: sorry}, true, false},
		{"both", Result{Messages: []Message{warn("declaration uses 'sorry'")}, Sorries: sorry}, true, false},
		{"error", Result{Messages: []Message{{Severity: "error", Data: "type mismatch"}}}, false, false},
		{"error and sorry", Result{Messages: []Message{{Severity: "error", Data: "x"}}, Sorries: sorry}, false, false},
		{"not checked", Result{Error: "timeout"}, false, false},
	} {
		r := c.r
		r.judge()
		if r.Pass != c.pass || r.Complete != c.complete {
			t.Errorf("%s: pass %v complete %v, want %v %v", c.name, r.Pass, r.Complete, c.pass, c.complete)
		}
		if want := !c.complete && c.pass; want != (r.Failed() == "uses sorry") {
			t.Errorf("%s: Failed() = %q", c.name, r.Failed())
		}
	}
}
