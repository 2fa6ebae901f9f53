package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// Embedder is one embeddings call to an OpenAI-compatible /v1/embeddings
// endpoint: one vector per text, in order. Retries, rate limits and request
// timeouts belong to the Embedder (driftkit's llm.Client provides them; the
// command wires it in). Implementations must be safe for concurrent use.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderFunc adapts a function to Embedder.
type EmbedderFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embed implements Embedder.
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// OpenAIConfig configures an OpenAIEncoder.
type OpenAIConfig struct {
	// Model is recorded in the index manifest (the Embedder sends it).
	Model string
	// BaseURL is recorded in the manifest for reference only.
	BaseURL string
	// BatchSize is texts per request (default 64).
	BatchSize int
	// Concurrency is requests in flight from one Encode call (default 4).
	Concurrency int
	// MaxChars truncates each text to this many characters before sending
	// (default 8000; BGE-M3 takes 8192 tokens). 0 or less: the default.
	MaxChars int
	// Dim is the expected dimension; 0 probes the endpoint once, for at
	// most ProbeTimeout.
	Dim int
	// ProbeTimeout bounds the dimension probe as a whole, the Embedder's
	// retries included (0: DefaultProbeTimeout). Past it the probe fails
	// with ErrProbe, naming the endpoint and --dim.
	ProbeTimeout time.Duration
	// Progress, when set, is told once that the probe is waiting, when it
	// has not answered after ProgressAfter (0: DefaultProbeProgressAfter).
	Progress      func(msg string)
	ProgressAfter time.Duration
	// Roles are the query and document prefixes or input types; an input
	// type needs an InputTypeEmbedder.
	Roles Roles
}

// ErrEmbedding is wrapped by errors about unusable embedding responses.
var ErrEmbedding = errors.New("bad embeddings response")

// ErrProbe is wrapped when the dimension probe of a model gets no usable
// vector in time: the error names the endpoint and says to give --dim.
var ErrProbe = errors.New("cannot learn the vector dimension")

// DefaultProbeTimeout bounds the dimension probe: a server that answers
// one short text takes well under a second; an unreachable one would
// otherwise keep the command silent through every retry of the client
// (about 25 s with the default backoff, longer for a server that accepts
// the connection and never answers).
const DefaultProbeTimeout = 15 * time.Second

// DefaultProbeProgressAfter is how long the probe waits before it says so.
const DefaultProbeProgressAfter = 2 * time.Second

// errProbeDeadline is the cause of the probe's own deadline (told apart
// from the caller's cancellation).
var errProbeDeadline = errors.New("probe deadline")

// OpenAIEncoder is an Encoder over an OpenAI-compatible embeddings endpoint
// (text-embeddings-inference, vLLM, Infinity, Ollama, OpenAI) serving e.g.
// BGE-M3. It batches texts, keeps up to Concurrency batches in flight,
// truncates long texts, checks every vector's dimension and finiteness and
// L2-normalises. Safe for concurrent use.
type OpenAIEncoder struct {
	emb      Embedder
	cfg      OpenAIConfig
	requests *atomic.Int64 // shared with the query role
	query    bool          // the query role (ForQueries): query prefix and input type
}

// NewOpenAIEncoder returns an encoder over emb. When cfg.Dim is 0 it embeds a
// probe text to learn the dimension.
func NewOpenAIEncoder(ctx context.Context, emb Embedder, cfg OpenAIConfig) (*OpenAIEncoder, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = 8000
	}
	e := &OpenAIEncoder{emb: emb, cfg: cfg, requests: new(atomic.Int64)}
	if (cfg.Roles.QueryInputType != "" || cfg.Roles.DocInputType != "") && !hasInputType(emb) {
		return nil, fmt.Errorf("encoder roles with an input_type (%s) need an embeddings client that sends it", cfg.Roles)
	}
	if cfg.Dim <= 0 {
		dim, err := e.probeDim(ctx)
		if err != nil {
			return nil, err
		}
		e.cfg.Dim = dim
	}
	return e, nil
}

