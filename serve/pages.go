package serve

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/retrieval"
)

// The pages are server-rendered html/template; search works without
// JavaScript (a GET form), and web/static/app.js adds live results and the
// run follower. Everything is embedded: no CDN, no build step.
//
//go:embed web/*.html web/static/* openapi.json
var webFS embed.FS

type pages struct {
	t map[string]*template.Template
}

var funcs = template.FuncMap{
	"label":    ProviderLabel,
	"encLabel": EncoderLabel,
	"esc":      escapeName,
	"join":     strings.Join,
	"add":      func(a, b int) int { return a + b },
	"json": func(v any) string {
		b, _ := json.MarshalIndent(v, "", "  ")
		return string(b)
	},
}

func newPages() (*pages, error) {
	p := &pages{t: map[string]*template.Template{}}
	names, err := fs.Glob(webFS, "web/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimPrefix(n, "web/")
		if base == "layout.html" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(webFS, "web/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("serve: page %s: %w", base, err)
		}
		p.t[base] = t
	}
	return p, nil
}

// render executes a page into a buffer first, so a template error is a
// clean 500 rather than half a page.
func (p *pages) render(w http.ResponseWriter, status int, name string, data map[string]any) {
	var buf bytes.Buffer
	if err := p.t[name].ExecuteTemplate(&buf, "layout.html", data); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// staticHandler serves the files of web/static under /static/: files only
// (no folder listings), nothing outside that folder (the templates are
// not static files), no path that is not a clean relative one.
func staticHandler() http.Handler {
	sub, _ := fs.Sub(webFS, "web/static")
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path
		if st, err := fs.Stat(sub, name); !fs.ValidPath(name) || err != nil || !st.Mode().IsRegular() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeFileFS(w, r, sub, name)
	}))
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	b, _ := webFS.ReadFile("openapi.json")
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// base is the data every page has.
func (s *Server) base(r *http.Request, ws *Workspace, title string) map[string]any {
	var others []map[string]any
	for _, o := range s.opts.Workspaces {
		others = append(others, map[string]any{"Name": o.Name, "Selected": o == ws})
	}
	d := map[string]any{"Title": title, "WS": ws.Name, "WSParam": s.wsSuffix(ws, "&"), "WSQuery": s.wsSuffix(ws, "?"),
		"Workspaces": others, "Many": len(others) > 1}
	setAbout(d, ws.Index.About())
	return d
}

// setAbout puts what the page's index is (header: encoder, size) in d: a
// page that searched or looked up shows its pinned generation's.
func setAbout(d map[string]any, a IndexAbout) {
	d["About"], d["Encoder"] = a, EncoderLabel(a)
}

// pageError renders an error on a page with the right status.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, ws *Workspace, err error) {
	status, msg := http.StatusInternalServerError, "internal error (see the server log)"
	var fe *fieldError
	var nf *notFoundError
	var ue *unavailableError
	var fb *forbiddenError
	switch {
	case errorsAs(err, &fe):
		status, msg = http.StatusBadRequest, fe.Error()
	case errorsAs(err, &nf):
		status, msg = http.StatusNotFound, nf.what
	case errorsAs(err, &ue):
		status, msg = http.StatusServiceUnavailable, ue.msg
	case errorsAs(err, &fb):
		status, msg = http.StatusForbidden, fb.msg
	case err == errBusy:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
		status, msg = http.StatusTooManyRequests, "too many runs in flight; retry later"
	default:
		s.log.Error("page failed", "route", r.Pattern, "err", err)
	}
	if ws == nil {
		ws = s.def
	}
	d := s.base(r, ws, "Error")
	d["Error"] = msg
	s.pages.render(w, status, "error.html", d)
}

