package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
)

// Run kinds.
const (
	runDrift = "drift"
	runToMap = "tomap"
)

// Run statuses. A run is queued only between its start and its goroutine
// taking it; it ends done, failed or cancelled.
const (
	StatusRunning   = "running"
	StatusDone      = "done"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Event is one thing a run reports, in order: stage_started and
// stage_finished (with the stage name), sub_queries, premises,
// illustrations, attempt (a formalization), lean (a Lean result), log, and
// finally one of done, failed or cancelled. Seq numbers events from 1 and
// is the SSE event id (a client reconnecting with Last-Event-ID gets the
// rest).
type Event struct {
	Seq   int       `json:"seq"`
	Time  time.Time `json:"time"`
	Type  string    `json:"type"`
	Stage string    `json:"stage,omitempty"`
	Data  any       `json:"data,omitempty"`
}

// Emit reports one event of a running run. It is safe for concurrent use.
type Emit func(typ, stage string, data any)

// Runner is one run, ready to start: Run works until done or ctx is
// cancelled, reporting through rc.Emit, and returns the run's result
// (JSON). A run whose ctx was cancelled returns ctx's error.
type Runner interface {
	Run(ctx context.Context, rc *RunContext) (result any, err error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, rc *RunContext) (any, error)

// Run implements Runner.
func (f RunnerFunc) Run(ctx context.Context, rc *RunContext) (any, error) { return f(ctx, rc) }

// RunContext is what a running Runner gets from the server: its id, the
// event sink, and a folder of its own for files.
type RunContext struct {
	ID   string
	Emit Emit
	dir  func() (string, error)
}

// Dir returns the run's folder, RunConfig.Dir/<id> or a temporary folder
// removed when the run ends, creating it on first use. The id is the
// server's, never a request's.
func (rc *RunContext) Dir() (string, error) { return rc.dir() }

// RunConfig enables the run endpoints.
type RunConfig struct {
	// Drift and ToMap make the runner of a request (nil: that endpoint
	// answers 503 naming what to configure). Their errors of kind
	// badField are 400s.
	Drift func(ws *Workspace, req *DriftRequest) (Runner, error)
	ToMap func(ws *Workspace, req *ToMapRequest) (Runner, error)
	// Context builds DRIFT's offline context (retrieve + illustrate) for
	// POST /api/drift/context (nil: 503).
	Context func(ctx context.Context, ws *Workspace, req *DriftRequest) (any, error)
	// Dir, when set, receives runs.jsonl: one line per finished run (its
	// record with every event), so that runs cancelled by a shutdown are
	// recorded as cancelled. Outputs runners write go to Dir/<id>/.
	Dir string
	// Unavailable explains why runs are off (no model endpoint, …) in the
	// 503 of the run endpoints.
	Unavailable string
}

// RunRecord is what GET /api/runs/{id} answers and runs.jsonl records.
type RunRecord struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Workspace string     `json:"workspace"`
	Status    string     `json:"status"`
	Request   any        `json:"request"`
	Created   time.Time  `json:"created"`
	Finished  *time.Time `json:"finished,omitempty"`
	Seconds   float64    `json:"seconds,omitempty"`
	Result    any        `json:"result,omitempty"`
	Error     string     `json:"error,omitempty"`
	Events    []Event    `json:"events,omitempty"`
}

type run struct {
	id, kind, ws string
	req          any
	created      time.Time
	cancel       context.CancelFunc
	done         chan struct{}

	mu       sync.Mutex
	status   string
	events   []Event
	changed  chan struct{} // closed and replaced at every event
	result   any
	err      string
	finished time.Time
}

// emit records an event. Its data is encoded now: a runner may change
// what it reported afterwards, and streams read events later.
func (r *run) emit(typ, stage string, data any) {
	var raw any
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"unencodable": err.Error()})
		}
		raw = json.RawMessage(b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{Seq: len(r.events) + 1, Time: time.Now().UTC(), Type: typ, Stage: stage, Data: raw})
	close(r.changed)
	r.changed = make(chan struct{})
}

// since returns the events after seq, whether the run is over, and a
// channel closed at the next event.
func (r *run) since(seq int) ([]Event, bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ev []Event
	if seq < len(r.events) {
		ev = append(ev, r.events[max(seq, 0):]...)
	}
	return ev, r.status != StatusRunning, r.changed
}

