package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shapes of response_format (Config.ResponseFormat, --response-format).
// Servers differ in which they take: OpenAI, vLLM, llama.cpp's
// llama-server and Ollama take json_schema; llama-cpp-python's server (its
// 0.3 releases) refuses that type with 422 and reads a schema only inside
// json_object. Without a schema a small model in JSON mode answers `{}` or
// invents fields; with one, the server constrains the answer to it.
const (
	// FormatAuto starts with json_schema and steps down, per endpoint, to
	// the next shape each time the endpoint refuses one (400 or 422 naming
	// response_format), remembering it for the client's lifetime.
	FormatAuto = "auto"
	// FormatJSONSchema is {"type":"json_schema","json_schema":{"name":…,"schema":…}}.
	FormatJSONSchema = "json_schema"
	// FormatSchemaObject is {"type":"json_object","schema":…} (llama-cpp-python).
	FormatSchemaObject = "json_object+schema"
	// FormatJSONObject is {"type":"json_object"}: JSON, no schema.
	FormatJSONObject = "json_object"
	// FormatNone sends no response_format (--no-json-mode).
	FormatNone = "none"
)

// Formats are the shapes in the order FormatAuto tries them.
var Formats = [...]string{FormatJSONSchema, FormatSchemaObject, FormatJSONObject, FormatNone}

// Schema is the JSON schema of an answer, sent with ChatRequest.JSON.
type Schema struct {
	Name string          // [a-zA-Z0-9_-], as OpenAI wants it
	JSON json.RawMessage // the schema object
}

// StringObjectSchema is the schema of a JSON object whose fields are the
// given strings, all required, no others.
func StringObjectSchema(name string, fields ...string) *Schema {
	pairs := make([]string, 0, 2*len(fields))
	for _, f := range fields {
		pairs = append(pairs, f, `{"type":"string"}`)
	}
	return &Schema{Name: name, JSON: ObjectSchema(len(fields), pairs...)}
}

// ObjectSchema is the schema of a JSON object with the given fields,
// given as name, schema, name, schema, …; the first required are
// required, the others may be left out; no other field is allowed.
func ObjectSchema(required int, fields ...string) json.RawMessage {
	var props, req []string
	for i := 0; i+1 < len(fields); i += 2 {
		props = append(props, strconv.Quote(fields[i])+":"+fields[i+1])
		if i/2 < required {
			req = append(req, strconv.Quote(fields[i]))
		}
	}
	return json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") +
		`],"additionalProperties":false}`)
}

// formatLevel is the index in Formats of a configured shape (FormatAuto
// and "" are the first).
func formatLevel(f string) int {
	if i := slices.Index(Formats[:], f); i >= 0 {
		return i
	}
	return 0
}

// checkFormat refuses an unknown --response-format.
func checkFormat(f string) error {
	if f == "" || f == FormatAuto || slices.Contains(Formats[:], f) {
		return nil
	}
	return fmt.Errorf("response format %q: want %s or %s", f, FormatAuto, strings.Join(Formats[:], ", "))
}

// responseFormat is r's response_format in the given shape (nil: none).
func (r ChatRequest) responseFormat(format string) *ResponseFormat {
	switch {
	case format == FormatNone:
		return nil
	case r.Schema == nil || format == FormatJSONObject:
		return &ResponseFormat{Type: "json_object"}
	case format == FormatSchemaObject:
		return &ResponseFormat{Type: "json_object", Schema: r.Schema.JSON}
	default:
		return &ResponseFormat{Type: "json_schema", JSONSchema: &JSONSchema{Name: r.Schema.Name, Schema: r.Schema.JSON}}
	}
}

// formatOf names the shape of a response_format as sent.
func formatOf(rf *ResponseFormat) string {
	switch {
	case rf.JSONSchema != nil:
		return FormatJSONSchema
	case rf.Schema != nil:
		return FormatSchemaObject
	default:
		return FormatJSONObject
	}
}
