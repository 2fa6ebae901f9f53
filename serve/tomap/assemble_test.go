package tomap_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/serve/tomap"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

func TestAssembleGolden(t *testing.T) {
	header := tomap.MustPrompts().Header
	d := tomap.Decomposition{Units: []tomap.Unit{
		{ID: "l1", Claim: "For a real x > 0,\n  x^2 > 0."},
		{ID: "l2", Claim: "The product of the elements of P is coprime to n", Deps: []string{"l1"}},
		{ID: "l3", Claim: "a step nobody could formalize", Deps: []string{"l2"}},
		{ID: "main", Claim: "x^φ(n) ≡ 1 (mod n) -- with a comment marker", Deps: []string{"l3"}},
	}}
	units := []tomap.UnitOutcome{
		{ID: "l1", Statement: "lemma l1 (x : ℝ) (hx : 0 < x) : 0 < x ^ 2 := by sorry", Code: "lemma l1 (x : ℝ) (hx : 0 < x) : 0 < x ^ 2 := by\n  positivity", Formalized: true, Proved: true},
		{ID: "l2", Statement: "lemma l2 (n : ℕ) (P : Finset ℕ) : Nat.Coprime (∏ a ∈ P, a) n := by sorry", Formalized: true},
		{ID: "l3"},
		{ID: "main", Statement: "theorem main (x n : ℕ) (h : Nat.Coprime x n) : x ^ Nat.totient n ≡ 1 [MOD n] := by sorry", Code: "theorem main (x n : ℕ) (h : Nat.Coprime x n) : x ^ Nat.totient n ≡ 1 [MOD n] := by\n  exact Nat.ModEq.pow_totient h", Formalized: true, Proved: true},
	}
	golden(t, "assemble-mixed", tomap.Assemble(header, d, units))
	golden(t, "assemble-empty", tomap.Assemble(header, d, nil))
}

// TestExecutorGolden runs ProofFlow on two real ProofFlowBench items with
// the fake agents and pins the assembled files.
func TestExecutorGolden(t *testing.T) {
	ps, err := tomap.ReadProblems("testdata/bench/proofflow-2.json")
	if err != nil {
		t.Fatal(err)
	}
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		// The second unit's proof never goes through: its statement stays.
		if c.Role == tomap.RoleProver && strings.Contains(c.User, "Informal step s2:") {
			return `{"proof": "exact BROKEN"}`, true
		}
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodProofFlow})
	if _, err := tomap.Run(context.Background(), cfg, ps); err != nil {
		t.Fatal(err)
	}
	outs := readOutcomes(t, cfg.Out)
	for _, p := range ps {
		o := outs[p.Key+" proofflow"]
		golden(t, "executor-"+tomap.FileName(p.Key), o.Code)
	}
}
