package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

// formats records the response_format of each chat request as it went on
// the wire.
func formats(refuse ...string) (*fakeopenai.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := fakeopenai.New(fakeopenai.Options{RefuseFormats: refuse, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		var b struct {
			RF json.RawMessage `json:"response_format"`
		}
		json.Unmarshal(r.Body, &b)
		mu.Lock()
		seen = append(seen, string(b.RF))
		mu.Unlock()
		return fakeopenai.OK
	}})
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

var answerSchema = llm.StringObjectSchema("answer", "informal_name", "informal_statement")

const (
	wireJSONSchema = `{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object","properties":{"informal_name":{"type":"string"},"informal_statement":{"type":"string"}},"required":["informal_name","informal_statement"],"additionalProperties":false}}}`
	wireSchemaObj  = `{"type":"json_object","schema":{"type":"object","properties":{"informal_name":{"type":"string"},"informal_statement":{"type":"string"}},"required":["informal_name","informal_statement"],"additionalProperties":false}}`
	wireJSONObject = `{"type":"json_object"}`
)

// TestResponseFormatSchemaOnTheWire: an answer's schema goes as OpenAI's
// json_schema; a server that refuses that type (llama-cpp-python: 500)
// gets it inside json_object from then on, one refused request in all; a
// configured shape is sent as configured; a request without a schema asks
// for any JSON object.
func TestResponseFormatSchemaOnTheWire(t *testing.T) {
	req := ask("a")
	req.Schema = answerSchema
	for _, tc := range []struct {
		name, format string
		refuse       []string
		want         []string
	}{
		{"openai", "", nil, []string{wireJSONSchema, wireJSONSchema}},
		{"llama-cpp-python", "", []string{"json_schema"}, []string{wireJSONSchema, wireSchemaObj, wireSchemaObj}},
		{"no-schemas", llm.FormatAuto, []string{"json_schema", "json_object+schema"}, []string{wireJSONSchema, wireSchemaObj, wireJSONObject, wireJSONObject}},
		{"flag", llm.FormatSchemaObject, nil, []string{wireSchemaObj, wireSchemaObj}},
		{"none", llm.FormatNone, nil, []string{"", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := formats(tc.refuse...)
			defer srv.Close()
			cfg := testConfig(srv.BaseURL())
			cfg.ResponseFormat = tc.format
			c := newClient(t, cfg)
			for range 2 {
				if _, err := c.Chat(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			}
			got := seen()
			if len(got) != len(tc.want) {
				t.Fatalf("%d requests %q, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("request %d response_format\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
	srv, seen := formats()
	defer srv.Close()
	if _, err := newClient(t, testConfig(srv.BaseURL())).Chat(context.Background(), ask("b")); err != nil {
		t.Fatal(err)
	}
	if got := seen(); len(got) != 1 || got[0] != wireJSONObject {
		t.Errorf("a request without a schema sent %q, want %s", got, wireJSONObject)
	}
}

func TestResponseFormatFlag(t *testing.T) {
	cfg := testConfig("http://127.0.0.1:1/v1")
	cfg.ResponseFormat = "yaml"
	if _, err := llm.New(cfg); err == nil {
		t.Error("--response-format yaml accepted")
	}
}

// TestFoldSystemOnTheWire: with FoldSystem the system prompt reaches the
// server at the head of the first user turn (a template without a system
// turn would drop it), later turns unchanged; without it, as given.
func TestFoldSystemOnTheWire(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]llm.Message
	srv := fakeopenai.New(fakeopenai.Options{Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		var b struct{ Messages []llm.Message }
		json.Unmarshal(r.Body, &b)
		mu.Lock()
		bodies = append(bodies, b.Messages)
		mu.Unlock()
		return fakeopenai.OK
	}})
	defer srv.Close()
	conv := ask("a")
	conv.Messages = append(conv.Messages, llm.Message{Role: "assistant", Content: "{}"}, llm.Message{Role: "user", Content: "Again."})
	for _, fold := range []bool{true, false} {
		cfg := testConfig(srv.BaseURL())
		cfg.FoldSystem = fold
		if _, err := newClient(t, cfg).Chat(context.Background(), conv); err != nil {
			t.Fatal(err)
		}
	}
	want := [][]llm.Message{
		{{Role: "user", Content: "You answer in JSON.\n\nDeclaration: a\nPlease answer."}, {Role: "assistant", Content: "{}"}, {Role: "user", Content: "Again."}},
		conv.Messages,
	}
	for i := range want {
		if fmt.Sprint(bodies[i]) != fmt.Sprint(want[i]) {
			t.Errorf("fold %v: messages on the wire\n got %q\nwant %q", i == 0, bodies[i], want[i])
		}
	}
	if got := llm.FoldSystem([]llm.Message{{Role: "system", Content: "S"}}); len(got) != 1 || got[0] != (llm.Message{Role: "user", Content: "S"}) {
		t.Errorf("a system message alone folds into %q", got)
	}
}
