package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/driftkit/driftkit/retrieval"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits bound what one request may cost. Zero fields take the defaults
// noted.
type Limits struct {
	// MaxBody caps a request body (default 1 MiB); a larger one is 413.
	MaxBody int64
	// MaxQuery caps a query or statement, in bytes (default 4096).
	MaxQuery int
	// MaxK caps k / num_results (default 200).
	MaxK int
	// MaxQueries caps the queries of one LeanSearch request (default 16).
	MaxQueries int
	// RequestTimeout bounds a search, declaration or context request
	// (default 30s); past it the request answers 503.
	RequestTimeout time.Duration
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server's (defaults 10s, 30s, 60s, 120s). Event streams extend
	// their own write deadline.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxRuns is how many DRIFT/ToMap runs may be in flight (default 2);
	// one more is refused with 429 and Retry-After.
	MaxRuns int
	// RunTimeout bounds one run (default 30m).
	RunTimeout time.Duration
	// KeepRuns is how many finished runs stay queryable (default 500).
	KeepRuns int
	// ShutdownTimeout bounds the graceful shutdown (default 30s).
	ShutdownTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	def := func(p *time.Duration, d time.Duration) {
		if *p <= 0 {
			*p = d
		}
	}
	if l.MaxBody <= 0 {
		l.MaxBody = 1 << 20
	}
	if l.MaxQuery <= 0 {
		l.MaxQuery = 4096
	}
	if l.MaxK <= 0 {
		l.MaxK = 200
	}
	if l.MaxQueries <= 0 {
		l.MaxQueries = 16
	}
	if l.MaxRuns <= 0 {
		l.MaxRuns = 2
	}
	if l.KeepRuns <= 0 {
		l.KeepRuns = 500
	}
	def(&l.RequestTimeout, 30*time.Second)
	def(&l.ReadHeaderTimeout, 10*time.Second)
	def(&l.ReadTimeout, 30*time.Second)
	def(&l.WriteTimeout, 60*time.Second)
	def(&l.IdleTimeout, 120*time.Second)
	def(&l.RunTimeout, 30*time.Minute)
	def(&l.ShutdownTimeout, 30*time.Second)
	return l
}

// Options configure a Server.
type Options struct {
	// Workspaces served; the first is the default (no ?ws=). Names are
	// unique. The server does not close them.
	Workspaces []*Workspace
	// Runs starts DRIFT and ToMap runs (nil: the run endpoints answer 503
	// naming what to configure). See Runs.
	Runs   *RunConfig
	Limits Limits
	// Log receives one line per request (method, route, status, time; never
	// bodies, query strings or headers) and the server's events. Default:
	// discard.
	Log *slog.Logger
	// Token, when set, is what privileged requests (runs started, cancelled
	// or listed; reloads) must carry as "Authorization: Bearer TOKEN", from
	// any address; without it they are allowed from the loopback interface
	// only. See guard.
	Token string
	// PublicURL is the server's address as clients reach it
	// (http(s)://HOST[:PORT][/PATH]): its host is accepted in Host headers,
	// its origin in Origin headers, and absolute links (LeanSearch's
	// doc_url) start with it. Without it links are relative: a request's
	// Host header never goes into an answer.
	PublicURL string
	// Vocabulary, when set, expands every search (opt-in phrase table;
	// nil: none).
	Vocabulary *retrieval.Vocabulary
}

// Server serves the JSON API, the LeanSearch-compatible endpoint, the
// pages and the run endpoints over its workspaces. Its handler is safe for
// concurrent use; Shutdown stops it.
type Server struct {
	opts    Options
	lim     Limits
	log     *slog.Logger
	ws      map[string]*Workspace
	def     *Workspace
	mux     *http.ServeMux
	metrics *metrics
	runs    *registry
	pages   *pages
	// public is Options.PublicURL parsed (nil: none); forms are the route
	// patterns that take an HTML form (see guard).
	public *url.URL
	forms  map[string]bool

	// closing is closed when Shutdown starts: event streams end, new runs
	// are refused.
	closing   chan struct{}
	closeOnce sync.Once
	reloads   reloader

	// proofs and premiseVectors serve the premise-selection protocol
	// (premises.go).
	proofs         proofGraphs
	premiseVectors premiseVectors
	// mcp is the MCP server (mcp.go), made on first use.
	mcpOnce sync.Once
	mcp     *mcp.Server
}

