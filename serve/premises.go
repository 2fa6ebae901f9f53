package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/proof"
	"github.com/driftkit/driftkit/workspace"
)

// Lean's premise-selection server protocol, as the cloud premise selector
// speaks it (github.com/hanwenzhu/premise-selection,
// PremiseSelection/Cloud.lean at 5d24284d; reference server
// github.com/hanwenzhu/lean-premise-server, app/main.py and app/retrieve.py
// at af21f771). With
//
//	set_option premiseSelection.apiBaseUrl "http://HOST:PORT/premises"
//
// Lean's hammer, grind +suggestions and the library-suggestion tactics ask
// this server; lean-lsp-mcp's lean_hammer_premise does with
// LEAN_HAMMER_URL=http://HOST:PORT/premises. The client curls
//
//	GET  BASE/indexed-premises  → ["name", …]  (indices refer to this list)
//	GET  BASE/indexed-modules   → ["Module", …]
//	GET  BASE/max-new-premises  → n
//	POST BASE/retrieve          {"state", "local_premises", "imported_modules",
//	                             "new_premises": [{"name","decl"}], "k", …}
//	                            → [{"name", "score"}, …]
//
// BASE/{ws}/… answers from workspace ws (a base URL per workspace); BASE/…
// from ?ws= or the default. The premises are ranked by the proof profile
// (retrieval/proof) over one pinned index generation and declarations
// table; only premises of the modules the caller imports (or names in
// local_premises) and its new premises are returned.

// Premise-server limits (the reference server's defaults): new premises
// beyond MaxNewPremises are dropped (the first ones kept), and k above the
// server's MaxK is lowered to it, as the reference does.
const (
	MaxNewPremises = 2048
	// maxPremiseDecl caps one new premise's decl (a signature with its
	// docstring), maxGoal the goal state, in bytes.
	maxPremiseDecl = 32 << 10
	maxGoal        = 64 << 10
	// premiseVectorCache is how many new premises' vectors are kept.
	premiseVectorCache = 16384
	// defaultPremiseBody caps a /retrieve body (2048 new premises with
	// docstrings, and the imported modules' indices).
	defaultPremiseBody = 16 << 20
)

// retrieveRequest is the body of POST /retrieve. Index lists are kept raw:
// each entry is an index (the client's way) or a name (older clients).
type retrieveRequest struct {
	State                json.RawMessage    `json:"state"`
	LocalPremises        *[]json.RawMessage `json:"local_premises"`
	ImportedModules      *[]json.RawMessage `json:"imported_modules"`
	NewPremises          []json.RawMessage  `json:"new_premises"`
	K                    json.RawMessage    `json:"k"`
	CallerInModuleSystem *bool              `json:"caller_in_module_system"`
	ImportedAllModules   *[]json.RawMessage `json:"imported_all_modules"`
}

// PremiseHit is one /retrieve answer item.
type PremiseHit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// proofGraphs caches each declarations table's proof graph and the
// answers of the two list routes (they are large and never change for one
// table).
type proofGraphs struct {
	mu sync.Mutex
	m  map[*Decls]*proofGraph
}

type proofGraph struct {
	once             sync.Once
	g                *proof.Graph
	err              error
	premises, mods   []byte
	modIndex         map[string]int
	revisionsMatched func(string) bool
}

// graph returns the proof graph of p's declarations, loading it on first
// use (Mathlib: a few seconds, once per declarations table; serve and mcp
// load it at start and a reload before it serves new declarations).
func (s *Server) graph(ws *Workspace, p *pinned) (*proofGraph, error) {
	e := s.proofs.entry(p.decls)
	e.once.Do(func() { e.load(p.decls.path) })
	if e.err != nil {
		return nil, fmt.Errorf("workspace %s: %w", ws.Name, e.err)
	}
	return e, nil
}

// entry returns d's cache entry, made on first use.
func (pg *proofGraphs) entry(d *Decls) *proofGraph {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.m == nil {
		pg.m = map[*Decls]*proofGraph{}
	}
	e := pg.m[d]
	if e == nil {
		e = &proofGraph{}
		pg.m[d] = e
	}
	return e
}