// probeDim embeds one text to learn the model's dimension, for at most
// cfg.ProbeTimeout, telling cfg.Progress when it waits. A failure wraps
// ErrProbe and names the endpoint and the flag that skips the probe; the
// caller's cancellation (Ctrl-C) is returned as such.
func (o *OpenAIEncoder) probeDim(ctx context.Context) (int, error) {
	timeout := o.cfg.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	after := o.cfg.ProgressAfter
	if after <= 0 {
		after = DefaultProbeProgressAfter
	}
	where := fmt.Sprintf("the embeddings endpoint %s (model %q)", redactURLs(o.cfg.BaseURL), o.cfg.Model)
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, errProbeDeadline)
	defer cancel()
	if o.cfg.Progress != nil {
		// Told from its own goroutine, which has ended when the probe
		// returns: nothing is written after the caller moved on.
		done, told := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(told)
			t := time.NewTimer(after)
			defer t.Stop()
			select {
			case <-t.C:
				o.cfg.Progress(fmt.Sprintf("asking %s for its vector dimension (up to %s; --dim N skips this)…", where, timeout))
			case <-done:
			}
		}()
		defer func() { close(done); <-told }()
	}
	o.requests.Add(1)
	v, err := o.embed(pctx, []string{"dimension probe"})
	switch {
	case err != nil && ctx.Err() != nil:
		return 0, fmt.Errorf("probe %s: %w", where, err)
	case err != nil && errors.Is(context.Cause(pctx), errProbeDeadline):
		return 0, fmt.Errorf("%w: %s gave no vector within %s (%v); give --dim N, the model's vector dimension, to skip the probe", ErrProbe, where, timeout, err)
	case err != nil:
		return 0, fmt.Errorf("%w: %s: %w; give --dim N, the model's vector dimension, to skip the probe", ErrProbe, where, err)
	case len(v) != 1 || len(v[0]) == 0:
		return 0, fmt.Errorf("%w: %s: %w: no vector; give --dim N, the model's vector dimension, to skip the probe", ErrProbe, where, ErrEmbedding)
	}
	return len(v[0]), nil
}

// redactURLs is a comma-separated list of base URLs without their
// passwords, for messages ("" is "(none)").
func redactURLs(s string) string {
	if s == "" {
		return "(none recorded)"
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if u, err := url.Parse(p); err == nil {
			p = u.Redacted()
		}
		out = append(out, p)
	}
	return strings.Join(out, ",")
}

// Name implements Encoder.
func (o *OpenAIEncoder) Name() string { return EncoderOpenAI + ":" + o.cfg.Model }

// Dim implements Encoder.
func (o *OpenAIEncoder) Dim() int { return o.cfg.Dim }

// Model is the endpoint's model name.
func (o *OpenAIEncoder) Model() string { return o.cfg.Model }

// BaseURL is the endpoint recorded in the manifest.
func (o *OpenAIEncoder) BaseURL() string { return o.cfg.BaseURL }

// MaxChars is the truncation length.
func (o *OpenAIEncoder) MaxChars() int { return o.cfg.MaxChars }

// Requests is the number of embeddings requests sent so far, the probe
// included (the Embedder's retries are not counted); it implements
// RequestCounter.
func (o *OpenAIEncoder) Requests() int64 { return o.requests.Load() }

// Concurrency is the number of requests one Encode call keeps in flight;
// Build keeps as many Encode calls in flight (Concurrent).
func (o *OpenAIEncoder) Concurrency() int { return o.cfg.Concurrency }

// Spec implements Encoder (the same for both roles).
func (o *OpenAIEncoder) Spec() EncoderSpec {
	return EncoderSpec{Kind: EncoderOpenAI, Model: o.cfg.Model, Dims: o.cfg.Dim, BaseURL: o.cfg.BaseURL, Normalize: "l2",
		MaxChars: o.cfg.MaxChars, Truncation: "chars", Roles: o.cfg.Roles}
}

