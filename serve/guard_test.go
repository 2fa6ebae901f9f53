package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingRuns is a RunConfig whose runners count the runs started (and
// finish at once).
func countingRuns(started *atomic.Int64) *RunConfig {
	rn := func() (Runner, error) {
		started.Add(1)
		return RunnerFunc(func(ctx context.Context, rc *RunContext) (any, error) { return "ok", nil }), nil
	}
	return &RunConfig{
		Drift: func(*Workspace, *DriftRequest) (Runner, error) { return rn() },
		ToMap: func(*Workspace, *ToMapRequest) (Runner, error) { return rn() },
		Context: func(context.Context, *Workspace, *DriftRequest) (any, error) {
			return map[string]string{"ok": "1"}, nil
		},
	}
}

// stateChanging is every POST route with a body that would be accepted.
var stateChanging = []struct{ path, ct, body string }{
	{"/api/drift", "application/json", `{"statement": "every prime is at least two"}`},
	{"/api/tomap", "application/json", `{"theorem": "t", "proof": "p"}`},
	{"/api/admin/reload", "", ""},
	{"/api/runs/0123456789abcdef/cancel", "", ""},
	{"/api/search", "application/json", `{"query": "prime"}`},
	{"/api/drift/context", "application/json", `{"statement": "every prime is at least two"}`},
	{"/search", "application/json", `{"query": ["prime"]}`},
	{"/drift", "application/x-www-form-urlencoded", "statement=every+prime&action=run"},
}

func (ts *testServer) doHeaders(t testing.TB, method, path, ct, body string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestCrossOriginRefused: a browser's request from another origin (another
// site, or another port of this host: same-site) is refused on every
// state-changing route, whatever its body; nothing starts, nothing reloads.
// The same request from this server's own page, or from a program (no
// Origin, no Sec-Fetch-Site), passes.
func TestCrossOriginRefused(t *testing.T) {
	var started atomic.Int64
	ts := newTestServer(t, Options{Runs: countingRuns(&started), Limits: Limits{MaxRuns: 100}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.ts.URL, "http://"))
	p, _ := strconv.Atoi(port)
	other := "http://127.0.0.1:" + strconv.Itoa(p+1) // another port of this host: same-site
	browsers := []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Origin": "https://attacker.example"},
		{"Sec-Fetch-Site": "same-site", "Origin": other},
		{"Origin": other}, // a browser without Fetch Metadata
		{"Origin": "null"},
	}
	for _, rt := range stateChanging {
		for _, h := range browsers {
			resp, body := ts.doHeaders(t, "POST", rt.path, rt.ct, rt.body, h)
			if resp.StatusCode != 403 || !strings.Contains(body, "another origin") {
				t.Errorf("POST %s with %v: %d %s", rt.path, h, resp.StatusCode, truncate(body, 200))
			}
		}
	}
	if n, r := started.Load(), ts.idx.reloads.Load(); n != 0 || r != 0 {
		t.Fatalf("cross-origin requests started %d runs and %d reloads", n, r)
	}
	same := map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": ts.ts.URL}
	oldSame := map[string]string{"Origin": ts.ts.URL}
	for _, h := range []map[string]string{same, oldSame, {}} {
		for _, rt := range stateChanging {
			resp, body := ts.doHeaders(t, "POST", rt.path, rt.ct, rt.body, h)
			if resp.StatusCode == 403 || resp.StatusCode == 415 {
				t.Errorf("POST %s with %v refused: %d %s", rt.path, h, resp.StatusCode, truncate(body, 200))
			}
		}
	}
	ts.reloads.wait(context.Background()) // reloads run in the background; a busy one coalesces the next
	if n, r := started.Load(), ts.idx.reloads.Load(); n != 9 || r < 1 {
		t.Errorf("same-origin and program requests: %d runs (want 9), %d reloads (want ≥ 1)", n, r)
	}
}

// TestFormTypesRefusedOnJSON: a JSON route refuses every type a form or a
// no-preflight fetch can send, and look-alikes of application/json.
func TestFormTypesRefusedOnJSON(t *testing.T) {
	var started atomic.Int64
	ts := newTestServer(t, Options{Runs: countingRuns(&started)})
	body := `{"statement": "every prime is at least two"}`
	for _, ct := range []string{"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain",
		"application/jsonEVIL", "application/json-seq", "application/json; charset=latin1", "text/json", "application/json;;"} {
		for _, path := range []string{"/api/drift", "/api/admin/reload", "/api/search", "/search"} {
			resp, b := ts.do(t, "POST", path, ct, body)
			if resp.StatusCode != 415 || !strings.Contains(b, `"field":"Content-Type"`) {
				t.Errorf("POST %s as %q: %d %s", path, ct, resp.StatusCode, b)
			}
		}
	}
	resp, b := ts.do(t, "POST", "/api/drift", "", body)
	if resp.StatusCode != 415 {
		t.Errorf("a body without Content-Type: %d %s", resp.StatusCode, b)
	}
	if started.Load() != 0 || ts.idx.reloads.Load() != 0 {
		t.Fatalf("refused requests started %d runs, %d reloads", started.Load(), ts.idx.reloads.Load())
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; charset=UTF-8"} {
		if resp, b := ts.do(t, "POST", "/api/drift", ct, body); resp.StatusCode != 202 {
			t.Errorf("%q: %d %s", ct, resp.StatusCode, b)
		}
	}
}

// TestHostGuard: a Host that is not an address, localhost or the public
// URL's host (what DNS rebinding sends) is refused on every route.
func TestHostGuard(t *testing.T) {
	ts := newTestServer(t, Options{PublicURL: "https://lean.example.org/search-ui"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.ts.URL, "http://"))
	for host, want := range map[string]int{
		"attacker.example:" + port: 421, "attacker.example": 421, "127.0.0.1.nip.io:" + port: 421, "localhost.attacker.example": 421,
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "[::1]:" + port: 200, "app.localhost:" + port: 200,
		"lean.example.org": 200, "LEAN.example.org:443": 200,
		// names that merely end or begin with the public host's are others
		"evillean.example.org": 421, "x.lean.example.org": 421, "lean.example.org.attacker.example": 421,
	} {
		for _, path := range []string{"/api/search?q=prime", "/", "/api/runs/x"} {
			resp, body := ts.doHeaders(t, "GET", path, "", "", map[string]string{"Host": host})
			if (resp.StatusCode == 421) != (want == 421) {
				t.Errorf("GET %s with Host %s: %d %s", path, host, resp.StatusCode, truncate(body, 200))
			}
		}
	}
}

// TestPrivilegedRoutes: runs started, cancelled or listed and reloads need
// the token when one is set (from anywhere), else a loopback client; the
// run list never shows what was asked.
func TestPrivilegedRoutes(t *testing.T) {
	var started atomic.Int64
	routes := []struct{ method, path, ct, body string }{
		{"POST", "/api/drift", "application/json", `{"statement": "s"}`},
		{"POST", "/api/tomap", "application/json", `{"theorem": "t", "proof": "p"}`},
		{"POST", "/api/admin/reload", "", ""},
		{"POST", "/api/runs/0123/cancel", "", ""},
		{"GET", "/api/runs", "", ""},
		{"POST", "/drift", "application/x-www-form-urlencoded", "statement=s&action=run"},
	}
	serve := func(s *Server, method, path, ct, body, remote, auth string) int {
		req := localRequest(method, path, strings.NewReader(body))
		req.RemoteAddr = remote
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	open := newTestServer(t, Options{Runs: countingRuns(&started)})
	tok := newTestServer(t, Options{Runs: countingRuns(&started), Token: "s3cret-token"})
	for _, rt := range routes {
		if c := serve(open.Server, rt.method, rt.path, rt.ct, rt.body, "192.0.2.7:4444", ""); c != 403 {
			t.Errorf("no token, %s %s from 192.0.2.7: %d", rt.method, rt.path, c)
		}
		// a prefix of the token (the empty one included) is not the token
		for _, auth := range []string{"", "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer s3cret-token-longer", "Bearer s3cret", "Bearer ", "Bearer  "} {
			if c := serve(tok.Server, rt.method, rt.path, rt.ct, rt.body, "127.0.0.1:4444", auth); c != 401 && !(rt.path == "/drift" && c == 403) {
				t.Errorf("token set, %s %s with %q from loopback: %d", rt.method, rt.path, auth, c)
			}
		}
	}
	if started.Load() != 0 || open.idx.reloads.Load()+tok.idx.reloads.Load() != 0 {
		t.Fatalf("refused requests started %d runs", started.Load())
	}
	for _, rt := range routes {
		if c := serve(tok.Server, rt.method, rt.path, rt.ct, rt.body, "192.0.2.7:4444", "Bearer s3cret-token"); c == 401 || c == 403 {
			t.Errorf("with the token, %s %s from 192.0.2.7: %d", rt.method, rt.path, c)
		}
		if c := serve(open.Server, rt.method, rt.path, rt.ct, rt.body, "[::1]:4444", ""); c == 401 || c == 403 {
			t.Errorf("no token, %s %s from ::1: %d", rt.method, rt.path, c)
		}
	}
	// Searches stay open to everyone.
	if c := serve(tok.Server, "GET", "/api/search?q=prime", "", "", "192.0.2.7:4444", ""); c != 200 {
		t.Errorf("search from elsewhere with a token configured: %d", c)
	}
	// The list shows ids and states, not statements.
	startRun(t, open, "/api/drift", `{"statement": "a private statement"}`)
	_, body := open.do(t, "GET", "/api/runs", "", "")
	if strings.Contains(body, "private statement") || !strings.Contains(body, `"status"`) {
		t.Errorf("run list: %s", body)
	}
}

// TestLeanSearchDocURL: doc_url never repeats the request's Host: relative
// without --public-url, under it with.
func TestLeanSearchDocURL(t *testing.T) {
	for _, c := range []struct{ public, want string }{
		{"", `"doc_url":"/decl/Nat.Prime"`},
		{"https://lean.example.org/x/", `"doc_url":"https://lean.example.org/x/decl/Nat.Prime"`},
	} {
		ts := newTestServer(t, Options{PublicURL: c.public})
		resp, body := ts.doHeaders(t, "POST", "/search", "application/json", `{"query": ["prime"], "num_results": 3}`,
			map[string]string{"Host": "localhost:1", "X-Forwarded-Host": "attacker.example"})
		if resp.StatusCode != 200 || !strings.Contains(body, c.want) || strings.Contains(body, "localhost:1") || strings.Contains(body, "attacker") {
			t.Errorf("public %q: %d %s", c.public, resp.StatusCode, body)
		}
	}
	if _, err := New(Options{Workspaces: newTestServer(t, Options{}).opts.Workspaces, PublicURL: "javascript:alert(1)"}); err == nil {
		t.Error("a public URL that is not http(s) was accepted")
	}
}

// TestStaticFilesOnly: /static/ serves the static files and nothing else:
// no templates, no listings, however the path is spelt.
func TestStaticFilesOnly(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, p := range []string{"/static/%2e%2e/layout.html", "/static/%2e%2e/", "/static/", "/static/.%2e/search.html",
		"/static/%2E%2E/openapi.json", "/static/..%2flayout.html", "/static/%2e%2e%2flayout.html"} {
		resp, body := ts.do(t, "GET", p, "", "")
		if resp.StatusCode == 200 || strings.Contains(body, "{{") || strings.Contains(body, "<pre>") || strings.Contains(body, "app.js") {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, truncate(body, 200))
		}
	}
	if resp, body := ts.do(t, "GET", "/static/app.js", "", ""); resp.StatusCode != 200 || !strings.Contains(body, "fetch(") {
		t.Errorf("app.js: %d", resp.StatusCode)
	}
}

// TestSlowBody408: a body that does not arrive within the read timeout is
// 408, and the answer names no address.
func TestSlowBody408(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{ReadTimeout: 300 * time.Millisecond}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	for _, path := range []string{"/api/search", "/search", "/api/drift/context"} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\": ", path)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != 408 || strings.Contains(string(b), "127.0.0.1") || strings.Contains(string(b), "i/o timeout") {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
	}
}

// TestJSONBodiesStrict: bytes that are not UTF-8 are a 400 (not replaced),
// on the JSON API and the LeanSearch endpoint; the search page refuses a k
// it cannot honour.
func TestJSONBodiesStrict(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, c := range []struct{ path, body string }{
		{"/api/search", "{\"query\": \"prime \xff\"}"},
		{"/search", "{\"query\": [\"prime \xc3\"]}"},
		{"/api/drift/context", "{\"statement\": \"\xfe\"}"},
	} {
		resp, body := ts.do(t, "POST", c.path, "application/json", c.body)
		if resp.StatusCode != 400 || !strings.Contains(body, "UTF-8") {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	for _, k := range []string{"-5", "0", "abc", "100000"} {
		resp, body := ts.do(t, "GET", "/?q=prime&k="+k, "", "")
		if resp.StatusCode != 400 || !strings.Contains(body, "k:") {
			t.Errorf("search page k=%s: %d", k, resp.StatusCode)
		}
	}
	if resp, _ := ts.do(t, "GET", "/?q=prime&k=5", "", ""); resp.StatusCode != 200 {
		t.Errorf("k=5: %d", resp.StatusCode)
	}
}