// prune forgets the graphs of tables no workspace serves any more (after
// a reload swapped them; requests still on them keep their pointer).
func (pg *proofGraphs) prune(served func(*Decls) bool) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	for d := range pg.m {
		if !served(d) {
			delete(pg.m, d)
		}
	}
}

// prepareProofGraph builds the proof graph of a reload's new declarations
// before the workspace serves them: the first premise request after a
// reload finds it built instead of waiting seconds.
func (s *Server) prepareProofGraph(ws *Workspace, d *Decls) {
	e := s.proofs.entry(d)
	e.once.Do(func() { e.load(d.path) })
	if e.err != nil {
		s.log.Warn("proof graph", "workspace", ws.Name, "err", e.err)
	}
}

func (s *Server) servesDecls(d *Decls) bool {
	for _, w := range s.opts.Workspaces {
		if w.decls.Load() == d {
			return true
		}
	}
	return false
}

func (e *proofGraph) load(path string) {
	if e.g, e.err = proof.Load(path, filepath.Join(filepath.Dir(path), workspace.ModulesFile)); e.err != nil {
		return
	}
	names := make([]string, e.g.Len())
	for i := range names {
		names[i] = e.g.Name(int32(i))
	}
	e.modIndex = map[string]int{}
	for i, m := range e.g.Modules() {
		e.modIndex[m] = i
	}
	if e.premises, e.err = marshalList(names); e.err == nil {
		e.mods, e.err = marshalList(e.g.Modules())
	}
}

