package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftkit/driftkit/retrieval/proof"
)

// The MCP server: the server's application layer (search, declarations,
// the usage graph, premise selection from a goal, the DRIFT context, the
// workspaces) as Model Context Protocol tools, for agents (Claude Code,
// Codex, lean-lsp-mcp users). `driftkit mcp` serves it over stdio, and
// `driftkit serve` at /mcp over the streamable HTTP transport, behind the
// same guards as every route. Built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). Every tool is read-only and
// idempotent; bad input is a tool error naming the argument, never a
// protocol error or a crashed session.

// mcpVersion is the version the MCP server reports.
const mcpVersion = "1"

// mcpMaxLimit caps search's limit (results an agent reads).
const mcpMaxLimit = 50

// MCP tool inputs. The jsonschema tags are the argument descriptions of
// the inferred input schemas, which the SDK validates every call against.
type (
	mcpSearchIn struct {
		Query     string   `json:"query" jsonschema:"what to look for: a statement in words, a formula, or a name"`
		Limit     int      `json:"limit,omitempty" jsonschema:"results wanted, 1 to 50 (default 10)"`
		Kinds     []string `json:"kinds,omitempty" jsonschema:"only these declaration kinds (theorem, definition, structure, class, inductive, instance, abbrev, axiom, opaque, …); default all"`
		Workspace string   `json:"workspace,omitempty" jsonschema:"served workspace name (see the workspaces tool); default the first"`
		Full      bool     `json:"full,omitempty" jsonschema:"full records (informal text and its provider) instead of compact ones"`
	}
	mcpNameIn struct {
		Name      string `json:"name" jsonschema:"full Lean name of the declaration, e.g. Nat.Prime.two_le"`
		Workspace string `json:"workspace,omitempty" jsonschema:"served workspace name; default the first"`
	}
	mcpUsedByIn struct {
		Name      string `json:"name" jsonschema:"full Lean name of the declaration"`
		Limit     int    `json:"limit,omitempty" jsonschema:"names wanted, 1 to 1000 (default 50)"`
		Workspace string `json:"workspace,omitempty" jsonschema:"served workspace name; default the first"`
	}
	mcpGoalIn struct {
		Goal        string          `json:"goal" jsonschema:"the proof state as Lean prints it (hypotheses, then ⊢ target)"`
		K           int             `json:"k,omitempty" jsonschema:"premises wanted, 1 to the server's cap (default 32)"`
		NewPremises []mcpNewPremise `json:"new_premises,omitempty" jsonschema:"declarations of your file the index does not know, ranked too"`
		Workspace   string          `json:"workspace,omitempty" jsonschema:"served workspace name; default the first"`
	}
	mcpNewPremise struct {
		Name string `json:"name" jsonschema:"its full name"`
		Decl string `json:"decl" jsonschema:"the declaration as Lean prints it: kind, name, signature"`
	}
	mcpDriftIn struct {
		Statement string `json:"statement" jsonschema:"the informal statement to formalize"`
		TopK      int    `json:"top_k,omitempty" jsonschema:"premises retrieved (default 5)"`
		Workspace string `json:"workspace,omitempty" jsonschema:"served workspace name; default the first"`
	}
	mcpNoIn struct{}
)

