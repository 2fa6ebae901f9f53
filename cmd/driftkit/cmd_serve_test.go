package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/drifttest"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/lockedbuf"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/serve/drift"
)

// buildRunWorkspace is `make run`'s first steps on the bundled library.
func buildRunWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, args := range [][]string{
		{"extract", "--src", filepath.Join("..", "..", "testdata", "lean"), "--library", "driftlib", "--ws", ws, "--quiet"},
		{"informalize", "--ws", ws, "--provider", "template"},
		{"index", "--ws", ws},
	} {
		var errb bytes.Buffer
		if code := run(args, io.Discard, &errb); code != 0 {
			t.Fatalf("driftkit %v: exit %d: %s", args, code, errb.String())
		}
	}
	return ws
}

// startServe runs `driftkit serve` until the test ends and returns its URL.
func startServe(t *testing.T, out, errOut *lockedbuf.Buffer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- commands["serve"].run(ctx, &Env{Stdout: out, Stderr: errOut}, append([]string{"--addr", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	re := regexp.MustCompile(`serving on (http://\S+)`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s\n%s", err, out.String(), errOut.String())
		default:
		}
	}
	t.Fatalf("serve did not start:\n%s\n%s", out.String(), errOut.String())
	return ""
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeAfterMakeRun: `driftkit serve --ws WS` over the pipeline's
// workspace serves the page and the API; /api/search ranks exactly as
// `driftkit search --json`; SIGHUP picks up a rebuilt index; the API key
// is never printed nor answered.
func TestServeAfterMakeRun(t *testing.T) {
	ws := buildRunWorkspace(t)
	const secret = "sk-serve-test-0123456789SECRET"
	t.Setenv("OPENAI_API_KEY", secret)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	var out, errOut lockedbuf.Buffer
	base := startServe(t, &out, &errOut, "--ws", ws, "--ws", "again="+ws, "--model", "test-model", "--runs", t.TempDir())

	query := "If p is a prime number dividing the product of two natural numbers, then p divides one of them."
	var cli bytes.Buffer
	if code := run([]string{"search", "--ws", ws, "--json", "--k", "10", query}, &cli, io.Discard); code != 0 {
		t.Fatalf("search: exit %d", code)
	}
	var want struct {
		Hits []retrieval.Hit `json:"hits"`
	}
	if err := json.Unmarshal(cli.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, base+"/api/search?k=10&q="+url.QueryEscape(query))
	if code != 200 {
		t.Fatalf("/api/search: %d %s", code, body)
	}
	var got struct {
		Hits []retrieval.Hit `json:"hits"`
	}
	json.Unmarshal([]byte(body), &got)
	if len(want.Hits) == 0 || len(got.Hits) != len(want.Hits) {
		t.Fatalf("CLI %d hits, API %d", len(want.Hits), len(got.Hits))
	}
	for i := range want.Hits {
		w, g := want.Hits[i], got.Hits[i]
		if w.Name != g.Name || w.Rank != g.Rank || w.Score != g.Score || w.Kind != g.Kind || len(w.Signals) != len(g.Signals) {
			t.Errorf("hit %d: CLI %+v, API %+v", i, w, g)
		}
	}
	code, body = get(t, base+"/?q="+url.QueryEscape("prime divides"))
	if code != 200 || !strings.Contains(body, "Driftlib.Nat.Prime") {
		t.Errorf("search page: %d", code)
	}
	code, body = get(t, base+"/api/decl/Driftlib.Nat.Prime")
	if code != 200 || !strings.Contains(body, `"code":`) {
		t.Errorf("decl: %d %s", code, body)
	}
	code, body = get(t, base+"/api/search?ws=again&q=prime")
	if code != 200 || !strings.Contains(body, `"workspace":"again"`) {
		t.Errorf("second workspace: %d %s", code, body)
	}

	// A rebuilt index is a new generation; SIGHUP picks it up.
	_, ready := get(t, base+"/readyz")
	gen := regexp.MustCompile(`"generation":"([^"]+)"`).FindStringSubmatch(ready)
	if gen == nil {
		t.Fatalf("readyz: %s", ready)
	}
	if code := run([]string{"index", "--ws", ws, "--dim", "64"}, io.Discard, io.Discard); code != 0 {
		t.Fatal("rebuild failed")
	}
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	var after string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, after = get(t, base+"/readyz")
		if !strings.Contains(after, gen[1]) {
			break
		}
	}
	if strings.Contains(after, gen[1]) {
		t.Errorf("SIGHUP did not reload: %s", after)
	}

	// The key: runs are on (a model is configured), every answer and log
	// line is free of it — even a run that fails at the endpoint.
	resp, err := http.Post(base+"/api/tomap", "application/json", strings.NewReader(`{"theorem": "1+1=2", "proof": "compute", "method": "end2end"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var started map[string]string
	json.Unmarshal(b, &started)
	if resp.StatusCode != 202 {
		t.Fatalf("tomap: %d %s", resp.StatusCode, b)
	}
	var runBody string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, runBody = get(t, base+"/api/runs/"+started["id"])
		if !strings.Contains(runBody, `"status":"running"`) {
			break
		}
	}
	seen := []string{runBody, string(b)}
	for _, p := range []string{"/api/workspaces", "/readyz", "/api/runs", "/metrics", "/api/openapi.json", "/drift"} {
		_, body := get(t, base+p)
		seen = append(seen, body)
	}
	seen = append(seen, out.String(), errOut.String())
	for _, s := range seen {
		if strings.Contains(s, secret) || strings.Contains(s, "SECRET") {
			t.Fatalf("the API key leaked: %s", s)
		}
	}
	if !strings.Contains(out.String(), "LEANSEARCHCLIENT_LEANSEARCH_API_URL="+base+"/search") {
		t.Errorf("stdout does not say how to point #leansearch here:\n%s", out.String())
	}
	for _, want := range []string{`premiseSelection.apiBaseUrl "` + base + `/premises"`, "LEANSEARCHCLIENT_LEANSTATESEARCH_API_URL=" + base + "/statesearch/api/search", base + "/mcp"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout does not say %s:\n%s", want, out.String())
		}
	}
}

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--ws", filepath.Join(dir, "missing")},
		{"serve", "--ws", "a=" + dir, "--ws", "a=" + dir},
		{"serve", "--ws", "bad name=" + dir},
		{"serve", "--ws", dir, "--max-runs", "0"},
		{"serve", "--ws", dir, "extra"},
	} {
		var errb bytes.Buffer
		if code := run(args, io.Discard, &errb); code != 2 {
			t.Errorf("driftkit %v: exit %d, want 2: %s", args, code, errb.String())
		}
	}
	// A workspace without an index: exit 1 naming what to run.
	var errb bytes.Buffer
	if code := run([]string{"serve", "--ws", dir, "--addr", "127.0.0.1:0"}, io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "driftkit index") {
		t.Errorf("no index: exit %d: %s", code, errb.String())
	}
}

// TestServeDriftRun: with a model endpoint (a fake one speaking the real
// wire format), `driftkit serve` runs DRIFT end to end and builds the
// offline context; the run is recorded in --runs.
func TestServeDriftRun(t *testing.T) {
	ws := buildRunWorkspace(t)
	prompts, err := drift.LoadPrompts(drift.PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeopenai.New(fakeopenai.Options{Answer: drifttest.Answer(prompts, 3)})
	defer fake.Close()
	runs := t.TempDir()
	var out, errOut lockedbuf.Buffer
	base := startServe(t, &out, &errOut, "--ws", ws, "--model", "fake-model", "--base-url", fake.BaseURL(), "--runs", runs)
	resp, err := http.Post(base+"/api/drift/context", "application/json", strings.NewReader(`{"statement": "If p is prime and p divides a product then p divides a factor."}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"premises"`) {
		t.Fatalf("context: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Post(base+"/api/drift", "application/json", strings.NewReader(`{"statement": "Every prime number is at least two."}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	var started map[string]string
	json.Unmarshal(b, &started)
	if resp.StatusCode != 202 {
		t.Fatalf("drift: %d %s", resp.StatusCode, b)
	}
	var rec string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, rec = get(t, base+"/api/runs/"+started["id"])
		if !strings.Contains(rec, `"status":"running"`) {
			break
		}
	}
	if !strings.Contains(rec, `"status":"done"`) || !strings.Contains(rec, "fake_statement") || !strings.Contains(rec, `"type":"premises"`) {
		t.Fatalf("run record: %s", rec)
	}
	if fake.Requests() < 2 {
		t.Errorf("the model got %d requests", fake.Requests())
	}
	code, page := get(t, base+"/runs/"+started["id"])
	if code != 200 || !strings.Contains(page, "status-done") {
		t.Errorf("run page: %d", code)
	}
}

// TestServeLoopbackAndToken: serve listens on this machine only unless told
// otherwise; DRIFTKIT_TOKEN (or --token) makes the privileged routes need
// it; a non-loopback address without a token is said.
func TestServeLoopbackAndToken(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	(&serveOptions{}).AddFlags(fs)
	host, _, err := net.SplitHostPort(fs.Lookup("addr").DefValue)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Fatalf("default --addr %q is not a loopback address", fs.Lookup("addr").DefValue)
	}
	ws := buildRunWorkspace(t)
	t.Setenv("DRIFTKIT_TOKEN", "tok-0123")
	var out, errOut lockedbuf.Buffer
	base := startServe(t, &out, &errOut, "--ws", ws)
	post := func(auth string) int {
		req, _ := http.NewRequest("POST", base+"/api/admin/reload", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(""); c != 401 {
		t.Errorf("reload without the token: %d", c)
	}
	if c := post("Bearer tok-0123"); c/100 != 2 {
		t.Errorf("reload with the token: %d", c)
	}
	if strings.Contains(out.String()+errOut.String(), "tok-0123") {
		t.Error("the token was printed")
	}
	var out2, errOut2 lockedbuf.Buffer
	t.Setenv("DRIFTKIT_TOKEN", "")
	startServe(t, &out2, &errOut2, "--ws", ws, "--addr", "0.0.0.0:0")
	if !strings.Contains(out2.String(), "without --token") {
		t.Errorf("no warning for a public address without a token:\n%s", out2.String())
	}
}
