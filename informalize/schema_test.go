package informalize

import (
	"encoding/json"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

// TestAnswerSchemaMatchesParser: the schema sent with each request admits
// the answers ParseAnswer accepts and refuses one with another field (a
// server constraining its output to it can only produce parseable shapes),
// and every request carries it.
func TestAnswerSchemaMatchesParser(t *testing.T) {
	good := `{"informal_name": "Successor is positive", "informal_statement": "For every natural number n, the successor of n is positive."}`
	if _, err := ParseAnswer(good); err != nil {
		t.Fatal(err)
	}
	if err := fakeopenai.CheckSchema(AnswerSchema.JSON, good); err != nil {
		t.Errorf("the schema refuses a good answer: %v", err)
	}
	for _, bad := range []string{`{"informal_name": "A", "informal_statement": "B is a set.", "kind": "theorem"}`, `{"informal_name": "A"}`} {
		if fakeopenai.CheckSchema(AnswerSchema.JSON, bad) == nil {
			t.Errorf("the schema admits %s", bad)
		}
	}
	p := &LLM{Model: "m", Prompts: mustPrompts(t)}
	b, _ := json.Marshal(p.Request(&Input{Name: "Nat.succ_pos", Kind: "theorem", Signature: "(n : ℕ) : 0 < n.succ"}).Body("m", llm.FormatAuto))
	var body struct {
		RF struct {
			Type       string
			JSONSchema struct {
				Name   string
				Schema json.RawMessage
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	json.Unmarshal(b, &body)
	if body.RF.Type != "json_schema" || body.RF.JSONSchema.Name != "informal_answer" || string(body.RF.JSONSchema.Schema) != string(AnswerSchema.JSON) {
		t.Errorf("request's response_format: %s", b)
	}
}

func mustPrompts(t *testing.T) *Prompts {
	t.Helper()
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
