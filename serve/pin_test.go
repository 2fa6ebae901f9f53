package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Every request that searches and then describes its hits reads both from
// the one index generation it pinned, and releases it: here the pinned
// view has other signatures than the index's current one (as after a
// Reload between the search and the lookups), and every answer shows the
// pinned view's.
func TestRequestsReadOnePinnedGeneration(t *testing.T) {
	ts := newTestServer(t, Options{})
	pinned := newFakeIndex(fixtureEntries(fixtureDecls()))
	for name, e := range pinned.byName {
		e.Signature = "PINNED " + name
		pinned.byName[name] = e
	}
	for i := range pinned.entries {
		pinned.entries[i].Signature = "PINNED " + pinned.entries[i].Name
	}
	ts.idx.view = pinned

	resp, body := ts.do(t, http.MethodGet, "/api/search?q=prime+divides+a+product&all_kinds=true", "", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("search: %d %s", resp.StatusCode, body)
	}
	var sr SearchResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	if len(sr.Hits) == 0 {
		t.Fatal("no hits: the test proves nothing")
	}
	for _, h := range sr.Hits {
		if h.Signature != "PINNED "+h.Name {
			t.Errorf("search hit %s described from another generation: %q", h.Name, h.Signature)
		}
	}
	if n := len(ts.idx.queries); n != 0 {
		t.Errorf("%d searches went to the unpinned index", n)
	}

	resp, body = ts.do(t, http.MethodPost, "/search", "application/json", `{"query": ["prime divides a product", "square root"], "num_results": 3}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("leansearch: %d %s", resp.StatusCode, body)
	}
	var ls [][]LeanSearchResult
	if err := json.Unmarshal([]byte(body), &ls); err != nil {
		t.Fatal(err)
	}
	for _, r := range ls {
		for _, e := range r {
			if !strings.HasPrefix(e.Result.Signature, "PINNED ") {
				t.Errorf("LeanSearch result %v described from another generation: %q", e.Result.Name, e.Result.Signature)
			}
		}
	}

	resp, body = ts.do(t, http.MethodGet, "/api/decl/Nat.Prime.dvd_mul", "", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("decl: %d %s", resp.StatusCode, body)
	}
	var dr DeclResponse
	if err := json.Unmarshal([]byte(body), &dr); err != nil {
		t.Fatal(err)
	}
	if dr.Informal == nil || len(dr.StatementDeps) == 0 {
		t.Fatalf("decl answer lacks informal text or deps: %s", body)
	}
	if n := ts.idx.pins.Load(); n != 0 {
		t.Errorf("%d pins not released", n)
	}
}
