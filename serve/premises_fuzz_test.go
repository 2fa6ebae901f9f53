package serve

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval/proof"
)

// FuzzRetrieveRequest: any body to POST /premises/retrieve or
// /leanfinder answers 200 in the protocol's shape or 400/413 naming a
// field; never a 500 or a panic. Seeds: the clients' bodies.
func FuzzRetrieveRequest(f *testing.F) {
	for _, seed := range []string{leanRetrieveBody, lspHammerBody,
		`{"inputs":"prime divides a product","top_k":5,"version":"v4.28.0"}`,
		`{"state":"⊢ True","k":-5}`, `{"state":"⊢ True","k":1e400}`, `{"state":"x","k":2,"imported_modules":[1.5,"A/B.lean",null]}`,
		`{"state":"x","k":2,"new_premises":[null,{"name":"","decl":""}]}`, `{"state":"\u0000","k":1}`, `null`, ``} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/premises/retrieve", "/leanfinder"} {
			rec := httptest.NewRecorder()
			req := localRequest("POST", path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			switch rec.Code {
			case 200:
				var hits []PremiseHit
				var lf struct {
					Results []LeanFinderResult `json:"results"`
				}
				if path == "/premises/retrieve" && json.Unmarshal(rec.Body.Bytes(), &hits) != nil ||
					path == "/leanfinder" && json.Unmarshal(rec.Body.Bytes(), &lf) != nil {
					t.Fatalf("%s: 200 not in the protocol's shape: %s", path, rec.Body.String())
				}
			case 400, 413:
				var e apiError
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Field == "" {
					t.Fatalf("%s: %d without a field: %s", path, rec.Code, rec.Body.String())
				}
			default:
				t.Fatalf("%s: status %d for %q: %s", path, rec.Code, body, rec.Body.String())
			}
		}
	})
}

// FuzzGoalOf: any signature makes a goal that ends in the target, with
// UTF-8 kept.
func FuzzGoalOf(f *testing.F) {
	for _, s := range []string{"(a b : ℕ) [Group G] : a = b", "((: :", "⦃x : α⦄ {y : β := 3} : P", ": T", "[", "(x : T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sig string) {
		g := proof.GoalOf(sig)
		if !strings.Contains(g, "⊢ ") || (strings.ToValidUTF8(sig, "") == sig && strings.ToValidUTF8(g, "") != g) {
			t.Fatalf("GoalOf(%q) = %q", sig, g)
		}
	})
}