// New checks the options and builds a server.
func New(o Options) (*Server, error) {
	if len(o.Workspaces) == 0 {
		return nil, errors.New("serve: no workspace")
	}
	s := &Server{opts: o, lim: o.Limits.withDefaults(), log: o.Log, ws: map[string]*Workspace{}, closing: make(chan struct{}), forms: map[string]bool{}}
	var err error
	if s.public, err = parsePublicURL(o.PublicURL); err != nil {
		return nil, err
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, w := range o.Workspaces {
		if w == nil || w.Index == nil {
			return nil, errors.New("serve: a workspace without an index")
		}
		if s.ws[w.Name] != nil {
			return nil, fmt.Errorf("serve: workspace name %q given twice (name them with --ws NAME=DIR)", w.Name)
		}
		s.ws[w.Name] = w
	}
	s.def = o.Workspaces[0]
	s.metrics = newMetrics(o.Workspaces)
	s.runs = newRegistry(o.Runs, s.lim, s.metrics, s.log)
	if s.pages, err = newPages(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Handler is the server's HTTP handler (for httptest and embedding).
func (s *Server) Handler() http.Handler { return s.instrument(s.guard(s.mux)) }

// routes registers every endpoint. The OpenAPI test checks that
// openapi.json documents exactly the /api routes registered here. Every
// route passes the guards (see guard.go); s.privileged marks the routes
// that need the token (or loopback), s.form the pages that take a form.
func (s *Server) routes() {
	m := http.NewServeMux()
	s.mux = m
	api := func(pattern string, h http.HandlerFunc) { m.Handle(pattern, s.timeout(h)) }
	api("GET /api/search", s.handleSearch)
	api("POST /api/search", s.handleSearch)
	api("GET /api/decl/{name...}", s.handleDecl)
	api("GET /api/workspaces", s.handleWorkspaces)
	api("POST /api/drift/context", s.handleDriftContext)
	s.privileged("POST /api/drift", s.handleStartRun(runDrift))
	s.privileged("POST /api/tomap", s.handleStartRun(runToMap))
	s.privileged("GET /api/runs", s.handleListRuns)
	m.HandleFunc("GET /api/runs/{id}", s.handleRun)
	s.privileged("POST /api/runs/{id}/cancel", s.handleCancelRun)
	m.HandleFunc("GET /api/runs/{id}/events", s.handleRunEvents)
	s.privileged("POST /api/admin/reload", s.handleReload)
	s.privileged("GET /api/admin/reload", s.handleReloadStatus)
	m.HandleFunc("GET /api/openapi.json", s.handleOpenAPI)
	api("POST /search", s.handleLeanSearch)
	// Lean tools' protocols: the premise-selection server (premises.go),
	// LeanStateSearch (statesearch.go), Lean Finder (leanfinder.go).
	api("GET /premises/indexed-premises", s.handlePremiseList(false))
	api("GET /premises/indexed-modules", s.handlePremiseList(true))
	api("GET /premises/max-new-premises", s.handleMaxNewPremises)
	api("POST /premises/retrieve", s.handleRetrieve)
	api("GET /premises/{ws}/indexed-premises", s.handlePremiseList(false))
	api("GET /premises/{ws}/indexed-modules", s.handlePremiseList(true))
	api("GET /premises/{ws}/max-new-premises", s.handleMaxNewPremises)
	api("POST /premises/{ws}/retrieve", s.handleRetrieve)
	api("GET /statesearch/api/search", s.handleStateSearch)
	api("POST /leanfinder", s.handleLeanFinder)
	// MCP's streamable HTTP transport (mcp.go): its event streams outlive
	// a request timeout, and each tool call has its own.
	mcpHTTP := s.mcpHTTP() // one handler: its sessions serve all three methods
	m.Handle("POST /mcp", mcpHTTP)
	m.Handle("GET /mcp", mcpHTTP)
	m.Handle("DELETE /mcp", mcpHTTP)
	m.HandleFunc("GET /healthz", s.handleHealth)
	m.HandleFunc("GET /readyz", s.handleReady)
	m.Handle("GET /metrics", s.metrics.handler())
	// Pages.
	m.Handle("GET /{$}", s.timeout(s.pageSearch))
	m.Handle("GET /decl/{name...}", s.timeout(s.pageDecl))
	m.Handle("GET /drift", s.timeout(s.pageDrift))
	s.form("POST /drift", s.timeout(s.pageDrift))
	m.HandleFunc("GET /runs/{id}", s.pageRun)
	m.Handle("GET /static/", staticHandler())
	m.HandleFunc("/", s.notFound)
}

// instrument counts and times every request by route pattern, caps bodies,
// turns panics into 500s and logs one line per request.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		r.Body = http.MaxBytesReader(rw, r.Body, s.bodyLimit(r))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "route", r.Pattern, "panic", fmt.Sprint(p))
				if !rw.wrote {
					writeError(rw, http.StatusInternalServerError, "", "internal error")
				}
			}
			route := r.Pattern
			if route == "" || route == "/" {
				route = "other"
			}
			d := time.Since(start)
			s.metrics.observe(route, r.Method, rw.status, d)
			s.log.Info("request", "method", r.Method, "route", route, "status", rw.status, "ms", float64(d.Microseconds())/1000)
		}()
		next.ServeHTTP(rw, r)
	})
}

