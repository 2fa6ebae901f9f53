package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/workspace"
)

// TestServeGracefulShutdown: cancelling Serve's context stops accepting
// connections but lets a search in flight finish with its answer.
func TestServeGracefulShutdown(t *testing.T) {
	ts := newTestServer(t, Options{})
	block := make(chan struct{})
	ts.idx.mu.Lock()
	ts.idx.block = block
	ts.idx.mu.Unlock()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, l) }()
	base := "http://" + l.Addr().String()
	type answer struct {
		code int
		body string
		err  error
	}
	inflight := make(chan answer, 1)
	go func() {
		resp, err := http.Get(base + "/api/search?q=prime")
		if err != nil {
			inflight <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		inflight <- answer{code: resp.StatusCode, body: string(b)}
	}()
	// Wait until the search is inside the index, then shut down.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		ts.idx.mu.Lock()
		n := len(ts.idx.queries)
		ts.idx.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the search never reached the index")
		}
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	if _, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
		t.Error("still accepting connections after shutdown began")
	}
	close(block)
	a := <-inflight
	if a.err != nil || a.code != 200 || !strings.Contains(a.body, "Nat.Prime") {
		t.Errorf("the search in flight: %+v", a)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestReloadPicksUpNewDeclarations: a re-extracted declarations.parquet
// (atomically replaced) is served after a reload; the old one until then.
func TestReloadPicksUpNewDeclarations(t *testing.T) {
	ts := newTestServer(t, Options{})
	decls := fixtureDecls()
	decls = append(decls, workspace.Declaration{Name: "Nat.brand_new", Kind: "theorem", Module: "M", Signature: ": True", Code: "theorem brand_new : True := trivial"})
	if err := workspace.WriteTable(filepath.Join(ts.dir, workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if resp, _ := ts.do(t, "GET", "/api/decl/Nat.brand_new", "", ""); resp.StatusCode != 404 {
		t.Errorf("before reload: %d", resp.StatusCode)
	}
	if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone || !st.Workspaces["main"].Changed {
		t.Fatalf("reload: %+v", st)
	}
	if resp, body := ts.do(t, "GET", "/api/decl/Nat.brand_new", "", ""); resp.StatusCode != 200 {
		t.Errorf("after reload: %d %s", resp.StatusCode, body)
	}
	if resp, _ := ts.do(t, "GET", "/api/decl/Nat.Prime", "", ""); resp.StatusCode != 200 {
		t.Errorf("old rows after reload: %d", resp.StatusCode)
	}
}
