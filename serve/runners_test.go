package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/tomap"
)

// TestToMapRunOverHTTP: POST /api/tomap runs ToMap through the fake
// OpenAI-compatible endpoint (tomapfake plays every agent) and a fake Lean
// checker; the event stream shows each Lean check and the end, the record
// holds the outcome with its Lean code.
func TestToMapRunOverHTTP(t *testing.T) {
	model := tomapfake.NewModel()
	srv := fakeopenai.New(fakeopenai.Options{Answer: model.Answer, Key: tomapfake.RequestKey})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, APIKey: "k", Model: "fake-model", MaxRetries: 2,
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := func(m string) *tomap.Agent {
		return &tomap.Agent{Client: c, Model: m, Temperature: 0.7, MaxTokens: 1024}
	}
	ck := &tomapfake.Checker{}
	ts := newTestServer(t, Options{Runs: &RunConfig{ToMap: ToMapRunners(tomap.Config{
		Agents: tomap.Agents{Decomposer: a("dec"), Formalizer: a("form"), Prover: a("prov"), Judge: a("judge"), SF: a("sf")}, Checker: ck})}})
	id := startRun(t, ts, "/api/tomap", `{"theorem": "For every positive n, 0 < n.", "proof": "Let n be positive. Then n is greater than zero. Hence 0 < n.", "method": "proofflow"}`)
	resp, err := ts.ts.Client().Get(ts.ts.URL + "/api/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs := readSSE(t, resp.Body, 1000)
	if len(evs) < 4 || evs[len(evs)-1].Name != "done" {
		t.Fatalf("events %+v", evs)
	}
	lean := 0
	for _, e := range evs {
		if e.Name == "lean" {
			lean++
			if d, ok := e.Data.Data.(map[string]any); !ok || d["pass"] == nil {
				t.Errorf("lean event %+v", e.Data)
			}
		}
	}
	if lean == 0 || int64(lean) != ck.Calls() {
		t.Errorf("%d lean events for %d checks", lean, ck.Calls())
	}
	rec := waitRun(t, ts, id)
	res, _ := rec.Result.(map[string]any)
	outs, _ := res["outcomes"].([]any)
	if rec.Status != StatusDone || len(outs) != 1 {
		t.Fatalf("record %+v", rec)
	}
	o := outs[0].(map[string]any)
	if o["variant"] != "proofflow" || o["status"] != "done" || !strings.Contains(o["code"].(string), "lemma") || o["verification"] == "skipped" {
		t.Errorf("outcome %v", o)
	}
}
