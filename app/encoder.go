package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/llm"
)

// Endpoint is the index.Endpoint of the embeddings endpoint lc describes:
// each call makes an llm.Client (retries, rate limits, timeouts, the key)
// that embeds with the model the encoder asks for. lc is checked when an
// encoder first needs the endpoint (a malformed base URL wraps ErrConfig),
// so an index of an in-process encoder opens whatever the environment
// holds. The returned function closes every client made; call it after the
// last Encode.
func Endpoint(lc llm.Config) (index.Endpoint, func()) {
	var mu sync.Mutex
	var clients []*llm.Client
	ep := func(ctx context.Context, model string) (index.Embedder, error) {
		cfg := lc
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
		return index.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
			v, _, err := c.Embed(ctx, model, texts)
			return v, err
		}), nil
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
}

// NewEncoder makes the encoder o selects through the registry. An unknown
// kind or a configuration that cannot work wraps ErrConfig. The returned
// function closes the endpoint's clients; call it when the build is over.
func NewEncoder(ctx context.Context, o EncoderOptions) (index.Encoder, func(), error) {
	if err := CheckEncoderKind(o.Kind); err != nil {
		return nil, nil, err
	}
	ep, closeEp := Endpoint(o.LLM)
	spec := index.EncoderSpec{Kind: o.Kind, Model: o.Model, Dims: o.Dims, MaxChars: o.MaxChars, BaseURL: baseURL(o.LLM)}
	if len(o.Params) > 0 {
		spec.Params = maps.Clone(o.Params)
	}
	enc, err := index.NewEncoder(ctx, spec, index.EncoderEnv{Endpoint: ep, BatchSize: o.Batch, Concurrency: o.LLM.Concurrency})
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
