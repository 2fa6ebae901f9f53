package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds Debian's chromium (or another Chrome) or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium installed: `apt-get install -y chromium` to run the browser test (.ci/run installs it)")
	return ""
}

// browser starts a headless Chromium with the flags this machine needs and
// a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// text reads the text of the element sel finds.
func text(t *testing.T, ctx context.Context, sel chromedp.CSS) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// TestBrowserSearchAndDeclaration drives a real Chromium: it loads the
// search page, types a query, sees the live results (signatures with
// Lean's unicode), opens a declaration page and follows a dependency link.
func TestBrowserSearchAndDeclaration(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Options{})
	do(t, ctx,
		chromedp.Navigate(ts.ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "prime divides product"),
		// No submit: the page's script searches as one types. Wait for the
		// search of the whole query (a partial one, "prime divid", may
		// already show the hit on a slow machine).
		chromedp.Poll[chromedp.Void](`location.search.includes("q=prime+divides+product")`, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.WaitVisible(chromedp.CSS(`#results a.name[href="/decl/Nat.Prime.dvd_mul"]`)),
	)
	results := text(t, ctx, "#results")
	sig := text(t, ctx, `#results li.hit pre.sig`)
	if !strings.Contains(results, "Nat.Prime.dvd_mul") || !strings.Contains(results, "template (offline fallback, not an LLM)") {
		t.Errorf("results: %s", results)
	}
	if !strings.ContainsAny(sig, "ℕ∣↔∨") {
		t.Errorf("signature lost Lean's unicode: %q", sig)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "q=prime+divides+product") {
		t.Errorf("the live search did not put the query in the address (%q, %v)", loc, err)
	}
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#results a.name[href="/decl/Nat.Prime.dvd_mul"]`)),
		chromedp.WaitVisible(chromedp.CSS("#decl-name")),
	)
	if got := text(t, ctx, "#decl-name"); got != "Nat.Prime.dvd_mul" {
		t.Errorf("declaration page of %q", got)
	}
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#statement-deps a[href="/decl/Nat.Prime"]`)),
		chromedp.WaitVisible(chromedp.CSS("#used-by")),
	)
	if got := text(t, ctx, "#decl-name"); got != "Nat.Prime" {
		t.Errorf("after following the dependency link: %q", got)
	}
	// The graph's nodes are links too.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`svg.graph a[href="/decl/Nat.Prime.two_le"] rect`)),
		chromedp.WaitVisible(chromedp.CSS("#used-by")),
	)
	if got := text(t, ctx, "#decl-name"); got != "Nat.Prime.two_le" {
		t.Errorf("after following a graph node: %q", got)
	}
}

// TestBrowserFollowsRun: the run page follows a DRIFT run's events as they
// arrive (sub-queries, premises, illustrations, the end).
func TestBrowserFollowsRun(t *testing.T) {
	ctx := browser(t)
	release := make(chan struct{})
	ts := newTestServer(t, Options{Runs: &RunConfig{Drift: func(ws *Workspace, req *DriftRequest) (Runner, error) {
		return RunnerFunc(func(ctx context.Context, rc *RunContext) (any, error) {
			emit := rc.Emit
			emit("sub_queries", "decompose", map[string]any{"sub_queries": []map[string]string{{"informal": "a prime number", "formal": "Nat.Prime p"}}})
			<-release
			emit("premises", "retrieve", map[string]any{"premises": []map[string]string{{"name": "Nat.Prime", "kind": "definition", "signature": "(p : ℕ) : Prop"}}})
			emit("illustrations", "illustrate", map[string]any{"illustrations": []map[string]any{{"name": "Nat.Prime.two_le", "covers": []string{"Nat.Prime"}}}})
			return map[string]string{"statement": "theorem t : True := trivial"}, nil
		}), nil
	}}})
	id := startRun(t, ts, "/api/drift", `{"statement": "every prime is at least two"}`)
	do(t, ctx, chromedp.Navigate(ts.ts.URL+"/runs/"+id), chromedp.WaitVisible(chromedp.CSS(`#subqueries li`)))
	if sub := text(t, ctx, "#subqueries"); !strings.Contains(sub, "a prime number") {
		t.Errorf("sub-queries %q", sub)
	}
	close(release)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#illustrations li`)), chromedp.WaitVisible(chromedp.CSS(`#run-status.status-done`)))
	if p := text(t, ctx, "#premises"); !strings.Contains(p, "Nat.Prime") {
		t.Errorf("premises %q", p)
	}
}

// TestBrowserCrossOriginForms: a page on another port of this host (the
// probe's attack: same-site, cross-origin) auto-submits forms and no-cors
// fetches at the reload, run and DRIFT routes in a real Chromium; nothing
// reloads and no run starts. The server's own DRIFT form, submitted in the
// same browser, starts its run.
func TestBrowserCrossOriginForms(t *testing.T) {
	ctx := browser(t)
	var started atomic.Int64
	ts := newTestServer(t, Options{Runs: countingRuns(&started), Limits: Limits{MaxRuns: 100}})
	target := ts.ts.URL
	page := `<!doctype html><html><body>
<iframe name="f1"></iframe><iframe name="f2"></iframe><iframe name="f3"></iframe><iframe name="f4"></iframe>
<form id="a" target="f1" method="post" action="` + target + `/api/admin/reload"></form>
<form id="b" target="f2" method="post" action="` + target + `/drift"><input name="statement" value="paid run"><input name="action" value="run"></form>
<form id="c" target="f3" method="post" enctype="text/plain" action="` + target + `/api/drift"><input name='{"statement": "paid run", "x": "' value='"}'></form>
<form id="d" target="f4" method="post" action="` + target + `/api/runs/0123456789abcdef/cancel"></form>
<script>
const loaded = [...document.querySelectorAll("iframe")].map(f => new Promise(r => f.addEventListener("load", r, {once: true})));
for (const f of document.forms) f.submit();
const sent = [
  fetch("` + target + `/api/drift", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"statement": "paid run"}'}).catch(() => {}),
  fetch("` + target + `/api/admin/reload", {method: "POST", mode: "no-cors"}).catch(() => {}),
  fetch("` + target + `/api/drift", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"statement": "paid run"}'}).catch(() => {}),
];
Promise.all([...loaded, ...sent]).then(() => { document.title = "sent"; });
</script></body></html>`
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	defer evil.Close()
	do(t, ctx, chromedp.Navigate(evil.URL+"/"),
		chromedp.Poll[chromedp.Void](`document.title === "sent"`, chromedp.WithPollingTimeout(30*time.Second)))
	if n, r := started.Load(), ts.idx.reloads.Load(); n != 0 || r != 0 {
		t.Fatalf("a page of %s started %d runs and %d reloads on %s", evil.URL, n, r, target)
	}
	do(t, ctx, chromedp.Navigate(target+"/drift"), chromedp.WaitVisible(chromedp.CSS("#statement")),
		chromedp.SendKeys(chromedp.CSS("#statement"), "every prime is at least two"))
	// The click navigates away, which chromedp may report as an error.
	chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#run-button")))
	for deadline := time.Now().Add(30 * time.Second); started.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if n := started.Load(); n != 1 {
		t.Errorf("the server's own form started %d runs", n)
	}
}
