package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/drifttest"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/leantest"
	"github.com/driftkit/driftkit/serve/drift"
)

// bundledWorkspace builds the offline pipeline on testdata/lean (extract,
// template informalize, hash index) once per test binary.
func bundledWorkspace(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	for _, args := range [][]string{
		{"extract", "--src", filepath.Join("..", "..", "testdata", "lean"), "--library", "driftlib", "--ws", ws},
		{"informalize", "--ws", ws, "--provider", "template"},
		{"index", "--ws", ws},
	} {
		var errb bytes.Buffer
		if code := run(args, io.Discard, &errb); code != 0 {
			t.Fatalf("driftkit %v: exit %d\n%s", args, code, errb.String())
		}
	}
	return ws
}

// End to end on the bundled library with testdata/bench.jsonl: the whole
// runner through the CLI against a fake endpoint, resume, the
// no-decompose baseline scored exactly as eval retrieval scores it, and the
// offline context.
func TestDriftCommand(t *testing.T) {
	ws := bundledWorkspace(t)
	prompts, err := drift.LoadPrompts(drift.PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(fakeopenai.Options{Answer: drifttest.Answer(prompts, 6)})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "k")
	bench := filepath.Join("..", "..", "testdata", "bench.jsonl")
	out := filepath.Join(t.TempDir(), "run")
	var stdout bytes.Buffer
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", out, "--samples", "2", "--concurrency", "4"}, &stdout, os.Stderr); code != 0 {
		t.Fatalf("drift: exit %d\n%s", code, stdout.String())
	}
	var sum drift.Summary
	b, err := os.ReadFile(filepath.Join(out, drift.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Items != 40 || sum.OK != 40 || sum.Retrieval == nil || sum.Retrieval.Items != 40 || sum.Retrieval.GoldInCorpus != sum.Retrieval.GoldTotal {
		t.Fatalf("summary %+v", sum)
	}
	if sum.TC1 != nil || !strings.HasPrefix(sum.Verification, "skipped") || !strings.Contains(stdout.String(), "TC@1 n/a") {
		t.Errorf("verification without a backend must be skipped, not scored: %+v\n%s", sum, stdout.String())
	}
	if sum.MeanSubQueries < 3 || sum.MeanIllustrations == 0 || sum.PromptTokensPerItem == 0 {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(stdout.String(), "hash encoder (fallback)") {
		t.Errorf("the fallback encoder is not labelled:\n%s", stdout.String())
	}
	recs := readItems(t, filepath.Join(out, drift.ItemsFile))
	for _, r := range recs {
		for _, p := range r.Premises {
			// A parameterless structure's signature is empty in its source
			// (`structure NatPoint where`); its informal text describes it.
			if p.Name == r.Self || p.Signature == "" && p.Informal == "" {
				t.Errorf("%s: premise %+v (own theorem, or not described)", r.Key, p)
			}
		}
		for _, il := range r.Illustrations {
			if il.Name == r.Self {
				t.Errorf("%s: illustrated by itself", r.Key)
			}
		}
		if len(r.Samples) != 2 || r.Samples[0].Statement == "" {
			t.Errorf("%s: samples %+v", r.Key, r.Samples)
		}
	}
	// Resume: nothing is requested again.
	before := srv.Requests()
	stdout.Reset()
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", out, "--samples", "2", "--concurrency", "4"}, &stdout, io.Discard); code != 0 {
		t.Fatalf("rerun: exit %d", code)
	}
	if srv.Requests() != before || !strings.Contains(stdout.String(), "40 of 40 items already finished, skipped") {
		t.Errorf("rerun requested %d more; said:\n%s", srv.Requests()-before, stdout.String())
	}
	// Other settings in the same folder are refused.
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", out, "--samples", "3"}, io.Discard, io.Discard); code != 1 {
		t.Errorf("changed settings: exit %d, want 1", code)
	}

	// The no-decompose baseline's premise set is eval retrieval's top 5:
	// the same search, exclusion and scorer give the same numbers.
	base := filepath.Join(t.TempDir(), "dpr")
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", base, "--no-decompose", "--no-illustrate"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("no-decompose: exit %d", code)
	}
	var dpr drift.Summary
	b, _ = os.ReadFile(filepath.Join(base, drift.SummaryFile))
	json.Unmarshal(b, &dpr)
	var evalOut bytes.Buffer
	if code := run([]string{"eval", "retrieval", "--ws", ws, "--bench", bench, "--k", "5", "--json"}, &evalOut, io.Discard); code != 0 {
		t.Fatal("eval retrieval failed")
	}
	var rep struct {
		AtK []struct{ P, R, F1 float64 } `json:"at_k"`
	}
	if err := json.Unmarshal(evalOut.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// eval's JSON names the fields precision/recall/f1.
	var rep2 struct {
		AtK []map[string]float64 `json:"at_k"`
	}
	json.Unmarshal(evalOut.Bytes(), &rep2)
	e := rep2.AtK[0]
	if dpr.Retrieval == nil || math.Abs(dpr.Retrieval.P-e["precision"]) > 1e-9 || math.Abs(dpr.Retrieval.R-e["recall"]) > 1e-9 || math.Abs(dpr.Retrieval.F1-e["f1"]) > 1e-9 {
		t.Errorf("no-decompose retrieval %+v differs from eval retrieval @5 %v", dpr.Retrieval, e)
	}

	// A Lean backend through the shared flags: the fake kimina-lean-server
	// (its wire format) checks every statement and BEq+ runs on it.
	kim := leantest.NewKimina()
	defer kim.Close()
	verified := filepath.Join(t.TempDir(), "verified")
	stdout.Reset()
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", verified, "--kimina", kim.URL, "--limit", "5"}, &stdout, os.Stderr); code != 0 {
		t.Fatalf("verified run: exit %d\n%s", code, stdout.String())
	}
	if _, n := kim.Requests(); n < 5 || !strings.Contains(stdout.String(), "TC@1 100.00") || strings.Contains(stdout.String(), "BEq+@1 n/a") {
		t.Errorf("%d snippets checked; output:\n%s", n, stdout.String())
	}
	for _, r := range readItems(t, filepath.Join(verified, drift.ItemsFile)) {
		if s := r.Samples[0]; s.Attempts[0].Typecheck == nil || !s.Typechecks || s.BEq == nil || s.BEq.Verdict == "" {
			t.Errorf("%s: sample %+v", r.Key, s)
		}
	}
	// A kimina server that is not there: exit 3, before any LLM call.
	before = srv.Requests()
	if code := run([]string{"drift", "--ws", ws, "--bench", bench, "--model", "fake", "--out", t.TempDir(), "--kimina", "http://127.0.0.1:1"}, io.Discard, io.Discard); code != 3 || srv.Requests() != before {
		t.Errorf("unreachable kimina: exit %d, %d requests", code, srv.Requests()-before)
	}

	// Offline context, to stdout and to a file.
	stdout.Reset()
	if code := run([]string{"drift", "--ws", ws, "--context-only", "If p is a prime dividing ab, then p divides a or p divides b."}, &stdout, io.Discard); code != 0 {
		t.Fatal("context-only failed")
	}
	for _, want := range []string{"Driftlib.Nat.Prime", "illustrations (", "===== user =====", "Informal statement:"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("context lacks %q:\n%s", want, stdout.String())
		}
	}
	file := filepath.Join(t.TempDir(), "ctx.json")
	if code := run([]string{"drift", "--ws", ws, "--context-only", "--json", "--out", file, "every group of prime order is cyclic"}, io.Discard, io.Discard); code != 0 {
		t.Fatal("context-only to a file failed")
	}
	var ctxJSON struct {
		Context drift.ContextOnly `json:"context"`
	}
	b, _ = os.ReadFile(file)
	if err := json.Unmarshal(b, &ctxJSON); err != nil || len(ctxJSON.Context.Context.Premises) != 5 || len(ctxJSON.Context.Messages) != 2 {
		t.Errorf("context file: %v %+v", err, ctxJSON)
	}

	for _, args := range [][]string{
		{"drift", "--ws", ws},
		{"drift", "--ws", ws, "--bench", bench, "--out", out},                      // no model
		{"drift", "--ws", ws, "--bench", bench, "--model", "m"},                    // no out
		{"drift", "--ws", ws, "--context-only"},                                    // no statement
		{"drift", "--ws", ws, "--bench", bench, "--context-only", "x"},             // both
		{"drift", "--ws", ws, "--context-only", "--oracle", "--no-retrieval", "x"}, // contradictory
		{"drift", "--ws", ws, "--context-only", "--mode", "magic", "x"},
	} {
		if code := run(args, io.Discard, io.Discard); code != 2 {
			t.Errorf("driftkit %v: exit %d, want 2", args, code)
		}
	}
	// bad k: each flag where it is read (--per-query with --context-only is
	// refused before Validate looks at its value, as a flag that only
	// matters with decomposition)
	for flag, args := range map[string][]string{
		"--top-k":     {"drift", "--ws", ws, "--context-only", "--top-k", "0", "x"},
		"--per-query": {"drift", "--ws", ws, "--bench", bench, "--model", "m", "--out", out, "--per-query", "0"},
	} {
		var errb bytes.Buffer
		if code := run(args, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), flag+" 0 (want at least 1)") {
			t.Errorf("driftkit %v: exit %d, stderr %.200q; want 2 and %s 0 refused", args, code, errb.String(), flag)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"informal_stmt\": \"ok\"}\nnot json\n"), 0o644)
	var errb bytes.Buffer
	if code := run([]string{"drift", "--ws", ws, "--bench", bad, "--model", "m", "--out", t.TempDir()}, io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "bad.jsonl:2:") {
		t.Errorf("bad bench: exit %d, %s", code, errb.String())
	}
}

func readItems(t *testing.T, path string) []drift.Record {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []drift.Record
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r drift.Record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
