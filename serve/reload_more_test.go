package serve

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/workspace"
)

// TestSlowReloadKeepsItsAnswer: a reload that takes longer than the write
// timeout (Mathlib's took 67–143 s under load against a 60 s timeout) is
// answered at once (202) and followed with GET /api/admin/reload, which
// ends naming the generation now served.
func TestSlowReloadKeepsItsAnswer(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{WriteTimeout: 300 * time.Millisecond}})
	ts.idx.mu.Lock()
	ts.idx.reloadBlock = make(chan struct{})
	ts.idx.mu.Unlock()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, l) }()
	defer func() { cancel(); <-served }()
	base := "http://" + l.Addr().String()
	release := time.AfterFunc(time.Second, func() { close(ts.idx.reloadBlock) }) // longer than the write timeout
	defer release.Stop()
	st := reloadAndWait(t, http.DefaultClient, base)
	if st.State != ReloadDone || st.Workspaces["main"].Generation != "gen-2" || !st.Workspaces["main"].Changed || st.Seconds < 0.5 {
		t.Fatalf("reload status %+v", st)
	}
	resp, err := http.Get(base + "/api/admin/reload")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"serving":{"main":"gen-2","other":"gen-1"}`) {
		t.Errorf("status: %s", b)
	}
}

// TestReloadsCoalesce: requests while a reload runs queue exactly one more
// pass (which sees the newest files), not one each.
func TestReloadsCoalesce(t *testing.T) {
	ts := newTestServer(t, Options{})
	ts.idx.mu.Lock()
	ts.idx.reloadBlock = make(chan struct{})
	ts.idx.mu.Unlock()
	first := ts.StartReload()
	var ids []int
	for range 5 {
		ids = append(ids, ts.StartReload().ID)
	}
	close(ts.idx.reloadBlock)
	ts.reloads.wait(context.Background())
	st, _ := ts.ReloadStatusOf()
	if first.ID != 1 || ids[0] != 2 || ids[4] != 2 || st.ID != 2 || st.State != ReloadDone || ts.idx.reloads.Load() != 2 {
		t.Errorf("first %d, queued %v, last %+v, %d reloads", first.ID, ids, st, ts.idx.reloads.Load())
	}
}

// deletedFDs counts this process's descriptors open on a deleted file
// named name.
func deletedFDs(t *testing.T, name string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.Contains(target, name) && strings.HasSuffix(target, "(deleted)") {
			n++
		}
	}
	return n
}

// TestReloadReleasesOldDeclarations: each reload after a new
// declarations.parquet closes the previous table once no request reads it
// (the probe: 6 reloads on Mathlib, deleted descriptors 4 → 10, heap
// +116 MB). A request in flight keeps its table until it ends.
func TestReloadReleasesOldDeclarations(t *testing.T) {
	ts := newTestServer(t, Options{})
	path := filepath.Join(ts.dir, workspace.DeclarationsFile)
	rewrite := func(extra string) {
		decls := append(fixtureDecls(), workspace.Declaration{Name: extra, Kind: "theorem", Module: "M", Signature: ": True"})
		if err := workspace.WriteTable(path, decls); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		rewrite("Nat.round" + string(rune('a'+i)))
		if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone || !st.Workspaces["main"].Changed {
			t.Fatalf("reload %d: %+v", i, st)
		}
	}
	if n := deletedFDs(t, ts.dir); n != 0 {
		t.Errorf("%d descriptors on replaced declaration tables after 6 reloads", n)
	}
	// A request that pinned the rows before a reload reads them to its end.
	ws := ts.ws["main"]
	p, release := ws.pin()
	rewrite("Nat.later")
	reloadAndWait(t, ts.ts.Client(), ts.ts.URL)
	if d, ok, err := p.decls.Lookup("Nat.roundf"); err != nil || !ok || d.Name != "Nat.roundf" {
		t.Errorf("the pinned table after a reload: %v %v %v", d, ok, err)
	}
	if n := deletedFDs(t, ts.dir); n != 1 {
		t.Errorf("pinned: %d descriptors on replaced tables, want 1", n)
	}
	release()
	if n := deletedFDs(t, ts.dir); n != 0 {
		t.Errorf("released: %d descriptors on replaced tables", n)
	}
	resp, body := ts.do(t, "GET", "/api/decl/Nat.later", "", "")
	if resp.StatusCode != 200 {
		t.Errorf("new row: %d %s", resp.StatusCode, body)
	}
}

// TestAnswersDescribeTheirPinnedGeneration: what a search answer and a
// page header say about the index (encoder, model, generation) is the
// pinned generation's, not the one a reload installed meanwhile.
func TestAnswersDescribeTheirPinnedGeneration(t *testing.T) {
	ts := newTestServer(t, Options{})
	pinned := newFakeIndex(fixtureEntries(fixtureDecls()))
	pinned.about.Encoder, pinned.about.Model, pinned.about.EncoderFallback = "openai", "pinned-model", false
	ts.idx.view = pinned
	_, body := ts.do(t, "GET", "/api/search?q=prime&all_kinds=1", "", "")
	var sr SearchResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	if sr.Encoder != "openai" || sr.EncoderFallback {
		t.Errorf("search answer describes the current index: encoder %q, fallback %v", sr.Encoder, sr.EncoderFallback)
	}
	for _, path := range []string{"/?q=prime", "/decl/Nat.Prime"} {
		_, page := ts.do(t, "GET", path, "", "")
		if !strings.Contains(page, "openai pinned-model") || strings.Contains(page, "offline fallback encoder") {
			t.Errorf("%s: the header does not describe the pinned generation", path)
		}
	}
}

// TestReloadBuildsTheProofGraph: a reload that brings new declarations
// builds their proof graph before serving them (no premise request waits
// for it), and forgets the replaced table's.
func TestReloadBuildsTheProofGraph(t *testing.T) {
	ts := newTestServer(t, Options{})
	retrieveHits(t, ts, "/premises/retrieve", lspHammerBody) // the first graph
	old := ts.ws["main"].Decls()
	decls := append(fixtureDecls(), workspace.Declaration{Name: "Nat.Prime.three", Kind: "theorem", Module: "M", Signature: ": Nat.Prime 3", StatementDeps: []string{"Nat.Prime"}})
	if err := workspace.WriteTable(filepath.Join(ts.dir, workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone || !st.Workspaces["main"].Changed {
		t.Fatalf("reload: %+v", st)
	}
	ts.proofs.mu.Lock()
	e, stale := ts.proofs.m[ts.ws["main"].Decls()], ts.proofs.m[old]
	ts.proofs.mu.Unlock()
	if e == nil || e.g == nil || e.g.Len() != len(decls) {
		t.Fatalf("after the reload, no built graph for the new table: %+v", e)
	}
	if stale != nil {
		t.Error("the replaced table's graph is still cached")
	}
	if got := hitNamesOf(retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 3","k":5}`)); !slices.Contains(got, "Nat.Prime.three") {
		t.Errorf("after the reload: %v", got)
	}
}

