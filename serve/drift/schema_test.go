package drift

import (
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// TestDecompositionSchemaMatchesParser: the schema sent with decomposition
// requests admits what ParseDecomposition accepts and refuses what it
// refuses for its shape (a field at the wrong level, an empty list).
func TestDecompositionSchemaMatchesParser(t *testing.T) {
	good := `{"sub_queries": [{"informal": "a prime number", "formal": "Nat.Prime p"}, {"informal": "divides", "formal": "p ∣ a * b"}]}`
	if _, err := ParseDecomposition(good); err != nil {
		t.Fatal(err)
	}
	if err := fakeopenai.CheckSchema(DecompositionSchema.JSON, good); err != nil {
		t.Errorf("the schema refuses a good answer: %v", err)
	}
	for _, bad := range []string{`{"sub_queries": [], "informal": "x"}`, `{"sub_queries": []}`, `{"sub_queries": [{"informal": "x"}]}`} {
		if _, err := ParseDecomposition(bad); err == nil {
			t.Fatalf("parser accepts %s", bad)
		}
		if fakeopenai.CheckSchema(DecompositionSchema.JSON, bad) == nil {
			t.Errorf("the schema admits %s", bad)
		}
	}
}
