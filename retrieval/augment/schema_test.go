package augment

import (
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// TestAnswerSchemaMatchesParser: the schema sent with each rewrite request
// admits an answer ParseAnswer reads in full and refuses unknown fields.
func TestAnswerSchemaMatchesParser(t *testing.T) {
	good := `{"informal_name": "Euclid's lemma", "informal_statement": "A prime dividing a product divides a factor.", "lean_name": "Nat.Prime.dvd_mul", "lean_statement": "p.Prime → p ∣ a * b → p ∣ a ∨ p ∣ b"}`
	a, err := ParseAnswer(good)
	if err != nil || a.LeanName == "" || a.InformalName == "" {
		t.Fatalf("%+v %v", a, err)
	}
	if err := fakeopenai.CheckSchema(AnswerSchema.JSON, good); err != nil {
		t.Errorf("the schema refuses a good answer: %v", err)
	}
	if fakeopenai.CheckSchema(AnswerSchema.JSON, `{"informal_statement": "x", "query": "y"}`) == nil {
		t.Error("the schema admits an unknown field")
	}
}
