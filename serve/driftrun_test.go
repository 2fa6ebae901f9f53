package serve

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/drifttest"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/drift"
)

// driftServer serves the fixture library through its real index, with
// DRIFT wired to a fake OpenAI-compatible endpoint playing drifttest's
// answers.
func driftServer(t *testing.T, lat time.Duration) (*testServer, *fakeopenai.Server) {
	t.Helper()
	_, dir := realWorkspace(t)
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	prompts, err := drift.LoadPrompts(drift.PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeopenai.New(fakeopenai.Options{Latency: lat, Answer: drifttest.Answer(prompts, 3)})
	t.Cleanup(fake.Close)
	c, err := llm.New(llm.Config{BaseURLs: []string{fake.BaseURL()}, APIKey: "k", Model: "fake", MaxRetries: 1,
		BackoffBase: time.Millisecond, BackoffMax: time.Millisecond, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	w, err := NewWorkspace("mathlib", dir, IndexOf(ix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s, err := New(Options{Workspaces: []*Workspace{w}, Runs: &RunConfig{Context: DriftContext(),
		Drift: DriftRunners(DriftConfig{Chat: c, Model: "fake"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s}
	ts.ts = newHTTPTest(t, s)
	return ts, fake
}

// TestDriftRunEvents: POST /api/drift runs DRIFT against the fake model;
// the event stream shows the decomposition, each sub-query's retrieval,
// the premises, the illustrations, the formalization and the end, in
// that order.
func TestDriftRunEvents(t *testing.T) {
	ts, fake := driftServer(t, 20*time.Millisecond)
	id := startRun(t, ts, "/api/drift", `{"statement": "If a prime number divides a product of natural numbers, then it divides one of the factors.", "samples": 2}`)
	resp, err := ts.ts.Client().Get(ts.ts.URL + "/api/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs := readSSE(t, resp.Body, 1000)
	var order []string
	for _, e := range evs {
		k := e.Name
		if e.Data.Stage != "" {
			k += "/" + e.Data.Stage
		}
		if len(order) == 0 || order[len(order)-1] != k {
			order = append(order, k)
		}
	}
	want := []string{"stage_started/run", "stage_started/drift", "sub_queries/decompose", "sub_queries/retrieve", "premises/retrieve",
		"illustrations/illustrate", "attempt/formalize", "done"}
	if !slices.Equal(order, want) {
		t.Fatalf("event order %v, want %v", order, want)
	}
	byName := map[string]Event{}
	attempts := 0
	for _, e := range evs {
		byName[e.Name+"/"+e.Data.Stage] = e.Data
		if e.Name == "attempt" {
			attempts++
		}
	}
	if attempts != 2 {
		t.Errorf("%d attempt events for 2 samples", attempts)
	}
	var sq struct {
		SubQueries []drift.SubQuery `json:"sub_queries"`
	}
	remarshal(t, byName["sub_queries/retrieve"].Data, &sq)
	if len(sq.SubQueries) == 0 || len(sq.SubQueries[0].Hits) == 0 {
		t.Errorf("retrieved sub-queries without hits: %+v", sq)
	}
	var prem struct {
		Premises []drift.Premise `json:"premises"`
	}
	remarshal(t, byName["premises/retrieve"].Data, &prem)
	if len(prem.Premises) == 0 {
		t.Errorf("no premises")
	}
	var att map[string]any
	remarshal(t, byName["attempt/formalize"].Data, &att)
	if !strings.Contains(att["statement"].(string), "theorem fake_statement") {
		t.Errorf("attempt %v", att)
	}
	rec := waitRun(t, ts, id)
	if rec.Status != StatusDone {
		t.Fatalf("run %+v", rec)
	}
	var r drift.Record
	remarshal(t, rec.Result, &r)
	if r.Status != "ok" || len(r.Samples) != 2 || !strings.HasPrefix(r.Verification, "skipped") {
		t.Errorf("record %+v", r)
	}
	if fake.Requests() < 3 {
		t.Errorf("the fake model got %d requests", fake.Requests())
	}
}

// TestDriftContextOffline: POST /api/drift/context builds the context and
// the prompt with no model call; the page renders it without JavaScript.
func TestDriftContextOffline(t *testing.T) {
	ts, fake := driftServer(t, 0)
	resp, body := ts.do(t, "POST", "/api/drift/context", "application/json", `{"statement": "Every prime number is at least two.", "top_k": 3}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var co drift.ContextOnly
	if err := json.Unmarshal([]byte(body), &co); err != nil {
		t.Fatal(err)
	}
	if len(co.Context.Premises) == 0 || len(co.Context.Premises) > 3 || len(co.Messages) == 0 {
		t.Errorf("context %+v", co)
	}
	resp, body = ts.do(t, "POST", "/drift", "application/x-www-form-urlencoded", "statement=Every+prime+number+is+at+least+two.&action=context")
	if resp.StatusCode != 200 || !strings.Contains(body, `<ol class="hits" id="premises">`) || !strings.Contains(body, "Nat.Prime") {
		t.Errorf("drift page: %d %s", resp.StatusCode, body)
	}
	if fake.Requests() != 0 {
		t.Errorf("the offline context called the model %d times", fake.Requests())
	}
	// A run from the page without JavaScript: 303 to the run's page.
	resp, body = ts.do(t, "POST", "/drift", "application/x-www-form-urlencoded", "statement=Every+prime+number+is+at+least+two.&action=run")
	if resp.StatusCode != 200 || !strings.Contains(body, `id="run"`) {
		t.Errorf("run from the page: %d", resp.StatusCode)
	}
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

var _ = context.Background
