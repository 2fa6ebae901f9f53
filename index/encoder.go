package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Encoder turns texts into dense vectors of a fixed dimension. Implementations
// must be safe for concurrent use by several goroutines once constructed, and
// must return exactly one vector of length Dim() per input text, in order.
// Vectors are L2-normalised so that the dot product is the cosine similarity.
//
// Lifetime: Encode neither keeps texts nor reuses the returned vectors, which
// belong to the caller. An Encoder has no Close; one that holds resources (the
// OpenAI encoder's HTTP client) is released by whoever created those, after
// the last Encode has returned. Name, Dim and Spec never change after
// construction (a fitted encoder's Spec changes once, when it is fitted).
type Encoder interface {
	// Name identifies the encoder and its configuration in messages, e.g.
	// "hash" or "openai:bge-m3".
	Name() string
	// Dim is the vector dimension.
	Dim() int
	// Spec says how to make this encoder again (RegisterEncoder).
	Spec() EncoderSpec
	// Encode embeds texts. It honours ctx cancellation.
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// Encoder kinds of the built-in encoders, as accepted by --encoder.
const (
	EncoderHash   = "hash"
	EncoderOpenAI = "openai"
)

// EncoderSpec describes an encoder completely enough to make it again: the
// index manifest stores it, and Open rebuilds the query encoder from it
// through the factory registered for its Kind. It is a value; Key hashes it.
type EncoderSpec struct {
	// Kind names the factory (EncoderHash, EncoderOpenAI, or a registered one).
	Kind string `json:"kind"`
	// Model is the model the endpoint serves ("" for built-in encoders).
	Model string `json:"model,omitempty"`
	Dims  int    `json:"dims"`
	// BaseURL is where the model was served when the index was built (for
	// reference: it does not change the vectors, so Key leaves it out).
	BaseURL string `json:"base_url,omitempty"`
	// Normalize is how vectors are normalised: "l2" (dot product = cosine).
	Normalize string `json:"normalize"`
	// MaxChars and Truncation say how long texts are cut before encoding:
	// "chars" keeps the first MaxChars characters; "" means no cut.
	MaxChars   int    `json:"max_chars,omitempty"`
	Truncation string `json:"truncation,omitempty"`
	// Rendering is the document rendering the vectors were made from
	// (workspace.RenderingVersion); Build sets it.
	Rendering string `json:"rendering,omitempty"`
	// State is the sha256 of a fitted encoder's state file (the hash
	// encoder's document frequencies), so that vectors of two fits differ.
	State string `json:"state,omitempty"`
	// Fallback marks an offline stand-in for a neural model (the hash
	// encoder); every output that uses it says so.
	Fallback bool `json:"fallback,omitempty"`
	// Params holds settings of one kind that the fields above do not cover.
	Params map[string]string `json:"params,omitempty"`
	// Roles are the query and document prefixes or input types (E5, BGE,
	// Qwen3 embeddings); their JSON fields sit at the spec's top level.
	Roles
}

// Key is a stable hash of everything that decides the vectors (all fields
// but BaseURL and the preset's name): the key of an embedding cache, equal
// for equal specs across processes and versions. Empty roles add nothing to
// the JSON, so specs without prefixes keep the keys they had.
func (s EncoderSpec) Key() string {
	s.BaseURL, s.Preset = "", ""
	b, err := json.Marshal(s) // struct fields in order, map keys sorted
	if err != nil {
		panic(err) // a struct of strings, ints and a string map always marshals
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Compatible reports whether a query encoder of spec q embeds into the same
// space as documents of spec s: same kind, model, dimension, normalisation
// fitted state and roles (prefixes).
func (s EncoderSpec) Compatible(q EncoderSpec) error {
	if s.Kind != q.Kind || s.Model != q.Model || s.Dims != q.Dims || s.Normalize != q.Normalize || s.State != q.State {
		return fmt.Errorf("query encoder %s (model %q, %d dims) does not match the index's %s (model %q, %d dims)", q.Kind, q.Model, q.Dims, s.Kind, s.Model, s.Dims)
	}
	if !s.Roles.equal(q.Roles) {
		return fmt.Errorf("query encoder %s has %s, the index was built with %s", q.Kind, q.Roles, s.Roles)
	}
	return nil
}

// EncoderEnv is what a factory may need besides the spec: where the
// fitted state is, how to reach a model's endpoint, and how hard to use it
// (settings that do not change the vectors, so they are not in the spec).
type EncoderEnv struct {
	// Dir is the folder of the index generation, holding fitted state
	// (hash_state.bin); "" when building a new index.
	Dir string
	// Endpoint reaches an embeddings endpoint, for encoders of remote models
	// (nil: such encoders cannot be made). Encoders that run in process
	// never call it, so a command may always pass one.
	Endpoint Endpoint
	// BatchSize is texts per request and Concurrency requests in flight of
	// one Encode call, for encoders of remote models (0: the encoder's
	// default).
	BatchSize, Concurrency int
	// ProbeTimeout bounds an encoder's question to its endpoint when the
	// spec has no dimension (0: the encoder's default), and Progress, when
	// set, is told when that question waits.
	ProbeTimeout time.Duration
	Progress     func(msg string)
}

// Endpoint connects to the embeddings endpoint that serves spec's model
// (spec.BaseURL is where the index was built: app sends queries there),
// with the caller's retries, rate limits and timeouts (app wires driftkit's
// llm.Client). What it opens belongs to the caller, who releases it after
// the last Encode.
type Endpoint func(ctx context.Context, spec EncoderSpec) (Embedder, error)

// EncoderFactory makes an encoder from its spec. With env.Dir it loads the
// fitted state Build saved there; without, it returns a fresh encoder (to be
// fitted, when it is a Fitter).
type EncoderFactory func(ctx context.Context, spec EncoderSpec, env EncoderEnv) (Encoder, error)

var (
	encodersMu sync.RWMutex
	encoders   = map[string]EncoderFactory{}
)

// RegisterEncoder makes encoders of a kind available to Build and Open.
// Adding an encoder is one file that calls it from init; a kind registered
// twice panics.
func RegisterEncoder(kind string, f EncoderFactory) {
	encodersMu.Lock()
	defer encodersMu.Unlock()
	if _, dup := encoders[kind]; dup {
		panic("index: encoder kind " + kind + " registered twice")
	}
	encoders[kind] = f
}

// EncoderKinds lists the registered encoder kinds, sorted.
func EncoderKinds() []string {
	encodersMu.RLock()
	defer encodersMu.RUnlock()
	var out []string
	for k := range encoders {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ErrUnknownEncoder is wrapped when no factory is registered for a kind.
var ErrUnknownEncoder = errors.New("unknown encoder kind")

// ErrEncoderParam is wrapped when a spec has a parameter its kind does not
// take: a misspelt setting must not be dropped silently.
var ErrEncoderParam = errors.New("unknown encoder parameter")

// CheckParams refuses the parameters of spec that are not in known; a
// factory calls it first.
func CheckParams(spec EncoderSpec, known ...string) error {
	for _, k := range slices.Sorted(maps.Keys(spec.Params)) {
		if !slices.Contains(known, k) {
			takes := "none"
			if len(known) > 0 {
				takes = fmt.Sprint(known)
			}
			return fmt.Errorf("%w %q for encoder %s (it takes %s)", ErrEncoderParam, k, spec.Kind, takes)
		}
	}
	return nil
}

// NewEncoder makes an encoder from its spec with the registered factory.
func NewEncoder(ctx context.Context, spec EncoderSpec, env EncoderEnv) (Encoder, error) {
	encodersMu.RLock()
	f := encoders[spec.Kind]
	encodersMu.RUnlock()
	if f == nil {
		return nil, fmt.Errorf("%w %q (registered: %v)", ErrUnknownEncoder, spec.Kind, EncoderKinds())
	}
	return f(ctx, spec, env)
}

// Fitter is an encoder that learns from the corpus before encoding it (the
// hash encoder's document frequencies). Build fits it on the rendered
// documents.
type Fitter interface {
	Fit(texts []string)
}

// StateSaver is an encoder with fitted state to keep next to the vectors;
// its factory loads the state back from EncoderEnv.Dir.
type StateSaver interface {
	// SaveState writes the state into dir and returns the file names.
	SaveState(dir string) ([]string, error)
}

// RowEncoder is an in-process encoder that embeds one text into a given
// slice; Build calls it from all cores instead of batching.
type RowEncoder interface {
	EncodeOne(text string, dst []float32)
}
