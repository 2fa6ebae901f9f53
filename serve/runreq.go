package serve

import (
	"context"
	"net/http"
	"strings"
)

// DriftRequest is the body of POST /api/drift and /api/drift/context.
type DriftRequest struct {
	// Statement is the informal statement to formalize (required).
	Statement string `json:"statement"`
	// Header is the Lean text the statement is checked after ("": the
	// runner's default, `import Mathlib`).
	Header string `json:"header,omitempty"`
	// Reference is a formal statement to compare with by BEq+ (optional).
	Reference string `json:"reference,omitempty"`
	// Self is the statement's own declaration, never retrieved nor used as
	// an illustration (optional).
	Self string `json:"self,omitempty"`
	// Exclude lists more names never retrieved nor illustrated.
	Exclude []string `json:"exclude,omitempty"`
	// TopK is the retrieval depth of the context-only mode and of
	// no_decompose (default 5); PerQuery the hits each sub-query adds
	// (default 1); Illustrations how many theorems illustrate (default 3).
	TopK          int `json:"top_k,omitempty"`
	PerQuery      int `json:"per_query,omitempty"`
	Illustrations int `json:"illustrations,omitempty"`
	// NoDecompose retrieves with the whole statement; NoIllustrate drops
	// the illustrations.
	NoDecompose  bool `json:"no_decompose,omitempty"`
	NoIllustrate bool `json:"no_illustrate,omitempty"`
	// Samples (default 1, at most 8) and Repair rounds (default 0, at most
	// 5).
	Samples int `json:"samples,omitempty"`
	Repair  int `json:"repair,omitempty"`
}

// ToMapRequest is the body of POST /api/tomap: one theorem with its
// informal proof.
type ToMapRequest struct {
	Theorem string `json:"theorem"`
	Proof   string `json:"proof"`
	// FormalStatement, when given, is what the last unit must match.
	FormalStatement string `json:"formal_statement,omitempty"`
	// Method is tomap (default), proofflow or end2end; Rounds the
	// evolution rounds of tomap (default 10, at most 20).
	Method string `json:"method,omitempty"`
	Rounds int    `json:"rounds,omitempty"`
}

// maxLeanText caps headers, references and proofs (bytes).
const maxLeanText = 64 << 10

func (s *Server) checkLong(field, t string, max int) error { return checkTextMax(field, t, max) }

func (s *Server) checkDrift(r *DriftRequest) error {
	if err := s.checkText("statement", r.Statement); err != nil {
		return err
	}
	if strings.TrimSpace(r.Statement) == "" {
		return badField("statement", "empty statement")
	}
	for _, f := range []struct {
		name, v string
	}{{"header", r.Header}, {"reference", r.Reference}} {
		if err := s.checkLong(f.name, f.v, maxLeanText); err != nil {
			return err
		}
	}
	if err := s.checkLong("self", r.Self, 1024); err != nil {
		return err
	}
	if len(r.Exclude) > maxListItems {
		return badField("exclude", "%d names: at most %d", len(r.Exclude), maxListItems)
	}
	for _, c := range []struct {
		name   string
		v, max int
	}{{"top_k", r.TopK, s.lim.MaxK}, {"per_query", r.PerQuery, 50}, {"illustrations", r.Illustrations, 20}, {"samples", r.Samples, 8}, {"repair", r.Repair, 5}} {
		if c.v < 0 || c.v > c.max {
			return badField(c.name, "%d: want 0 (default) to %d", c.v, c.max)
		}
	}
	return nil
}

func (s *Server) checkToMap(r *ToMapRequest) error {
	if err := s.checkLong("theorem", r.Theorem, maxLeanText); err != nil {
		return err
	}
	if strings.TrimSpace(r.Theorem) == "" {
		return badField("theorem", "empty theorem")
	}
	if err := s.checkLong("proof", r.Proof, maxLeanText); err != nil {
		return err
	}
	if strings.TrimSpace(r.Proof) == "" {
		return badField("proof", "empty proof (ToMap maps an informal proof)")
	}
	if err := s.checkLong("formal_statement", r.FormalStatement, maxLeanText); err != nil {
		return err
	}
	switch r.Method {
	case "", "tomap", "proofflow", "end2end":
	default:
		return badField("method", "%q: want tomap, proofflow or end2end", truncate(r.Method, 32))
	}
	if r.Rounds < 0 || r.Rounds > 20 {
		return badField("rounds", "%d: want 0 (default) to 20", r.Rounds)
	}
	return nil
}

// handleDriftContext answers POST /api/drift/context: DRIFT's retrieve and
// illustrate for a statement, with the prompt a chat model would get; no
// model is called.
func (s *Server) handleDriftContext(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var req DriftRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.checkDrift(&req); err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.driftContext(r.Context(), ws, &req)
	if err != nil {
		s.failRun(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) driftContext(ctx context.Context, ws *Workspace, req *DriftRequest) (any, error) {
	if s.opts.Runs == nil || s.opts.Runs.Context == nil {
		return nil, &unavailableError{"DRIFT context is not configured on this server"}
	}
	return s.opts.Runs.Context(ctx, ws, req)
}
