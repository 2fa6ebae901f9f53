package serve

import (
	"net/url"
	"strings"
	"testing"
)

func TestSearchPageWithoutJavaScript(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `<form id="search" method="get" action="/"`) || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(body, "hash (offline fallback encoder)") {
		t.Errorf("the fallback encoder is not labelled")
	}
	resp, body = ts.do(t, "GET", "/?q="+url.QueryEscape("prime divides product"), "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	q := ts.idx.lastQuery()
	if !q.Filter.AllKinds || q.Profile != "" {
		t.Errorf("page query %+v: want every kind and the automatic profile", q)
	}
	for _, want := range []string{
		`<a class="name" href="/decl/Nat.Prime.dvd_mul">Nat.Prime.dvd_mul</a>`,
		`<pre class="sig">{p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n</pre>`,
		`informal text: template (offline fallback, not an LLM)`,
		`informal text: LLM gpt-4o`,
		`<span class="kind">theorem</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// premises=1 keeps theorems out; the query text is escaped, not run.
	_, body = ts.do(t, "GET", "/?premises=1&q="+url.QueryEscape(`prime <script>alert(1)</script>`), "", "")
	if strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("query not escaped")
	}
	if strings.Contains(body, `href="/decl/Nat.Prime.two_le"`) {
		t.Errorf("premises only shows a theorem")
	}
	// The second workspace keeps its name in the links.
	_, body = ts.do(t, "GET", "/?ws=other&q=prime", "", "")
	if !strings.Contains(body, `href="/decl/Nat.Prime?ws=other"`) {
		t.Errorf("ws=other links: %s", body)
	}
	resp, _ = ts.do(t, "GET", "/?ws=nope", "", "")
	if resp.StatusCode != 400 {
		t.Errorf("unknown ws: %d", resp.StatusCode)
	}
}

func TestDeclPage(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/decl/Nat.Prime", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, want := range []string{
		`<span class="name" id="decl-name">Nat.Prime</span>`,
		`<svg class="graph"`,
		`<a href="/decl/Nat" class="node-link">`,                    // a statement dependency in the graph
		`<a href="/decl/Nat.Prime.dvd_mul" class="node-link">`,      // a user in the graph
		`<li><a href="/decl/Nat.Prime.two_le">Nat.Prime.two_le</a>`, // and in the list
		`Irreducible <span class="unknown">(not in this workspace)</span>`,
		`provider: LLM gpt-4o`,
		`Mathlib/Data/Nat/Prime/Defs.lean:10–12`,
		`<pre class="code">def Nat.Prime (p : ℕ) : Prop := sorry</pre>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("decl page lacks %s", want)
		}
	}
	resp, body = ts.do(t, "GET", "/decl/"+url.PathEscape("Nat.«term_≡_[MOD_]»"), "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "Nat.«term_≡_[MOD_]»") {
		t.Errorf("unicode decl page: %d", resp.StatusCode)
	}
}

func TestDriftPageWithoutRunners(t *testing.T) {
	ts := newTestServer(t, Options{})
	resp, body := ts.do(t, "GET", "/drift", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `value="run" id="run-button" disabled`) {
		t.Errorf("%d: run button not disabled without a model endpoint", resp.StatusCode)
	}
	resp, body = ts.do(t, "POST", "/drift", "application/x-www-form-urlencoded", "statement=x&action=run")
	if resp.StatusCode != 503 || !strings.Contains(body, "not configured") {
		t.Errorf("run without runners: %d", resp.StatusCode)
	}
	req := "statement=x&action=context"
	resp, _ = ts.do(t, "POST", "/drift", "application/x-www-form-urlencoded", req)
	if resp.StatusCode != 503 {
		t.Errorf("context without runners: %d", resp.StatusCode)
	}
}

func TestStaticAssets(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, p := range []string{"/static/app.js", "/static/style.css"} {
		resp, body := ts.do(t, "GET", p, "", "")
		if resp.StatusCode != 200 || len(body) < 100 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}
	_, body := ts.do(t, "GET", "/", "", "")
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page loads something from another origin")
	}
}
