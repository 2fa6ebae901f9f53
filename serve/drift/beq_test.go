package drift

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/leantest"
	"github.com/driftkit/driftkit/lean"
)

// LeanBEq speaks to a real backend implementation (the kimina client)
// against the fake kimina-lean-server.
func TestLeanBEqThroughKimina(t *testing.T) {
	k := leantest.NewKimina()
	defer k.Close()
	c, err := lean.Open(context.Background(), lean.Options{Kimina: k.URL, KiminaRetries: 1, KiminaBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := LeanBEq{Checker: c}
	stmt := "theorem t (n : Nat) : n + 0 = n := by sorry"
	eq, err := b.Equivalent(context.Background(), "import Mathlib", stmt, stmt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("same statement: %+v", eq)
	if eq.Verdict == "" || eq.Backend != c.Backend() || eq.Note == "" {
		t.Errorf("equivalence %+v", eq)
	}
	if _, snippets := k.Requests(); snippets == 0 {
		t.Error("BEq+ checked nothing")
	}
	// A candidate BEq+ cannot parse is not proved, with the reason, not an
	// error of the run.
	eq, err = b.Equivalent(context.Background(), "import Mathlib", stmt, "not a statement")
	if err != nil || eq.Verdict != NotProved || eq.Note == "" {
		t.Errorf("unparsable candidate: %+v, %v", eq, err)
	}
	// A backend that is gone is an error (the run stops).
	k.Close()
	_, err = b.Equivalent(context.Background(), "import Mathlib", stmt, strings.Replace(stmt, "t (n", "u (n", 1))
	if !errors.Is(err, lean.ErrUnavailable) {
		t.Errorf("dead backend: %v, want lean.ErrUnavailable (which stops a run)", err)
	}
}
