package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// fakeIndex is an in-memory Index: it ranks entries by how many query
// words their name, signature or informal text contain, honours the kind
// filter as retrieval documents it, and records the queries it gets.
type fakeIndex struct {
	mu      sync.Mutex
	entries []retrieval.Entry
	byName  map[string]retrieval.Entry
	users   map[string][]string
	about   IndexAbout
	queries []retrieval.Query
	// gen counts reloads that changed something; reloads is how many were
	// asked for.
	gen     atomic.Int64
	reloads atomic.Int64
	// pins is how many Pins are not released yet; view, when set, is what
	// Pin returns (a generation other than the one Search/Lookup answer).
	pins atomic.Int64
	view View
	// block, when set, makes Search wait for it (timeouts, shutdown);
	// reloadBlock makes Reload wait for it, then report a new generation.
	block, reloadBlock chan struct{}
}

func newFakeIndex(entries []retrieval.Entry) *fakeIndex {
	f := &fakeIndex{entries: entries, byName: map[string]retrieval.Entry{}, users: map[string][]string{}}
	premises := 0
	for _, e := range entries {
		f.byName[e.Name] = e
		for _, d := range e.StatementDeps {
			f.users[d] = append(f.users[d], e.Name)
		}
		if workspace.IsPremiseKind(e.Kind) {
			premises++
		}
	}
	for _, u := range f.users {
		sort.Strings(u)
	}
	f.about = IndexAbout{Generation: "gen-1", Encoder: "hash", EncoderFallback: true, Docs: len(entries), PremiseDocs: premises, Bytes: 1234}
	return f
}