// pageSearch is the search page: every kind is a candidate and the ranking
// profile is automatic (theorem search), as in the LeanSearch endpoint.
func (s *Server) pageSearch(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.pageError(w, r, nil, err)
		return
	}
	v := r.URL.Query()
	d := s.base(r, ws, "Search")
	q := v.Get("q")
	d["Q"] = q
	d["Premises"] = v.Get("premises") != ""
	k := 20
	if ks := v.Get("k"); ks != "" {
		n, err := strconv.Atoi(ks)
		if err != nil || n < 1 || n > s.lim.MaxK {
			s.pageError(w, r, ws, badField("k", "%q: want 1 to %d", truncate(ks, 32), s.lim.MaxK))
			return
		}
		k = n
	}
	d["K"] = k
	if strings.TrimSpace(q) != "" {
		if err := s.checkText("q", q); err != nil {
			s.pageError(w, r, ws, err)
			return
		}
		rq := retrieval.Query{Text: q, K: k, Mode: retrieval.ModeBest, Profile: retrieval.ProfileAuto, Filter: retrieval.Filter{AllKinds: v.Get("premises") == ""}, Vocabulary: s.opts.Vocabulary}
		p, release := ws.pin()
		defer release()
		setAbout(d, p.about)
		c := ws.answerCache(rq)
		key := queryKey("page", rq)
		var resp *SearchResponse
		if v, ok := c.get(p, key); ok {
			resp = v.(*SearchResponse)
		} else {
			resp, err = s.search(r.Context(), ws, p, rq)
			if err != nil {
				s.pageError(w, r, ws, err)
				return
			}
			c.put(p, key, resp, resp.size())
		}
		d["Hits"] = resp.Hits
		d["Augmentation"] = resp.Augmentation
		d["Searched"] = true
	}
	s.pages.render(w, http.StatusOK, "search.html", d)
}

func (s *Server) pageDecl(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.pageError(w, r, nil, err)
		return
	}
	p, release := ws.pin()
	defer release()
	dr, err := s.declaration(ws, p, r.PathValue("name"), 500)
	if err != nil {
		s.pageError(w, r, ws, err)
		return
	}
	d := s.base(r, ws, dr.Name)
	setAbout(d, p.about)
	d["D"] = dr
	d["Graph"] = declGraph(dr)
	s.pages.render(w, http.StatusOK, "decl.html", d)
}

// pageDrift shows the DRIFT form; POST builds the offline context
// (action=context) or starts a run and redirects to its page (action=run).
func (s *Server) pageDrift(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspace(r)
	if err != nil {
		s.pageError(w, r, nil, err)
		return
	}
	d := s.base(r, ws, "DRIFT")
	d["RunsOn"] = s.opts.Runs != nil && s.opts.Runs.Drift != nil
	d["ContextOn"] = s.opts.Runs != nil && s.opts.Runs.Context != nil
	if r.Method == http.MethodPost {
		// Another origin's form never gets here (guard); starting a run
		// also needs the token or a loopback client, as POST /api/drift.
		if err := r.ParseForm(); err != nil {
			s.pageError(w, r, ws, badField("body", "%v", err))
			return
		}
		req := &DriftRequest{Statement: r.PostForm.Get("statement"), Header: r.PostForm.Get("header")}
		d["Statement"], d["Header"] = req.Statement, req.Header
		if err := s.checkDrift(req); err != nil {
			s.pageError(w, r, ws, err)
			return
		}
		switch r.PostForm.Get("action") {
		case "run":
			if err := s.authorize(r); err != nil {
				s.pageError(w, r, ws, &forbiddenError{err.Error()})
				return
			}
			rr, err := s.startRun(ws, req)
			if err != nil {
				s.pageError(w, r, ws, err)
				return
			}
			http.Redirect(w, r, "/runs/"+rr.id, http.StatusSeeOther)
			return
		default:
			out, err := s.driftContext(r.Context(), ws, req)
			if err != nil {
				s.pageError(w, r, ws, err)
				return
			}
			d["Context"] = asMap(out)
		}
	}
	s.pages.render(w, http.StatusOK, "drift.html", d)
}