// TestFailedReloadKeepsServing: a reload that finds a damaged
// declarations.parquet (a copy cut short, a disk error) reports it and
// keeps serving the rows it had: declaration pages and searches answer as
// before, and the next good file is picked up.
func TestFailedReloadKeepsServing(t *testing.T) {
	ts := newTestServer(t, Options{})
	name := fixtureDecls()[0].Name
	path := filepath.Join(ts.dir, workspace.DeclarationsFile)
	if resp, body := ts.do(t, "GET", "/api/decl/"+name, "", ""); resp.StatusCode != 200 {
		t.Fatalf("before: GET /api/decl/%s: %d %s", name, resp.StatusCode, truncate(body, 200))
	}
	// A new file (a new inode, as every writer of the workspace makes),
	// damaged.
	if err := os.WriteFile(path+".new", []byte("PAR1 cut short"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL)
	if st.State != ReloadFailed || st.Workspaces["main"].Error == "" {
		t.Fatalf("reload of a damaged table: %+v, want its error", st)
	}
	for _, d := range fixtureDecls()[1:3] { // rows not read before (not cached): a released table fails them
		name := d.Name
		if resp, body := ts.do(t, "GET", "/api/decl/"+name, "", ""); resp.StatusCode != 200 || !strings.Contains(body, name) {
			t.Fatalf("after a failed reload: GET /api/decl/%s: %d %s", name, resp.StatusCode, truncate(body, 200))
		}
		if resp, body := ts.do(t, "GET", "/api/search?q=prime", "", ""); resp.StatusCode != 200 {
			t.Fatalf("after a failed reload: search: %d %s", resp.StatusCode, truncate(body, 200))
		}
	}
	if err := workspace.WriteTable(path, fixtureDecls()); err != nil {
		t.Fatal(err)
	}
	if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone || st.Workspaces["main"].Error != "" || !st.Workspaces["main"].Changed {
		t.Fatalf("reload of a good table after a damaged one: %+v", st)
	}
}