func (f *fakeIndex) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	block := f.block
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if strings.TrimSpace(q.Text) == "" && strings.TrimSpace(q.Formal) == "" {
		return nil, retrieval.ErrEmptyQuery
	}
	words := strings.Fields(strings.ToLower(q.Text + " " + q.Formal))
	var hits []retrieval.Hit
	for _, e := range f.entries {
		switch {
		case len(q.Filter.Kinds) > 0 && !slices.Contains(q.Filter.Kinds, e.Kind):
			continue
		case len(q.Filter.Kinds) == 0 && !q.Filter.AllKinds && !workspace.IsPremiseKind(e.Kind):
			continue
		case q.Filter.Library != "" && e.Library != q.Filter.Library:
			continue
		case slices.Contains(q.Filter.Exclude, e.Name):
			continue
		}
		text := strings.ToLower(e.Name + " " + e.Signature + " " + e.InformalStatement)
		score := 0.0
		for _, w := range words {
			if strings.Contains(text, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, retrieval.Hit{Name: e.Name, Kind: e.Kind, Module: e.Module, Score: score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

func (f *fakeIndex) lastQuery() retrieval.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

func (f *fakeIndex) Len() int { return len(f.entries) }
func (f *fakeIndex) Lookup(name string) (retrieval.Entry, bool) {
	e, ok := f.byName[name]
	return e, ok
}
func (f *fakeIndex) UsedBy(p string) []string { return f.users[p] }
func (f *fakeIndex) About() IndexAbout {
	a := f.about
	a.Generation = "gen-" + string(rune('1'+f.gen.Load()))
	return a
}

// Pin: the fake has one generation; pins are counted so tests can check
// every request released what it pinned.
func (f *fakeIndex) Pin() (View, func()) {
	f.pins.Add(1)
	var once sync.Once
	release := func() { once.Do(func() { f.pins.Add(-1) }) }
	if f.view != nil {
		return f.view, release
	}
	return f, release
}
func (f *fakeIndex) Reload(ctx context.Context) (bool, error) {
	f.reloads.Add(1)
	f.mu.Lock()
	block := f.reloadBlock
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		f.gen.Add(1)
		return true, nil
	}
	return false, nil
}

func str(s string) *string { return &s }

// fixtureDecls is a small Mathlib-like library with Lean's unicode.
func fixtureDecls() []workspace.Declaration {
	d := func(name, kind, module, sig string, deps, proof []string) workspace.Declaration {
		code := "theorem " + name + " " + sig + " := by\n  simp"
		if kind != "theorem" {
			code = "def " + name + " " + sig + " := sorry"
		}
		return workspace.Declaration{Library: "mathlib", Revision: "59fdb6b0", Name: name, Kind: kind, Keyword: map[bool]string{true: "theorem", false: "def"}[kind == "theorem"],
			Module: module, Path: strings.ReplaceAll(module, ".", "/") + ".lean", LineStart: 10, LineEnd: 12, Namespace: "Nat",
			Signature: sig, Code: code, StatementDeps: deps, ProofDeps: proof}
	}
	decls := []workspace.Declaration{
		d("Nat", "inductive", "Init.Prelude", ": Type", nil, nil),
		d("Nat.Prime", "definition", "Mathlib.Data.Nat.Prime.Defs", "(p : ℕ) : Prop", []string{"Nat"}, []string{"Irreducible"}),
		d("Dvd.dvd", "definition", "Init.Prelude", "{α : Type u} [Dvd α] (a b : α) : Prop", nil, nil),
		d("Nat.Prime.dvd_mul", "theorem", "Mathlib.Data.Nat.Prime.Basic", "{p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n", []string{"Nat", "Nat.Prime", "Dvd.dvd"}, []string{"Nat.Prime", "Nat.Coprime.dvd_of_dvd_mul_left"}),
		d("Nat.Prime.two_le", "theorem", "Mathlib.Data.Nat.Prime.Defs", "{p : ℕ} (hp : p.Prime) : 2 ≤ p", []string{"Nat", "Nat.Prime"}, nil),
		d("Nat.«term_≡_[MOD_]»", "definition", "Mathlib.Data.Nat.ModEq", ": Lean.ParserDescr", nil, nil),
		d("Real.sqrt", "definition", "Mathlib.Analysis.SpecialFunctions.Sqrt", "(x : ℝ) : ℝ", nil, nil),
	}
	decls[1].Docstring = str("`Nat.Prime p` means that `p` is a prime number, that is, a natural number\nat least 2 whose only divisors are `p` and `1`.")
	decls[0].Docstring = str("The natural numbers.")
	return decls
}

func fixtureEntries(decls []workspace.Declaration) []retrieval.Entry {
	informal := map[string][3]string{
		"Nat.Prime":           {"Prime natural number", "A natural number p is prime if it is at least 2 and its only divisors are 1 and p.", "openai:gpt-4o"},
		"Nat.Prime.dvd_mul":   {"", "If a prime p divides a product m n, then p divides m or p divides n.", "template"},
		"Nat.Prime.two_le":    {"", "Every prime number is at least two.", "template"},
		"Dvd.dvd":             {"", "a divides b", "template"},
		"Nat":                 {"", "The natural numbers.", "docstring"},
		"Real.sqrt":           {"", "The square root of a real number.", "template"},
		"Nat.«term_≡_[MOD_]»": {"", "notation for congruence", "template"},
	}
	var out []retrieval.Entry
	for _, d := range decls {
		in := informal[d.Name]
		out = append(out, retrieval.Entry{Name: d.Name, Kind: d.Kind, Module: d.Module, Library: d.Library, Signature: d.Signature,
			InformalName: in[0], InformalStatement: in[1], InformalSource: in[2], StatementDeps: d.StatementDeps})
	}
	return out
}

// testServer is a server over the fixture workspace ("main") and a second
// one ("other") with its own fake index.
type testServer struct {
	*Server
	ts    *httptest.Server
	idx   *fakeIndex
	other *fakeIndex
	dir   string
}

func newTestServer(t testing.TB, o Options) *testServer {
	t.Helper()
	dir := t.TempDir()
	decls := fixtureDecls()
	if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	idx := newFakeIndex(fixtureEntries(decls))
	ws, err := NewWorkspace("main", dir, idx)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	if err := workspace.WriteTable(filepath.Join(dir2, workspace.DeclarationsFile), decls[:2]); err != nil {
		t.Fatal(err)
	}
	other := newFakeIndex(fixtureEntries(decls[:2]))
	ws2, err := NewWorkspace("other", dir2, other)
	if err != nil {
		t.Fatal(err)
	}
	o.Workspaces = []*Workspace{ws, ws2}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ws.Close()
		ws2.Close()
	})
	return &testServer{Server: s, ts: newHTTPTest(t, s), idx: idx, other: other, dir: dir}
}

// newHTTPTest serves s until the test ends (runs cancelled first).
func newHTTPTest(t testing.TB, s *Server) *httptest.Server {
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Shutdown(context.Background())
		ts.Close()
	})
	return ts
}

func (ts *testServer) do(t testing.TB, method, path, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// localRequest is httptest.NewRequest from a loopback client to the server
// by address (httptest's default Host, example.com, is not a name the
// server answers to: see guard).
func localRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	req.Host, req.RemoteAddr = "127.0.0.1", "127.0.0.1:5555"
	return req
}

// reloadAndWait asks the server at base for a reload (POST
// /api/admin/reload: 202) and polls GET /api/admin/reload until that
// reload has ended; it returns its status.
func reloadAndWait(t testing.TB, client *http.Client, base string) ReloadStatus {
	t.Helper()
	resp, err := client.Post(base+"/api/admin/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		Reload ReloadStatus `json:"reload"`
	}
	json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || started.Reload.ID == 0 {
		t.Fatalf("POST /api/admin/reload: %d %+v", resp.StatusCode, started)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := client.Get(base + "/api/admin/reload")
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Reload  ReloadStatus      `json:"reload"`
			Serving map[string]string `json:"serving"`
		}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.Reload.ID >= started.Reload.ID && st.Reload.State != ReloadRunning {
			return st.Reload
		}
	}
	t.Fatalf("reload %d did not end", started.Reload.ID)
	return ReloadStatus{}
}