func (r *run) record(withEvents bool) RunRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := RunRecord{ID: r.id, Kind: r.kind, Workspace: r.ws, Status: r.status, Request: r.req, Created: r.created, Result: r.result, Error: r.err}
	if !r.finished.IsZero() {
		f := r.finished
		rec.Finished = &f
		rec.Seconds = f.Sub(r.created).Seconds()
	}
	if withEvents {
		rec.Events = append([]Event(nil), r.events...)
	}
	return rec
}

// registry holds the runs: at most Limits.MaxRuns in flight, the last
// Limits.KeepRuns finished ones queryable.
type registry struct {
	cfg     *RunConfig
	lim     Limits
	metrics *metrics
	log     *slog.Logger

	mu       sync.Mutex
	runs     map[string]*run
	finished []string // ids, oldest first
	inflight int
	closed   bool
	wg       sync.WaitGroup
	journal  *journal.Journal[RunRecord]
}

func newRegistry(cfg *RunConfig, lim Limits, m *metrics, log *slog.Logger) *registry {
	return &registry{cfg: cfg, lim: lim, metrics: m, log: log, runs: map[string]*run{}}
}

// errBusy is a full run pool: 429 with Retry-After.
var errBusy = errors.New("too many runs in flight")

// errClosing refuses runs during shutdown.
var errClosing = errors.New("the server is shutting down")

func newRunID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// start admits and starts a run.
func (g *registry) start(kind, ws string, req any, rn Runner) (*run, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, errClosing
	}
	if g.inflight >= g.lim.MaxRuns {
		return nil, errBusy
	}
	if g.journal == nil && g.cfg != nil && g.cfg.Dir != "" {
		if err := os.MkdirAll(g.cfg.Dir, 0o755); err != nil {
			return nil, err
		}
		path := filepath.Join(g.cfg.Dir, "runs.jsonl")
		j, rep, err := journal.Open(path, journal.Options[RunRecord]{
			// Said before the cut: a server killed between the cut and a
			// later report would leave the next one nothing to report.
			BeforeCut: func(line, bytes int) {
				g.log.Warn("runs journal: dropped a torn last line (a write cut by a crash); that run's record is lost",
					"file", path, "line", line, "bytes", bytes)
			},
		})
		if err != nil {
			return nil, err
		}
		g.journal = j
		for _, b := range rep.Bad {
			g.log.Warn("runs journal: skipped an unusable line", "err", b)
		}
		for i := range rep.Records {
			rec := rep.Records[i]
			g.log.Debug("run from an earlier server", "id", rec.ID, "status", rec.Status)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.lim.RunTimeout)
	r := &run{id: newRunID(), kind: kind, ws: ws, req: req, created: time.Now().UTC(), cancel: cancel, done: make(chan struct{}),
		status: StatusRunning, changed: make(chan struct{})}
	g.runs[r.id] = r
	g.inflight++
	g.metrics.runs.WithLabelValues(kind).Inc()
	g.wg.Add(1)
	go g.execute(ctx, r, rn)
	return r, nil
}

// execute runs r and records how it ended.
func (g *registry) execute(ctx context.Context, r *run, rn Runner) {
	defer g.wg.Done()
	defer close(r.done)
	defer r.cancel()
	r.emit("stage_started", "run", map[string]any{"kind": r.kind, "workspace": r.ws})
	var dir string
	var cleanup func()
	var dirErr error
	var dirOnce sync.Once
	rc := &RunContext{ID: r.id, Emit: r.emit, dir: func() (string, error) {
		dirOnce.Do(func() { dir, cleanup, dirErr = g.outDir(r.id) })
		return dir, dirErr
	}}
	defer func() {
		if cleanup != nil {
			cleanup()
		}
	}()
	res, err := func() (res any, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error: %v", p)
			}
		}()
		return rn.Run(ctx, rc)
	}()
	status := StatusDone
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		status, err = StatusCancelled, context.Canceled
	case ctx.Err() != nil:
		status, err = StatusFailed, fmt.Errorf("the run took longer than %v", g.lim.RunTimeout)
	case err != nil:
		status = StatusFailed
	}
	data := map[string]any{}
	if err != nil {
		data["error"] = err.Error()
	}
	r.mu.Lock()
	r.result = res
	if err != nil {
		r.err = err.Error()
	}
	r.mu.Unlock()
	r.emit(status, "", data)
	r.mu.Lock()
	r.status, r.finished = status, time.Now().UTC()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()

	rec := r.record(true)
	g.mu.Lock()
	g.inflight--
	g.finished = append(g.finished, r.id)
	for len(g.finished) > g.lim.KeepRuns {
		delete(g.runs, g.finished[0])
		g.finished = g.finished[1:]
	}
	j := g.journal
	g.mu.Unlock()
	g.metrics.runs.WithLabelValues(r.kind).Dec()
	g.metrics.runsDone.WithLabelValues(r.kind, status).Inc()
	if j != nil {
		if err := j.Append(rec); err != nil {
			g.log.Error("recording a run", "id", r.id, "err", err)
		} else if err := j.Sync(); err != nil {
			g.log.Error("recording a run", "id", r.id, "err", err)
		}
	}
	g.log.Info("run finished", "id", r.id, "kind", r.kind, "status", status, "seconds", rec.Seconds)
}

