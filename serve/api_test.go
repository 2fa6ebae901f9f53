package serve

import (
	"context"
	"encoding/json"
	"fmt"

	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/retrieval"
)

func decode[T any](t testing.TB, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not JSON (%v): %s", err, body)
	}
	return v
}

func names(hits []SearchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func TestSearchGETAndPOSTAgree(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/api/search?q=prime+divides&k=5", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	get := decode[SearchResponse](t, body)
	q := ts.idx.lastQuery()
	if q.Mode != retrieval.ModeBest || q.Profile != retrieval.ProfileAuto || q.Filter.AllKinds || q.K != 5 {
		t.Errorf("GET query %+v: want best, auto profile, premise kinds (as driftkit search), k 5", q)
	}
	if get.Workspace != "main" || get.Mode != "best" || get.Encoder != "hash" || !get.EncoderFallback || get.Query != "prime divides" {
		t.Errorf("header fields %+v", get)
	}
	for _, h := range get.Hits {
		if h.Kind == "theorem" {
			t.Errorf("theorem %s among premise hits", h.Name)
		}
	}
	if len(get.Hits) == 0 || get.Hits[0].Name != "Nat.Prime" {
		t.Fatalf("hits %v", names(get.Hits))
	}
	h := get.Hits[0]
	if h.Signature != "(p : ℕ) : Prop" || h.InformalSource != "openai:gpt-4o" || h.ProviderLabel != "LLM gpt-4o" ||
		h.Page != "/decl/Nat.Prime" || h.URL != "/api/decl/Nat.Prime" || h.Rank != 1 {
		t.Errorf("hit %+v", h)
	}
	resp, body = ts.do(t, "POST", "/api/search", "application/json", `{"query": "prime divides", "k": 5}`)
	if resp.StatusCode != 200 {
		t.Fatalf("POST status %d: %s", resp.StatusCode, body)
	}
	post := decode[SearchResponse](t, body)
	if !slices.Equal(names(get.Hits), names(post.Hits)) {
		t.Errorf("GET %v, POST %v", names(get.Hits), names(post.Hits))
	}
	// The raw hit fields are those of `driftkit search --json`.
	var raw map[string]any
	json.Unmarshal([]byte(body), &raw)
	for _, k := range []string{"query", "mode", "encoder", "encoder_fallback", "head", "hits"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("response lacks %q", k)
		}
	}
	hit := raw["hits"].([]any)[0].(map[string]any)
	for _, k := range []string{"rank", "name", "kind", "module", "score"} {
		if _, ok := hit[k]; !ok {
			t.Errorf("hit lacks %q", k)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	ts := newTestServer(t, Options{})
	_, body := ts.do(t, "GET", "/api/search?q=prime&all_kinds=1&k=10", "", "")
	all := decode[SearchResponse](t, body)
	if !slices.Contains(names(all.Hits), "Nat.Prime.two_le") {
		t.Errorf("all_kinds: no theorem in %v", names(all.Hits))
	}
	ts.do(t, "GET", "/api/search?q=prime&kinds=theorem&exclude=Nat.Prime.two_le&library=mathlib&mode=bm25&profile=theorem&formal=p", "", "")
	q := ts.idx.lastQuery()
	if !slices.Equal(q.Filter.Kinds, []string{"theorem"}) || !slices.Equal(q.Filter.Exclude, []string{"Nat.Prime.two_le"}) ||
		q.Filter.Library != "mathlib" || q.Mode != retrieval.ModeBM25 || q.Profile != retrieval.ProfileTheorem || q.Formal != "p" {
		t.Errorf("query %+v", q)
	}
	_, body = ts.do(t, "GET", "/api/search?q=prime&ws=other", "", "")
	if r := decode[SearchResponse](t, body); r.Workspace != "other" || r.Hits[0].Page != "/decl/Nat.Prime?ws=other" {
		t.Errorf("ws=other: %+v", r)
	}
	if len(ts.other.queries) != 1 {
		t.Errorf("the other workspace's index got %d queries", len(ts.other.queries))
	}
}

// TestBadInput: every bad field is a 400 naming it.
func TestBadInput(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{MaxBody: 4096, MaxQuery: 100}})
	long := strings.Repeat("x", 101)
	for _, c := range []struct {
		method, path, ct, body string
		status                 int
		field                  string
	}{
		{"GET", "/api/search", "", "", 400, "query"},
		{"GET", "/api/search?q=+++", "", "", 400, "query"},
		{"GET", "/api/search?q=a&k=-1", "", "", 400, "k"},
		{"GET", "/api/search?q=a&k=abc", "", "", 400, "k"},
		{"GET", "/api/search?q=a&k=100000", "", "", 400, "k"},
		{"GET", "/api/search?q=a&mode=fast", "", "", 400, "mode"},
		{"GET", "/api/search?q=a&profile=x", "", "", 400, "profile"},
		{"GET", "/api/search?q=a&kinds=lemma", "", "", 400, "kinds"},
		{"GET", "/api/search?q=a&all_kinds=maybe", "", "", 400, "all_kinds"},
		{"GET", "/api/search?q=a&ws=nope", "", "", 400, "ws"},
		{"GET", "/api/search?q=" + long, "", "", 400, "query"},
		{"GET", "/api/search?q=a%00b", "", "", 400, "query"},
		{"GET", "/api/search?q=%ff%fe", "", "", 400, "query"},
		{"POST", "/api/search", "application/json", `{"query": "a", "k": "7"}`, 400, "k"},
		{"POST", "/api/search", "application/json", `{"query": "a", "kk": 7}`, 400, "kk"},
		{"POST", "/api/search", "application/json", `{"query": "a"`, 400, "body"},
		{"POST", "/api/search", "application/json", ``, 400, "body"},
		{"POST", "/api/search", "application/json", `{"query": "a"} {}`, 400, "body"},
		{"POST", "/api/search", "application/json", `{"query": "` + strings.Repeat("y", 5000) + `"}`, 413, "body"},
		{"GET", "/api/decl/Nat.Nope", "", "", 404, "name"},
		{"GET", "/api/decl/Nat.Prime?users_limit=-3", "", "", 400, "users_limit"},
		{"GET", "/api/decl/Nat.Prime?ws=x", "", "", 400, "ws"},
		{"POST", "/search", "application/json", `{"query": null}`, 400, "query"},
		{"POST", "/search", "application/json", `{"query": [1]}`, 400, "query"},
		{"POST", "/search", "application/json", `{"query": []}`, 400, "query"},
		{"POST", "/search", "application/json", `{"query": [""]}`, 400, "query"},
		{"POST", "/search", "application/json", `{"query": ["a"], "num_results": 0}`, 400, "num_results"},
		{"POST", "/search", "application/json", `{"query": ["a"], "num_results": "many"}`, 400, "num_results"},
		{"POST", "/search", "application/json", `{"query": ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]}`, 400, "query"},
		{"POST", "/search", "application/json", `[1]`, 400, "body"},
		{"POST", "/api/drift", "text/plain", `{"statement": "x"}`, 415, "Content-Type"},
		{"POST", "/api/drift", "application/json", `{"statement": ""}`, 400, "statement"},
		{"POST", "/api/drift", "application/json", `{"statement": "x", "samples": 99}`, 400, "samples"},
		{"POST", "/api/drift", "application/json", `{"statement": "x", "sample": 1}`, 400, "sample"},
		{"POST", "/api/drift/context", "application/json", `{"statement": "` + long + `"}`, 400, "statement"},
		{"POST", "/api/tomap", "application/json", `{"theorem": "x"}`, 400, "proof"},
		{"POST", "/api/tomap", "application/json", `{"theorem": "x", "proof": "y", "method": "magic"}`, 400, "method"},
		{"POST", "/api/tomap", "application/json", `{"theorem": "x", "proof": "y", "rounds": 50}`, 400, "rounds"},
		{"GET", "/api/runs/nope", "", "", 404, "id"},
		{"GET", "/api/runs/nope/events", "", "", 404, "id"},
		{"POST", "/api/runs/nope/cancel", "", "", 404, "id"},
		{"GET", "/api/nothing", "", "", 404, ""},
		{"DELETE", "/api/search", "", "", 405, ""},
		{"PUT", "/api/runs/r1/cancel", "", "", 405, ""},
		{"GET", "/api/drift", "", "", 405, ""},
		{"DELETE", "/api/nothing", "", "", 404, ""},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			resp, body := ts.do(t, c.method, c.path, c.ct, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type %q: %s", ct, body)
			}
			if c.status == 405 && resp.Header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
			e := decode[apiError](t, body)
			if e.Field != c.field || e.Error == "" {
				t.Errorf("error %+v, want field %q", e, c.field)
			}
		})
	}
}

