package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// The request bodies below are what the clients send, built as their
// sources build them:
//
//   - Lean's cloud premise selector (github.com/hanwenzhu/premise-selection,
//     PremiseSelection/Cloud.lean at 5d24284d, selectPremisesCore): curl -X
//     POST BASE/retrieve --header "Content-Type: application/json" --data @-
//     with Json.compress of the object below. Lean's Json objects are
//     ordered maps, so compress writes the keys sorted, without spaces;
//     Premise derives ToJson ({"decl", "name"}). With the default
//     premiseSelection.indexByIndividualPremise = false, local_premises is
//     [] and imported_modules the indices of the imported modules.
//   - lean-lsp-mcp's lean_hammer_premise (src/lean_lsp_mcp/tools/search.py
//     at bb176c58): orjson.dumps({"state", "new_premises": [], "k"}), keys
//     in that order, compact, UTF-8 unescaped.
const (
	leanRetrieveBody = `{"caller_in_module_system":false,"imported_all_modules":[],"imported_modules":[4,99,-3],"k":32,` +
		`"local_premises":[],"new_premises":[{"decl":"/-- a prime is at least two -/\ntheorem my_two_le (p : ℕ) (hp : Nat.Prime p) : LE.le 2 p","name":"my_two_le"}],` +
		`"state":"p : ℕ\nhp : Nat.Prime p\n⊢ LE.le 2 p"}`
	lspHammerBody = `{"state":"p✝ : ℕ\nhp : Nat.Prime p✝\n⊢ 2 ≤ ?m.123 ∣ p✝ * ?n","new_premises":[],"k":32}`
)

func retrieveHits(t *testing.T, ts *testServer, path, body string) []PremiseHit {
	t.Helper()
	resp, out := ts.do(t, "POST", path, "application/json", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
	}
	var hits []PremiseHit
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("POST %s: %v in %s", path, err, out)
	}
	return hits
}

func hitNamesOf(h []PremiseHit) []string {
	var out []string
	for _, x := range h {
		out = append(out, x.Name)
	}
	return out
}