// MCP tool outputs.
type (
	mcpHit struct {
		Name              string  `json:"name"`
		Kind              string  `json:"kind"`
		Module            string  `json:"module,omitempty"`
		Score             float64 `json:"score"`
		Signature         string  `json:"signature,omitempty"`
		InformalName      string  `json:"informal_name,omitempty"`
		InformalStatement string  `json:"informal_statement,omitempty"`
		InformalProvider  string  `json:"informal_provider,omitempty"`
	}
	mcpSearchOut struct {
		Workspace string   `json:"workspace"`
		Encoder   string   `json:"encoder"`
		Hits      []mcpHit `json:"hits"`
	}
	mcpDeclOut struct {
		Workspace string  `json:"workspace"`
		Name      string  `json:"name"`
		Kind      string  `json:"kind"`
		Module    string  `json:"module"`
		Path      string  `json:"path"`
		LineStart int32   `json:"line_start"`
		LineEnd   int32   `json:"line_end"`
		Signature string  `json:"signature"`
		Docstring *string `json:"docstring"`
		// Informal is the informal name and statement with their provider
		// (template, docstring, an LLM); empty when there is none.
		InformalName      string `json:"informal_name,omitempty"`
		InformalStatement string `json:"informal_statement,omitempty"`
		InformalProvider  string `json:"informal_provider,omitempty"`
		Code              string `json:"code"`
	}
	mcpDepsOut struct {
		Workspace     string   `json:"workspace"`
		Name          string   `json:"name"`
		StatementDeps []string `json:"statement_deps"`
		ProofDeps     []string `json:"proof_deps"`
	}
	mcpUsedByOut struct {
		Workspace string   `json:"workspace"`
		Name      string   `json:"name"`
		Total     int      `json:"total"`
		UsedBy    []string `json:"used_by"`
	}
	mcpPremise struct {
		Name      string  `json:"name"`
		Score     float64 `json:"score"`
		New       bool    `json:"new,omitempty"`
		Kind      string  `json:"kind,omitempty"`
		Signature string  `json:"signature,omitempty"`
	}
	mcpPremisesOut struct {
		Workspace string       `json:"workspace"`
		Premises  []mcpPremise `json:"premises"`
	}
	mcpWorkspacesOut struct {
		Workspaces []WorkspaceInfo `json:"workspaces"`
	}
)

// compactSignature bounds a signature in compact results.
const compactSignature = 240

// MCPServer returns the MCP server over s's workspaces (made once).
func (s *Server) MCPServer() *mcp.Server {
	s.mcpOnce.Do(func() { s.mcp = s.newMCPServer() })
	return s.mcp
}

func (s *Server) newMCPServer() *mcp.Server {
	m := mcp.NewServer(&mcp.Implementation{Name: "driftkit", Title: "driftkit: search and premise selection over Lean libraries", Version: mcpVersion},
		&mcp.ServerOptions{Instructions: "Search a Lean 4 library (the workspaces tool lists which library, revision and encoder): search finds " +
			"declarations from words, formulas or names; premises_for_goal ranks lemmas for a proof state; get_declaration, " +
			"dependencies and used_by read the library's declarations and usage graph; drift_context gives the premises and " +
			"illustrations a formalization of a statement would use.", Logger: s.log})
	no := false
	ann := func(title string) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
	}
	mcp.AddTool(m, &mcp.Tool{Name: "search", Annotations: ann("Search declarations"), Description: "Search the library's declarations " +
		"by meaning, formula or name (theorem search over every kind, or the kinds given). Compact results (name, kind, module, " +
		"score, signature) unless full is true."}, mcpTool(s, s.mcpSearch))
	mcp.AddTool(m, &mcp.Tool{Name: "get_declaration", Annotations: ann("Get a declaration"), Description: "A declaration by full name: " +
		"signature, docstring, informal name and statement with their provider, module, source file and lines, and code."}, mcpTool(s, s.mcpDeclaration))
	mcp.AddTool(m, &mcp.Tool{Name: "dependencies", Annotations: ann("Dependencies"), Description: "The declarations a declaration's " +
		"statement uses and those its proof uses."}, mcpTool(s, s.mcpDependencies))
	mcp.AddTool(m, &mcp.Tool{Name: "used_by", Annotations: ann("Used by"), Description: "The declarations whose statement uses " +
		"a declaration (the usage graph), sorted by name, with their total."}, mcpTool(s, s.mcpUsedBy))
	mcp.AddTool(m, &mcp.Tool{Name: "premises_for_goal", Annotations: ann("Premises for a goal"), Description: "Premise selection: " +
		"lemmas a proof of the goal is likely to use (the proof profile: the goal's words and constants, what similar proofs use, " +
		"how often lemmas are used), best first; e.g. for simp only [...], aesop or hammer hints."}, mcpTool(s, s.mcpPremises))
	mcp.AddTool(m, &mcp.Tool{Name: "drift_context", Annotations: ann("DRIFT context"), Description: "The offline DRIFT context for " +
		"an informal statement: its sub-queries, the premises retrieved for them and the theorems that illustrate them, and the " +
		"prompt a formalizing model would get (no model is called)."}, mcpTool(s, s.mcpDriftContext))
	mcp.AddTool(m, &mcp.Tool{Name: "workspaces", Annotations: ann("Workspaces"), Description: "The served workspaces: library, " +
		"revision, index generation, encoder and sizes; the first is the default."}, mcpTool(s, s.mcpWorkspaces))
	return m
}

