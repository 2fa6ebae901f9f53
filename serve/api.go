package serve

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/workspace"
)

// SearchRequest is the body of POST /api/search; GET takes the same
// fields as parameters (q or query, k, mode, profile, kinds and exclude
// comma-separated, all_kinds=1, library, formal).
type SearchRequest struct {
	Query    string   `json:"query"`
	Formal   string   `json:"formal,omitempty"`
	K        int      `json:"k,omitempty"`
	Mode     string   `json:"mode,omitempty"`
	Profile  string   `json:"profile,omitempty"`
	Kinds    []string `json:"kinds,omitempty"`
	AllKinds bool     `json:"all_kinds,omitempty"`
	Library  string   `json:"library,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`
}

// SearchResponse is what `driftkit search --json` prints (query, mode,
// encoder, encoder_fallback, head, hits with the same ranking and fields),
// plus the workspace and, on each hit, what the corpus knows about it.
type SearchResponse struct {
	Workspace       string         `json:"workspace"`
	Query           string         `json:"query"`
	Mode            retrieval.Mode `json:"mode"`
	Encoder         string         `json:"encoder"`
	EncoderFallback bool           `json:"encoder_fallback"`
	Head            any            `json:"head"`
	// Augmentation says how the query was rewritten (theorem search on a
	// workspace with a chat model configured), or why the raw query was
	// searched alone.
	Augmentation *augment.Result `json:"augmentation,omitempty"`
	Hits         []SearchHit     `json:"hits"`
}

// SearchHit is a retrieval.Hit (same JSON fields) with the declaration's
// signature and informal text, the provider of that text, and links.
type SearchHit struct {
	retrieval.Hit
	Signature         string `json:"signature,omitempty"`
	InformalName      string `json:"informal_name,omitempty"`
	InformalStatement string `json:"informal_statement,omitempty"`
	// InformalSource is the provider (template, openai:<model>, rauto,
	// docstring; "" none) and ProviderLabel how pages name it.
	InformalSource string `json:"informal_source,omitempty"`
	ProviderLabel  string `json:"provider_label"`
	URL            string `json:"url"`
	Page           string `json:"page"`
}

const maxListItems = 1000

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func boolParam(v url.Values, key string) (bool, error) {
	s := v.Get(key)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, badField(key, "want true or false, got %q", truncate(s, 32))
	}
	return b, nil
}

// searchRequestFrom reads a search from GET parameters or a POST body.
func (s *Server) searchRequestFrom(r *http.Request) (SearchRequest, error) {
	var req SearchRequest
	if r.Method == http.MethodPost {
		return req, decodeJSON(r, &req)
	}
	v := r.URL.Query()
	req.Query = v.Get("q")
	if req.Query == "" {
		req.Query = v.Get("query")
	}
	req.Formal = v.Get("formal")
	if ks := v.Get("k"); ks != "" {
		k, err := strconv.Atoi(ks)
		if err != nil {
			return req, badField("k", "want an integer, got %q", truncate(ks, 32))
		}
		req.K = k
	}
	req.Mode, req.Profile, req.Library = v.Get("mode"), v.Get("profile"), v.Get("library")
	req.Kinds, req.Exclude = splitList(v.Get("kinds")), splitList(v.Get("exclude"))
	var err error
	req.AllKinds, err = boolParam(v, "all_kinds")
	return req, err
}

// query checks a search request and turns it into a retrieval.Query with
// the defaults of `driftkit search`.
func (s *Server) query(req SearchRequest) (retrieval.Query, error) {
	q := retrieval.Query{Text: req.Query, Formal: req.Formal, K: req.K, Mode: retrieval.ModeBest,
		Filter: retrieval.Filter{AllKinds: req.AllKinds, Library: req.Library}, Vocabulary: s.opts.Vocabulary}
	if err := s.checkText("query", req.Query); err != nil {
		return q, err
	}
	if err := s.checkText("formal", req.Formal); err != nil {
		return q, err
	}
	if strings.TrimSpace(req.Query) == "" && strings.TrimSpace(req.Formal) == "" {
		return q, badField("query", "empty query")
	}
	switch {
	case q.K == 0:
		q.K = 10
	case q.K < 0 || q.K > s.lim.MaxK:
		return q, badField("k", "%d: want 1 to %d", q.K, s.lim.MaxK)
	}
	if req.Mode != "" {
		m, err := retrieval.ParseMode(req.Mode)
		if err != nil {
			return q, badField("mode", "%v", err)
		}
		q.Mode = m
	}
	p, err := retrieval.ParseProfile(req.Profile)
	if err != nil {
		return q, badField("profile", "%v", err)
	}
	q.Profile = p
	if len(req.Kinds) > len(workspace.Kinds()) {
		return q, badField("kinds", "%d kinds given; there are %d", len(req.Kinds), len(workspace.Kinds()))
	}
	for _, k := range req.Kinds {
		if !workspace.IsKind(k) {
			return q, badField("kinds", "unknown kind %q (one of %s)", truncate(k, 32), strings.Join(workspace.Kinds(), ", "))
		}
	}
	q.Filter.Kinds = req.Kinds
	if len(req.Library) > 256 {
		return q, badField("library", "longer than 256 bytes")
	}
	if len(req.Exclude) > maxListItems {
		return q, badField("exclude", "%d names: at most %d", len(req.Exclude), maxListItems)
	}
	for _, e := range req.Exclude {
		if len(e) > 1024 {
			return q, badField("exclude", "a name longer than 1024 bytes")
		}
	}
	q.Filter.Exclude = req.Exclude
	return q, nil
}

