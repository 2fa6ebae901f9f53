package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/retrieval/eval"
)

const driftlibSearchBench = "../../testdata/search/driftlib.jsonl"

// TestTheoremSearch builds the bundled library's workspace as `make run`
// does (extract, template informalization, index with the hash encoder)
// and runs the theorem-search commands on it.
func TestTheoremSearch(t *testing.T) {
	ws := t.TempDir()
	for _, args := range [][]string{
		{"extract", "--src", "../../testdata/lean", "--library", "driftlib", "--ws", ws, "--quiet"},
		{"informalize", "--ws", ws, "--provider", "template"},
		{"index", "--ws", ws},
	} {
		if code, out, errs := runCmd(args...); code != 0 {
			t.Fatalf("driftkit %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	t.Run("check gold", func(t *testing.T) { testEvalSearchCheckGold(t, ws) })
	t.Run("failed run writes no per-item file", func(t *testing.T) { testEvalSearchFailedPerItem(t, ws) })
	t.Run("theorem profile", func(t *testing.T) { testEvalSearchTheoremProfile(t, ws) })
	t.Run("profile label", func(t *testing.T) { testSearchProfileLabel(t, ws) })
	t.Run("augment", func(t *testing.T) { testSearchAugment(t, ws) })
	t.Run("eval retrieval stays premise", func(t *testing.T) { testEvalRetrievalPremiseProfile(t, ws) })
}

// eval retrieval measures dependency retrieval: the premise profile, also
// when theorems are candidates, unless --profile says otherwise.
func testEvalRetrievalPremiseProfile(t *testing.T, ws string) {
	bench := filepath.Join(t.TempDir(), "bench.jsonl")
	os.WriteFile(bench, []byte(`{"informal_stmt": "A group of prime order is cyclic.", "mathlib_dependencies": ["Driftlib.IsCyclic"], "full_name": "Driftlib.isCyclic_of_prime_card"}`+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "profile premise"},
		{[]string{"--all-kinds"}, "profile premise"},
		{[]string{"--all-kinds", "--profile", "auto"}, "profile theorem"},
		{[]string{"--profile", "theorem"}, "profile theorem"},
	} {
		args := append([]string{"eval", "retrieval", "--ws", ws, "--bench", bench}, tc.args...)
		if code, out, errs := runCmd(args...); code != 0 || !strings.Contains(out, "mode best, "+tc.want+",") {
			t.Errorf("driftkit %v: exit %d, want %q\n%s%s", args, code, tc.want, out, errs)
		}
	}
}

// Every gold name of the bundled library's theorem-search benchmark is a
// declaration of the extracted library, and --check fails naming a missing
// one.
func testEvalSearchCheckGold(t *testing.T, ws string) {
	if code, out, errs := runCmd("eval", "search", "--ws", ws, "--bench", driftlibSearchBench, "--check"); code != 0 || !strings.Contains(out, "all gold names of 56 items") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "query": "q", "gold": ["Driftlib.Nat.Prime.two_le", "Driftlib.no_such_theorem"]}`+"\n"), 0o644)
	code, _, errs := runCmd("eval", "search", "--ws", ws, "--bench", bad, "--check")
	if code != 1 || !strings.Contains(errs, "bad.jsonl:1: item x: gold Driftlib.no_such_theorem is not a declaration") || strings.Contains(errs, "two_le is not") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
}

// A run that fails after searching (none of the benchmark's gold names is
// in the index) leaves no --per-item file: the lines it wrote were in a
// temporary, dropped, and no temporary is left beside it.
func testEvalSearchFailedPerItem(t *testing.T, ws string) {
	dir := t.TempDir()
	bad, per := filepath.Join(dir, "bad.jsonl"), filepath.Join(dir, "items.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "query": "every prime is at least two", "gold": ["Driftlib.no_such_theorem"]}`+"\n"), 0o644)
	code, _, errs := runCmd("eval", "search", "--ws", ws, "--bench", bad, "--mode", "bm25", "--per-item", per)
	if code != 1 || !strings.Contains(errs, "none of its 1 gold names") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("a failed run left %v beside its benchmark, want no per-item file", names)
	}
}

