package lean

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/leantest"
)

func TestOneShot(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(context.Background(), Options{Lean: leantest.FakeREPL(t), LeanDir: dir, Workers: 2, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Backend() != "lean" {
		t.Errorf("backend %q", c.Backend())
	}
	rs, err := c.Check(context.Background(), []Snippet{
		{ID: "ok", Header: "import Mathlib\nopen Real", Code: "theorem t : True := trivial"},
		{ID: "err", Header: "import Mathlib\nopen Real", Code: "theorem t : True := by\n  exact x --! error unknown identifier 'x'"},
		{ID: "sorry", Code: "theorem t : True := by\n  sorry --! info hello"},
		{ID: "crash", Code: "--! crash"},
		{ID: "hang", Code: "--! hang", Timeout: 300 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; !r.Pass || !r.Complete || r.CodeLine0 != 3 || r.Error != "" {
		t.Errorf("ok: %+v", r)
	}
	if r := rs[1]; r.Pass || len(r.Messages) != 1 || r.Messages[0].Pos.Line != 4 || r.CodeLine(r.Messages[0].Pos.Line) != 2 {
		t.Errorf("err: %+v (want the error on line 4 of the file, line 2 of the code)", r)
	}
	if r := rs[2]; !r.Pass || r.Complete || len(r.Sorries) != 0 {
		t.Errorf("sorry: %+v (no sorries list from lean --json; the warning marks it incomplete)", r)
	}
	infos := 0
	for _, m := range rs[2].Messages {
		if m.Severity == "info" {
			infos++
		}
	}
	if infos != 1 {
		t.Errorf("\"information\" must read as \"info\": %+v", rs[2].Messages)
	}
	if r := rs[3]; r.Pass || !strings.Contains(r.Error, "fake crash") {
		t.Errorf("crash: %+v", r)
	}
	if r := rs[4]; r.Pass || !strings.Contains(r.Error, "no result within") {
		t.Errorf("hang: %+v", r)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("temporary files left in the project folder: %v", left)
	}
	if _, err := Open(context.Background(), Options{Lean: "/nonexistent/lean"}); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "elan") {
		t.Errorf("missing lean: %v", err)
	}
}

func openKimina(t *testing.T, url string, o Options) Checker {
	t.Helper()
	o.Kimina = url
	if o.KiminaBackoff == 0 {
		o.KiminaBackoff = time.Millisecond
	}
	c, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestKiminaCheck(t *testing.T) {
	srv := leantest.NewKimina()
	defer srv.Close()
	c := openKimina(t, srv.URL, Options{KiminaBatch: 2})
	snips := []Snippet{
		{ID: "ok", Header: "import Mathlib\n\nopen Real", Code: "theorem t : True := trivial"},
		{ID: "err", Header: "import Mathlib", Code: "theorem t : True := by\n  exact x --! error unknown identifier"},
		{ID: "sorry", Code: "theorem t : True := by\n  sorry"},
		{ID: "timeout", Code: "--! timeout"},
		{ID: "replerror", Code: "--! replerror"},
		{ID: "ok", Code: "theorem dup_id : True := trivial"}, // ids need not be unique
	}
	rs, err := c.Check(context.Background(), snips)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r.ID != snips[i].ID || r.Backend != "kimina" {
			t.Errorf("%d: id %q backend %q", i, r.ID, r.Backend)
		}
	}
	if r := rs[0]; !r.Pass || !r.Complete || r.CodeLine0 != 4 || r.Time != 250*time.Millisecond {
		t.Errorf("ok: %+v", r)
	}
	if r := rs[1]; r.Pass || r.Messages[0].Pos.Line != 3 || r.CodeLine(3) != 2 {
		t.Errorf("err: %+v", r)
	}
	if r := rs[2]; !r.Pass || r.Complete || len(r.Sorries) != 1 {
		t.Errorf("sorry: %+v", r)
	}
	if r := rs[3]; r.Pass || !strings.Contains(r.Error, "timed out in 300 seconds") {
		t.Errorf("timeout: %+v", r)
	}
	if r := rs[4]; r.Pass || !strings.HasPrefix(r.Error, "REPL: ") {
		t.Errorf("replerror: %+v", r)
	}
	if r := rs[5]; !r.Pass {
		t.Errorf("dup id: %+v", r)
	}
	if req, n := srv.Requests(); req != 3 || n != 6 {
		t.Errorf("%d requests for %d snippets, want 3 batches of 2", req, n)
	}
	var body struct {
		Snippets []struct{ ID, Code string }
		Timeout  any
		Reuse    bool
	}
	for _, b := range srv.Bodies() {
		if strings.Contains(b, `"0:ok"`) {
			json.Unmarshal([]byte(b), &body)
		}
	}
	if body.Snippets[0].Code != "import Mathlib\n\nopen Real\ntheorem t : True := trivial" || !body.Reuse {
		t.Errorf("wire body %+v", body)
	}
	if _, isFloat := body.Timeout.(float64); !isFloat || body.Timeout.(float64) != 300 {
		t.Errorf("timeout on the wire %v, want the integer 300 (the default 5m)", body.Timeout)
	}
	// A request's timeout is whole seconds, rounded up.
	rs, err = c.Check(context.Background(), []Snippet{{ID: "t", Code: "--! timeout", Timeout: 1500 * time.Millisecond}})
	if err != nil || !strings.Contains(rs[0].Error, "timed out in 2 seconds") {
		t.Errorf("1.5s: %+v %v", rs, err)
	}
}

func TestKiminaRetries(t *testing.T) {
	srv := leantest.NewKimina()
	defer srv.Close()
	c := openKimina(t, srv.URL, Options{KiminaRetries: 4})
	snip := []Snippet{{ID: "x", Code: "theorem t : True := trivial"}}
	srv.Script(leantest.Busy, leantest.ServerError, leantest.Drop, leantest.Garbage)
	rs, err := c.Check(context.Background(), snip)
	if err != nil || !rs[0].Pass {
		t.Fatalf("after 429, 500, a dropped connection and a garbled body the fifth attempt passes: %+v %v", rs, err)
	}
	if req, _ := srv.Requests(); req != 5 {
		t.Errorf("%d requests, want 5", req)
	}
	// Retries exhausted on 503: the snippet fails, the call does not.
	srv.Script(leantest.Unavailable, leantest.Unavailable, leantest.Unavailable, leantest.Unavailable, leantest.Unavailable)
	rs, err = c.Check(context.Background(), snip)
	if err != nil || rs[0].Pass || !strings.Contains(rs[0].Error, "HTTP 503") {
		t.Fatalf("503 five times: %+v %v", rs, err)
	}
}

func TestKiminaAPIKey(t *testing.T) {
	srv := leantest.NewKimina()
	srv.APIKey = "sekret"
	defer srv.Close()
	t.Setenv("KIMINA_API_KEY", "")
	c := openKimina(t, srv.URL, Options{})
	if _, err := c.Check(context.Background(), []Snippet{{ID: "x", Code: "theorem t : True := trivial"}}); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "KIMINA_API_KEY") {
		t.Fatalf("no key: %v", err)
	}
	t.Setenv("KIMINA_API_KEY", "sekret")
	c = openKimina(t, srv.URL, Options{})
	if rs, err := c.Check(context.Background(), []Snippet{{ID: "x", Code: "theorem t : True := trivial"}}); err != nil || !rs[0].Pass {
		t.Fatalf("with the key: %+v %v", rs, err)
	}
}

func TestKiminaLegacyVerify(t *testing.T) {
	srv := leantest.NewKimina()
	defer srv.Close()
	c := openKimina(t, srv.URL+"/verify", Options{})
	rs, err := c.Check(context.Background(), []Snippet{
		{ID: "a", Code: "theorem t : True := trivial"},
		{ID: "b", Code: "theorem t : True := by\n  sorry"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].Complete || rs[1].Complete || !rs[1].Pass || rs[0].Time != 500*time.Millisecond {
		t.Fatalf("%+v", rs)
	}
	if !strings.Contains(srv.Bodies()[0], `"codes"`) || !strings.Contains(srv.Bodies()[0], `"proof"`) {
		t.Errorf("legacy body %s", srv.Bodies()[0])
	}
}

func TestKiminaDown(t *testing.T) {
	srv := leantest.NewKimina()
	url := srv.URL
	srv.Close()
	if _, err := Open(context.Background(), Options{Kimina: url}); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), url) {
		t.Fatalf("Open on a dead server: %v", err)
	}
	// A server that dies after Open: the call fails as unavailable.
	srv = leantest.NewKimina()
	c := openKimina(t, srv.URL, Options{KiminaRetries: 2})
	srv.Close()
	if _, err := c.Check(context.Background(), []Snippet{{ID: "x", Code: "theorem t : True := trivial"}}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Check on a dead server: %v", err)
	}
}

func TestKiminaCancel(t *testing.T) {
	srv := leantest.NewKimina()
	defer srv.Close()
	c := openKimina(t, srv.URL, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	rs, err := c.Check(ctx, []Snippet{{ID: "slow", Code: "--! sleep 3s"}})
	if !errors.Is(err, context.DeadlineExceeded) || rs[0].Error == "" {
		t.Fatalf("%+v %v", rs, err)
	}
}

func ExampleOpen() {
	c, err := Open(context.Background(), Options{REPL: "lake env repl", REPLDir: "/path/to/mathlib-project", Workers: 4})
	if err != nil {
		fmt.Println(errors.Is(err, ErrBadOptions), errors.Is(err, ErrUnavailable))
		return
	}
	defer c.Close()
	// Output: true false
}

// TestKiminaRedirectNotFollowed: a server that redirects the check does
// not get the code (the user's statements and proofs) and KIMINA_API_KEY
// sent to the Location — Go's client re-sends both on a 307, the key to
// the same host on another port; the redirect is an error naming it.
func TestKiminaRedirectNotFollowed(t *testing.T) {
	var elsewhere, withKey atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			withKey.Add(1)
		}
		w.Write([]byte(`{"results": []}`))
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			w.Write([]byte(`{"status": "ok"}`))
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	t.Setenv("KIMINA_API_KEY", "sekret")
	c := openKimina(t, redirecting.URL, Options{KiminaRetries: 1})
	rs, err := c.Check(context.Background(), []Snippet{{ID: "x", Code: "theorem private_t : True := trivial"}})
	if err == nil && len(rs) == 1 && rs[0].Pass {
		t.Errorf("a redirect was taken as a pass: %+v", rs)
	}
	if msg := fmt.Sprint(err, rs); !strings.Contains(msg, "redirect") {
		t.Errorf("err %v, results %+v: want the redirect named", err, rs)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d requests reached %s, %d with the key", n, other.URL, withKey.Load())
	}
}
