package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/leantest"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/serve/tomap"
)

const proofflowBench = "/work/shared/benchmarks/proofflow/benchmark.json"

func fakeModel(t *testing.T) *fakeopenai.Server {
	m := tomapfake.NewModel()
	// The first proof of every unit s2 fails in Lean (a fake-REPL marker),
	// so Lean's errors travel back through the real protocol.
	m.Override = func(c tomapfake.Call) (string, bool) {
		if c.Role == tomap.RoleProver && c.Attempt == 1 && strings.Contains(c.User, "Informal step s2:") {
			return `{"proof": "intro x\nexact foo x --! error unknown identifier 'foo'"}`, true
		}
		return "", false
	}
	srv := fakeopenai.New(fakeopenai.Options{Answer: m.Answer, Key: tomapfake.RequestKey})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "k")
	return srv
}

// TestToMapCommandAllMethods is the end-to-end check: the three
// methods and the scaling study on ProofFlowBench problems, against the fake
// model and the fake Lean backend, with every metric in the summary.
func TestToMapCommandAllMethods(t *testing.T) {
	benches := []string{"../../serve/tomap/testdata/bench/proofflow-2.json"}
	if _, err := os.Stat(proofflowBench); err == nil {
		benches = append(benches, proofflowBench)
	}
	for _, bench := range benches {
		t.Run(filepath.Base(bench), func(t *testing.T) {
			srv := fakeModel(t)
			repl := leantest.FakeREPL(t)
			out := t.TempDir()
			args := []string{"tomap", "--bench", bench, "--model", "fake", "--repl", repl, "--repl-workers", "2", "--out", out,
				"--method", "tomap,proofflow,end2end", "--rounds", "0,1,3,5,10", "--limit", "3", "--jobs", "2", "--quiet"}
			code, stdout, stderr := runCmd(args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			t.Logf("driftkit %s\n%s", strings.Join(args, " "), stdout)
			var sum tomap.Summary
			b, err := os.ReadFile(filepath.Join(out, tomap.SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			names := []string{"end2end", "proofflow", "tomap-r0", "tomap-r1", "tomap-r3", "tomap-r5", "tomap-r10"}
			if len(sum.Variants) != len(names) || sum.Verification != "repl" || sum.Problems != min(3, sum.Problems) {
				t.Fatalf("summary %+v", sum)
			}
			for i, v := range sum.Variants {
				if v.Variant != names[i] {
					t.Errorf("variant %d is %s, want %s", i, v.Variant, names[i])
				}
				if v.Finished != sum.Problems || v.Errors != 0 {
					t.Errorf("%s: finished %d of %d", v.Variant, v.Finished, sum.Problems)
				}
				for what, m := range map[string]*float64{"SC": v.SC.Value, "SF": v.SF.Value, "SC∧SF": v.SCAndSF.Value,
					"wall": v.WallSeconds.Value, "output tokens": v.OutputTokens.Value, "rounds used": v.RoundsUsed.Value,
					"Lean calls": v.LeanCalls.Value, "model calls": v.ModelCalls.Value} {
					if m == nil {
						t.Errorf("%s: %s missing", v.Variant, what)
					}
				}
				if v.Method != tomap.MethodEnd2End && (v.FormalizedRate.Value == nil || v.ProvedRate.Value == nil) {
					t.Errorf("%s: per-unit rates missing", v.Variant)
				}
			}
			for _, want := range []string{"| tomap-r10 |", "| proofflow |", "| end2end |", "SC∧SF", "Lean verification: repl"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			// The failed first proof of s2 came back with Lean's message at
			// the line of the prover's own code.
			b, _ = os.ReadFile(filepath.Join(out, tomap.ResultsFile))
			if !strings.Contains(string(b), `line 3, column 14: error: unknown identifier 'foo'`) {
				i := strings.Index(string(b), "unknown identifier")
				t.Errorf("no Lean feedback for s2's first proof in the results: %s", string(b)[max(0, i-300):min(len(b), i+100)])
			}
			// Rerunning the same command resumes: nothing is asked again.
			n := srv.Requests()
			if code, _, stderr := runCmd(args...); code != 0 || srv.Requests() != n {
				t.Errorf("rerun: exit %d, %d new requests\n%s", code, srv.Requests()-n, stderr)
			}
		})
	}
}

func TestToMapCommandLeanUnavailable(t *testing.T) {
	srv := fakeModel(t)
	out := t.TempDir()
	bench := "../../serve/tomap/testdata/bench/proofflow-2.json"
	code, _, stderr := runCmd("tomap", "--bench", bench, "--model", "fake", "--repl", "/nonexistent/repl", "--out", out, "--quiet")
	if code != 3 || !strings.Contains(stderr, "/nonexistent/repl") || srv.Requests() != 0 {
		t.Errorf("a REPL that does not start: exit %d, %d requests, stderr:\n%s", code, srv.Requests(), stderr)
	}
	// A REPL that passes the start-up probe and then can no longer start
	// stops the run (exit 3); a rerun with a working REPL finishes and asks
	// no answered request again.
	repl := leantest.FakeREPL(t)
	dying := dyingREPL(t, repl)
	args := []string{"tomap", "--bench", bench, "--model", "fake", "--out", out, "--method", "proofflow", "--quiet", "--jobs", "1"}
	code, _, stderr = runCmd(append(args, "--repl", dying)...)
	t.Logf("stderr of the run whose REPL died:\n%s", stderr)
	if code != 3 || !strings.Contains(stderr, "rerun the same command to resume") || !strings.Contains(stderr, "cannot open shared object") {
		t.Fatalf("a REPL that dies: exit %d, stderr:\n%s", code, stderr)
	}
	before := srv.Stats()
	if len(before) == 0 {
		t.Fatal("no request before the REPL died")
	}
	code, stdout, stderr := runCmd(append(args, "--repl", repl)...)
	if code != 0 || !strings.Contains(stdout, "| proofflow | 2/2 |") {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for k, st := range srv.Stats() {
		if b, ok := before[k]; ok && b.Requests != st.Requests {
			t.Errorf("request %s… asked again after the REPL came back", k[:12])
		}
	}
}

func TestToMapCommandNoLean(t *testing.T) {
	fakeModel(t)
	out := t.TempDir()
	code, stdout, stderr := runCmd("tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "fake",
		"--no-lean", "--out", out, "--method", "proofflow", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "recorded as skipped") || !strings.Contains(stdout, "Lean verification: skipped") {
		t.Errorf("the run does not say that nothing was verified:\n%s\n%s", stderr, stdout)
	}
	b, _ := os.ReadFile(filepath.Join(out, tomap.ResultsFile))
	if strings.Contains(string(b), `"sc":true`) || !strings.Contains(string(b), `"sc":null`) {
		t.Errorf("results claim SC without Lean:\n%s", b)
	}
}

func TestToMapCommandDryRun(t *testing.T) {
	srv := fakeModel(t)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCmd("tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "fake",
		"--out", out, "--method", "tomap,proofflow", "--rounds", "0,10", "--dry-run", "--price-prompt", "1", "--price-completion", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"tomap-r10", "tomap-r0", "proofflow", "model calls", "cost USD", "total"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
	if srv.Requests() != 0 {
		t.Errorf("dry run sent %d requests", srv.Requests())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("dry run created the output folder")
	}
}

func TestToMapCommandUsage(t *testing.T) {
	fakeModel(t)
	bench := "../../serve/tomap/testdata/bench/proofflow-2.json"
	base := []string{"tomap", "--bench", bench, "--model", "m", "--out", t.TempDir()}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no bench", []string{"tomap", "--model", "m", "--out", "x", "--no-lean"}, 2, "--bench is required"},
		{"no out", []string{"tomap", "--bench", bench, "--model", "m", "--no-lean"}, 2, "--out is required"},
		{"no lean flag", base, 2, "no Lean backend: give --repl"},
		{"no-lean with repl", append(base, "--no-lean", "--repl", "x"), 2, "--no-lean with a Lean backend flag"},
		{"unknown method", append(base, "--no-lean", "--method", "magic"), 2, `unknown method "magic"`},
		{"bad rounds", append(base, "--no-lean", "--rounds", "1,x"), 2, `"x" is not a round count`},
		{"gate above 1", append(base, "--no-lean", "--gate", "1.5"), 2, "--gate 1.5"},
		{"bad split", append(base, "--no-lean", "--split", "half"), 2, "--split"},
		{"unknown key", append(base, "--no-lean", "--only", "nope/1"), 2, "no problem nope/1"},
		{"no model", []string{"tomap", "--bench", bench, "--out", "x", "--no-lean"}, 2, "no model for the decomposer"},
		{"per-agent model is enough for that agent only", []string{"tomap", "--bench", bench, "--out", "x", "--no-lean", "--judge-model", "j"}, 2, "no model for the decomposer"},
		{"bad agent url", append(base, "--no-lean", "--prover-base-url", "ftp://x"), 2, "--prover-base-url"},
		{"missing bench", []string{"tomap", "--bench", "/nonexistent.json", "--model", "m", "--out", "x", "--no-lean"}, 1, "no such file"},
		{"bad bench", []string{"tomap", "--bench", "cmd_tomap.go", "--model", "m", "--out", "x", "--no-lean"}, 1, "cmd_tomap.go:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr:\n%s\nwant %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

func TestToMapCommandPerAgentModels(t *testing.T) {
	srv := fakeModel(t)
	other := fakeopenai.New(fakeopenai.Options{Answer: tomapfake.NewModel().Answer})
	defer other.Close()
	repl := leantest.FakeREPL(t)
	out := t.TempDir()
	code, _, stderr := runCmd("tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "base-model",
		"--judge-model", "judge-model", "--prover-model", "prover-model", "--prover-base-url", other.BaseURL(), "--repl", repl,
		"--out", out, "--rounds", "1", "--limit", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if other.Requests() == 0 || srv.Requests() == 0 {
		t.Errorf("prover endpoint %d requests, shared %d", other.Requests(), srv.Requests())
	}
	var sum tomap.Summary
	b, _ := os.ReadFile(filepath.Join(out, tomap.SummaryJSON))
	json.Unmarshal(b, &sum)
	if !strings.HasPrefix(sum.Models["judge"], "judge-model @") || !strings.HasPrefix(sum.Models["sf"], "judge-model @") ||
		!strings.HasPrefix(sum.Models["prover"], "prover-model @ "+other.BaseURL()) || !strings.HasPrefix(sum.Models["decomposer"], "base-model @") {
		t.Errorf("models %v", sum.Models)
	}
}

// dyingREPL writes a REPL command that works once (the start-up probe) and
// then fails to start, as a REPL whose shared libraries vanished would.
func dyingREPL(t *testing.T, repl string) string {
	dir := t.TempDir()
	script := filepath.Join(dir, "repl.sh")
	body := "#!/bin/sh\nn=$(cat " + dir + "/starts 2>/dev/null || echo 0)\necho $((n+1)) > " + dir + "/starts\n" +
		"if [ \"$n\" -ge 1 ]; then echo 'repl: error while loading shared libraries: libleanshared.so: cannot open shared object file' >&2; exit 127; fi\n" +
		"exec " + repl + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}