// On the bundled library, the theorem profile finds the theorem a user
// means: it beats the premise profile and stays above a floor on both
// halves. (The floors are below the measured values — README.md, "theorem
// search" — so that only a real regression fails: dropping a signal of the
// profile, or adding one that favours popular premises.)
func testEvalSearchTheoremProfile(t *testing.T, ws string) {
	per := filepath.Join(t.TempDir(), "items.jsonl")
	code, out, errs := runCmd("eval", "search", "--ws", ws, "--bench", driftlibSearchBench, "--profile", "premise,theorem,auto",
		"--mode", "bm25,best", "--json", "--per-item", per)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var rep eval.SearchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 56 || len(rep.Runs) != 4 || rep.GoldInIndex != rep.GoldTotal || !rep.EncoderFallback || !strings.Contains(rep.Informal, "template") {
		t.Fatalf("report %+v", rep)
	}
	bm25, premise, theorem, auto := rep.Runs[0], rep.Runs[1], rep.Runs[2], rep.Runs[3]
	t.Logf("bm25 %+v\npremise %+v\ntheorem %+v", bm25.SearchMetrics, premise.SearchMetrics, theorem.SearchMetrics)
	if auto.Resolved != retrieval.ProfileTheorem || auto.SearchMetrics != theorem.SearchMetrics {
		t.Errorf("profile auto with every kind a candidate resolved to %q (%+v), want the theorem profile", auto.Resolved, auto.SearchMetrics)
	}
	if theorem.MRR10 <= premise.MRR10+0.2 || theorem.Hit1 <= premise.Hit1 {
		t.Errorf("theorem profile MRR@10 %.3f hit@1 %.2f, premise profile %.3f %.2f: the theorem profile must rank the theorem first far more often",
			theorem.MRR10, theorem.Hit1, premise.MRR10, premise.Hit1)
	}
	if theorem.Hit10 < 0.85 || theorem.MRR10 < 0.70 || theorem.Hit1 < 0.60 {
		t.Errorf("theorem profile %+v below its floor (hit@10 0.85, MRR@10 0.70, hit@1 0.60)", theorem.SearchMetrics)
	}
	b, err := os.ReadFile(per)
	if err != nil || strings.Count(string(b), "\n") != 4*56 {
		t.Fatalf("per-item file: %v, %d lines", err, strings.Count(string(b), "\n"))
	}
}

