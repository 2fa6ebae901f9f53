package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// escapeURI is Lean's System.Uri.escapeUri as LeanSearchClient applies it
// to the goal (LeanSearchClient/Syntax.lean at c5d5b8fe,
// getStateSearchQueryJson): every byte but RFC 3986's unreserved ones
// percent-encoded.
func escapeURI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}

func TestStateSearch(t *testing.T) {
	ts := newTestServer(t, Options{})
	goal := "p : ℕ\nhp : Nat.Prime p\n⊢ 2 ≤ p"
	// LeanSearchClient: apiUrl ++ s!"?query={s'}&results={num_results}&rev={rev}".
	resp, body := ts.do(t, "GET", "/statesearch/api/search?query="+escapeURI(goal)+"&results=6&rev=59fdb6b0", "", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var got []map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) == 0 {
		t.Fatalf("%v: %s", err, body)
	}
	byName := map[string]map[string]string{}
	for _, r := range got {
		for _, k := range []string{"name", "formal_type", "doc", "kind"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%v lacks %s", r, k)
			}
		}
		byName[r["name"]] = r
	}
	if r := byName["Nat.Prime.two_le"]; r == nil || r["formal_type"] != "∀ {p : ℕ} (hp : p.Prime), 2 ≤ p" || r["kind"] != "theorem" {
		t.Errorf("Nat.Prime.two_le: %v in %s", r, body)
	}
	if r := byName["Nat.Prime"]; r == nil || !strings.HasPrefix(r["doc"], "`Nat.Prime p` means") {
		t.Errorf("Nat.Prime's doc: %v", r)
	}
	// rev by workspace name, and results.
	_, body = ts.do(t, "GET", "/statesearch/api/search?query="+escapeURI(goal)+"&results=1&rev=other", "", "")
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 1 {
		t.Errorf("results=1 rev=other: %s", body)
	}
	// An unknown rev (the client's default is v{Lean.versionString}) is
	// refused in the shape the client prints: error and schema.description.
	resp, body = ts.do(t, "GET", "/statesearch/api/search?query="+escapeURI(goal)+"&results=6&rev=v4.29.0", "", "")
	var e struct {
		Error  string `json:"error"`
		Field  string `json:"field"`
		Schema struct {
			Description string `json:"description"`
		} `json:"schema"`
	}
	json.Unmarshal([]byte(body), &e)
	if resp.StatusCode != http.StatusNotFound || e.Field != "rev" || !strings.Contains(e.Schema.Description, "main (revision 59fdb6b0)") ||
		!strings.Contains(e.Error, "v4.29.0") {
		t.Errorf("unknown rev: %d %s", resp.StatusCode, body)
	}
	for q, field := range map[string]string{"?results=6": "query", "?query=%20&results=2": "query", "?query=x&results=0": "results", "?query=x&results=abc": "results"} {
		resp, body := ts.do(t, "GET", "/statesearch/api/search"+q, "", "")
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"field":"`+field+`"`) || !strings.Contains(body, `"description"`) {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
}

func TestLeanFinder(t *testing.T) {
	ts := newTestServer(t, Options{})
	// lean-lsp-mcp: orjson.dumps({"inputs": query, "top_k": int(num_results), "version": version}).
	resp, body := ts.do(t, "POST", "/leanfinder", "application/json", `{"inputs":"prime divides a product","top_k":5,"version":"v4.28.0"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var out struct {
		Results   []map[string]string `json:"results"`
		Workspace string              `json:"workspace"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Results) == 0 || out.Workspace != "main" {
		t.Fatalf("%v %s", err, body)
	}
	r := out.Results[0]
	if r["formal_name"] != "Nat.Prime.dvd_mul" || r["kind"] != "theorem" || r["path"] != "Mathlib.Data.Nat.Prime.Basic" ||
		r["type"] != "∀ {p m n : ℕ} (pp : p.Prime), p ∣ m * n ↔ p ∣ m ∨ p ∣ n" || !strings.Contains(r["informal_description"], "prime p divides") {
		t.Errorf("first result %v", r)
	}
	for _, k := range []string{"formal_name", "informal_name", "kind", "type", "informal_description", "path"} {
		if _, ok := r[k]; !ok {
			t.Errorf("result lacks %s", k)
		}
	}
	if q := ts.idx.lastQuery(); q.K != 5 || !q.Filter.AllKinds {
		t.Errorf("query %+v", q)
	}
	// version naming a served workspace chooses it.
	_, body = ts.do(t, "POST", "/leanfinder", "application/json", `{"inputs":"prime","top_k":5,"version":"other"}`)
	if !strings.Contains(body, `"workspace":"other"`) {
		t.Errorf("version=other: %s", body)
	}
	for b, field := range map[string]string{`{"top_k":5}`: "inputs", `{"inputs":["a"]}`: "inputs", `{"inputs":"a","top_k":0}`: "top_k",
		`{"inputs":"a","top_k":"5"}`: "top_k", `{"inputs":" "}`: "inputs"} {
		resp, body := ts.do(t, "POST", "/leanfinder", "application/json", b)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"field":"`+field+`"`) || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s", b, resp.StatusCode, body)
		}
	}
}