func TestDecl(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/api/decl/Nat.Prime", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	d := decode[DeclResponse](t, body)
	if d.Kind != "definition" || d.Module != "Mathlib.Data.Nat.Prime.Defs" || d.Path != "Mathlib/Data/Nat/Prime/Defs.lean" ||
		d.LineStart != 10 || d.LineEnd != 12 || d.Signature != "(p : ℕ) : Prop" || !strings.Contains(d.Code, "def Nat.Prime") ||
		d.Docstring == nil || !strings.Contains(*d.Docstring, "prime number") || d.Library != "mathlib" {
		t.Errorf("row %+v", d)
	}
	if d.Informal == nil || d.Informal.Provider != "openai:gpt-4o" || d.Informal.Name != "Prime natural number" || d.Informal.ProviderLabel != "LLM gpt-4o" {
		t.Errorf("informal %+v", d.Informal)
	}
	if len(d.StatementDeps) != 1 || d.StatementDeps[0] != (Link{Name: "Nat", Kind: "inductive", Known: true, URL: "/api/decl/Nat", Page: "/decl/Nat"}) {
		t.Errorf("statement deps %+v", d.StatementDeps)
	}
	if len(d.ProofDeps) != 1 || d.ProofDeps[0] != (Link{Name: "Irreducible"}) {
		t.Errorf("proof deps %+v (an unknown name has no link)", d.ProofDeps)
	}
	var users []string
	for _, u := range d.UsedBy {
		users = append(users, u.Name)
	}
	if !slices.Equal(users, []string{"Nat.Prime.dvd_mul", "Nat.Prime.two_le"}) || d.UsedByTotal != 2 {
		t.Errorf("users %v (%d)", users, d.UsedByTotal)
	}
	_, body = ts.do(t, "GET", "/api/decl/Nat.Prime?users_limit=1", "", "")
	if d := decode[DeclResponse](t, body); len(d.UsedBy) != 1 || d.UsedByTotal != 2 {
		t.Errorf("users_limit=1: %d of %d", len(d.UsedBy), d.UsedByTotal)
	}
	// A name with «» and unicode, escaped in the path.
	name := "Nat.«term_≡_[MOD_]»"
	resp, body = ts.do(t, "GET", "/api/decl/"+url.PathEscape(name), "", "")
	if resp.StatusCode != 200 || decode[DeclResponse](t, body).Name != name {
		t.Errorf("unicode name: %d %s", resp.StatusCode, body)
	}
	_, body = ts.do(t, "GET", "/api/decl/Nat.Prime.dvd_mul", "", "")
	if d := decode[DeclResponse](t, body); d.Informal == nil || d.Informal.ProviderLabel != "template (offline fallback, not an LLM)" {
		t.Errorf("template provider not labelled: %+v", d.Informal)
	}
	// The other workspace has only two declarations.
	resp, _ = ts.do(t, "GET", "/api/decl/Nat.Prime.dvd_mul?ws=other", "", "")
	if resp.StatusCode != 404 {
		t.Errorf("decl of another workspace: %d", resp.StatusCode)
	}
}

