package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/internal/leantext"
	"github.com/driftkit/driftkit/retrieval"
)

// LeanSearch compatibility: Mathlib's #leansearch (the LeanSearchClient
// package) POSTs {"query": ["…"], "num_results": n} to the URL in
// LEANSEARCHCLIENT_LEANSEARCH_API_URL (default https://leansearch.net/search)
// and reads, from the first array of the answer, each element's
// "result" object: name (the name's components), type, docstring, doc_url
// and kind. Pointing that variable at http://HOST:PORT/search makes
// #leansearch query this server.

// leanSearchRequest is the request body. num_results is a number for
// LeanSearchClient and a string for some other clients; both are read.
type leanSearchRequest struct {
	Query      json.RawMessage `json:"query"`
	NumResults json.RawMessage `json:"num_results"`
}

// LeanSearchResult is one answer item: {"result": {...}}.
type LeanSearchResult struct {
	Result LeanSearchEntry `json:"result"`
}

// LeanSearchEntry has the fields LeanSearchClient reads (name, type,
// docstring, doc_url, kind) and those leansearch.net adds that other
// clients use (module_name, signature, informal_name,
// informal_description). Type is the statement as a Lean term (∀ binders,
// type), omitted when the signature has no type; docstring is "" when
// there is none, as LeanSearchClient expects.
type LeanSearchEntry struct {
	Name                []string `json:"name"`
	ModuleName          []string `json:"module_name"`
	Kind                string   `json:"kind"`
	Type                string   `json:"type,omitempty"`
	Signature           string   `json:"signature"`
	Docstring           string   `json:"docstring"`
	DocURL              string   `json:"doc_url"`
	InformalName        string   `json:"informal_name"`
	InformalDescription string   `json:"informal_description"`
}

// DefaultLeanSearchResults is num_results when a request omits it (as
// LeanSearchClient's own default).
const DefaultLeanSearchResults = 6

func (s *Server) parseLeanSearch(r *http.Request) ([]string, int, error) {
	var req leanSearchRequest
	body, err := readBody(r)
	if err != nil {
		return nil, 0, err
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, 0, badField("body", "want a JSON object {\"query\": [\"…\"], \"num_results\": n}: %v", err)
	}
	var queries []string
	q := bytes.TrimSpace(req.Query)
	switch {
	case len(q) == 0 || string(q) == "null":
		return nil, 0, badField("query", "missing: want a list of strings")
	case q[0] == '"':
		var one string
		if err := json.Unmarshal(q, &one); err != nil {
			return nil, 0, badField("query", "want a list of strings")
		}
		queries = []string{one}
	default:
		if err := json.Unmarshal(q, &queries); err != nil {
			return nil, 0, badField("query", "want a list of strings")
		}
	}
	if len(queries) == 0 {
		return nil, 0, badField("query", "empty list")
	}
	if len(queries) > s.lim.MaxQueries {
		return nil, 0, badField("query", "%d queries: at most %d per request", len(queries), s.lim.MaxQueries)
	}
	for _, t := range queries {
		if err := s.checkText("query", t); err != nil {
			return nil, 0, err
		}
		if strings.TrimSpace(t) == "" {
			return nil, 0, badField("query", "an empty query")
		}
	}
	n := DefaultLeanSearchResults
	if nr := bytes.TrimSpace(req.NumResults); len(nr) > 0 && string(nr) != "null" {
		text := string(nr)
		if nr[0] == '"' {
			if err := json.Unmarshal(nr, &text); err != nil {
				return nil, 0, badField("num_results", "want an integer")
			}
		}
		v, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return nil, 0, badField("num_results", "want an integer, got %s", truncate(string(nr), 32))
		}
		n = v
	}
	if n < 1 || n > s.lim.MaxK {
		return nil, 0, badField("num_results", "%d: want 1 to %d", n, s.lim.MaxK)
	}
	return queries, n, nil
}