// search labels its profile: premise by default, theorem when theorems are
// candidates, and as asked with --profile.
func testSearchProfileLabel(t *testing.T, ws string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "# profile premise"},
		{[]string{"--all-kinds"}, "# profile theorem"},
		{[]string{"--kinds", "theorem,definition"}, "# profile theorem"},
		{[]string{"--all-kinds", "--profile", "premise"}, "# profile premise"},
	} {
		args := append(append([]string{"search", "--ws", ws}, tc.args...), "groups of prime order are cyclic")
		code, out, errs := runCmd(args...)
		if code != 0 || !strings.Contains(out, tc.want+"\n") {
			t.Errorf("driftkit %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if code, out, _ := runCmd("search", "--ws", ws, "--all-kinds", "groups of prime order are cyclic"); code != 0 || !strings.Contains(out, "Driftlib.isCyclic_of_prime_card") {
		t.Errorf("theorem search did not find isCyclic_of_prime_card:\n%s", out)
	}
	if code, _, _ := runCmd("search", "--ws", ws, "--profile", "popular", "x"); code != 2 {
		t.Errorf("--profile popular: exit %d, want 2", code)
	}
}

// search --augment against a fake model: the rewrite is searched and shown,
// cached in the workspace (a second search makes no request), and a model
// that fails leaves the raw query, said in text and JSON.
func testSearchAugment(t *testing.T, ws string) {
	answer := `{"informal_name": "Cyclicity of groups of prime order", "informal_statement": "Every finite group whose order is a prime number is cyclic.",
		"lean_name": "Driftlib.isCyclic_of_prime_card", "lean_statement": "[DLFintype G] (h : Nat.Prime (DLFintype.card G)) : IsCyclic G"}`
	fail := false
	var mu sync.Mutex
	srv := fakeopenai.New(fakeopenai.Options{Answer: func(fakeopenai.Request) string { return answer }, Fault: func(fakeopenai.Request) fakeopenai.Fault {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return fakeopenai.ServerError
		}
		return fakeopenai.OK
	}})
	defer srv.Close()
	args := []string{"search", "--ws", ws, "--all-kinds", "--augment", "--model", "fake", "--base-url", srv.BaseURL(), "--max-retries", "-1"}
	code, out, errs := runCmd(append(args, "prime order group cyclic")...)
	if code != 0 || !strings.Contains(out, "# query augmented by fake (prompt v1") || !strings.Contains(out, "#   theorem Driftlib.isCyclic_of_prime_card [DLFintype G]") ||
		!strings.Contains(out, "Driftlib.isCyclic_of_prime_card\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests", srv.Requests())
	}
	code, out, _ = runCmd(append(args, "--json", "prime order group cyclic")...)
	var res struct {
		Augmentation augment.Result `json:"augmentation"`
		Hits         []retrieval.Hit
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Augmentation.Status != augment.StatusCached || res.Hits[0].Name != "Driftlib.isCyclic_of_prime_card" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if srv.Requests() != 1 {
		t.Errorf("the cached query made a request (%d)", srv.Requests())
	}
	// --augment-prompt chooses the prompt, and its answers are cached apart:
	// the same query with v2 asks the model (v2's system message), then not.
	code, out, errs = runCmd(append(args, "--augment-prompt", "v2", "prime order group cyclic")...)
	if code != 0 || !strings.Contains(out, "# query augmented by fake (prompt v2, ") || srv.Requests() != 2 {
		t.Fatalf("--augment-prompt v2: exit %d after %d requests\n%s%s", code, srv.Requests(), out, errs)
	}
	if code, out, _ = runCmd(append(args, "--augment-prompt", "v2", "prime order group cyclic")...); code != 0 ||
		!strings.Contains(out, "# query augmented by fake (prompt v2, cached") || srv.Requests() != 2 {
		t.Errorf("--augment-prompt v2 again: exit %d after %d requests\n%s", code, srv.Requests(), out)
	}
	if code, _, errs := runCmd(append(args, "--augment-prompt", "v9", "x")...); code != 2 || !strings.Contains(errs, "--augment-prompt") || !strings.Contains(errs, "known: v1, v2") {
		t.Errorf("--augment-prompt v9: exit %d, %s", code, errs)
	}
	// A torn last line of the cache (a crash mid-write) is said on stderr.
	if f, err := os.OpenFile(augment.CachePath(ws), os.O_APPEND|os.O_WRONLY, 0); err != nil {
		t.Fatal(err)
	} else {
		f.WriteString(`{"key": "torn", "answer": {"informal_sta`)
		f.Close()
	}
	if code, _, errs := runCmd(append(args, "prime order group cyclic")...); code != 0 ||
		!strings.Contains(errs, "warning: augmentation cache "+augment.CachePath(ws)+":") || !strings.Contains(errs, "dropped a torn last line") {
		t.Errorf("search on a cache with a torn line: exit %d, stderr %q", code, errs)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	code, out, _ = runCmd(append(args, "an uncached query about groups")...)
	if code != 0 || !strings.Contains(out, "# query augmentation failed, searched the raw query only: model error") {
		t.Errorf("fallback: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(append(args, "--json", "another uncached query")...)
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Augmentation.Status != augment.StatusFallback || res.Augmentation.Reason == "" || len(res.Hits) == 0 {
		t.Errorf("fallback JSON: exit %d\n%s", code, out)
	}
	// eval search on a fixed subset (--every) counts the queries whose
	// augmentation fell back: here every one (the model fails).
	code, out, errs = runCmd("eval", "search", "--ws", ws, "--bench", driftlibSearchBench, "--every", "20", "--mode", "best", "--profile", "theorem",
		"--augment", "--model", "fake", "--base-url", srv.BaseURL(), "--max-retries", "-1", "--quiet")
	if code != 0 || !strings.Contains(out, "sample: one in every 20 items in file order, the first included: 3 of 56\n") ||
		!strings.Contains(out, "bench "+driftlibSearchBench+": 3 queries") || !strings.Contains(out, "augmentation: 3 of 3 queries fell back to the raw query alone; ") {
		t.Errorf("eval search --every --augment with a failing model: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCmd("search", "--ws", ws, "--augment", "x"); code != 2 || !strings.Contains(errs, "--augment needs a chat model") {
		t.Errorf("--augment without a model: exit %d, %s", code, errs)
	}
}