// mcpTool adapts a tool function: it bounds the call by the request
// timeout, turns bad input into a message naming the argument and a panic
// into a tool error (the session goes on).
func mcpTool[In, Out any](s *Server, fn func(context.Context, In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp tool panic", "panic", fmt.Sprint(p))
				err = errors.New("internal error (see the server log)")
			}
		}()
		ctx, cancel := context.WithTimeout(ctx, s.lim.RequestTimeout)
		defer cancel()
		out, err = fn(ctx, in)
		var fe *fieldError
		var nf *notFoundError
		switch {
		case err == nil:
		case errors.As(err, &fe):
			err = fmt.Errorf("argument %s", fe.Error())
		case errors.As(err, &nf):
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("the call took longer than %v", s.lim.RequestTimeout)
		default:
			s.log.Error("mcp tool failed", "err", err)
			err = errors.New("internal error (see the server log)")
		}
		return nil, out, err
	}
}

// mcpWorkspace resolves a workspace argument.
func (s *Server) mcpWorkspace(name string) (*Workspace, error) {
	if name == "" {
		return s.def, nil
	}
	if w := s.ws[name]; w != nil {
		return w, nil
	}
	return nil, badField("workspace", "unknown workspace %q (served: %s)", truncate(name, 64), strings.Join(s.names(), ", "))
}

func (s *Server) mcpSearch(ctx context.Context, in mcpSearchIn) (mcpSearchOut, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return mcpSearchOut{}, err
	}
	switch {
	case in.Limit == 0:
		in.Limit = 10
	case in.Limit < 0 || in.Limit > mcpMaxLimit:
		return mcpSearchOut{}, badField("limit", "%d: want 1 to %d", in.Limit, mcpMaxLimit)
	}
	q, err := s.query(SearchRequest{Query: in.Query, K: in.Limit, Kinds: in.Kinds, AllKinds: len(in.Kinds) == 0})
	if err != nil {
		return mcpSearchOut{}, err
	}
	p, release := ws.pin()
	defer release()
	resp, err := s.search(ctx, ws, p, q)
	if err != nil {
		return mcpSearchOut{}, err
	}
	out := mcpSearchOut{Workspace: ws.Name, Encoder: EncoderLabel(p.about), Hits: make([]mcpHit, len(resp.Hits))}
	for i, h := range resp.Hits {
		mh := mcpHit{Name: h.Name, Kind: h.Kind, Module: h.Module, Score: h.Score, Signature: h.Signature}
		if in.Full {
			mh.InformalName, mh.InformalStatement, mh.InformalProvider = h.InformalName, h.InformalStatement, h.ProviderLabel
		} else {
			mh.Signature = truncate(strings.Join(strings.Fields(h.Signature), " "), compactSignature)
		}
		out.Hits[i] = mh
	}
	return out, nil
}

func (s *Server) mcpDeclaration(ctx context.Context, in mcpNameIn) (mcpDeclOut, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return mcpDeclOut{}, err
	}
	p, release := ws.pin()
	defer release()
	d, err := s.declaration(ws, p, in.Name, 0)
	if err != nil {
		return mcpDeclOut{}, err
	}
	out := mcpDeclOut{Workspace: ws.Name, Name: d.Name, Kind: d.Kind, Module: d.Module, Path: d.Path, LineStart: d.LineStart,
		LineEnd: d.LineEnd, Signature: d.Signature, Docstring: d.Docstring, Code: d.Code}
	if d.Informal != nil {
		out.InformalName, out.InformalStatement, out.InformalProvider = d.Informal.Name, d.Informal.Statement, d.Informal.ProviderLabel
	}
	return out, nil
}

func (s *Server) mcpDependencies(ctx context.Context, in mcpNameIn) (mcpDepsOut, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return mcpDepsOut{}, err
	}
	p, release := ws.pin()
	defer release()
	d, err := s.declaration(ws, p, in.Name, 0)
	if err != nil {
		return mcpDepsOut{}, err
	}
	out := mcpDepsOut{Workspace: ws.Name, Name: d.Name, StatementDeps: []string{}, ProofDeps: []string{}}
	for _, l := range d.StatementDeps {
		out.StatementDeps = append(out.StatementDeps, l.Name)
	}
	for _, l := range d.ProofDeps {
		out.ProofDeps = append(out.ProofDeps, l.Name)
	}
	return out, nil
}