// ForQueries implements QueryRole: the same endpoint and model, with the
// query prefix and input type instead of the document's.
func (o *OpenAIEncoder) ForQueries() Encoder {
	q := *o
	q.query = true
	return &q
}

func hasInputType(emb Embedder) bool {
	_, ok := emb.(InputTypeEmbedder)
	return ok
}

// embed sends one batch with the role's prefix and input type.
func (o *OpenAIEncoder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	prefix, inputType := o.cfg.Roles.DocPrefix, o.cfg.Roles.DocInputType
	if o.query {
		prefix, inputType = o.cfg.Roles.QueryPrefix, o.cfg.Roles.QueryInputType
	}
	texts = prefixed(prefix, texts)
	if inputType != "" {
		return o.emb.(InputTypeEmbedder).EmbedInputType(ctx, inputType, texts)
	}
	return o.emb.Embed(ctx, texts)
}

func init() { RegisterEncoder(EncoderOpenAI, newOpenAIFromSpec) }

// ErrNoEmbedder is wrapped when an encoder of a remote model is needed but no
// embeddings client was given.
var ErrNoEmbedder = errors.New("an embeddings endpoint is needed")

// newOpenAIFromSpec is the OpenAI encoder's factory: the embeddings client
// comes from env.Endpoint (the caller wires retries, rate limits and the
// endpoint), the model, dimension (0: probed) and truncation from the spec.
func newOpenAIFromSpec(ctx context.Context, spec EncoderSpec, env EncoderEnv) (Encoder, error) {
	if err := CheckParams(spec); err != nil {
		return nil, err
	}
	if env.Endpoint == nil {
		return nil, fmt.Errorf("%w: the index was built with encoder %s (model %q): give an embeddings endpoint serving %s (the index records %q)",
			ErrNoEmbedder, spec.Kind, spec.Model, spec.Model, spec.BaseURL)
	}
	emb, err := env.Endpoint(ctx, spec)
	if err != nil {
		return nil, err
	}
	return NewOpenAIEncoder(ctx, emb, OpenAIConfig{Model: spec.Model, BaseURL: spec.BaseURL, MaxChars: spec.MaxChars, Dim: spec.Dims,
		BatchSize: env.BatchSize, Concurrency: env.Concurrency, Roles: spec.Roles, ProbeTimeout: env.ProbeTimeout, Progress: env.Progress})
}

// Truncate cuts s to at most n characters (runes), on a rune boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, c := 0, 0
	for i < len(s) && c < n {
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		c++
	}
	return s[:i]
}

// Encode implements Encoder.
func (o *OpenAIEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.cfg.Concurrency)
	for s := 0; s < len(texts); s += o.cfg.BatchSize {
		e := min(s+o.cfg.BatchSize, len(texts))
		g.Go(func() error {
			in := make([]string, e-s)
			for i := range in {
				in[i] = Truncate(texts[s+i], o.cfg.MaxChars)
				if in[i] == "" {
					in[i] = " " // endpoints reject empty inputs
				}
			}
			o.requests.Add(1)
			vs, err := o.embed(gctx, in)
			if err != nil {
				return fmt.Errorf("texts %d–%d: %w", s, e-1, err)
			}
			if len(vs) != len(in) {
				return fmt.Errorf("texts %d–%d: %w: %d vectors for %d texts", s, e-1, ErrEmbedding, len(vs), len(in))
			}
			for i, v := range vs {
				if len(v) != o.cfg.Dim {
					return fmt.Errorf("text %d: %w: %d dims, want %d", s+i, ErrEmbedding, len(v), o.cfg.Dim)
				}
				c := make([]float32, len(v))
				copy(c, v)
				for _, x := range c {
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						return fmt.Errorf("text %d: %w: non-finite value", s+i, ErrEmbedding)
					}
				}
				normalize(c)
				out[s+i] = c
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
