package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

// TestZeroTemperatureIsSent reads the request bytes: a temperature of 0
// must arrive as a literal 0 (greedy everywhere), not be dropped (go-openai's
// omitempty: the server's default, 0.8 at llama.cpp) nor be replaced by
// 1e-45 (which llama.cpp samples with); an unset temperature is absent, and
// 0.7 is 0.7.
func TestZeroTemperatureIsSent(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]json.RawMessage
	srv := fakeopenai.New(fakeopenai.Options{Answer: func(r fakeopenai.Request) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Errorf("body %q: %v", r.Body, err)
		}
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		return `{"ok": true}`
	}})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, APIKey: "k", Model: "m", Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	zero, warm := float32(0), float32(0.7)
	for _, temp := range []*float32{&zero, &warm, nil} {
		if _, err := c.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}, Temperature: temp}); err != nil {
			t.Fatal(err)
		}
	}
	if len(bodies) != 3 {
		t.Fatalf("%d requests", len(bodies))
	}
	if got := string(bodies[0]["temperature"]); got != "0" {
		t.Errorf("temperature 0 went on the wire as %q, want 0", got)
	}
	if got := string(bodies[1]["temperature"]); got != "0.7" {
		t.Errorf("temperature 0.7 went on the wire as %q", got)
	}
	if got, ok := bodies[2]["temperature"]; ok {
		t.Errorf("no temperature was asked for, %q was sent", got)
	}
}

// TestBatchLineTemperatureZero: the lines of a batch input file carry the
// same body as a direct request, temperature 0 included.
func TestBatchLineTemperatureZero(t *testing.T) {
	zero := float32(0)
	r := llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}, Temperature: &zero, JSON: true, MaxTokens: 9}
	b, err := json.Marshal(llm.BatchLine{CustomID: "Nat.succ", Method: "POST", URL: "/v1/chat/completions", Body: r.Body("m", llm.FormatAuto)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"custom_id":"Nat.succ","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":9,"temperature":0,"response_format":{"type":"json_object"}}}`
	if string(b) != want {
		t.Errorf("batch line\n got %s\nwant %s", b, want)
	}
}

// TestKeyGoesOnlyToItsHost: a key configured for one host (OPENAI_API_KEY
// with OPENAI_BASE_URL, or OpenAI's by default) is not sent to another
// endpoint a flag or a manifest names; requests there still work.
func TestKeyGoesOnlyToItsHost(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]string{}
	record := func(name string) *fakeopenai.Server {
		return fakeopenai.New(fakeopenai.Options{Fault: func(r fakeopenai.Request) fakeopenai.Fault {
			mu.Lock()
			auth[name] = r.Auth
			mu.Unlock()
			return fakeopenai.OK
		}})
	}
	mine, other := record("mine"), record("other")
	defer mine.Close()
	defer other.Close()
	t.Setenv("OPENAI_BASE_URL", mine.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	for _, tc := range []struct {
		name, url, want string
	}{
		{"mine", mine.BaseURL(), "Bearer sk-secret"},
		{"other", other.BaseURL(), ""},
	} {
		cfg := llm.ConfigFromEnv()
		cfg.BaseURLs, cfg.Model = []string{tc.url}, "m"
		c, err := llm.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Embed(context.Background(), "", []string{"q"}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if got := auth[tc.name]; got != tc.want {
			t.Errorf("%s: Authorization %q, want %q", tc.name, got, tc.want)
		}
	}
	// Without OPENAI_BASE_URL the key is OpenAI's: a local endpoint gets none.
	t.Setenv("OPENAI_BASE_URL", "")
	cfg := llm.ConfigFromEnv()
	cfg.BaseURLs, cfg.Model = []string{other.BaseURL()}, "m"
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	auth["other"] = "unset"
	if _, _, err := c.Embed(context.Background(), "", []string{"q"}); err != nil {
		t.Fatal(err)
	}
	if auth["other"] != "" {
		t.Errorf("the default-scoped key went to %s: %q", other.BaseURL(), auth["other"])
	}
}

// TestRedirectNotFollowed: a redirect would re-send the prompt (and, to
// the same host, the key) elsewhere; the client reports it instead.
func TestRedirectNotFollowed(t *testing.T) {
	var hits int
	var gotBody []byte
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		gotBody = b.Bytes()
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.URL + "/v1"}, APIKey: "k", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "secret query"}}})
	if err == nil {
		t.Fatal("a redirect was taken as an answer")
	}
	if hits != 0 {
		t.Errorf("the redirect was followed (%d requests, body %q)", hits, gotBody)
	}
}