// statusWriter records the status code; it passes Flush through for
// event streams (http.ResponseController finds it with Unwrap).
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// timeout bounds a request's work by Limits.RequestTimeout; the handler
// sees the deadline through r.Context().
func (s *Server) timeout(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.lim.RequestTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	})
}

// apiError is the body of every JSON error: what was wrong and, for bad
// input, which field.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// fieldError is bad input in one field: 400 naming it.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func badField(field, format string, args ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, field, msg string) {
	writeJSON(w, status, apiError{Error: msg, Field: field})
}

// fail answers err: bad input 400 naming the field, an oversized body 413,
// a request past its deadline 503, a cancelled client nothing useful (499
// in the metrics), anything else 500 (logged; the client sees a generic
// message so that no internal detail, key or path leaks).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fieldError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, fe.field, fe.Error())
	case errors.As(err, &mb):
		writeError(w, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf("request body larger than %d bytes", mb.Limit))
	case errors.Is(err, errSlowBody):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, "body", fmt.Sprintf("the request body did not arrive within %v", s.lim.ReadTimeout))
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "", fmt.Sprintf("the request took longer than %v", s.lim.RequestTimeout))
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		w.WriteHeader(499) // the client went away
	default:
		s.log.Error("request failed", "route", r.Pattern, "err", err)
		writeError(w, http.StatusInternalServerError, "", "internal error (see the server log)")
	}
}

// errSlowBody is a request body that did not arrive within the server's
// ReadTimeout: 408.
var errSlowBody = errors.New("the request body did not arrive in time")

// readBody reads a request body whole (Limits.MaxBody caps it): a body
// slower than the read timeout is errSlowBody, one that is not UTF-8 a 400
// (JSON text is UTF-8; the decoder would replace the bytes silently). No
// read error's text reaches the client (it names addresses).
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mb):
			return nil, err
		case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			return nil, errSlowBody
		}
		return nil, badField("body", "the request body could not be read")
	}
	if !utf8.Valid(b) {
		return nil, badField("body", "not UTF-8 (at byte %d)", invalidUTF8At(b))
	}
	return b, nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// decodeJSON reads a JSON request body into v, refusing unknown fields so
