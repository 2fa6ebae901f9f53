package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/leantest"
	"github.com/driftkit/driftkit/lean"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestLeanCheck(t *testing.T) {
	fake := leantest.FakeREPL(t)
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.lean", "import Mathlib\n\ntheorem t : True := trivial\n")
	bad := write("bad.lean", "import Mathlib\n\ntheorem t : True := by\n  exact x --! error unknown identifier 'x'\n")
	sorry := write("sorry.lean", "theorem t : True := by\n  sorry\n")
	batch := write("batch.jsonl", `{"id":"a","header":"import Mathlib","code":"theorem a : True := trivial"}`+"\n\n"+`{"id":"b","code":"theorem b : True := trivial"}`+"\n")
	badJSONL := write("broken.jsonl", `{"id":"a","code":"x"}`+"\n"+`{"id": 3}`+"\n")

	for _, backend := range [][]string{{"--repl", fake}, {"--lean", fake, "--lean-dir", dir}} {
		if code, out, errs := runCmd(append(append([]string{"lean", "check"}, backend...), good, sorry)...); code != 0 ||
			!strings.Contains(out, "PASS   "+good) || !strings.Contains(out, "SORRY  "+sorry) {
			t.Errorf("%v good+sorry: exit %d\n%s%s", backend, code, out, errs)
		}
		code, out, errs := runCmd(append(append([]string{"lean", "check"}, backend...), good, bad)...)
		if code != 1 || !strings.Contains(out, "FAIL   "+bad) || !strings.Contains(out, bad+":4:10: error: unknown identifier 'x'") ||
			!strings.Contains(errs, "1 of 2 snippets failed") {
			t.Errorf("%v bad: exit %d\n%s%s", backend, code, out, errs)
		}
	}
	if code, out, errs := runCmd("lean", "check", "--repl", fake, "--complete", sorry); code != 1 {
		t.Errorf("--complete with a sorry: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runCmd("lean", "check", "--repl", fake, "--json", batch)
	if code != 0 {
		t.Fatalf("jsonl: exit %d\n%s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON results: %q", out)
	}
	var r lean.Result
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil || r.ID != "b" || !r.Pass || r.Backend != "repl" {
		t.Errorf("%q: %+v %v", lines[1], r, err)
	}
	if code, _, errs := runCmd("lean", "check", "--repl", fake, badJSONL); code != 1 || !strings.Contains(errs, "broken.jsonl:2") {
		t.Errorf("a bad JSONL line: exit %d %s", code, errs)
	}

	// Standard input.
	var sout, serr bytes.Buffer
	err := subcommands["lean"]["check"].run(context.Background(), &Env{Stdout: &sout, Stderr: &serr, Stdin: strings.NewReader("theorem t : True := trivial")}, []string{"--repl", fake, "-"})
	if err != nil || !strings.Contains(sout.String(), "PASS   stdin") {
		t.Errorf("stdin: %v %s %s", err, sout.String(), serr.String())
	}

	// Kimina.
	srv := leantest.NewKimina()
	defer srv.Close()
	if code, out, errs := runCmd("lean", "check", "--kimina", srv.URL, "--header", "import Mathlib", good); code != 0 || !strings.Contains(out, "kimina") {
		t.Errorf("kimina: exit %d\n%s%s", code, out, errs)
	}

	// Usage and unavailable backends.
	for _, args := range [][]string{
		{"lean", "check", good},
		{"lean", "check", "--repl", fake, "--kimina", srv.URL, good},
		{"lean", "check", "--repl", fake},
		{"lean", "check", "--repl", fake, "--repl-workers", "-2", good},
		{"lean"},
		{"lean", "nope"},
	} {
		if code, _, errs := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
	if code, _, errs := runCmd("lean", "check", "--repl", "/nonexistent/lake env repl", good); code != 3 ||
		!strings.Contains(errs, `"/nonexistent/lake env repl"`) || !strings.Contains(errs, "lake build") {
		t.Errorf("missing REPL: exit %d: %s", code, errs)
	}
	dead := leantest.NewKimina()
	deadURL := dead.URL
	dead.Close()
	if code, _, errs := runCmd("lean", "check", "--kimina", deadURL, good); code != 3 || !strings.Contains(errs, "kimina-lean-server") {
		t.Errorf("dead kimina: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("lean", "check", "--lean", "/nonexistent/lean", good); code != 3 || !strings.Contains(errs, "elan") {
		t.Errorf("missing lean: exit %d: %s", code, errs)
	}
}

func TestLeanBEq(t *testing.T) {
	fake := leantest.FakeREPL(t)
	ref := "theorem exercise_1 (x : ℕ) (h : 0 < x) :\n  0 < x + 1 :=\nsorry"
	code, out, errs := runCmd("lean", "beq", "--repl", fake, "--ref", ref, "--cand", ref, "--header", "import Mathlib")
	if code != 0 || !strings.HasPrefix(out, "equivalent") || !strings.Contains(out, "ref → cand: exact? (2 checks)") {
		t.Fatalf("equivalent: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd("lean", "beq", "--repl", fake, "--ref", ref, "--cand", ref, "--header", "import Mathlib\nopen Nat --! flag tactics-fail", "--json")
	var res lean.BEqResult
	if code != 1 || json.Unmarshal([]byte(out), &res) != nil || res.Outcome != lean.NotProved || res.RefToCand.Checks != 10 {
		t.Fatalf("not proved: exit %d\n%s%s", code, out, errs)
	}
	pairs := filepath.Join(t.TempDir(), "pairs.jsonl")
	os.WriteFile(pairs, []byte(`{"id":"p1","ref":"theorem a : True := trivial","cand":"theorem b : True := trivial"}`+"\n"+
		`{"id":"p2","ref":"def f := 1","cand":"theorem b : True := trivial"}`+"\n"), 0o644)
	code, out, errs = runCmd("lean", "beq", "--repl", fake, "--pairs", pairs)
	if code != 1 || !strings.Contains(out, "equivalent     p1") || !strings.Contains(out, "not-proved     p2") || !strings.Contains(out, "no theorem") {
		t.Fatalf("pairs: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"lean", "beq", "--repl", fake, "--ref", ref},
		{"lean", "beq", "--repl", fake, "--ref", "def f := 1", "--cand", ref},
		{"lean", "beq", "--ref", ref, "--cand", ref},
	} {
		if code, _, errs := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}

func TestLeanUnavailableMapsToExit3(t *testing.T) {
	cmd := &command{name: "lean-test-unavailable", run: func(ctx context.Context, env *Env, args []string) error {
		return errors.Join(errors.New("context"), lean.ErrUnavailable)
	}}
	register(cmd)
	defer delete(commands, cmd.name)
	if code, _, _ := runCmd(cmd.name); code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
}
