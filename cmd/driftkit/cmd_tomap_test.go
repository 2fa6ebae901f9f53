package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm/fakeopenai"
	"github.com/driftkit/driftkit/serve/tomap"
	"github.com/driftkit/driftkit/serve/tomap/tomapfake"
)

const proofflowBench = "/work/shared/benchmarks/proofflow/benchmark.json"

// fakeLean makes the tomap command use an in-process fake checker; it
// returns the checker and restores the real opener when the test ends.
func fakeLean(t *testing.T) *tomapfake.Checker {
	ck := &tomapfake.Checker{}
	old := openLean
	openLean = func(ctx context.Context, o lean.Options) (lean.Checker, error) {
		if !o.Configured() {
			t.Error("openLean called without a backend flag")
		}
		return ck, nil
	}
	t.Cleanup(func() { openLean = old })
	return ck
}

func fakeModel(t *testing.T) *fakeopenai.Server {
	progress.Quiet = true
	m := tomapfake.NewModel()
	srv := fakeopenai.New(fakeopenai.Options{Answer: m.Answer, Key: tomapfake.RequestKey})
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "k")
	return srv
}

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
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
			ck := fakeLean(t)
			out := t.TempDir()
			args := []string{"tomap", "--bench", bench, "--model", "fake", "--repl", "lake env repl", "--out", out,
				"--method", "tomap,proofflow,end2end", "--rounds", "0,1,3,5,10", "--limit", "3", "--jobs", "2", "--quiet"}
			code, stdout, stderr := runCmd(t, args...)
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
			if len(sum.Variants) != len(names) || sum.Verification != "fake" || sum.Problems != min(3, sum.Problems) {
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
			if ck.Calls() == 0 {
				t.Error("the fake Lean backend was never asked")
			}
			for _, want := range []string{"| tomap-r10 |", "| proofflow |", "| end2end |", "SC∧SF", "Lean verification: fake"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			// Rerunning the same command resumes: nothing is asked again.
			n := srv.Requests()
			if code, _, stderr := runCmd(t, args...); code != 0 || srv.Requests() != n {
				t.Errorf("rerun: exit %d, %d new requests\n%s", code, srv.Requests()-n, stderr)
			}
		})
	}
}

func TestToMapCommandWithoutLeanBackend(t *testing.T) {
	fakeModel(t)
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "fake",
		"--repl", "lake env repl", "--out", out, "--method", "proofflow", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "no Lean backend is available") || !strings.Contains(stderr, "recorded as skipped") {
		t.Errorf("stderr does not say that nothing was verified:\n%s", stderr)
	}
	if !strings.Contains(stdout, "Lean verification: skipped") {
		t.Errorf("stdout:\n%s", stdout)
	}
	b, _ := os.ReadFile(filepath.Join(out, tomap.ResultsFile))
	if strings.Contains(string(b), `"sc":true`) || !strings.Contains(string(b), `"sc":null`) {
		t.Errorf("results claim SC without Lean:\n%s", b)
	}
}

func TestToMapCommandDryRun(t *testing.T) {
	srv := fakeModel(t)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCmd(t, "tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "fake",
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
			code, _, stderr := runCmd(t, tc.args...)
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
	fakeLean(t)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "tomap", "--bench", "../../serve/tomap/testdata/bench/proofflow-2.json", "--model", "base-model",
		"--judge-model", "judge-model", "--prover-model", "prover-model", "--prover-base-url", other.BaseURL(), "--repl", "x",
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
