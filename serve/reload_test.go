package serve

import (
	"context"
	"io"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

// realWorkspace writes the fixture library as a workspace and builds its
// hash index.
func realWorkspace(t testing.TB) (*workspace.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	decls := fixtureDecls()
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	var infs []workspace.Informal
	for _, e := range fixtureEntries(decls) {
		if e.InformalSource != "" && e.InformalSource != "docstring" {
			infs = append(infs, workspace.Informal{Name: e.Name, InformalName: e.InformalName, InformalStatement: e.InformalStatement, Provider: e.InformalSource})
		}
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

// TestReloadUnderLoad: searches run without pause while the index is
// rebuilt (a new generation) and reloaded over and over; none fails, and
// the server ends on the newest generation.
func TestReloadUnderLoad(t *testing.T) {
	ws, dir := realWorkspace(t)
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w, err := NewWorkspace("real", dir, IndexOf(ix))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, err := New(Options{Workspaces: []*Workspace{w}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	gen0 := w.Index.About().Generation
	var stop atomic.Bool
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			paths := []string{"/api/search?q=prime+divides&all_kinds=1", "/api/decl/Nat.Prime", "/?q=square+root"}
			for n := 0; !stop.Load(); n++ {
				resp, err := srv.Client().Get(srv.URL + paths[(i+n)%len(paths)])
				if err != nil {
					failed.Add(1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Add(1)
					t.Errorf("%s: %d %s", paths[(i+n)%len(paths)], resp.StatusCode, body)
				} else {
					ok.Add(1)
				}
			}
		}(i)
	}
	var last string
	for round := 0; round < 4; round++ {
		if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 32 + 16*(round%2)}); err != nil {
			t.Fatal(err)
		}
		st := reloadAndWait(t, srv.Client(), srv.URL)
		r := st.Workspaces["real"]
		if st.State != ReloadDone || !r.Changed || r.Generation == last || r.Generation == gen0 {
			t.Fatalf("reload %d: %+v", round, st)
		}
		last = r.Generation
	}
	stop.Store(true)
	wg.Wait()
	if failed.Load() > 0 || ok.Load() < 20 {
		t.Errorf("%d requests failed, %d succeeded during reloads", failed.Load(), ok.Load())
	}
	if g := w.Index.About().Generation; g != last {
		t.Errorf("serving %s, want the newest %s", g, last)
	}
	t.Logf("%d requests during 4 rebuilds and reloads, none failed", ok.Load())
}
