package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

func (f *fakeIndex) nQueries() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queries)
}

// TestIdenticalSearchesAreAnsweredOnce: the API, LeanSearch and the search
// page answer a repeated request from the cache, byte for byte the first
// answer; a request that differs in any field is searched.
func TestIdenticalSearchesAreAnsweredOnce(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/search?q=prime&k=5", ""},
		{"POST", "/api/search", `{"query":"prime","k":5,"mode":"bm25"}`},
		{"POST", "/search", `{"query":["prime divides"],"num_results":3}`},
		{"GET", "/?q=prime+number", ""},
	} {
		ct := ""
		if r.body != "" {
			ct = "application/json"
		}
		n := ts.idx.nQueries()
		resp, first := ts.do(t, r.method, r.path, ct, r.body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, resp.StatusCode, first)
		}
		_, again := ts.do(t, r.method, r.path, ct, r.body)
		if got := ts.idx.nQueries() - n; got != 1 {
			t.Errorf("%s %s twice: the index got %d queries, want 1", r.method, r.path, got)
		}
		if again != first {
			t.Errorf("%s %s: the cached answer differs:\n%s\n%s", r.method, r.path, first, again)
		}
	}
	n := ts.idx.nQueries()
	for _, path := range []string{"/api/search?q=prime&k=6", "/api/search?q=prime&k=5&all_kinds=1", "/api/search?q=prime&k=5&exclude=Nat.Prime",
		"/api/search?q=prime&k=5&kinds=theorem", "/api/search?q=prime&k=5&formal=p", "/api/search?q=prime&k=5&mode=dense"} {
		ts.do(t, "GET", path, "", "")
	}
	if got := ts.idx.nQueries() - n; got != 6 {
		t.Errorf("6 different searches: the index got %d queries", got)
	}
}

// TestReloadNeverServesACachedOldAnswer: after a reload to a generation
// whose answers differ, a request asked before gets the new generation's
// answer — whether the reload went through Workspace.Reload (which empties
// the cache) or the pinned generation simply changed under a cached answer
// (a request that started on the old generation and stored its answer
// after the reload).
func TestReloadNeverServesACachedOldAnswer(t *testing.T) {
	for _, how := range []string{"reload", "generation changed under the cache"} {
		t.Run(how, func(t *testing.T) {
			ts := newTestServer(t, Options{})
			names := func(body string) string {
				var sr SearchResponse
				if err := json.Unmarshal([]byte(body), &sr); err != nil {
					t.Fatalf("%v: %s", err, body)
				}
				var out []string
				for _, h := range sr.Hits {
					out = append(out, h.Name+"="+h.InformalStatement)
				}
				return strings.Join(out, ",")
			}
			const path = "/api/search?q=prime&all_kinds=1"
			_, body := ts.do(t, "GET", path, "", "")
			before := names(body)
			if !strings.Contains(before, "Nat.Prime.two_le") {
				t.Fatalf("the first answer lacks Nat.Prime.two_le: %s", before)
			}
			// The next generation: Nat.Prime.two_le is gone and Nat.Prime's
			// informal statement is new.
			var entries []retrieval.Entry
			for _, e := range ts.idx.entries {
				if e.Name == "Nat.Prime.two_le" {
					continue
				}
				if e.Name == "Nat.Prime" {
					e.InformalStatement = "A prime of the new generation."
				}
				entries = append(entries, e)
			}
			next := newFakeIndex(entries)
			ts.idx.mu.Lock()
			ts.idx.entries, ts.idx.byName = next.entries, next.byName
			ts.idx.mu.Unlock()
			if how == "reload" {
				ts.idx.reloadBlock = make(chan struct{})
				close(ts.idx.reloadBlock)
				if st := reloadAndWait(t, ts.ts.Client(), ts.ts.URL); st.State != ReloadDone {
					t.Fatalf("reload: %+v", st)
				}
			} else {
				ts.idx.gen.Add(1)
			}
			_, body = ts.do(t, "GET", path, "", "")
			after := names(body)
			if strings.Contains(after, "Nat.Prime.two_le") || !strings.Contains(after, "A prime of the new generation.") {
				t.Errorf("after the switch the answer is the old generation's:\n before %s\n after  %s", before, after)
			}
		})
	}
}

// TestCacheBounded: the cache keeps at most its bytes, dropping the least
// recently used answer.
func TestCacheBounded(t *testing.T) {
	c := &answerCache{max: 8 << 10}
	p := &pinned{about: IndexAbout{Generation: "g"}}
	for i := range 100 {
		c.put(p, strings.Repeat("k", i+1), make([]byte, 500), 500)
		if c.bytes > c.max {
			t.Fatalf("after %d answers the cache holds %d bytes > %d", i+1, c.bytes, c.max)
		}
	}
	if _, ok := c.get(p, strings.Repeat("k", 100)); !ok {
		t.Error("the last answer is not kept")
	}
	if _, ok := c.get(p, "k"); ok {
		t.Error("the first answer is still kept")
	}
	if _, ok := c.get(&pinned{about: IndexAbout{Generation: "h"}}, strings.Repeat("k", 100)); ok {
		t.Error("an answer of generation g is served to a request pinned on h")
	}
}
