package serve

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/workspace"
)

// A workspace with an Augmenter rewrites every theorem search — the search
// page, the LeanSearch endpoint, an API search with theorems as candidates —
// before searching, and says so; a premise search is never rewritten; a
// failing model leaves the raw query, said in the JSON and on the page.
func TestAugmentedTheoremSearch(t *testing.T) {
	var failing atomic.Bool
	fake := fakeopenai.New(fakeopenai.Options{
		Answer: func(fakeopenai.Request) string {
			return `{"informal_name": "Euclid's lemma", "informal_statement": "If a prime divides a product of two naturals, it divides one of them.",
				"lean_name": "Nat.Prime.dvd_mul", "lean_statement": "theorem Nat.Prime.dvd_mul {p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n"}`
		},
		Fault: func(fakeopenai.Request) fakeopenai.Fault {
			if failing.Load() {
				return fakeopenai.ServerError
			}
			return fakeopenai.OK
		}})
	defer fake.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{fake.BaseURL()}, Model: "fake", MaxRetries: -1, BackoffBase: time.Millisecond,
		BackoffMax: 5 * time.Millisecond, RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), fixtureDecls()); err != nil {
		t.Fatal(err)
	}
	cache, err := augment.OpenCache(augment.CachePath(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	idx := newFakeIndex(fixtureEntries(fixtureDecls()))
	ws, err := NewWorkspace("main", dir, idx)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Augment, err = augment.New(augment.Options{Chat: c, Model: "fake", Cache: cache, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Workspaces: []*Workspace{ws}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, ts: newHTTPTest(t, s), idx: idx, dir: dir}

	searched := func(from int) []string {
		idx.mu.Lock()
		defer idx.mu.Unlock()
		var out []string
		for _, q := range idx.queries[from:] {
			out = append(out, q.Text)
		}
		return out
	}
	nq := func() int { idx.mu.Lock(); defer idx.mu.Unlock(); return len(idx.queries) }

	// API, theorems as candidates: augmented, the rewrite searched too.
	n0 := nq()
	_, body := ts.do(t, "GET", "/api/search?q="+url.QueryEscape("prime divides product")+"&all_kinds=true", "", "")
	var resp SearchResponse
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err, body)
	}
	if resp.Augmentation == nil || resp.Augmentation.Status != augment.StatusAugmented || resp.Augmentation.Model != "fake" {
		t.Fatalf("augmentation %+v: %s", resp.Augmentation, body)
	}
	if got := strings.Join(searched(n0), "|"); !strings.Contains(got, "prime divides product|") || !strings.Contains(got, "divides one of them") {
		t.Errorf("searched %q: want the raw query and the rewrite", got)
	}
	// The same query again: from the cache, no request.
	reqs := fake.Requests()
	_, body = ts.do(t, "GET", "/api/search?q="+url.QueryEscape("prime divides product")+"&all_kinds=true", "", "")
	if !strings.Contains(body, `"status":"cached"`) || fake.Requests() != reqs {
		t.Errorf("second search: %d requests made, body %s", fake.Requests()-reqs, body)
	}
	// Premise search: never rewritten.
	_, body = ts.do(t, "GET", "/api/search?q="+url.QueryEscape("prime number"), "", "")
	if strings.Contains(body, "augmentation") || fake.Requests() != reqs {
		t.Errorf("premise search augmented: %s", body)
	}
	// LeanSearch endpoint: augmented (the rewrite reaches the index).
	n0 = nq()
	req := leanSearchClientRequest(t, ts.ts.URL+"/search", "euclid lemma primes", 3)
	r, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if got := strings.Join(searched(n0), "|"); r.StatusCode != 200 || !strings.Contains(got, "divides one of them") {
		t.Errorf("leansearch: status %d, searched %q", r.StatusCode, got)
	}
	// The page says it; a failing model falls back to the raw query, said
	// in JSON and on the page.
	_, page := ts.do(t, "GET", "/?q="+url.QueryEscape("prime divides product"), "", "")
	if !strings.Contains(page, `id="augmentation"`) || !strings.Contains(page, "Query rewritten by fake") {
		t.Errorf("page does not say the query was rewritten:\n%s", page)
	}
	failing.Store(true)
	_, body = ts.do(t, "GET", "/api/search?q="+url.QueryEscape("coprime numbers")+"&all_kinds=true", "", "")
	if !strings.Contains(body, `"status":"fallback"`) || !strings.Contains(body, `"hits"`) {
		t.Errorf("failing model: %s", body)
	}
	_, page = ts.do(t, "GET", "/?q="+url.QueryEscape("coprime numbers"), "", "")
	if !strings.Contains(page, "Query augmentation failed") {
		t.Errorf("page does not say augmentation failed:\n%s", page)
	}

	// A page of another site that makes the browser search here (an
	// image, a link) gets hits but asks no model: it would spend the
	// server's key and grow its cache at will. The same search from this
	// server's page, or from a program, is rewritten.
	failing.Store(false)
	reqs = fake.Requests()
	for i, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Origin": "https://attacker.example"},
		{"Origin": "null"},
	} {
		q := url.QueryEscape("lemma " + string(rune('a'+i)))
		for _, path := range []string{"/api/search?q=" + q + "&all_kinds=true", "/?q=" + q} {
			resp, body := ts.doHeaders(t, "GET", path, "", "", h)
			if resp.StatusCode != 200 || (strings.HasPrefix(path, "/api") && !strings.Contains(body, "another site")) {
				t.Errorf("GET %s with %v: %d %s", path, h, resp.StatusCode, truncate(body, 300))
			}
		}
	}
	if n := fake.Requests() - reqs; n != 0 {
		t.Errorf("cross-site searches made %d model requests", n)
	}
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "same-origin"}, {"Origin": ts.ts.URL}, {}} {
		reqs = fake.Requests()
		_, body := ts.doHeaders(t, "GET", "/api/search?q="+url.QueryEscape("primes "+h["Sec-Fetch-Site"]+h["Origin"])+"&all_kinds=true", "", "", h)
		if !strings.Contains(body, `"status":"augmented"`) || fake.Requests() == reqs {
			t.Errorf("same-origin search with %v not rewritten: %s", h, truncate(body, 300))
		}
	}
}