func TestHealthReadyWorkspacesMetricsOpenAPI(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, p := range []string{"/healthz", "/readyz", "/api/workspaces"} {
		if resp, body := ts.do(t, "GET", p, "", ""); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
	_, body := ts.do(t, "GET", "/readyz", "", "")
	if !strings.Contains(body, `"declarations":7`) || !strings.Contains(body, `"other"`) {
		t.Errorf("readyz: %s", body)
	}
	_, body = ts.do(t, "GET", "/api/workspaces", "", "")
	if !strings.Contains(body, `"encoder_label":"hash (offline fallback encoder)"`) {
		t.Errorf("workspaces: %s", body)
	}
	ts.do(t, "GET", "/api/search?q=prime", "", "")
	ts.do(t, "GET", "/api/search?q=", "", "")
	_, body = ts.do(t, "GET", "/metrics", "", "")
	for _, want := range []string{
		`driftkit_http_requests_total{code="200",method="GET",route="GET /api/search"} 1`,
		`driftkit_http_requests_total{code="400",method="GET",route="GET /api/search"} 1`,
		`driftkit_http_request_duration_seconds_bucket{route="GET /api/search",le="+Inf"} 2`,
		`driftkit_index_documents{workspace="main"} 7`,
		`driftkit_index_documents{workspace="other"} 2`,
		`driftkit_index_bytes{workspace="main"} 1234`,
		`driftkit_runs_in_flight{kind="drift"} 0`,
		`driftkit_declarations{workspace="main"} 7`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// openapi.json documents exactly the /api and service routes.
	_, body = ts.do(t, "GET", "/api/openapi.json", "", "")
	doc := decode[struct {
		Paths map[string]map[string]any `json:"paths"`
	}](t, body)
	src, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(GET|POST|DELETE) (/api/[^"]*|/search|/healthz|/readyz|/metrics|/premises/[^"]*|/statesearch/[^"]*|/leanfinder|/mcp)"`).FindAllStringSubmatch(string(src), -1) {
		p := strings.Replace(m[2], "{name...}", "{name}", 1)
		registered[strings.ToLower(m[1])+" "+p] = true
	}
	documented := map[string]bool{}
	for p, ops := range doc.Paths {
		for op := range ops {
			documented[op+" "+p] = true
		}
	}
	for r := range registered {
		if !documented[r] {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for r := range documented {
		if !registered[r] {
			t.Errorf("openapi.json documents %s, which is not registered", r)
		}
	}
	if len(registered) < 15 {
		t.Errorf("found only %d routes in server.go", len(registered))
	}
}

func TestReloadLoopbackOnly(t *testing.T) {
	ts := newTestServer(t, Options{})
	if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone || st.Workspaces["main"].Generation == "" {
		t.Fatalf("loopback reload: %+v", st)
	}
	if ts.idx.reloads.Load() != 1 || ts.other.reloads.Load() != 1 {
		t.Errorf("reloads %d, %d", ts.idx.reloads.Load(), ts.other.reloads.Load())
	}
	rec := httptest.NewRecorder()
	req := localRequest("POST", "/api/admin/reload", nil)
	req.RemoteAddr = "192.0.2.7:5555"
	ts.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 {
		t.Errorf("reload from 192.0.2.7: %d", rec.Code)
	}
	req.RemoteAddr = "[::1]:5555"
	rec = httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	if rec.Code != 202 {
		t.Errorf("reload from ::1: %d", rec.Code)
	}
}

func TestRequestTimeout(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{RequestTimeout: 50 * time.Millisecond}})
	ts.idx.mu.Lock()
	ts.idx.block = make(chan struct{})
	ts.idx.mu.Unlock()
	resp, body := ts.do(t, "GET", "/api/search?q=prime", "", "")
	if resp.StatusCode != 503 || !strings.Contains(body, "longer than 50ms") {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
}

func TestNotFoundPages(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/nowhere", "", "")
	if resp.StatusCode != 404 || !strings.Contains(body, "No page at") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	resp, body = ts.do(t, "GET", "/decl/Nope.nope", "", "")
	if resp.StatusCode != 404 || !strings.Contains(body, "no declaration") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	// A path that tries to leave the static folder gets nothing of the
	// filesystem.
	for _, p := range []string{"/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/..%2fserver.go"} {
		resp, body = ts.do(t, "GET", p, "", "")
		if strings.Contains(body, "root:") || strings.Contains(body, "package serve") {
			t.Errorf("%s: %d leaked a file", p, resp.StatusCode)
		}
	}
}

var _ = fmt.Sprint
var _ = context.Background
