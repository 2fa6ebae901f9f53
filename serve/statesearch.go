package serve

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/retrieval/proof"
)

// LeanStateSearch compatibility: LeanSearchClient's #statesearch tactic
// (LeanSearchClient/Syntax.lean at c5d5b8fe, getStateSearchQueryJson)
// curls
//
//	GET $LEANSEARCHCLIENT_LEANSTATESEARCH_API_URL?query=GOAL&results=N&rev=REV
//
// with the main goal as Meta.ppGoal prints it, N = statesearch.queries and
// REV = statesearch.revision (default "v" ++ Lean.versionString), and reads
// each element's name, formal_type, doc and kind; an error object
// {"error", "schema": {"description"}} is shown to the user as it is.
// lean-lsp-mcp's lean_state_search asks $LEAN_STATE_SEARCH_URL/api/search
// the same way. Both point at http://HOST:PORT/statesearch(/api/search).
// The goal is answered by the proof profile, like the premise server.

// StateSearchResult is one answer item.
type StateSearchResult struct {
	Name       string `json:"name"`
	FormalType string `json:"formal_type"`
	Doc        string `json:"doc"`
	Kind       string `json:"kind"`
}

// stateSearchError answers in the error shape LeanSearchClient prints.
func stateSearchError(w http.ResponseWriter, status int, field, msg string) {
	writeJSON(w, status, map[string]any{"error": msg, "field": field, "schema": map[string]string{"description": msg}})
}

// revWorkspace chooses the workspace a rev names: "" the default, else the
// workspace of that name, else the one whose declarations carry that
// library revision (a commit or its prefix of at least 7 characters).
func (s *Server) revWorkspace(rev string) (*Workspace, error) {
	if rev == "" {
		return s.def, nil
	}
	if w := s.ws[rev]; w != nil {
		return w, nil
	}
	var served []string
	for _, w := range s.opts.Workspaces {
		p, release := w.pin()
		e, err := s.graph(w, p)
		release()
		if err != nil {
			return nil, err
		}
		for _, r := range e.g.Revisions() {
			if r == rev || len(rev) >= 7 && strings.HasPrefix(r, rev) {
				return w, nil
			}
		}
		served = append(served, fmt.Sprintf("%s (revision %s)", w.Name, strings.Join(e.g.Revisions(), ", ")))
	}
	return nil, badField("rev", "no served workspace is revision %q; served: %s. Set statesearch.revision (or "+
		"LEAN_STATE_SEARCH_REV) to one of them, or serve the workspace under that name (--ws %s=DIR)",
		truncate(rev, 64), strings.Join(served, "; "), truncate(rev, 64))
}

// handleStateSearch answers GET /statesearch/api/search.
func (s *Server) handleStateSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	goal := q.Get("query")
	if strings.TrimSpace(goal) == "" {
		stateSearchError(w, http.StatusBadRequest, "query", "query: missing or empty (the goal to search for)")
		return
	}
	if err := checkTextMax("query", goal, maxGoal); err != nil {
		stateSearchError(w, http.StatusBadRequest, "query", err.Error())
		return
	}
	n := DefaultLeanSearchResults
	if v := q.Get("results"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > s.lim.MaxK {
			stateSearchError(w, http.StatusBadRequest, "results", fmt.Sprintf("results: %q: want an integer from 1 to %d", truncate(v, 32), s.lim.MaxK))
			return
		}
	}
	ws, err := s.revWorkspace(q.Get("rev"))
	var fe *fieldError
	if errorsAs(err, &fe) {
		stateSearchError(w, http.StatusNotFound, fe.field, fe.Error())
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	p, release := ws.pin()
	defer release()
	e, err := s.graph(ws, p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	similar, err := proofSimilar(r.Context(), p, goal, proof.DefaultWeights().Depth)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// Declarations Lean makes private to their module cannot be written by
	// the user who asks: they are never answered.
	public := func(id int32) bool { return !e.g.Private(id) }
	hits := e.g.Rank(&proof.Query{Goal: goal, K: n, Similar: similar, Candidate: public})
	out := make([]StateSearchResult, 0, len(hits))
	for _, h := range hits {
		ent, _ := p.Lookup(h.Name)
		kind := ent.Kind
		if kind == "" {
			kind = e.g.Kind(mustID(e.g, h.Name))
		}
		out = append(out, StateSearchResult{Name: h.Name, FormalType: LeanType(ent.Signature), Doc: p.decls.Docstring(h.Name), Kind: kind})
	}
	writeJSON(w, http.StatusOK, out)
}

func mustID(g *proof.Graph, name string) int32 {
	id, _ := g.ID(name)
	return id
}
