package serve

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/driftkit/driftkit/retrieval"
)

// Lean Finder compatibility: lean-lsp-mcp's lean_leanfinder tool
// (src/lean_lsp_mcp/tools/search.py at bb176c58) POSTs
//
//	{"inputs": QUERY, "top_k": N, "version": "v4.28.0"}
//
// to $LEAN_FINDER_URL and reads "results", each with formal_name,
// informal_name, kind, type, informal_description and path (a module,
// "/" read as "."); an answer with "error" is shown as the tool's error.
// With LEAN_FINDER_URL=http://HOST:PORT/leanfinder this server answers
// with theorem search (the profile of the search page and /search).
// version picks the workspace of that name when one is served (the client
// only offers Lean Finder's own versions, so another one is not refused:
// the answer's "workspace" says which library answered).

// LeanFinderResult is one answer item.
type LeanFinderResult struct {
	FormalName          string `json:"formal_name"`
	InformalName        string `json:"informal_name"`
	Kind                string `json:"kind"`
	Type                string `json:"type"`
	InformalDescription string `json:"informal_description"`
	Path                string `json:"path"`
}

// leanFinderRequest is the request body.
type leanFinderRequest struct {
	Inputs  json.RawMessage `json:"inputs"`
	TopK    json.RawMessage `json:"top_k"`
	Version string          `json:"version"`
}

// defaultLeanFinderResults is top_k when a request omits it (lean_leanfinder's default).
const defaultLeanFinderResults = 5

func (s *Server) parseLeanFinder(r *http.Request) (string, int, string, error) {
	body, err := readBody(r)
	if err != nil {
		return "", 0, "", err
	}
	var req leanFinderRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "", 0, "", badField("body", "want a JSON object {\"inputs\": \"…\", \"top_k\": n, \"version\": \"…\"}: %v", err)
	}
	var text string
	if err := json.Unmarshal(req.Inputs, &text); err != nil || req.Inputs == nil {
		return "", 0, "", badField("inputs", "want the query as a string")
	}
	if strings.TrimSpace(text) == "" {
		return "", 0, "", badField("inputs", "an empty query")
	}
	if err := s.checkText("inputs", text); err != nil {
		return "", 0, "", err
	}
	k := defaultLeanFinderResults
	if req.TopK != nil {
		if err := json.Unmarshal(req.TopK, &k); err != nil {
			return "", 0, "", badField("top_k", "want an integer")
		}
	}
	if k < 1 || k > s.lim.MaxK {
		return "", 0, "", badField("top_k", "%d: want 1 to %d", k, s.lim.MaxK)
	}
	return text, k, req.Version, nil
}

// handleLeanFinder answers POST /leanfinder.
func (s *Server) handleLeanFinder(w http.ResponseWriter, r *http.Request) {
	text, k, version, err := s.parseLeanFinder(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ws := s.ws[version]
	if ws == nil {
		if ws, err = s.workspace(r); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	p, release := ws.pin()
	defer release()
	q := retrieval.Query{Text: text, K: k, Mode: retrieval.ModeBest, Profile: retrieval.ProfileAuto, Filter: retrieval.Filter{AllKinds: true}, Vocabulary: s.opts.Vocabulary}
	hits, _, err := searchHits(r.Context(), ws, p, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]LeanFinderResult, 0, len(hits))
	for _, h := range hits {
		e, _ := p.Lookup(h.Name)
		typ := LeanType(e.Signature)
		if typ == "" {
			typ = e.Signature
		}
		lf := LeanFinderResult{FormalName: h.Name, InformalName: e.InformalName, Kind: h.Kind, Type: typ,
			InformalDescription: e.InformalStatement, Path: h.Module}
		if e.InformalSource == "docstring" {
			lf.InformalName = ""
		}
		out = append(out, lf)
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": out, "workspace": ws.Name})
}