// asMap turns a runner's JSON result into maps for the templates.
func asMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func (s *Server) pageRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rr := s.runs.get(id)
	if rr == nil {
		s.pageError(w, r, nil, &notFoundError{"no run " + strconv.Quote(truncate(id, 64))})
		return
	}
	rec := rr.record(true)
	ws := s.ws[rec.Workspace]
	if ws == nil {
		ws = s.def
	}
	d := s.base(r, ws, "Run "+rec.ID)
	d["Run"] = rec
	var evs []map[string]any
	for _, e := range rec.Events {
		evs = append(evs, asMap(e))
	}
	d["Events"] = evs
	d["Result"] = asMap(rec.Result)
	d["Request"] = asMap(rec.Request)
	s.pages.render(w, http.StatusOK, "run.html", d)
}

// graphNode is one box of a declaration page's dependency graph.
type graphNode struct {
	X, Y, W  int
	Name     string
	Label    string
	Href     string
	Kind     string
	Center   bool
	Relation string
}

type graphEdge struct{ X1, Y1, X2, Y2 int }

// graph is a small SVG: statement dependencies left, the declaration in
// the middle, its users right, proof-only dependencies below.
type graph struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
	Labels        []graphLabel
	More          []string
}

type graphLabel struct {
	X, Y int
	Text string
}

const graphMax = 10

func declGraph(d *DeclResponse) graph {
	const colW, boxW, boxH, gap, top = 270, 240, 24, 8, 22
	g := graph{Width: 3 * colW}
	g.Labels = append(g.Labels, graphLabel{10, 14, "its statement uses"}, graphLabel{2*colW + 20, 14, "used by (statements)"})
	col := func(links []Link, x int, rel string) []graphNode {
		var out []graphNode
		for i, l := range links {
			if i == graphMax {
				g.More = append(g.More, fmt.Sprintf("%d more %s not drawn", len(links)-graphMax, rel))
				break
			}
			out = append(out, graphNode{X: x, Y: top + i*(boxH+gap), W: boxW, Name: l.Name, Label: short(l.Name, 31), Href: l.Page, Kind: l.Kind, Relation: rel})
		}
		return out
	}
	left := col(d.StatementDeps, 10, "statement dependencies")
	right := col(d.UsedBy, 2*colW+20, "users")
	if d.UsedByTotal > len(d.UsedBy) {
		g.More = append(g.More, fmt.Sprintf("%d users in all", d.UsedByTotal))
	}
	stmt := map[string]bool{}
	for _, l := range d.StatementDeps {
		stmt[l.Name] = true
	}
	var proofOnly []Link
	for _, l := range d.ProofDeps {
		if !stmt[l.Name] {
			proofOnly = append(proofOnly, l)
		}
	}
	rows := max(len(left), len(right), 1)
	h := top + rows*(boxH+gap)
	cy := top + (h-top)/2 - boxH/2
	center := graphNode{X: colW + 15, Y: cy, W: boxW, Name: d.Name, Label: short(d.Name, 31), Kind: d.Kind, Center: true}
	for _, n := range left {
		g.Edges = append(g.Edges, graphEdge{n.X + n.W, n.Y + boxH/2, center.X, cy + boxH/2})
	}
	for _, n := range right {
		g.Edges = append(g.Edges, graphEdge{center.X + center.W, cy + boxH/2, n.X, n.Y + boxH/2})
	}
	g.Nodes = append(append(append(g.Nodes, left...), center), right...)
	if len(proofOnly) > 0 {
		y := h + 30
		g.Labels = append(g.Labels, graphLabel{10, y - 8, "its proof also uses"})
		for i, l := range proofOnly {
			if i == 3*graphMax/2 {
				g.More = append(g.More, fmt.Sprintf("%d more proof dependencies not drawn", len(proofOnly)-i))
				break
			}
			n := graphNode{X: 10 + (i%3)*colW, Y: y + (i/3)*(boxH+gap), W: boxW, Name: l.Name, Label: short(l.Name, 31), Href: l.Page, Kind: l.Kind, Relation: "proof dependency"}
			g.Nodes = append(g.Nodes, n)
			g.Edges = append(g.Edges, graphEdge{n.X + n.W/2, n.Y, center.X + center.W/2, cy + boxH})
			h = n.Y + boxH + gap
		}
	}
	g.Height = h + 10
	return g
}

func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