// a misspelt option is an error rather than silently ignored.
func decodeJSON(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &mb):
			return err
		case errors.Is(err, io.EOF):
			return badField("body", "empty body: send a JSON object")
		case errors.As(err, &te):
			return badField(te.Field, "want %s, got JSON %s", te.Type, te.Value)
		case errors.As(err, &se):
			return badField("body", "malformed JSON at byte %d: %v", se.Offset, err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return badField(f, "unknown field")
		}
		return badField("body", "malformed JSON: %v", err)
	}
	if dec.More() {
		return badField("body", "more than one JSON value")
	}
	return nil
}

// workspace resolves ?ws= (default: the first workspace).
func (s *Server) workspace(r *http.Request) (*Workspace, error) {
	name := r.URL.Query().Get("ws")
	if name == "" {
		return s.def, nil
	}
	w := s.ws[name]
	if w == nil {
		return nil, badField("ws", "unknown workspace %q (served: %s)", truncate(name, 64), strings.Join(s.names(), ", "))
	}
	return w, nil
}

func (s *Server) names() []string {
	out := make([]string, 0, len(s.opts.Workspaces))
	for _, w := range s.opts.Workspaces {
		out = append(out, w.Name)
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 { // keep UTF-8 whole
		n--
	}
	return s[:n] + "…"
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	// The catch-all route matches every method, so the mux's own 405 never
	// happens: a path that exists under another method is answered here.
	if allow := s.allowedMethods(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed on "+truncate(r.URL.Path, 200)+"; allowed: "+strings.Join(allow, ", ")+" (see /api/openapi.json)")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") || r.Method != http.MethodGet {
		writeError(w, http.StatusNotFound, "", "no such endpoint: "+r.Method+" "+truncate(r.URL.Path, 200)+" (see /api/openapi.json)")
		return
	}
	d := s.base(r, s.def, "Not found")
	d["Path"] = r.URL.Path
	s.pages.render(w, http.StatusNotFound, "notfound.html", d)
}

// allowedMethods lists the methods other than r's under which r's path has
// a route (HEAD goes with GET).
func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		if m == r.Method {
			continue
		}
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, p := s.mux.Handler(r2); p != "" && p != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// handleReady answers 200 once every workspace's index answers (it is
// loaded at New, so this is 200 unless the server is shutting down).
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.closing:
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "shutting down"})
		return
	default:
	}
	out := map[string]any{}
	for _, ws := range s.opts.Workspaces {
		a := ws.Index.About()
		out[ws.Name] = map[string]any{"docs": a.Docs, "declarations": ws.Decls().Len(), "generation": a.Generation,
			"encoder": a.Encoder, "encoder_fallback": a.EncoderFallback}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "workspaces": out})
}

func loopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve answers on l until ctx is cancelled, then shuts down gracefully:
// it stops accepting, cancels runs (recording them as cancelled), ends
// event streams and waits for requests in flight (searches finish) up to
// Limits.ShutdownTimeout.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.lim.ReadHeaderTimeout,
		ReadTimeout:       s.lim.ReadTimeout,
		WriteTimeout:      s.lim.WriteTimeout,
		IdleTimeout:       s.lim.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	s.warmProofGraphs()
	select {
	case err := <-errc:
		s.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.lim.ShutdownTimeout)
	defer cancel()
	s.log.Info("shutting down: no new connections; cancelling runs; waiting for requests in flight")
	s.Shutdown(sctx)
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		return e
	}
	return err
}

// Shutdown refuses new runs, cancels running ones and waits until each is
// recorded as cancelled (or ctx ends), and ends event streams. The HTTP
// server's own Shutdown then waits for the remaining requests.
func (s *Server) Shutdown(ctx context.Context) {
	s.closeOnce.Do(func() { close(s.closing) })
	s.runs.shutdown(ctx)
	s.reloads.wait(ctx)
}

func errorsAs[T error](err error, target *T) bool { return err != nil && errors.As(err, target) }