// checkText caps a text field and refuses invalid UTF-8 and NUL bytes.
func (s *Server) checkText(field, t string) error { return checkTextMax(field, t, s.lim.MaxQuery) }

func checkTextMax(field, t string, max int) error {
	switch {
	case len(t) > max:
		return badField(field, "%d bytes: at most %d", len(t), max)
	case !utf8.ValidString(t):
		return badField(field, "not valid UTF-8")
	case strings.IndexByte(t, 0) >= 0:
		return badField(field, "contains a NUL byte")
	}
	return nil
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := s.searchRequestFrom(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q, err := s.query(req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p, release := ws.pin()
	defer release()
	c := ws.answerCache(q)
	key := queryKey("api", q)
	if b, ok := c.get(p, key); ok {
		writeJSONBytes(w, b.([]byte))
		return
	}
	resp, err := s.search(r.Context(), ws, p, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	b := encodeJSON(resp)
	c.put(p, key, b, int64(len(b)))
	writeJSONBytes(w, b)
}

// search runs q on the pinned p and describes each hit, and what searched,
// from it.
func (s *Server) search(ctx context.Context, ws *Workspace, p *pinned, q retrieval.Query) (*SearchResponse, error) {
	hits, aug, err := searchHits(ctx, ws, p, q)
	if err != nil {
		if err == retrieval.ErrEmptyQuery {
			return nil, badField("query", "nothing to search for")
		}
		return nil, err
	}
	a := p.about
	resp := &SearchResponse{Workspace: ws.Name, Query: q.Text, Mode: q.Mode, Encoder: a.Encoder, EncoderFallback: a.EncoderFallback,
		Head: a.Head, Augmentation: aug, Hits: make([]SearchHit, len(hits))}
	for i, h := range hits {
		sh := SearchHit{Hit: h, URL: s.declURL(ws, h.Name), Page: s.declPage(ws, h.Name)}
		if e, ok := p.Lookup(h.Name); ok {
			sh.Signature, sh.InformalName, sh.InformalStatement, sh.InformalSource = e.Signature, e.InformalName, e.InformalStatement, e.InformalSource
		}
		sh.ProviderLabel = ProviderLabel(sh.InformalSource)
		resp.Hits[i] = sh
	}
	return resp, nil
}

// ProviderLabel names where an informal text came from, honestly: the
// template informalizer and the docstring are not an LLM's reading.
func ProviderLabel(source string) string {
	switch {
	case source == "":
		return "no informal text"
	case source == "template":
		return "template (offline fallback, not an LLM)"
	case source == "docstring":
		return "docstring (no informal row)"
	case source == "rauto":
		return "RAutoformalizer (LLM)"
	case strings.HasPrefix(source, "openai:"):
		return "LLM " + strings.TrimPrefix(source, "openai:")
	}
	return source
}

// EncoderLabel names the encoder of an index, marking the fallback.
func EncoderLabel(a IndexAbout) string {
	l := a.Encoder
	if a.Model != "" {
		l += " " + a.Model
	}
	if a.EncoderFallback {
		l += " (offline fallback encoder)"
	}
	return l
}

func (s *Server) wsSuffix(ws *Workspace, sep string) string {
	if ws == s.def {
		return ""
	}
	return sep + "ws=" + url.QueryEscape(ws.Name)
}

func (s *Server) declURL(ws *Workspace, name string) string {
	return "/api/decl/" + escapeName(name) + s.wsSuffix(ws, "?")
}

func (s *Server) declPage(ws *Workspace, name string) string {
	return "/decl/" + escapeName(name) + s.wsSuffix(ws, "?")
}

// escapeName escapes a Lean name for a path; '.' stays readable.
func escapeName(name string) string { return url.PathEscape(name) }

// DeclResponse is GET /api/decl/{name}: the declaration's row, its
// informal text with provider, its dependencies and its users, each
// linked.
type DeclResponse struct {
	Workspace     string   `json:"workspace"`
	Name          string   `json:"name"`
	Kind          string   `json:"kind"`
	Keyword       string   `json:"keyword,omitempty"`
	Library       string   `json:"library,omitempty"`
	Revision      string   `json:"revision,omitempty"`
	Module        string   `json:"module"`
	Path          string   `json:"path"`
	LineStart     int32    `json:"line_start"`
	LineEnd       int32    `json:"line_end"`
	Namespace     string   `json:"namespace,omitempty"`
	Modifiers     []string `json:"modifiers,omitempty"`
	Attributes    []string `json:"attributes,omitempty"`
	Docstring     *string  `json:"docstring"`
	Signature     string   `json:"signature"`
	Code          string   `json:"code"`
	GeneratedFrom *Link    `json:"generated_from,omitempty"`
	// Informal is nil when the declaration has no informal text.
	Informal      *Informal `json:"informal"`
	StatementDeps []Link    `json:"statement_deps"`
	ProofDeps     []Link    `json:"proof_deps"`
	// UsedBy lists (sorted by name, at most users_limit) the declarations
	// whose statement uses this one; UsedByTotal counts all of them.
	UsedBy      []Link `json:"used_by"`
	UsedByTotal int    `json:"used_by_total"`
	Page        string `json:"page"`
}

// Informal is a declaration's informal name and statement and where they
// came from.
type Informal struct {
	Name          string `json:"name,omitempty"`
	Statement     string `json:"statement"`
	Provider      string `json:"provider"`
	ProviderLabel string `json:"provider_label"`
}

// Link names a declaration and, when the workspace knows it, where to see
// it.
type Link struct {
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	Known bool   `json:"known"`
	URL   string `json:"url,omitempty"`
	Page  string `json:"page,omitempty"`
}

func (s *Server) link(ws *Workspace, p *pinned, name string) Link {
	l := Link{Name: name}
	if e, ok := p.Lookup(name); ok {
		l.Kind, l.Known = e.Kind, true
	} else if _, ok := p.decls.rows[name]; ok {
		l.Known = true
	}
	if l.Known {
		l.URL, l.Page = s.declURL(ws, name), s.declPage(ws, name)
	}
	return l
}

func (s *Server) links(ws *Workspace, p *pinned, names []string) []Link {
	out := make([]Link, 0, len(names))
	for _, n := range names {
		out = append(out, s.link(ws, p, n))
	}
	return out
}

// errNotFound is a 404 for an unknown declaration.
type notFoundError struct{ what string }

func (e *notFoundError) Error() string { return e.what }

// declaration builds the DeclResponse of name.
func (s *Server) declaration(ws *Workspace, p *pinned, name string, usersLimit int) (*DeclResponse, error) {
	if err := s.checkText("name", name); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, badField("name", "empty declaration name")
	}
	d, ok, err := p.decls.Lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &notFoundError{"no declaration " + strconv.Quote(truncate(name, 200)) + " in workspace " + ws.Name}
	}
	name = d.Name // the stored spelling (the request may escape a component)
	resp := &DeclResponse{Workspace: ws.Name, Name: d.Name, Kind: d.Kind, Keyword: d.Keyword, Library: d.Library, Revision: d.Revision,
		Module: d.Module, Path: d.Path, LineStart: d.LineStart, LineEnd: d.LineEnd, Namespace: d.Namespace, Modifiers: d.Modifiers,
		Attributes: d.Attributes, Docstring: d.Docstring, Signature: d.Signature, Code: d.Code,
		StatementDeps: s.links(ws, p, d.StatementDeps), ProofDeps: s.links(ws, p, d.ProofDeps), Page: s.declPage(ws, d.Name)}
	if d.GeneratedFrom != nil {
		l := s.link(ws, p, *d.GeneratedFrom)
		resp.GeneratedFrom = &l
	}
	if e, ok := p.Lookup(name); ok && e.InformalStatement != "" {
		resp.Informal = &Informal{Name: e.InformalName, Statement: e.InformalStatement, Provider: e.InformalSource, ProviderLabel: ProviderLabel(e.InformalSource)}
	}
	users := p.UsedBy(name)
	resp.UsedByTotal = len(users)
	resp.UsedBy = s.links(ws, p, users[:min(len(users), usersLimit)])
	return resp, nil
}

func (s *Server) handleDecl(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	limit := 200
	if v := r.URL.Query().Get("users_limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100000 {
			s.fail(w, r, badField("users_limit", "want 0 to 100000, got %q", truncate(v, 32)))
			return
		}
		limit = n
	}
	p, release := ws.pin()
	defer release()
	resp, err := s.declaration(ws, p, r.PathValue("name"), limit)
	var nf *notFoundError
	switch {
	case errorsAs(err, &nf):
		writeError(w, http.StatusNotFound, "name", nf.what)
	case err != nil:
		s.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

// WorkspaceInfo describes a served workspace (GET /api/workspaces, the
// MCP workspaces tool).
type WorkspaceInfo struct {
	Name         string     `json:"name"`
	Default      bool       `json:"default"`
	Index        IndexAbout `json:"index"`
	EncoderLabel string     `json:"encoder_label"`
	Declarations int        `json:"declarations"`
}

// workspaceList describes the served workspaces, the default first.
func (s *Server) workspaceList() []WorkspaceInfo {
	var out []WorkspaceInfo
	for _, ws := range s.opts.Workspaces {
		a := ws.Index.About()
		out = append(out, WorkspaceInfo{Name: ws.Name, Default: ws == s.def, Index: a, EncoderLabel: EncoderLabel(a), Declarations: ws.Decls().Len()})
	}
	return out
}

// handleWorkspaces lists the served workspaces and their indexes.
func (s *Server) handleWorkspaces(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"workspaces": s.workspaceList()})
}

