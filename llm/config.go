// Package llm is driftkit's client for OpenAI-compatible endpoints (OpenAI,
// vLLM, Ollama, DeepSeek, text-embeddings-inference, …): chat completions and
// embeddings over github.com/sashabaranov/go-openai, with round-robin over
// several base URLs, a concurrency limit, token-bucket limits on requests and
// tokens per minute, retries with exponential backoff and jitter on 429, 5xx,
// dropped connections and timeouts (honouring Retry-After), a per-request
// timeout, cancellation through the context, and usage and cost accounting.
package llm

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/driftkit/driftkit/internal/countflag"
)

// DefaultBaseURL is used when neither Config.BaseURLs nor OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Prices are what an endpoint charges, in US dollars per million tokens.
// Embedding requests are charged at the Prompt price.
type Prices struct {
	Prompt     float64 `json:"prompt_usd_per_mtok"`
	Completion float64 `json:"completion_usd_per_mtok"`
}

// Cost returns the cost in US dollars of the given token counts.
func (p Prices) Cost(prompt, completion int64) float64 {
	return (float64(prompt)*p.Prompt + float64(completion)*p.Completion) / 1e6
}

// Config configures a Client. The zero value plus a base URL works: every
// zero field takes the default documented on it.
type Config struct {
	// BaseURLs are OpenAI-compatible API roots ending in /v1; requests go to
	// them round-robin, skipping one that asked to back off while another is
	// free. Empty: DefaultBaseURL.
	BaseURLs []string
	APIKey   string
	// KeyScope lists the base URLs APIKey was configured for: the key is
	// sent only to endpoints on one of their origins (scheme, host, port),
	// never to another host that a flag, a manifest or a caller names.
	// ConfigFromEnv sets it to OPENAI_BASE_URL, else DefaultBaseURL (the
	// host OPENAI_API_KEY is meant for). Empty: the key belongs to BaseURLs.
	KeyScope []string
	// Model is the default chat model (ChatRequest.Model overrides it).
	Model string
	// Concurrency bounds requests in flight (default 8). The client lowers
	// it to the parallel slots a server reports (llama.cpp's /props or
	// /slots) and halves it when attempts time out, growing it back after
	// successes (see Client.Parallelism).
	Concurrency int
	// NoProbe never asks the servers for their parallel slots (three GETs
	// per endpoint before the first request).
	NoProbe bool
	// RequestsPerMinute and TokensPerMinute are token-bucket limits; 0 means
	// no limit. Tokens are estimated before a request and corrected after.
	RequestsPerMinute float64
	TokensPerMinute   float64
	// MaxRetries is how many times a failed request is retried (0: the
	// default, 6; negative: never — the --max-retries flag stores its 0 so).
	MaxRetries int
	// RequestTimeout bounds one attempt from when it is sent: waiting for a
	// free slot or for the rate limits does not count (default 120s).
	RequestTimeout time.Duration
	// BackoffBase and BackoffMax shape the exponential backoff (defaults
	// 500ms and 60s); the actual delay is jittered in [d/2, d].
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// Prices turn token counts into cost.
	Prices Prices
	// NoJSONMode never sends response_format (for endpoints that reject it;
	// the client also learns this per endpoint from a 400 naming response_format).
	NoJSONMode bool
	// FoldSystem sends the system messages at the head of the first user
	// message instead, for chat templates without a system turn (Gemma's:
	// llama-cpp-python's "gemma" chat format drops a system message).
	FoldSystem bool
	// ResponseFormat is the shape of response_format sent with an answer's
	// schema (see Formats); "" or FormatAuto: json_schema, stepping down
	// per endpoint on refusal. NoJSONMode is FormatNone.
	ResponseFormat string
	// Logger receives the client's warnings (retries given up, an endpoint
	// that rejects JSON mode); nil: slog.Default(). A server or a test
	// passes its own so that library code writes nowhere it was not told to.
	Logger *slog.Logger `json:"-"`

	envURLs []string // base URLs from the environment, kept by RegisterFlags
}

// ConfigFromEnv returns a Config with BaseURLs from OPENAI_BASE_URL (several
// separated by commas or spaces) and APIKey from OPENAI_API_KEY, scoped to
// OPENAI_BASE_URL's hosts, or to DefaultBaseURL's when it is unset: a
// --base-url or an index's recorded endpoint elsewhere does not get the key.
func ConfigFromEnv() Config {
	var c Config
	c.BaseURLs = SplitURLs(os.Getenv("OPENAI_BASE_URL"))
	c.APIKey = os.Getenv("OPENAI_API_KEY")
	c.KeyScope = c.BaseURLs
	if len(c.KeyScope) == 0 {
		c.KeyScope = []string{DefaultBaseURL}
	}
	return c
}

// keyScope is where the key may go (KeyScope, else BaseURLs).
func (c Config) keyScope() []string {
	if len(c.KeyScope) > 0 {
		return c.KeyScope
	}
	return c.BaseURLs
}

// SplitURLs splits a list of base URLs separated by commas or white space.
func SplitURLs(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		out = append(out, strings.TrimRight(f, "/"))
	}
	return out
}