func (s *Server) mcpUsedBy(ctx context.Context, in mcpUsedByIn) (mcpUsedByOut, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return mcpUsedByOut{}, err
	}
	switch {
	case in.Limit == 0:
		in.Limit = 50
	case in.Limit < 0 || in.Limit > maxListItems:
		return mcpUsedByOut{}, badField("limit", "%d: want 1 to %d", in.Limit, maxListItems)
	}
	p, release := ws.pin()
	defer release()
	d, err := s.declaration(ws, p, in.Name, in.Limit)
	if err != nil {
		return mcpUsedByOut{}, err
	}
	out := mcpUsedByOut{Workspace: ws.Name, Name: d.Name, Total: d.UsedByTotal, UsedBy: []string{}}
	for _, l := range d.UsedBy {
		out.UsedBy = append(out.UsedBy, l.Name)
	}
	return out, nil
}

func (s *Server) mcpPremises(ctx context.Context, in mcpGoalIn) (mcpPremisesOut, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return mcpPremisesOut{}, err
	}
	switch {
	case strings.TrimSpace(in.Goal) == "":
		return mcpPremisesOut{}, badField("goal", "an empty goal")
	case in.K == 0:
		in.K = 32
	case in.K < 0 || in.K > s.lim.MaxK:
		return mcpPremisesOut{}, badField("k", "%d: want 1 to %d", in.K, s.lim.MaxK)
	case len(in.NewPremises) > MaxNewPremises:
		return mcpPremisesOut{}, badField("new_premises", "%d: at most %d", len(in.NewPremises), MaxNewPremises)
	}
	if err := checkTextMax("goal", in.Goal, maxGoal); err != nil {
		return mcpPremisesOut{}, err
	}
	req := &retrieveQuery{state: in.Goal, k: in.K, all: true}
	for i, np := range in.NewPremises {
		if strings.TrimSpace(np.Name) == "" || len(np.Decl) > maxPremiseDecl {
			return mcpPremisesOut{}, badField(fmt.Sprintf("new_premises[%d]", i), "want a name and a decl of at most %d bytes", maxPremiseDecl)
		}
		req.newPremises = append(req.newPremises, proof.NewPremise{Name: np.Name, Decl: np.Decl, Dense: nan()})
	}
	p, release := ws.pin()
	defer release()
	hits, err := s.retrieve(ctx, ws, p, req)
	if err != nil {
		return mcpPremisesOut{}, err
	}
	out := mcpPremisesOut{Workspace: ws.Name, Premises: make([]mcpPremise, len(hits))}
	for i, h := range hits {
		mp := mcpPremise{Name: h.Name, Score: h.Score}
		if e, ok := p.Lookup(h.Name); ok {
			mp.Kind, mp.Signature = e.Kind, truncate(strings.Join(strings.Fields(e.Signature), " "), compactSignature)
		} else {
			mp.New = true
		}
		out.Premises[i] = mp
	}
	return out, nil
}

func (s *Server) mcpDriftContext(ctx context.Context, in mcpDriftIn) (any, error) {
	ws, err := s.mcpWorkspace(in.Workspace)
	if err != nil {
		return nil, err
	}
	req := &DriftRequest{Statement: in.Statement, TopK: in.TopK}
	if err := s.checkDrift(req); err != nil {
		return nil, err
	}
	out, err := s.driftContext(ctx, ws, req)
	var ue *unavailableError
	if errors.As(err, &ue) {
		return nil, &notFoundError{ue.Error()}
	}
	return out, err
}

func (s *Server) mcpWorkspaces(ctx context.Context, _ mcpNoIn) (mcpWorkspacesOut, error) {
	return mcpWorkspacesOut{Workspaces: s.workspaceList()}, nil
}

// mcpHTTP is the streamable HTTP transport of the MCP server (/mcp).
// Sessions idle for mcpSessionIdle are closed.
func (s *Server) mcpHTTP() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCPServer() },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: mcpSessionIdle})
}

const mcpSessionIdle = 30 * time.Minute

// RunMCP serves the MCP server on t (driftkit mcp: stdio) until the client
// disconnects or ctx ends.
func (s *Server) RunMCP(ctx context.Context, t mcp.Transport) error {
	s.warmProofGraphs()
	return s.MCPServer().Run(ctx, t)
}