// searchHits runs q on v, ws's pinned index: a theorem search (retrieval.ResolveProfile) on
// a workspace with an Augmenter is rewritten first and its variants fused
// (the Result says how, or why not); any other query is searched as is.
//
// Declarations Lean makes private to their module (p.decls.Private) are
// left out: the user who asks cannot write their names. The engine is
// asked for more hits than wanted, and again for more if the private ones
// took too many, so an answer keeps its length.
func searchHits(ctx context.Context, ws *Workspace, v View, q retrieval.Query) ([]retrieval.Hit, *augment.Result, error) {
	p, ok := v.(*pinned)
	if !ok || len(p.decls.private) == 0 {
		return searchHitsOnce(ctx, ws, v, q)
	}
	want := q.K
	if want <= 0 {
		want = defaultEngineK
	}
	q.K = want
	for _, more := range []int{2, 8} {
		ask := overAsk(q, more)
		q.K = ask
		hits, r, err := searchHitsOnce(ctx, ws, v, q)
		if err != nil {
			return nil, nil, err
		}
		kept := p.decls.Public(hits)
		q.K = want
		if len(kept) >= want || len(hits) < ask || more == 8 || overAsk(q, 8) == ask {
			return kept[:min(len(kept), want)], r, nil
		}
	}
	panic("unreachable")
}