func (c Config) withDefaults() Config {
	if len(c.BaseURLs) == 0 {
		c.BaseURLs = []string{DefaultBaseURL}
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 6
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 120 * time.Second
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = 500 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 60 * time.Second
	}
	if c.ResponseFormat == "" {
		c.ResponseFormat = FormatAuto
	}
	if c.NoJSONMode {
		c.ResponseFormat = FormatNone
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	var errs []error
	for _, u := range c.BaseURLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			errs = append(errs, fmt.Errorf("base URL %q: want http:// or https://", redactURL(u)))
		} else if p, err := url.Parse(u); err == nil && p.User != nil {
			// An index records its embeddings endpoint (manifest, export
			// hf) and errors name endpoints: a password in the URL would
			// go wherever they go.
			p.User = nil
			errs = append(errs, fmt.Errorf("base URL %q (credentials not shown): credentials in a URL would be recorded (index manifests, messages): give the key in OPENAI_API_KEY", p.String()))
		}
	}
	if c.RequestsPerMinute < 0 || c.TokensPerMinute < 0 {
		errs = append(errs, errors.New("rate limits must not be negative"))
	}
	if c.Prices.Prompt < 0 || c.Prices.Completion < 0 {
		errs = append(errs, errors.New("prices must not be negative"))
	}
	if err := checkFormat(c.ResponseFormat); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// redactURL is u without its credentials, for messages.
func redactURL(u string) string {
	if p, err := url.Parse(u); err == nil && p.User != nil {
		p.User = nil
		return p.String()
	}
	return u
}

// urlList is a flag.Value collecting base URLs (repeatable, comma-separated).
type urlList struct{ dst *[]string }

func (u urlList) String() string {
	if u.dst == nil {
		return ""
	}
	return strings.Join(*u.dst, ",")
}

func (u urlList) Set(s string) error {
	*u.dst = append(*u.dst, SplitURLs(s)...)
	return nil
}

// RegisterFlags adds the client flags to fs, with c's current values as
// defaults: --base-url (repeatable; default OPENAI_BASE_URL), --model,
// --concurrency, --rpm, --tpm, --max-retries, --timeout, --price-prompt,
// --price-completion, --no-json-mode. Call it on a Config from ConfigFromEnv.
// If --base-url is given, it replaces the URLs from the environment.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	c.registerCommonFlags(fs)
	c.registerChatFlags(fs)
}

func (c *Config) registerCommonFlags(fs *flag.FlagSet) {
	env := c.BaseURLs
	c.BaseURLs = nil
	fs.Var(urlList{&c.BaseURLs}, "base-url", "OpenAI-compatible API root, repeatable or comma-separated for round-robin (default $OPENAI_BASE_URL"+defaultNote(env)+")")
	// Restored by Finalize when the flag was not given.
	c.envURLs = env
	fs.StringVar(&c.Model, "model", c.Model, "model name at the endpoint")
	fs.IntVar(&c.Concurrency, "concurrency", orInt(c.Concurrency, 8), "requests in flight at most (lowered to the parallel slots a llama.cpp server reports, halved while requests time out)")
	fs.Float64Var(&c.RequestsPerMinute, "rpm", c.RequestsPerMinute, "requests per minute limit (0: none)")
	fs.Float64Var(&c.TokensPerMinute, "tpm", c.TokensPerMinute, "tokens per minute limit (0: none)")
	countflag.Var(fs, &c.MaxRetries, "max-retries", orInt(c.MaxRetries, 6), "retries per request on 429, 5xx, timeouts and dropped connections (0: none)")
	fs.DurationVar(&c.RequestTimeout, "timeout", orDur(c.RequestTimeout, 120*time.Second), "timeout of one request attempt")
	fs.Float64Var(&c.Prices.Prompt, "price-prompt", c.Prices.Prompt, "USD per million prompt tokens (cost accounting)")
}

// RegisterEmbeddingFlags registers the flags of an embeddings client: those
// of RegisterFlags without the chat-only ones (completion price, JSON
// mode), so that an embedding command's --help lists none it ignores.
func (c *Config) RegisterEmbeddingFlags(fs *flag.FlagSet) {
	c.registerCommonFlags(fs)
}

func (c *Config) registerChatFlags(fs *flag.FlagSet) {
	fs.Float64Var(&c.Prices.Completion, "price-completion", c.Prices.Completion, "USD per million completion tokens (cost accounting)")
	fs.BoolVar(&c.NoJSONMode, "no-json-mode", c.NoJSONMode, "never send response_format (endpoints without JSON mode; same as --response-format none)")
	fs.BoolVar(&c.FoldSystem, "fold-system", c.FoldSystem, "send the system prompt at the head of the first user message (models without a system turn, e.g. Gemma: llama-cpp-python's gemma chat format drops system messages)")
	fs.StringVar(&c.ResponseFormat, "response-format", orStr(c.ResponseFormat, FormatAuto), "how answers' JSON schemas are sent: auto (json_schema, stepping down on refusal), "+
		strings.Join(Formats[:], ", ")+" (json_object+schema: llama-cpp-python's server)")
}

// Finalize completes a Config after flag parsing (restores environment base
// URLs when --base-url was not given) and validates it.
func (c *Config) Finalize() error {
	if len(c.BaseURLs) == 0 {
		c.BaseURLs = c.envURLs
	}
	return c.Validate()
}

func defaultNote(env []string) string {
	if len(env) == 0 {
		return ", else " + DefaultBaseURL
	}
	return ": " + strings.Join(env, ",")
}

func orInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func orStr(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func orDur(v, d time.Duration) time.Duration {
	if v == 0 {
		return d
	}
	return v
}