// handleLeanSearch answers POST /search in LeanSearch's format: one array
// of results per query. Every kind is a candidate and the profile is
// automatic (theorem search), as on the search page.
func (s *Server) handleLeanSearch(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	queries, n, err := s.parseLeanSearch(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// Links are relative unless the server knows its public address: the
	// request's Host header is the client's to choose.
	base := ""
	if s.public != nil {
		base = s.public.String()
	}
	qs := make([]retrieval.Query, len(queries))
	for i, text := range queries {
		qs[i] = retrieval.Query{Text: text, K: n, Mode: retrieval.ModeBest,
			Profile: retrieval.ProfileAuto, Filter: retrieval.Filter{AllKinds: true}, Vocabulary: s.opts.Vocabulary}
	}
	p, release := ws.pin()
	defer release()
	c := ws.answerCache(qs[0])
	var kb strings.Builder
	kb.WriteString(base)
	for _, q := range qs {
		kb.WriteString(queryKey("\x00lean", q))
	}
	key := kb.String()
	if b, ok := c.get(p, key); ok {
		writeJSONBytes(w, b.([]byte))
		return
	}
	all, err := s.leanSearchAll(r.Context(), ws, p, qs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([][]LeanSearchResult, len(queries))
	for i, hits := range all {
		out[i] = make([]LeanSearchResult, 0, len(hits))
		for _, h := range hits {
			e, _ := p.Lookup(h.Name)
			le := LeanSearchEntry{Name: SplitName(h.Name), ModuleName: SplitName(h.Module), Kind: h.Kind,
				Type: LeanType(e.Signature), Signature: e.Signature, DocURL: base + s.declPage(ws, h.Name),
				InformalName: e.InformalName, InformalDescription: e.InformalStatement}
			le.Docstring = p.decls.Docstring(h.Name)
			if e.InformalSource == "docstring" {
				// The index's informal text is the docstring itself.
				le.InformalName, le.InformalDescription = "", ""
			}
			if le.ModuleName == nil {
				le.ModuleName = []string{}
			}
			out[i] = append(out[i], LeanSearchResult{Result: le})
		}
	}
	b := encodeJSON(out)
	c.put(p, key, b, int64(len(b)))
	writeJSONBytes(w, b)
}

// SplitName splits a Lean name into its components, keeping «quoted»
// components (which may contain dots) whole: "Nat.Prime" → [Nat Prime].
func SplitName(name string) []string {
	if name == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i, r := range name {
		switch {
		case r == '«':
			depth++
		case r == '»' && depth > 0:
			depth--
		case r == '.' && depth == 0 && i > start:
			out = append(out, name[start:i])
			start = i + 1
		}
	}
	return append(out, name[start:])
}

// LeanType turns a signature as written, "(p : ℕ) (hp : p.Prime) : 2 ≤ p",
// into the statement as one term, "∀ (p : ℕ) (hp : p.Prime), 2 ≤ p" (what
// a `have : T := name` suggestion needs). It is "" when the signature has
// no type (a definition whose type is inferred).
func LeanType(sig string) string {
	sig = strings.Join(strings.Fields(sig), " ")
	c := leantext.TopColon(sig)
	if c < 0 {
		return ""
	}
	binders, typ := strings.TrimSpace(sig[:c]), strings.TrimSpace(sig[c+1:])
	if typ == "" {
		return ""
	}
	if binders == "" {
		return typ
	}
	return "∀ " + binders + ", " + typ
}

// leanSearchAll answers a LeanSearch request's queries: in one pass over
// the dense vectors, or, on a workspace with an Augmenter, each rewritten
// by the model (concurrently: the model's latency, not the search's, sets
// the time) and its variants searched.
func (s *Server) leanSearchAll(ctx context.Context, ws *Workspace, v View, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	if ws.Augment == nil {
		return searchAllPublic(ctx, ws, v, qs)
	}
	all := make([][]retrieval.Hit, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Go(func() { all[i], _, errs[i] = searchHits(ctx, ws, v, q) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return all, nil
}

// searchAllPublic is retrieval.SearchAll without the declarations Lean
// makes private to their module (as searchHits): each query asks for more
// hits than wanted, and one whose answer the private ones shortened is
// asked again on its own.
func searchAllPublic(ctx context.Context, ws *Workspace, v View, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	p, ok := v.(*pinned)
	if !ok || len(p.decls.private) == 0 {
		return retrieval.SearchAll(ctx, v, qs)
	}
	qs = slices.Clone(qs) // the caller's queries keep their K
	more := make([]retrieval.Query, len(qs))
	for i, q := range qs {
		if q.K <= 0 {
			qs[i].K = defaultEngineK
		}
		more[i] = qs[i]
		more[i].K = overAsk(qs[i], 2)
	}
	all, err := retrieval.SearchAll(ctx, v, more)
	if err != nil {
		return nil, err
	}
	for i, hits := range all {
		kept := p.decls.Public(hits)
		if len(kept) >= qs[i].K || len(hits) < more[i].K {
			all[i] = kept[:min(len(kept), qs[i].K)]
			continue
		}
		if all[i], _, err = searchHits(ctx, ws, v, qs[i]); err != nil {
			return nil, err
		}
	}
	return all, nil
}