func TestPremiseServerLists(t *testing.T) {
	ts := newTestServer(t, Options{})
	// The client GETs without a body (curl -X GET … URL).
	for _, base := range []string{"/premises", "/premises/main"} {
		_, body := ts.do(t, "GET", base+"/indexed-premises", "", "")
		var names []string
		if err := json.Unmarshal([]byte(body), &names); err != nil || len(names) != 7 || names[1] != "Nat.Prime" || names[5] != "Nat.«term_≡_[MOD_]»" {
			t.Errorf("%s/indexed-premises = %v (%v)", base, names, err)
		}
		_, body = ts.do(t, "GET", base+"/indexed-modules", "", "")
		var mods []string
		if err := json.Unmarshal([]byte(body), &mods); err != nil || !slices.IsSorted(mods) || len(mods) != 5 || mods[4] != "Mathlib.Data.Nat.Prime.Defs" {
			t.Errorf("%s/indexed-modules = %v (%v)", base, mods, err)
		}
		_, body = ts.do(t, "GET", base+"/max-new-premises", "", "")
		if strings.TrimSpace(body) != fmt.Sprint(MaxNewPremises) {
			t.Errorf("%s/max-new-premises = %s", base, body)
		}
	}
	_, body := ts.do(t, "GET", "/premises/other/indexed-premises", "", "")
	if !strings.Contains(body, `"Nat.Prime"`) || strings.Contains(body, "Real.sqrt") {
		t.Errorf("/premises/other lists %s", body)
	}
	resp, body := ts.do(t, "GET", "/premises/nope/indexed-premises", "", "")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"field":"ws"`) {
		t.Errorf("unknown workspace: %d %s", resp.StatusCode, body)
	}
}

func TestPremiseServerRetrieveLeanClient(t *testing.T) {
	ts := newTestServer(t, Options{})
	hits := retrieveHits(t, ts, "/premises/retrieve", leanRetrieveBody)
	if len(hits) == 0 {
		t.Fatal("no premises")
	}
	// Only the imported module (index 4; 99 and -3 are unknown and ignored)
	// and the new premise may come back.
	for _, h := range hits {
		if h.Name != "my_two_le" && h.Name != "Nat.Prime" && h.Name != "Nat.Prime.two_le" {
			t.Errorf("%s is not importable from Mathlib.Data.Nat.Prime.Defs", h.Name)
		}
	}
	if !slices.Contains(hitNamesOf(hits), "my_two_le") || !slices.Contains(hitNamesOf(hits), "Nat.Prime") {
		t.Errorf("hits %v lack the new premise or the goal's constant", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("scores not descending: %v", hits)
		}
	}
	// The answer is exactly [{name, score}].
	_, raw := ts.do(t, "POST", "/premises/retrieve", "application/json", leanRetrieveBody)
	var generic []map[string]any
	json.Unmarshal([]byte(raw), &generic)
	for _, m := range generic {
		if len(m) != 2 || m["name"] == nil || m["score"] == nil {
			t.Errorf("answer item %v: want exactly name and score", m)
		}
	}
}

func TestPremiseServerRetrieveLSPClient(t *testing.T) {
	ts := newTestServer(t, Options{})
	// No imported_modules and no local_premises: every premise is a
	// candidate; the goal has hygienic names (✝) and metavariables.
	hits := retrieveHits(t, ts, "/premises/retrieve", lspHammerBody)
	if len(hits) == 0 || !slices.Contains(hitNamesOf(hits), "Nat.Prime.dvd_mul") {
		t.Errorf("hits %v lack Nat.Prime.dvd_mul", hits)
	}
	if q := ts.idx.lastQuery(); q.Mode != retrieval.ModeBM25 || !q.Filter.AllKinds || !strings.Contains(q.Text, "?m.123") {
		t.Errorf("lexical query %+v", q)
	}
}

func TestPremiseServerEdgeCases(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{MaxK: 3}})
	// k above the cap is lowered to it (the reference server clamps).
	if hits := retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","k":1000000}`); len(hits) == 0 || len(hits) > 3 {
		t.Errorf("k above the cap: %d hits", len(hits))
	}
	// k ≤ 0 answers [] (reference).
	if hits := retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","k":0}`); len(hits) != 0 {
		t.Errorf("k=0: %v", hits)
	}
	// Empty lists: nothing is importable, and no new premise: [].
	if hits := retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","imported_modules":[],"local_premises":[],"new_premises":[],"k":3}`); len(hits) != 0 {
		t.Errorf("nothing importable: %v", hits)
	}
	// local_premises by index and by name; module names as older clients send them.
	got := hitNamesOf(retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","local_premises":[4, "Nat.Prime"],"k":3}`))
	if slices.ContainsFunc(got, func(n string) bool { return n != "Nat.Prime" && n != "Nat.Prime.two_le" }) || len(got) != 2 {
		t.Errorf("local premises 4 (Nat.Prime.two_le) and Nat.Prime: %v", got)
	}
	got = hitNamesOf(retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","imported_modules":["Mathlib/Data/Nat/Prime/Defs.lean"],"k":3}`))
	if len(got) == 0 || slices.ContainsFunc(got, func(n string) bool { return n != "Nat.Prime" && n != "Nat.Prime.two_le" }) {
		t.Errorf("module by path: %v", got)
	}
	// A new premise named like an indexed one replaces it.
	hits := retrieveHits(t, ts, "/premises/retrieve", `{"state":"⊢ Nat.Prime 2","imported_modules":[],"new_premises":[{"name":"Nat.Prime","decl":"def Nat.Prime (p : ℕ) : Prop"}],"k":3}`)
	if len(hits) != 1 || hits[0].Name != "Nat.Prime" {
		t.Errorf("shadowed premise: %v", hits)
	}
	// Bad input: 400 naming the field.
	for body, field := range map[string]string{
		`{"k":3}`:                    "state",
		`{"state":"","k":3}`:         "state",
		`{"state":"⊢ True"}`:         "k",
		`{"state":"⊢ True","k":"3"}`: "k",
		`{"state":"⊢ True","k":3,"imported_modules":[1,{"a":1}]}`: "imported_modules[1]",
		`{"state":"⊢ True","k":3,"new_premises":[{"name":"x"}]}`:  "new_premises[0].decl",
		`{"state":"⊢ True","k":3,"new_premises":[{"decl":"x"}]}`:  "new_premises[0].name",
		`{"state":"⊢ True","k":3,"local_premises":[true]}`:        "local_premises[0]",
		`[1]`: "body",
	} {
		resp, out := ts.do(t, "POST", "/premises/retrieve", "application/json", body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, `"field":"`+field+`"`) {
			t.Errorf("%s: %d %s (want 400 naming %s)", body, resp.StatusCode, out, field)
		}
	}
}

func TestPremiseServerNewPremiseCap(t *testing.T) {
	ts := newTestServer(t, Options{Limits: Limits{MaxK: 200}})
	var nps []string
	for i := range MaxNewPremises + 5 {
		nps = append(nps, fmt.Sprintf(`{"name":"local_%d","decl":"theorem local_%d : Nat.Prime %d"}`, i, i, i))
	}
	body := `{"state":"⊢ Nat.Prime 7","imported_modules":[],"k":200,"new_premises":[` + strings.Join(nps, ",") + `]}`
	if len(body) < 1<<17 {
		t.Fatalf("body only %d bytes", len(body))
	}
	hits := retrieveHits(t, ts, "/premises/retrieve", body)
	if len(hits) != 200 {
		t.Errorf("%d hits", len(hits))
	}
	for _, h := range hits {
		var i int
		if _, err := fmt.Sscanf(h.Name, "local_%d", &i); err != nil || i >= MaxNewPremises {
			t.Errorf("%s: past the first %d new premises", h.Name, MaxNewPremises)
		}
	}
}

func TestPremiseServerOnePinnedGeneration(t *testing.T) {
	ts := newTestServer(t, Options{})
	// The pinned view answers, not the index's current generation.
	view := newFakeIndex(fixtureEntries(fixtureDecls()))
	ts.idx.view = view
	retrieveHits(t, ts, "/premises/retrieve", lspHammerBody)
	ts.do(t, "GET", "/statesearch/api/search?query=%E2%8A%A2%20Nat.Prime%202", "", "")
	if len(view.queries) != 2 || len(ts.idx.queries) != 0 {
		t.Errorf("view answered %d, index %d queries: want the pinned view only", len(view.queries), len(ts.idx.queries))
	}
	if n := ts.idx.pins.Load(); n != 0 {
		t.Errorf("%d pins left", n)
	}
}

func TestPremiseServerGuards(t *testing.T) {
	ts := newTestServer(t, Options{})
	req, _ := http.NewRequest("POST", ts.ts.URL+"/premises/retrieve", strings.NewReader(lspHammerBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin /retrieve: %d", resp.StatusCode)
	}
	if resp, _ := ts.do(t, "POST", "/premises/retrieve", "text/plain", lspHammerBody); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain /retrieve: %d", resp.StatusCode)
	}
	// Only /retrieve gets the larger body cap.
	big := `{"query":["` + strings.Repeat("a", 2<<20) + `"]}`
	if resp, _ := ts.do(t, "POST", "/search", "application/json", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB /search: %d", resp.StatusCode)
	}
}

// newImportsServer serves the fixture library with a modules.parquet
// (Basic imports Defs imports Init.Prelude; the umbrella Mathlib imports
// Basic and ModEq) and a private lemma in Defs.
func newImportsServer(t *testing.T) *testServer {
	t.Helper()
	decls := fixtureDecls()
	priv := decls[4]
	priv.Name, priv.Modifiers, priv.Signature = "Nat.Prime.two_le_aux", []string{"private"}, "{p : ℕ} (hp : p.Prime) : 2 ≤ p"
	decls = append(decls, priv)
	mods := []workspace.Module{
		{Name: "Init.Prelude"},
		{Name: "Mathlib.Data.Nat.Prime.Defs", Imports: []string{"Init.Prelude"}},
		{Name: "Mathlib.Data.Nat.Prime.Basic", Imports: []string{"Mathlib.Data.Nat.Prime.Defs", "Std.Unknown"}},
		{Name: "Mathlib.Data.Nat.ModEq", Imports: []string{"Init.Prelude"}},
		{Name: "Mathlib.Analysis.SpecialFunctions.Sqrt", Imports: []string{"Init.Prelude"}},
		{Name: "Mathlib", Imports: []string{"Mathlib.Data.Nat.Prime.Basic", "Mathlib.Data.Nat.ModEq"}},
	}
	return serveTables(t, decls, mods)
}

// serveTables serves a workspace of these declarations and modules tables
// over the fake index of the declarations.
func serveTables(t *testing.T, decls []workspace.Declaration, mods []workspace.Module) *testServer {
	t.Helper()
	dir := t.TempDir()
	if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(filepath.Join(dir, workspace.ModulesFile), mods); err != nil {
		t.Fatal(err)
	}
	idx := newFakeIndex(fixtureEntries(decls))
	ws, err := NewWorkspace("main", dir, idx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Workspaces: []*Workspace{ws}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &testServer{Server: s, ts: newHTTPTest(t, s), idx: idx, dir: dir}
}

// TestPremiseServerImports: imported_modules stands for the modules and
// everything they import; private declarations of other modules are not
// importable, except through `import all` in the module system.
func TestPremiseServerImports(t *testing.T) {
	ts := newImportsServer(t)
	_, body := ts.do(t, "GET", "/premises/indexed-modules", "", "")
	var mods []string
	want := []string{"Init.Prelude", "Mathlib", "Mathlib.Analysis.SpecialFunctions.Sqrt", "Mathlib.Data.Nat.ModEq",
		"Mathlib.Data.Nat.Prime.Basic", "Mathlib.Data.Nat.Prime.Defs"}
	if err := json.Unmarshal([]byte(body), &mods); err != nil || !slices.Equal(mods, want) {
		t.Fatalf("/indexed-modules = %s, want %v (modules.parquet's, with the umbrella)", body, want)
	}
	retrieve := func(body string) []string {
		return hitNamesOf(retrieveHits(t, ts, "/premises/retrieve", body))
	}
	onlyFrom := func(what string, got []string, allowed ...string) {
		t.Helper()
		for _, n := range got {
			if !slices.Contains(allowed, n) {
				t.Errorf("%s: %s is not importable (got %v)", what, n, got)
			}
		}
	}
	// Lean's client (Cloud.lean selectPremisesCore, Json.compress) with only
	// Basic's index: Defs and Init.Prelude come with it, Sqrt and ModEq do not.
	got := retrieve(`{"caller_in_module_system":false,"imported_all_modules":[],"imported_modules":[4],"k":32,` +
		`"local_premises":[],"new_premises":[],"state":"p : ℕ\nhp : Nat.Prime p\n⊢ LE.le 2 p"}`)
	onlyFrom("imports [Basic]", got, "Nat", "Nat.Prime", "Dvd.dvd", "Nat.Prime.dvd_mul", "Nat.Prime.two_le")
	if !slices.Contains(got, "Nat.Prime.two_le") || !slices.Contains(got, "Nat.Prime") {
		t.Errorf("imports [Basic]: %v lacks Defs' declarations (imported through Basic)", got)
	}
	// The umbrella by name: everything but the private lemma.
	got = retrieve(`{"state":"⊢ Nat.Prime 2","imported_modules":["Mathlib"],"k":32}`)
	onlyFrom("imports [Mathlib]", got, "Nat", "Nat.Prime", "Dvd.dvd", "Nat.Prime.dvd_mul", "Nat.Prime.two_le", "Nat.«term_≡_[MOD_]»")
	if len(got) < 3 {
		t.Errorf("imports [Mathlib]: %v", got)
	}
	// A caller in the module system that imported Defs with `import all`
	// sees its private lemma; outside the module system the field is unused.
	all := `{"caller_in_module_system":%v,"imported_all_modules":[5],"imported_modules":[0,4,5],"k":32,` +
		`"local_premises":[],"new_premises":[],"state":"p : ℕ\nhp : Nat.Prime p\n⊢ LE.le 2 p"}`
	if got := retrieve(fmt.Sprintf(all, true)); !slices.Contains(got, "Nat.Prime.two_le_aux") {
		t.Errorf("import all Defs (module system): %v lacks the private Nat.Prime.two_le_aux", got)
	}
	if got := retrieve(fmt.Sprintf(all, false)); slices.Contains(got, "Nat.Prime.two_le_aux") {
		t.Errorf("import all outside the module system: %v has the private lemma", got)
	}
	// lean-lsp-mcp's body (no module lists: every premise) hides it too.
	if got := retrieve(lspHammerBody); slices.Contains(got, "Nat.Prime.two_le_aux") || len(got) == 0 {
		t.Errorf("every premise: %v", got)
	}
}