func marshalList(v []string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// premiseWorkspace is the workspace of a premise route: the {ws} path
// segment, else ?ws=, else the default.
func (s *Server) premiseWorkspace(r *http.Request) (*Workspace, error) {
	if name := r.PathValue("ws"); name != "" {
		w := s.ws[name]
		if w == nil {
			return nil, badField("ws", "unknown workspace %q in the path (served: %s)", truncate(name, 64), strings.Join(s.names(), ", "))
		}
		return w, nil
	}
	return s.workspace(r)
}

// handlePremiseList answers GET /indexed-premises and /indexed-modules.
func (s *Server) handlePremiseList(modules bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ws, err := s.premiseWorkspace(r)
		if err != nil {
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
		body := e.premises
		if modules {
			body = e.mods
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(body)
	}
}

// handleMaxNewPremises answers GET /max-new-premises.
func (s *Server) handleMaxNewPremises(w http.ResponseWriter, r *http.Request) {
	if _, err := s.premiseWorkspace(r); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, MaxNewPremises)
}

// handleRetrieve answers POST /retrieve.
func (s *Server) handleRetrieve(w http.ResponseWriter, r *http.Request) {
	ws, err := s.premiseWorkspace(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := parseRetrieve(r, s.lim.MaxK)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if req.k <= 0 {
		writeJSON(w, http.StatusOK, []PremiseHit{})
		return
	}
	p, release := ws.pin()
	defer release()
	hits, err := s.retrieve(r.Context(), ws, p, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, hits)
}

// retrieval is a parsed /retrieve request.
type retrieveQuery struct {
	state           string
	k               int
	all             bool // neither imported_modules nor local_premises: every premise
	modules, locals []indexRef
	// importAll lists the modules imported with `import all` (read when
	// inModuleSystem).
	importAll      []indexRef
	inModuleSystem bool
	newPremises    []proof.NewPremise
}

// indexRef is an entry of an index list: an index, or a name.
type indexRef struct {
	i    int
	name string
}

func parseRetrieve(r *http.Request, maxK int) (*retrieveQuery, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var req retrieveRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, badField("body", "want a JSON object {\"state\", \"imported_modules\", \"local_premises\", \"new_premises\", \"k\"}: %v", err)
	}
	out := &retrieveQuery{all: req.ImportedModules == nil && req.LocalPremises == nil,
		inModuleSystem: req.CallerInModuleSystem != nil && *req.CallerInModuleSystem}
	if err := json.Unmarshal(req.State, &out.state); err != nil || req.State == nil {
		return nil, badField("state", "want the goal as a string (Meta.ppGoal)")
	}
	if strings.TrimSpace(out.state) == "" {
		return nil, badField("state", "an empty goal")
	}
	if err := checkTextMax("state", out.state, maxGoal); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(req.K, &out.k); err != nil || req.K == nil {
		return nil, badField("k", "want an integer")
	}
	out.k = min(out.k, maxK)
	for _, f := range []struct {
		name string
		raw  *[]json.RawMessage
		dst  *[]indexRef
	}{{"imported_modules", req.ImportedModules, &out.modules}, {"local_premises", req.LocalPremises, &out.locals},
		{"imported_all_modules", req.ImportedAllModules, &out.importAll}} {
		refs, err := parseRefs(f.name, f.raw)
		if err != nil {
			return nil, err
		}
		*f.dst = refs
	}
	if out.newPremises, err = parseNewPremises(req.NewPremises); err != nil {
		return nil, err
	}
	return out, nil
}

func parseRefs(field string, raw *[]json.RawMessage) ([]indexRef, error) {
	if raw == nil {
		return nil, nil
	}
	out := make([]indexRef, 0, len(*raw))
	for i, x := range *raw {
		var ref indexRef
		if err := json.Unmarshal(x, &ref.i); err != nil {
			ref.i = -1
			if err := json.Unmarshal(x, &ref.name); err != nil {
				return nil, badField(fmt.Sprintf("%s[%d]", field, i), "want an index (integer) or a name (string), got %s", truncate(string(x), 32))
			}
		}
		out = append(out, ref)
	}
	return out, nil
}

func parseNewPremises(raw []json.RawMessage) ([]proof.NewPremise, error) {
	// The reference keeps the first MaxNewPremises and drops the rest.
	raw = raw[:min(len(raw), MaxNewPremises)]
	out := make([]proof.NewPremise, 0, len(raw))
	for i, x := range raw {
		var np struct {
			Name *string `json:"name"`
			Decl *string `json:"decl"`
		}
		field := fmt.Sprintf("new_premises[%d]", i)
		if err := json.Unmarshal(x, &np); err != nil {
			return nil, badField(field, "want an object {\"name\", \"decl\"}")
		}
		switch {
		case np.Name == nil || strings.TrimSpace(*np.Name) == "":
			return nil, badField(field+".name", "missing or empty")
		case np.Decl == nil:
			return nil, badField(field+".decl", "missing")
		case len(*np.Name) > 1024:
			return nil, badField(field+".name", "longer than 1024 bytes")
		case len(*np.Decl) > maxPremiseDecl:
			return nil, badField(field+".decl", "%d bytes: at most %d", len(*np.Decl), maxPremiseDecl)
		}
		out = append(out, proof.NewPremise{Name: *np.Name, Decl: *np.Decl, Dense: nan()})
	}
	return out, nil
}

// candidates turns the request's module and premise lists into the
// importable set, as Lean's module system decides it.
//
// A caller outside the module system (caller_in_module_system false or
// absent) can use the declarations of the named modules and of every module
// they import, directly or not (modules.parquet; Lean's client sends the
// closure already, other clients may send direct imports), except those
// Lean makes private to their module (written `private`, or, in a module
// file, outside a `public section` and not `public`).
//
// A caller in the module system can use what its imports load
// (proof.Graph.Loaded: `public import`s of loaded modules, everything
// below an `import all`), private declarations of modules it imports with
// `import all` (imported_all_modules), and, as the reference server filters
// (lean-premise-server app/retrieve.py _is_visible at af21f771), of the
// other module-system declarations only theorems and those whose body is
// exposed (@[expose], abbrev, instance, structures): a def whose body its
// module keeps private cannot be unfolded by the caller.
//
// local_premises are taken as the caller names them (Lean's client lists
// what its environment can reference), under the same exposure filter.
// Unknown modules and out-of-range indices are ignored, as the reference
// server does.
func (e *proofGraph) candidates(req *retrieveQuery) func(int32) bool {
	g := e.g
	var all []bool
	if req.inModuleSystem {
		_, all = g.Loaded(nil, e.moduleIndices(req.importAll))
	}
	// usable: the exposure filter of a module-system caller.
	usable := func(id int32) bool {
		if !req.inModuleSystem || g.Exposed(id) || g.Kind(id) == workspace.KindTheorem {
			return true
		}
		m := g.ModuleOf(id)
		return !g.InModuleSystem(m) || all[m]
	}
	if req.all {
		return func(id int32) bool { return !g.Private(id) && usable(id) }
	}
	var mods []bool
	if req.inModuleSystem {
		mods, _ = g.Loaded(e.moduleIndices(req.modules), e.moduleIndices(req.importAll))
	} else {
		mods = g.ImportClosure(e.moduleIndices(req.modules))
	}
	locals := map[int32]bool{}
	for _, l := range req.locals {
		if l.i >= 0 && l.i < g.Len() {
			locals[int32(l.i)] = true
		} else if id, ok := g.ID(l.name); ok && l.i < 0 {
			locals[id] = true
		}
	}
	return func(id int32) bool {
		if locals[id] {
			return usable(id)
		}
		m := g.ModuleOf(id)
		if !mods[m] || g.Private(id) && (all == nil || !all[m]) {
			return false
		}
		return usable(id)
	}
}

// moduleIndices resolves module references (indices into
// /indexed-modules, or names and paths) to indices; unknown ones are
// dropped.
func (e *proofGraph) moduleIndices(refs []indexRef) []int {
	out := make([]int, 0, len(refs))
	n := len(e.g.Modules())
	for _, m := range refs {
		if m.i >= 0 && m.i < n {
			out = append(out, m.i)
		} else if i, ok := e.modIndex[strings.ReplaceAll(strings.TrimSuffix(m.name, ".lean"), "/", ".")]; ok && m.i < 0 {
			out = append(out, i)
		}
	}
	return out
}

// retrieve ranks premises for a parsed request on one pinned generation.
func (s *Server) retrieve(ctx context.Context, ws *Workspace, p *pinned, req *retrieveQuery) ([]PremiseHit, error) {
	e, err := s.graph(ws, p)
	if err != nil {
		return nil, err
	}
	w := proof.DefaultWeights()
	similar, err := proofSimilar(ctx, p, req.state, w.Depth)
	if err != nil {
		return nil, err
	}
	if err := s.premiseVectors.score(ctx, p, req.state, req.newPremises); err != nil {
		return nil, err
	}
	hits := e.g.Rank(&proof.Query{Goal: req.state, K: req.k, Similar: similar, Candidate: e.candidates(req), New: req.newPremises})
	out := make([]PremiseHit, len(hits))
	for i, h := range hits {
		out[i] = PremiseHit{Name: h.Name, Score: h.Score}
	}
	return out, nil
}

// proofSimilar is the proof profile's lexical list: the pinned index's
// BM25 over every kind, on the goal (its first maxLexicalGoal bytes).
func proofSimilar(ctx context.Context, v View, goal string, depth int) ([]string, error) {
	if len(goal) > maxLexicalGoal {
		cut := maxLexicalGoal
		for cut > 0 && !utf8.RuneStart(goal[cut]) {
			cut--
		}
		goal = goal[:cut]
	}
	hits, err := v.Search(ctx, retrieval.Query{Text: goal, K: depth, Mode: retrieval.ModeBM25, Filter: retrieval.Filter{AllKinds: true}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out, nil
}

// maxLexicalGoal bounds the goal text BM25 reads (a goal with hundreds of
// hypotheses would otherwise cost a scan of every posting they name).
const maxLexicalGoal = 8 << 10

// bodyLimit is a request's body cap: Limits.MaxBody, or, for a premise
// selector's /retrieve (up to MaxNewPremises declarations with their
// docstrings), at least defaultPremiseBody.
func (s *Server) bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/premises/") && strings.HasSuffix(r.URL.Path, "/retrieve") {
		return max(s.lim.MaxBody, defaultPremiseBody)
	}
	return s.lim.MaxBody
}

// warmProofGraphs loads every workspace's proof graph in the background
// (Mathlib's costs seconds of CPU: the first premise request would
// otherwise wait for it, past its timeout on a busy machine).
func (s *Server) warmProofGraphs() {
	for _, w := range s.opts.Workspaces {
		go func() {
			p, release := w.pin()
			defer release()
			if _, err := s.graph(w, p); err != nil {
				s.log.Warn("proof graph", "workspace", w.Name, "err", err)
			}
		}()
	}
}
