package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// leanSearchClientRequest is the request LeanSearchClient
// (LeanSearchClient/Syntax.lean, getLeanSearchQueryJson) sends: curl -X
// POST $LEANSEARCHCLIENT_LEANSEARCH_API_URL with these headers and, as
// --data, the pretty-printed Json.mkObj [("query", #[s]), ("num_results",
// n)] (Lean's Json objects print their keys sorted).
func leanSearchClientRequest(t *testing.T, apiURL, query string, n int) *http.Request {
	t.Helper()
	q, _ := json.Marshal(query)
	body := `{"num_results": ` + itoa(n) + `, "query": [` + string(q) + `]}`
	req, err := http.NewRequest("POST", apiURL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "LeanSearchClient")
	req.Header.Set("accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	return req
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// clientResult is what LeanSearchClient's SearchResult.ofLeanSearchJson?
// reads from one element: its "result" object's name (a list of strings,
// joined with '.'), and the optional type, docstring (dropped when empty),
// doc_url and kind.
type clientResult struct {
	Name, Type, Doc, DocURL, Kind string
}

func parseLikeLeanSearchClient(t *testing.T, body []byte) []clientResult {
	t.Helper()
	var outer []json.RawMessage
	if err := json.Unmarshal(body, &outer); err != nil {
		t.Fatalf("Could not obtain outer array: %v: %s", err, body)
	}
	var inner []map[string]json.RawMessage
	if err := json.Unmarshal(outer[0], &inner); err != nil {
		t.Fatalf("Could not obtain inner array: %v", err)
	}
	var out []clientResult
	for _, el := range inner {
		var res map[string]json.RawMessage
		if err := json.Unmarshal(el["result"], &res); err != nil {
			continue // filterMap drops it
		}
		var parts []string
		if err := json.Unmarshal(res["name"], &parts); err != nil {
			continue
		}
		str := func(k string) string {
			var s string
			json.Unmarshal(res[k], &s)
			return s
		}
		out = append(out, clientResult{Name: strings.Join(parts, "."), Type: str("type"), Doc: str("docstring"), DocURL: str("doc_url"), Kind: str("kind")})
	}
	return out
}

func TestLeanSearchShape(t *testing.T) {
	ts := newTestServer(t, Options{})
	req := leanSearchClientRequest(t, ts.ts.URL+"/search", "If a prime divides a product, it divides a factor.", 3)
	resp, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	q := ts.idx.lastQuery()
	if !q.Filter.AllKinds || q.Profile != retrieval.ProfileAuto || q.K != 3 || q.Mode != retrieval.ModeBest {
		t.Errorf("query %+v: want every kind, the automatic profile, k = num_results", q)
	}
	// The exact JSON shape: [[{"result": {...}}, ...]].
	var shape [][]map[string]map[string]any
	if err := json.Unmarshal(body, &shape); err != nil {
		t.Fatalf("shape: %v: %s", err, body)
	}
	if len(shape) != 1 || len(shape[0]) == 0 || len(shape[0]) > 3 {
		t.Fatalf("want one list of 1..3 results: %s", body)
	}
	for _, el := range shape[0] {
		if len(el) != 1 || el["result"] == nil {
			t.Errorf("element %v: want exactly {\"result\": …}", el)
		}
		for _, k := range []string{"name", "type", "docstring", "doc_url", "kind"} {
			if _, ok := el["result"][k]; !ok && !(k == "type" && el["result"]["kind"] == "inductive") {
				t.Errorf("result %v lacks %q", el["result"]["name"], k)
			}
		}
	}
	got := parseLikeLeanSearchClient(t, body)
	var gotNames []string
	for _, r := range got {
		gotNames = append(gotNames, r.Name)
	}
	if !slices.Contains(gotNames, "Nat.Prime.dvd_mul") {
		t.Fatalf("LeanSearchClient would see %v", gotNames)
	}
	for _, r := range got {
		switch r.Name {
		case "Nat.Prime.dvd_mul":
			if r.Type != "∀ {p m n : ℕ} (pp : p.Prime), p ∣ m * n ↔ p ∣ m ∨ p ∣ n" || r.Kind != "theorem" || r.DocURL != "/decl/Nat.Prime.dvd_mul" || r.Doc != "" {
				t.Errorf("%+v", r)
			}
		case "Nat.Prime":
			if !strings.Contains(r.Doc, "prime number") || r.Kind != "definition" {
				t.Errorf("%+v", r)
			}
		}
	}
	// Several queries: one list each, in order; num_results as a string
	// (as some clients send it) works too.
	resp2, body2 := ts.do(t, "POST", "/search", "application/json", `{"query": ["square root", "prime"], "num_results": "2"}`)
	var two [][]LeanSearchResult
	if err := json.Unmarshal([]byte(body2), &two); err != nil || resp2.StatusCode != 200 || len(two) != 2 {
		t.Fatalf("%d %v %s", resp2.StatusCode, err, body2)
	}
	if len(two[0]) == 0 || strings.Join(two[0][0].Result.Name, ".") != "Real.sqrt" || len(two[1]) > 2 {
		t.Errorf("two queries: %s", body2)
	}
	// num_results omitted: LeanSearchClient's default, 6.
	ts.do(t, "POST", "/search", "application/json", `{"query": ["prime"]}`)
	if q := ts.idx.lastQuery(); q.K != DefaultLeanSearchResults {
		t.Errorf("default k %d", q.K)
	}
}

func TestSplitNameAndLeanType(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Nat.Prime", []string{"Nat", "Prime"}},
		{"Nat", []string{"Nat"}},
		{"Nat.«term_≡_[MOD_]»", []string{"Nat", "«term_≡_[MOD_]»"}},
		{"Foo.«a.b».c", []string{"Foo", "«a.b»", "c"}},
		{"", nil},
	} {
		if got := SplitName(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ sig, want string }{
		{"{p : ℕ} (hp : p.Prime) : 2 ≤ p", "∀ {p : ℕ} (hp : p.Prime), 2 ≤ p"},
		{": 1 + 1 = 2", "1 + 1 = 2"},
		{"(p : ℕ)", ""},
		{"(f : α → β)\n    (h : ∀ x : α, f x = f x) : f = f", "∀ (f : α → β) (h : ∀ x : α, f x = f x), f = f"},
		{"[inst : Group G] {a : G} : a * a⁻¹ = 1", "∀ [inst : Group G] {a : G}, a * a⁻¹ = 1"},
	} {
		if got := LeanType(c.sig); got != c.want {
			t.Errorf("LeanType(%q) = %q, want %q", c.sig, got, c.want)
		}
	}
}
