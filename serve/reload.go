package serve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ReloadResult says what a reload did for one workspace.
type ReloadResult struct {
	Changed bool `json:"changed"`
	// Generation is the index generation the workspace serves after it.
	Generation string `json:"generation,omitempty"`
	Error      string `json:"error,omitempty"`
}

// ReloadStatus is one reload started by POST /api/admin/reload or SIGHUP:
// GET /api/admin/reload answers the latest. A reload of a large index
// takes longer than an HTTP answer may (the write timeout): it runs in the
// background and is polled.
type ReloadStatus struct {
	// ID numbers reloads from 1; a request that arrives while one runs gets
	// the next one's id (it runs right after, so it sees the newest files).
	ID      int       `json:"id"`
	State   string    `json:"state"` // running, done, failed
	Started time.Time `json:"started"`
	// Finished and Seconds are set once it ends; Workspaces then says what
	// each serves now.
	Finished   *time.Time              `json:"finished,omitempty"`
	Seconds    float64                 `json:"seconds,omitempty"`
	Workspaces map[string]ReloadResult `json:"workspaces,omitempty"`
	Error      string                  `json:"error,omitempty"`
}

// Reload states.
const (
	ReloadRunning = "running"
	ReloadDone    = "done"
	ReloadFailed  = "failed"
)

// reloader runs reloads one at a time in the background.
type reloader struct {
	mu      sync.Mutex
	last    *ReloadStatus // latest started (nil: none yet)
	queued  bool          // another pass after the running one
	running bool
	wg      sync.WaitGroup
}

// StartReload starts a reload in the background (or, when one is running,
// queues one more pass after it) and returns its status: poll
// ReloadStatusOf (GET /api/admin/reload) until its ID is done or failed.
func (s *Server) StartReload() ReloadStatus {
	g := &s.reloads
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running {
		g.queued = true
		return ReloadStatus{ID: g.last.ID + 1, State: ReloadRunning, Started: time.Now().UTC()}
	}
	g.running = true
	st := g.begin()
	g.wg.Add(1)
	go s.reloadLoop()
	return st
}

// begin records a new running reload (g.mu held).
func (g *reloader) begin() ReloadStatus {
	id := 1
	if g.last != nil {
		id = g.last.ID + 1
	}
	g.last = &ReloadStatus{ID: id, State: ReloadRunning, Started: time.Now().UTC()}
	return *g.last
}

// reloadLoop runs the started reload, then the queued one if any.
func (s *Server) reloadLoop() {
	g := &s.reloads
	defer g.wg.Done()
	// A shutdown cancels the reload (the encoder factory may be reaching a
	// remote endpoint).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		res, err := s.Reload(ctx)
		g.mu.Lock()
		st := g.last
		now := time.Now().UTC()
		st.Finished, st.Seconds, st.Workspaces, st.State = &now, now.Sub(st.Started).Seconds(), res, ReloadDone
		if err != nil {
			st.State, st.Error = ReloadFailed, err.Error()
		}
		if !g.queued {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.queued = false
		g.begin()
		g.mu.Unlock()
	}
}

// ReloadStatusOf returns the latest reload's status (ok false: none yet).
func (s *Server) ReloadStatusOf() (ReloadStatus, bool) {
	g := &s.reloads
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil {
		return ReloadStatus{}, false
	}
	st := *g.last
	st.Workspaces = copyResults(st.Workspaces)
	return st, true
}

func copyResults(m map[string]ReloadResult) map[string]ReloadResult {
	if m == nil {
		return nil
	}
	out := make(map[string]ReloadResult, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// wait waits for a running reload (up to ctx) before the workspaces close.
func (g *reloader) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// handleReload starts a reload (a privileged route): 202 with its status;
// GET /api/admin/reload follows it.
func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	st := s.StartReload()
	w.Header().Set("Location", "/api/admin/reload")
	writeJSON(w, http.StatusAccepted, map[string]any{"reload": st, "status": "/api/admin/reload",
		"poll": "GET /api/admin/reload until reload.id ≥ " + strconv.Itoa(st.ID) + " is done or failed"})
}

// handleReloadStatus answers the latest reload and the generation each
// workspace serves now.
func (s *Server) handleReloadStatus(w http.ResponseWriter, r *http.Request) {
	serving := map[string]string{}
	for _, ws := range s.opts.Workspaces {
		serving[ws.Name] = ws.Index.About().Generation
	}
	out := map[string]any{"serving": serving}
	if st, ok := s.ReloadStatusOf(); ok {
		out["reload"] = st
	}
	writeJSON(w, http.StatusOK, out)
}

// Reload picks up a rebuilt index (and declarations) in every workspace,
// now, and returns when done (StartReload runs it in the background, as
// SIGHUP and POST /api/admin/reload do). Requests in flight finish on
// what they pinned; a workspace that fails to reload keeps serving its
// loaded index.
func (s *Server) Reload(ctx context.Context) (map[string]ReloadResult, error) {
	out := map[string]ReloadResult{}
	var errs []error
	for _, ws := range s.opts.Workspaces {
		changed, err := ws.reload(ctx, func(d *Decls) { s.prepareProofGraph(ws, d) })
		res := ReloadResult{Changed: changed, Generation: ws.Index.About().Generation}
		if err != nil {
			res.Error = err.Error()
			errs = append(errs, err)
		}
		s.metrics.reloaded(ws.Name, err)
		out[ws.Name] = res
		s.log.Info("reload", "workspace", ws.Name, "changed", changed, "generation", res.Generation, "err", err)
	}
	s.proofs.prune(s.servesDecls)
	return out, errors.Join(errs...)
}