func (g *registry) get(id string) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[id]
}

func (g *registry) list() []RunRecord {
	g.mu.Lock()
	rs := make([]*run, 0, len(g.runs))
	for _, r := range g.runs {
		rs = append(rs, r)
	}
	g.mu.Unlock()
	out := make([]RunRecord, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.record(false))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out
}

// shutdown refuses new runs, cancels the running ones and waits (up to
// ctx) until each has been recorded, then closes the journal.
func (g *registry) shutdown(ctx context.Context) {
	g.mu.Lock()
	g.closed = true
	for _, r := range g.runs {
		r.cancel()
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		g.log.Warn("shutdown: runs still stopping", "err", ctx.Err())
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.journal != nil {
		g.journal.Close()
		g.journal = nil
	}
}

// outDir is where a run's files go: Dir/<id> (the id is the server's
// random hex, never from a request), or a fresh temporary folder.
func (g *registry) outDir(id string) (string, func(), error) {
	if g.cfg != nil && g.cfg.Dir != "" {
		d := filepath.Join(g.cfg.Dir, id)
		return d, func() {}, os.MkdirAll(d, 0o755)
	}
	d, err := os.MkdirTemp("", "driftkit-run-")
	return d, func() { os.RemoveAll(d) }, err
}

// startRun checks a DRIFT (*DriftRequest) or ToMap (*ToMapRequest)
// request, makes its runner and admits it.
func (s *Server) startRun(ws *Workspace, req any) (*run, error) {
	var rn Runner
	var err error
	var kind string
	switch q := req.(type) {
	case *DriftRequest:
		kind = runDrift
		if err := s.checkDrift(q); err != nil {
			return nil, err
		}
		if s.opts.Runs == nil || s.opts.Runs.Drift == nil {
			return nil, &unavailableError{s.unavailable("DRIFT")}
		}
		rn, err = s.opts.Runs.Drift(ws, q)
		req = *q
	case *ToMapRequest:
		kind = runToMap
		if err := s.checkToMap(q); err != nil {
			return nil, err
		}
		if s.opts.Runs == nil || s.opts.Runs.ToMap == nil {
			return nil, &unavailableError{s.unavailable("ToMap")}
		}
		rn, err = s.opts.Runs.ToMap(ws, q)
		req = *q
	default:
		return nil, fmt.Errorf("serve: startRun: %T", req)
	}
	if err != nil {
		return nil, err
	}
	return s.runs.start(kind, ws.Name, req, rn)
}

// forbiddenError is a 403: a privileged action refused (authorize).
type forbiddenError struct{ msg string }

func (e *forbiddenError) Error() string { return e.msg }

// unavailableError is a 503: what the server lacks for the request.
type unavailableError struct{ msg string }

func (e *unavailableError) Error() string { return e.msg }

func (s *Server) unavailable(what string) string {
	msg := what + " runs are not configured"
	if s.opts.Runs != nil && s.opts.Runs.Unavailable != "" {
		return msg + ": " + s.opts.Runs.Unavailable
	}
	return msg + ": start the server with a model endpoint (--base-url or OPENAI_BASE_URL, and --model)"
}

// failRun answers an error of startRun: 429 with Retry-After when the
// pool is full, 503 when runs are off or the server is stopping.
func (s *Server) failRun(w http.ResponseWriter, r *http.Request, err error) {
	var ue *unavailableError
	switch {
	case errors.Is(err, errBusy):
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
		writeError(w, http.StatusTooManyRequests, "", fmt.Sprintf("%d runs are in flight, the most this server allows; retry later", s.lim.MaxRuns))
	case errors.Is(err, errClosing):
		writeError(w, http.StatusServiceUnavailable, "", err.Error())
	case errors.As(err, &ue):
		writeError(w, http.StatusServiceUnavailable, "", ue.msg)
	default:
		s.fail(w, r, err)
	}
}

// handleStartRun answers POST /api/drift and /api/tomap: 202 with the run
// id and where to follow it; 429 with Retry-After when MaxRuns are in
// flight.
func (s *Server) handleStartRun(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ws, err := s.workspace(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var req any = &DriftRequest{}
		if kind == runToMap {
			req = &ToMapRequest{}
		}
		if err := decodeJSON(r, req); err != nil {
			s.fail(w, r, err)
			return
		}
		rr, err := s.startRun(ws, req)
		if err != nil {
			s.failRun(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/runs/"+rr.id)
		writeJSON(w, http.StatusAccepted, map[string]string{"id": rr.id, "status": StatusRunning, "url": "/api/runs/" + rr.id,
			"events": "/api/runs/" + rr.id + "/events", "page": "/runs/" + rr.id})
	}
}

// retryAfterSeconds is the Retry-After of a 429 (a run takes minutes).
const retryAfterSeconds = 30

func (s *Server) runFor(w http.ResponseWriter, r *http.Request) *run {
	id := r.PathValue("id")
	rr := s.runs.get(id)
	if rr == nil {
		writeError(w, http.StatusNotFound, "id", "no run "+strconv.Quote(truncate(id, 64))+" (finished runs are kept in memory for the last "+strconv.Itoa(s.lim.KeepRuns)+")")
	}
	return rr
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	if rr := s.runFor(w, r); rr != nil {
		writeJSON(w, http.StatusOK, rr.record(true))
	}
}

// handleListRuns lists the runs (a privileged route): ids, kinds, states
// and times, not what was asked (GET /api/runs/{id} has that).
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	runs := s.runs.list()
	for i := range runs {
		runs[i].Request, runs[i].Result = nil, nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": runs})
}

func (s *Server) handleCancelRun(w http.ResponseWriter, r *http.Request) {
	rr := s.runFor(w, r)
	if rr == nil {
		return
	}
	rr.cancel()
	select {
	case <-rr.done:
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
	writeJSON(w, http.StatusOK, rr.record(false))
}

// sseHeartbeat is how often an idle event stream gets a comment line, so
// proxies and clients see the connection alive.
var sseHeartbeat = 15 * time.Second

// handleRunEvents streams a run's events as Server-Sent Events: every
// event so far (after Last-Event-ID when reconnecting), then each new one
// as it happens, until the run ends, the client leaves or the server shuts
// down. Each SSE event has the id Seq, the event name Type and the Event
// as JSON data.
func (s *Server) handleRunEvents(w http.ResponseWriter, r *http.Request) {
	rr := s.runFor(w, r)
	if rr == nil {
		return
	}
	seq := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "Last-Event-ID", "want a non-negative integer")
			return
		}
		seq = n
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	beat := time.NewTicker(sseHeartbeat)
	defer beat.Stop()
	for {
		// The server's WriteTimeout bounds ordinary answers; a stream
		// lives as long as its run.
		rc.SetWriteDeadline(time.Now().Add(sseHeartbeat + s.lim.WriteTimeout))
		evs, over, changed := rr.since(seq)
		for _, ev := range evs {
			b, err := json.Marshal(ev)
			if err != nil {
				b, _ = json.Marshal(Event{Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Stage: ev.Stage, Data: "unencodable: " + err.Error()})
			}
			if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Type, b); err != nil {
				return
			}
			seq = ev.Seq
		}
		if err := rc.Flush(); err != nil {
			return
		}
		if over {
			return
		}
		select {
		case <-changed:
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.closing:
			// Runs are being cancelled: send what they record, then end.
			select {
			case <-rr.done:
			case <-time.After(5 * time.Second):
			}
			evs, _, _ := rr.since(seq)
			for _, ev := range evs {
				b, _ := json.Marshal(ev)
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Type, b)
			}
			rc.Flush()
			return
		}
	}
}
