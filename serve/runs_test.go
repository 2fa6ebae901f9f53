package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/torntest"
)

// stepRunner emits one event per value received on steps, then finishes
// with its result, or fails, or waits for cancellation.
type stepRunner struct {
	steps chan string
	fail  error
}

func (r *stepRunner) Run(ctx context.Context, rc *RunContext) (any, error) {
	for {
		select {
		case s, ok := <-r.steps:
			if !ok {
				if r.fail != nil {
					return nil, r.fail
				}
				return map[string]string{"statement": "theorem x : True := trivial"}, nil
			}
			rc.Emit("log", "step", map[string]string{"step": s})
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

type sseEvent struct {
	ID, Name string
	Data     Event
}

// readSSE reads events until the stream ends or n events were read.
func readSSE(t *testing.T, body io.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" {
				out = append(out, cur)
				if len(out) == n {
					return out
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.Name = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.Data); err != nil {
				t.Fatalf("SSE data is not an Event: %v: %s", err, line)
			}
		}
	}
	return out
}

func startRun(t *testing.T, ts *testServer, path, body string) string {
	t.Helper()
	resp, b := ts.do(t, "POST", path, "application/json", body)
	if resp.StatusCode != 202 {
		t.Fatalf("start: %d %s", resp.StatusCode, b)
	}
	var r map[string]string
	json.Unmarshal([]byte(b), &r)
	if resp.Header.Get("Location") != "/api/runs/"+r["id"] || r["events"] != "/api/runs/"+r["id"]+"/events" {
		t.Errorf("start answer %v, Location %q", r, resp.Header.Get("Location"))
	}
	return r["id"]
}

func TestRunEventsStream(t *testing.T) {
	steps := make(chan string)
	var got *DriftRequest
	ts := newTestServer(t, Options{Runs: &RunConfig{Drift: func(ws *Workspace, req *DriftRequest) (Runner, error) {
		got = req
		return &stepRunner{steps: steps}, nil
	}}})
	id := startRun(t, ts, "/api/drift?ws=other", `{"statement": "p prime → p ≥ 2", "samples": 2}`)
	if got == nil || got.Statement != "p prime → p ≥ 2" || got.Samples != 2 {
		t.Fatalf("runner got %+v", got)
	}
	resp, err := ts.ts.Client().Get(ts.ts.URL + "/api/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	// The first event arrives before the run goes on: the stream is live.
	first := readSSE(t, resp.Body, 1)
	if len(first) != 1 || first[0].Name != "stage_started" || first[0].ID != "1" || first[0].Data.Stage != "run" {
		t.Fatalf("first event %+v", first)
	}
	steps <- "decompose"
	ev := readSSE(t, resp.Body, 1)
	if len(ev) != 1 || ev[0].Name != "log" || ev[0].Data.Seq != 2 {
		t.Fatalf("second event %+v", ev)
	}
	steps <- "formalize"
	close(steps)
	rest := readSSE(t, resp.Body, 10) // ends with the stream
	if len(rest) != 2 || rest[0].Data.Seq != 3 || rest[1].Name != "done" {
		t.Fatalf("rest %+v", rest)
	}
	// The record has everything; a reconnect after event 2 gets 3 and 4.
	_, body := ts.do(t, "GET", "/api/runs/"+id, "", "")
	rec := decode[RunRecord](t, body)
	if rec.Status != StatusDone || rec.Workspace != "other" || rec.Kind != "drift" || len(rec.Events) != 4 || rec.Finished == nil {
		t.Errorf("record %+v", rec)
	}
	req, _ := http.NewRequest("GET", ts.ts.URL+"/api/runs/"+id+"/events", nil)
	req.Header.Set("Last-Event-ID", "2")
	resp2, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	again := readSSE(t, resp2.Body, 10)
	if len(again) != 2 || again[0].ID != "3" {
		t.Errorf("resume after 2: %+v", again)
	}
	_, body = ts.do(t, "GET", "/api/runs", "", "")
	if !strings.Contains(body, id) {
		t.Errorf("list lacks the run: %s", body)
	}
	_, body = ts.do(t, "GET", "/metrics", "", "")
	if !strings.Contains(body, `driftkit_runs_finished_total{kind="drift",status="done"} 1`) {
		t.Errorf("metrics: no finished run")
	}
}

func TestRunLimitCancelAndFailure(t *testing.T) {
	steps := make(chan string)
	fails := errors.New("the endpoint refused the key")
	n := 0
	ts := newTestServer(t, Options{Limits: Limits{MaxRuns: 1}, Runs: &RunConfig{
		Drift: func(ws *Workspace, req *DriftRequest) (Runner, error) {
			n++
			if req.Statement == "fail" {
				ch := make(chan string)
				close(ch)
				return &stepRunner{steps: ch, fail: fails}, nil
			}
			if req.Statement == "panic" {
				return RunnerFunc(func(context.Context, *RunContext) (any, error) { panic("boom") }), nil
			}
			return &stepRunner{steps: steps}, nil
		}}})
	id := startRun(t, ts, "/api/drift", `{"statement": "wait"}`)
	resp, body := ts.do(t, "POST", "/api/drift", "application/json", `{"statement": "another"}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("full pool: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	_, body = ts.do(t, "GET", "/metrics", "", "")
	if !strings.Contains(body, `driftkit_runs_in_flight{kind="drift"} 1`) {
		t.Errorf("metrics: in-flight run not counted")
	}
	resp, body = ts.do(t, "POST", "/api/runs/"+id+"/cancel", "", "")
	if rec := decode[RunRecord](t, body); resp.StatusCode != 200 || rec.Status != StatusCancelled {
		t.Fatalf("cancel: %d %+v", resp.StatusCode, rec)
	}
	// A slot is free again; a failing run is recorded as failed.
	id = startRun(t, ts, "/api/drift", `{"statement": "fail"}`)
	rec := waitRun(t, ts, id)
	if rec.Status != StatusFailed || rec.Error != fails.Error() || rec.Events[len(rec.Events)-1].Type != "failed" {
		t.Errorf("failed run: %+v", rec)
	}
	id = startRun(t, ts, "/api/drift", `{"statement": "panic"}`)
	if rec := waitRun(t, ts, id); rec.Status != StatusFailed || !strings.Contains(rec.Error, "boom") {
		t.Errorf("panicking run: %+v", rec)
	}
	// ToMap is not configured here.
	resp, body = ts.do(t, "POST", "/api/tomap", "application/json", `{"theorem": "t", "proof": "p"}`)
	if resp.StatusCode != 503 || !strings.Contains(body, "ToMap runs are not configured") {
		t.Errorf("unconfigured tomap: %d %s", resp.StatusCode, body)
	}
}

func waitRun(t *testing.T, ts *testServer, id string) RunRecord {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		_, body := ts.do(t, "GET", "/api/runs/"+id, "", "")
		if rec := decode[RunRecord](t, body); rec.Status != StatusRunning {
			return rec
		}
	}
	t.Fatalf("run %s did not finish", id)
	return RunRecord{}
}

func TestRunsUnconfigured(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, c := range []struct{ path, body string }{
		{"/api/drift", `{"statement": "x"}`}, {"/api/tomap", `{"theorem": "x", "proof": "y"}`}, {"/api/drift/context", `{"statement": "x"}`},
	} {
		resp, body := ts.do(t, "POST", c.path, "application/json", c.body)
		if resp.StatusCode != 503 || decode[apiError](t, body).Error == "" {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, body)
		}
	}
}

// TestShutdownCancelsAndRecordsRuns: a shutdown cancels the runs in
// flight, ends their event streams with "cancelled" and records them in
// runs.jsonl; a search in flight finishes.
func TestShutdownCancelsAndRecordsRuns(t *testing.T) {
	dir := t.TempDir()
	steps := make(chan string)
	ts := newTestServer(t, Options{Runs: &RunConfig{Dir: dir, Drift: func(*Workspace, *DriftRequest) (Runner, error) {
		return &stepRunner{steps: steps}, nil
	}}})
	id := startRun(t, ts, "/api/drift", `{"statement": "s"}`)
	resp, err := ts.ts.Client().Get(ts.ts.URL + "/api/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readSSE(t, resp.Body, 1)
	ts.Shutdown(context.Background())
	rest := readSSE(t, resp.Body, 10)
	if len(rest) == 0 || rest[len(rest)-1].Name != "cancelled" {
		t.Fatalf("stream after shutdown: %+v", rest)
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec RunRecord
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &rec); err != nil || rec.ID != id || rec.Status != StatusCancelled {
		t.Fatalf("runs.jsonl: %v %s", err, b)
	}
	r2, body := ts.do(t, "POST", "/api/drift", "application/json", `{"statement": "s"}`)
	if r2.StatusCode != 503 {
		t.Errorf("a run after shutdown: %d %s", r2.StatusCode, body)
	}
	r3, _ := ts.do(t, "GET", "/readyz", "", "")
	if r3.StatusCode != 503 {
		t.Errorf("readyz while shutting down: %d", r3.StatusCode)
	}
}

// A torn last line of runs.jsonl is reported while it is still in the file
// (journal.Options.BeforeCut): a server killed between the cut and a report
// made after it would lose the report for good.
func TestRunsJournalReportsTornLineBeforeTheCut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	tail := `{"id":"0123","kind":"drift","status":"runn`
	c := torntest.Tear(t, path, `{"id":"abcd","kind":"drift","status":"done"}`+"\n", tail)
	steps := make(chan string)
	close(steps)
	ts := newTestServer(t, Options{Log: c.Logger(), Runs: &RunConfig{Dir: dir, Drift: func(*Workspace, *DriftRequest) (Runner, error) {
		return &stepRunner{steps: steps}, nil
	}}})
	waitRun(t, ts, startRun(t, ts, "/api/drift", `{"statement": "s"}`))
	c.Verify(t, "line=2", fmt.Sprintf("bytes=%d", len(tail)))
}
