package serve

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzServer is one server for a fuzz run (fixture workspace, fake index).
func fuzzServer(f *testing.F) *Server {
	ts := newTestServer(f, Options{Limits: Limits{MaxBody: 8192}})
	return ts.Server
}

// FuzzLeanSearchRequest: any body to POST /search answers 200 with the
// LeanSearch shape or 400/413 naming a field; never a 500 or a panic.
func FuzzLeanSearchRequest(f *testing.F) {
	for _, seed := range []string{
		`{"num_results": 6, "query": ["If a natural number n is less than m, then the successor of n is less than the successor of m."]}`,
		`{"query": ["prime", "square root"], "num_results": "2"}`,
		`{"query": "prime"}`, `{"query": [1]}`, `[]`, `{"num_results": 1e400}`, `{"query": ["\u0000"]}`, ``,
	} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req := localRequest("POST", "/search", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200:
			var out [][]LeanSearchResult
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
				t.Fatalf("200 but not the LeanSearch shape: %v: %s", err, rec.Body.String())
			}
		case 400, 413:
			var e apiError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Field == "" {
				t.Fatalf("%d without a field: %s", rec.Code, rec.Body.String())
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.String())
		}
	})
}

// FuzzSearchQuery: any query string to GET /api/search and the page.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{"q=prime&k=5", "q=%ff", "q=a&k=-1", "q=a&kinds=theorem,lemma", "q=a&all_kinds=yes&mode=bm25", "ws=other&q=ℕ"} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/api/search?", "/?"} {
			req := localRequest("GET", "/", nil)
			req.URL.RawQuery = query
			req.URL.Path = strings.TrimSuffix(path, "?")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 && rec.Code != 400 {
				t.Fatalf("%s%s: status %d: %s", path, query, rec.Code, rec.Body.String())
			}
		}
	})
}

// FuzzLeanType: SplitName and LeanType never panic and keep the text.
func FuzzLeanType(f *testing.F) {
	for _, s := range []string{"{p : ℕ} (hp : p.Prime) : 2 ≤ p", "Nat.«a.b».c", "((:", "«»..", ": T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts := SplitName(s)
		if s != "" && strings.Join(parts, ".") != s {
			t.Fatalf("SplitName(%q) = %q does not join back", s, parts)
		}
		if ty := LeanType(s); utf8.ValidString(s) && !utf8.ValidString(ty) {
			t.Fatalf("LeanType(%q) = %q broke UTF-8", s, ty)
		}
	})
}
