package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/llm"
)

// Endpoint is the index.Endpoint of the embeddings endpoint lc describes
// (a build's: lc's base URLs, whatever the spec records). lc is checked
// when an encoder first needs the endpoint (a malformed base URL wraps
// ErrConfig), so an index of an in-process encoder opens whatever the
// environment holds. The returned function closes every client made; call
// it after the last Encode.
func Endpoint(lc llm.Config) (index.Endpoint, func()) {
	return endpoint(lc, func(index.EncoderSpec) ([]string, error) { return nil, nil })
}

// QueryEndpoint is the index.Endpoint of an opened index's query encoder:
// the base URLs QueryEndpoints picks for the spec (override, else the
// recorded endpoint), with lc's key only where lc's KeyScope allows.
func QueryEndpoint(lc llm.Config, override string) (index.Endpoint, func()) {
	return endpoint(lc, func(spec index.EncoderSpec) ([]string, error) { return QueryEndpoints(spec, override) })
}

// endpoint makes, for each encoder that asks, an llm.Client (retries,
// rate limits, timeouts, the key) at the URLs urls picks (nil: lc's) that
// embeds with the spec's model and can send an input_type.
func endpoint(lc llm.Config, urls func(index.EncoderSpec) ([]string, error)) (index.Endpoint, func()) {
	var mu sync.Mutex
	var clients []*llm.Client
	ep := func(ctx context.Context, spec index.EncoderSpec) (index.Embedder, error) {
		cfg := lc
		u, err := urls(spec)
		if err != nil {
			return nil, err
		}
		if u != nil {
			cfg.BaseURLs = u
		}
		if err := cfg.Finalize(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c, err := llm.New(cfg)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		clients = append(clients, c)
		mu.Unlock()
		return embedder{c, spec.Model}, nil
	}
	return ep, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range clients {
			c.Close()
		}
		clients = nil
	}
}

type embedder struct {
	c     *llm.Client
	model string
}

func (e embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedInputType(ctx, "", texts)
}

// EmbedInputType implements index.InputTypeEmbedder.
func (e embedder) EmbedInputType(ctx context.Context, inputType string, texts []string) ([][]float32, error) {
	v, _, err := e.c.EmbedAs(ctx, llm.EmbeddingBody{Model: e.model, Input: texts, InputType: inputType})
	return v, err
}

// ErrNoEndpoint is wrapped when an index of a remote embeddings model
// records no endpoint and none was given.
var ErrNoEndpoint = errors.New("no embeddings endpoint")

// QueryEndpoints are the embeddings endpoints a query encoder of spec
// uses: override (a flag) when given, else the endpoint the index was
// built with (recorded in its spec), else OPENAI_BASE_URL for an index that
// records none. Never OpenAI's default endpoint unless the index was built
// there: a local user's queries stay on the server that embedded the
// library.
func QueryEndpoints(spec index.EncoderSpec, override string) ([]string, error) {
	for _, s := range []string{override, spec.BaseURL, os.Getenv("OPENAI_BASE_URL")} {
		if urls := llm.SplitURLs(s); len(urls) > 0 {
			return urls, nil
		}
	}
	return nil, fmt.Errorf("%w: %w: the index (model %q) records no embeddings endpoint: give --embed-base-url", ErrConfig, ErrNoEndpoint, spec.Model)
}

// EncoderOptions say which encoder an index build embeds with: a kind of
// the registry (index.EncoderKinds) and the spec fields a command sets;
// each kind's factory uses those it understands.
type EncoderOptions struct {
	// Kind is the registered kind (--encoder).
	Kind string
	// Model is the endpoint's model, for encoders of remote models.
	Model string
	// Dims is the vector dimension; 0 is the kind's default (the hash
	// encoder's 256; a remote model's is probed).
	Dims int
	// MaxChars truncates texts before a remote model embeds them.
	MaxChars int
	// Params are the kind's own settings (--encoder-param k=v).
	Params map[string]string
	// Batch is texts per request to a remote model.
	Batch int
	// LLM is the endpoint of a remote model: base URLs, key, retries,
	// limits; its Concurrency is requests in flight.
	LLM llm.Config
	// Roles are the query/document prefixes or input types of the model.
	Roles index.Roles
	// ProbeTimeout bounds a remote model's dimension probe (Dims 0; 0: the
	// encoder's default); Progress, when set, is told when the probe waits.
	ProbeTimeout time.Duration
	Progress     func(msg string)
}

// NewEncoder makes the encoder o selects through the registry. An unknown
// kind or a configuration that cannot work wraps ErrConfig. The returned
// function closes the endpoint's clients; call it when the build is over.
func NewEncoder(ctx context.Context, o EncoderOptions) (index.Encoder, func(), error) {
	if err := CheckEncoderKind(o.Kind); err != nil {
		return nil, nil, err
	}
	ep, closeEp := Endpoint(o.LLM)
	spec := index.EncoderSpec{Kind: o.Kind, Model: o.Model, Dims: o.Dims, MaxChars: o.MaxChars, BaseURL: baseURL(o.LLM), Roles: o.Roles}
	if len(o.Params) > 0 {
		spec.Params = maps.Clone(o.Params)
	}
	enc, err := index.NewEncoder(ctx, spec, index.EncoderEnv{Endpoint: ep, BatchSize: o.Batch, Concurrency: o.LLM.Concurrency,
		ProbeTimeout: o.ProbeTimeout, Progress: o.Progress})
	if err != nil {
		closeEp()
		if errors.Is(err, index.ErrEncoderParam) {
			err = fmt.Errorf("%w: --encoder-param: %w", ErrConfig, err)
		}
		return nil, nil, err
	}
	return enc, closeEp, nil
}

// CheckEncoderKind refuses a kind the registry does not have (ErrConfig,
// naming those it has).
func CheckEncoderKind(kind string) error {
	kinds := index.EncoderKinds()
	if !slices.Contains(kinds, kind) {
		return fmt.Errorf("%w: --encoder %q (%s)", ErrConfig, kind, OrList(kinds))
	}
	return nil
}

// OrList joins names as "a, b or c".
func OrList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// baseURL is the endpoint lc reaches, recorded in the index manifest for
// reference ("" when lc cannot work: the encoder that needs it says why).
func baseURL(lc llm.Config) string {
	if err := lc.Finalize(); err != nil {
		return ""
	}
	if len(lc.BaseURLs) == 0 {
		return llm.DefaultBaseURL
	}
	return strings.Join(lc.BaseURLs, ",")
}