// overAsk is how many hits to ask for so that q.K remain once private ones
// are dropped: q.K·more + 8, capped at the engine's candidate depth — asking
// deeper would rank deeper lists and reorder the public hits themselves
// (retrieval.CandidateDepth). Near that depth an answer may come back
// shorter than q.K rather than different.
func overAsk(q retrieval.Query, more int) int {
	return min(q.K*more+8, retrieval.CandidateDepth(q))
}

// defaultEngineK is the engine's number of hits for a query with no K
// (retrieval.Query.K).
const defaultEngineK = 10

// searchHitsOnce runs q once: through the workspace's augmentation for the
// theorem profile, straight on v otherwise.
func searchHitsOnce(ctx context.Context, ws *Workspace, v View, q retrieval.Query) ([]retrieval.Hit, *augment.Result, error) {
	if ws.Augment == nil || retrieval.ResolveProfile(&q) != retrieval.ProfileTheorem {
		hits, err := v.Search(ctx, q)
		return hits, nil, err
	}
	if fromOtherSite(ctx) {
		hits, err := v.Search(ctx, q)
		return hits, &augment.Result{Query: q.Text, Status: augment.StatusFallback,
			Reason: "a request made by a page of another site: searched without the model"}, err
	}
	hits, r, err := ws.Augment.Search(ctx, v, q)
	return hits, &r, err
}
