package fakeopenai

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// CheckSchema reports whether answer (JSON) is an instance of schema, as a
// server that constrains its output to the schema would make it: tests
// check that the schemas driftkit sends admit the answers its parsers
// accept (and name the same fields).
func CheckSchema(schema json.RawMessage, answer string) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var v any
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	return rs.Validate(v)
}
