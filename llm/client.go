package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Usage counts what requests cost. Chat and Embed return the usage of one
// call; Client.Usage returns the running total.
type Usage struct {
	Requests         int64   `json:"requests"`          // calls that succeeded
	Attempts         int64   `json:"attempts"`          // HTTP attempts, including retries
	Retries          int64   `json:"retries"`           // attempts after the first
	Failures         int64   `json:"failures"`          // calls that finally failed
	RateLimited      int64   `json:"rate_limited"`      // 429 answers seen
	PromptTokens     int64   `json:"prompt_tokens"`     // as reported by the endpoint
	CompletionTokens int64   `json:"completion_tokens"` // as reported by the endpoint
	CostUSD          float64 `json:"cost_usd"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Requests: u.Requests + v.Requests, Attempts: u.Attempts + v.Attempts, Retries: u.Retries + v.Retries,
		Failures: u.Failures + v.Failures, RateLimited: u.RateLimited + v.RateLimited,
		PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		CostUSD: u.CostUSD + v.CostUSD,
	}
}

// String is a one-line summary for logs and progress bars.
func (u Usage) String() string {
	return fmt.Sprintf("req=%d retries=%d failed=%d tok=%d+%d $%.4f",
		u.Requests, u.Retries, u.Failures, u.PromptTokens, u.CompletionTokens, u.CostUSD)
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// ChatRequest is one chat completion.
type ChatRequest struct {
	Model    string // empty: Config.Model
	Messages []Message
	// JSON asks for a JSON object (response_format) where the endpoint
	// supports it; the caller must still parse strictly.
	JSON bool
	// Schema is the answer's JSON schema, sent with JSON in the shape the
	// endpoint takes (Config.ResponseFormat); nil: any JSON object.
	Schema      *Schema
	MaxTokens   int
	Temperature *float32
	Seed        *int
}

// ChatResponse is the first choice of a completion.
type ChatResponse struct {
	Content      string
	FinishReason string
	Model        string
	Endpoint     string
	Usage        Usage
}

// Body is the wire request of r (also written into batch files), with the
// model defaulting to def and the response_format of format (one of
// Formats; FormatAuto is FormatJSONSchema) when r asks for JSON. A set
// Temperature is sent as it is, 0 included (see ChatBody).
func (r ChatRequest) Body(def string, format string) ChatBody {
	model := r.Model
	if model == "" {
		model = def
	}
	b := ChatBody{Model: model, Messages: r.Messages, MaxTokens: r.MaxTokens, Temperature: r.Temperature, Seed: r.Seed}
	if r.JSON {
		b.ResponseFormat = r.responseFormat(format)
	}
	return b
}

// FoldSystem returns msgs with the system messages moved to the head of
// the first user message (each followed by a blank line), as Gemma's own
// chat template does; msgs without a system message are returned as they
// are, and a conversation without a user message gets one.
func FoldSystem(msgs []Message) []Message {
	var sys []string
	rest := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "system" {
			sys = append(sys, m.Content)
			continue
		}
		rest = append(rest, m)
	}
	if len(sys) == 0 {
		return msgs
	}
	head := strings.Join(sys, "\n\n")
	for i, m := range rest {
		if m.Role == "user" {
			rest[i].Content = head + "\n\n" + m.Content
			return rest
		}
	}
	return append([]Message{{Role: "user", Content: head}}, rest...)
}

// EstimateTokens is a rough token count of text (about 4 bytes a token),
// used for rate limiting before the endpoint reports the real count and for
// dry-run estimates.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// Client talks to one or more OpenAI-compatible endpoints. It is safe for
// concurrent use by any number of goroutines; its limits (concurrency, RPM,
// TPM) and usage totals apply across all of them. It holds idle HTTP
// connections until Close. Close does not interrupt requests in flight
// (cancel their contexts for that); a Client used after Close still works but
// opens new connections, so Close it once, when the last call has returned.
type Client struct {
	cfg       Config
	eps       []*endpoint
	next      atomic.Uint64
	lim       *limiter
	probeOnce sync.Once
	parSource string // set by probe, read under lim.mu
	reqBucket *bucket
	tokBucket *bucket
	transport *http.Transport
	hc        *http.Client
	log       *slog.Logger

	mu    sync.Mutex
	total Usage
}

type endpoint struct {
	url    string
	key    string // the API key when this endpoint is in its scope, else ""
	oc     *openai.Client
	until  atomic.Int64 // unix nanos before which this endpoint asked not to be called
	format atomic.Int32 // index in Formats of the response_format sent (raised on refusal)
}

type attemptKey struct{}

// attemptInfo receives the HTTP status and Retry-After of one attempt from
// endpoint.post.
type attemptInfo struct {
	status     int
	retryAfter time.Duration
	format     string // the response_format shape sent (Formats), "" none
}

// New returns a client for cfg (zero fields take their defaults).
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        4 * cfg.Concurrency,
		MaxIdleConnsPerHost: 2 * cfg.Concurrency,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 15 * time.Second,
	}
	hc := &http.Client{Transport: tr, CheckRedirect: noRedirect}
	c := &Client{
		cfg: cfg, lim: newLimiter(cfg.Concurrency), parSource: "configured", transport: tr, hc: hc,
		reqBucket: newBucket(cfg.RequestsPerMinute), tokBucket: newBucket(cfg.TokensPerMinute),
		log: cfg.Logger,
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	for _, u := range cfg.BaseURLs {
		key := cfg.keyFor(u)
		if key == "" && cfg.APIKey != "" {
			c.log.Warn("the API key is not sent to this endpoint: it was configured for another host (set OPENAI_BASE_URL to this endpoint to send it)",
				"endpoint", u, "key_for", strings.Join(cfg.keyScope(), ","))
		}
		oc := openai.DefaultConfig(key)
		oc.BaseURL = u
		oc.HTTPClient = hc
		ep := &endpoint{url: u, key: key, oc: openai.NewClientWithConfig(oc)}
		ep.format.Store(int32(formatLevel(cfg.ResponseFormat)))
		c.eps = append(c.eps, ep)
	}
	return c, nil
}

// Config returns the effective configuration (defaults filled in).
func (c *Client) Config() Config { return c.cfg }

// OpenAI returns the go-openai client of the first endpoint, for APIs this
// package does not wrap (files, batches). It has no retries or limits; it
// carries the key only when the endpoint is in the key's scope.
func (c *Client) OpenAI() *openai.Client { return c.eps[0].oc }

// Usage returns the totals of every call so far.
func (c *Client) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Close releases idle connections. It is safe to call concurrently with
// other methods and more than once; see Client for the lifetime.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

func (c *Client) account(u Usage) {
	c.mu.Lock()
	c.total = c.total.Add(u)
	c.mu.Unlock()
}

// pick returns the next endpoint round-robin, preferring one that is not
// cooling down after a 429; if all are, it returns the one free soonest and
// how long to wait for it.
func (c *Client) pick() (*endpoint, time.Duration) {
	n := len(c.eps)
	start := int(c.next.Add(1)-1) % n
	now := time.Now().UnixNano()
	best, bestUntil := c.eps[start], int64(1<<62)
	for i := 0; i < n; i++ {
		ep := c.eps[(start+i)%n]
		u := ep.until.Load()
		if u <= now {
			return ep, 0
		}
		if u < bestUntil {
			best, bestUntil = ep, u
		}
	}
	return best, time.Duration(bestUntil - now)
}

// backoff returns the jittered exponential delay before retry number n (1-based).
func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.BackoffBase
	for i := 1; i < n && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.cfg.BackoffMax)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// attemptFunc performs one HTTP attempt; it returns the usage to account on success.
type attemptFunc func(ctx context.Context, ep *endpoint) (Usage, error)

// do runs call with limits and retries. estTokens feeds the token bucket.
// With timeoutFails, an attempt that times out is not retried (the caller
// asks something smaller instead: see EmbedAs).
func (c *Client) do(ctx context.Context, op string, estTokens int, timeoutFails bool, call attemptFunc) (Usage, *endpoint, error) {
	var u Usage
	var lastErr error
	var lastStatus int
	var ep *endpoint
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return c.fail(u, op, ep, attempt-1, lastStatus, false, err)
		}
		if err := c.reqBucket.Wait(ctx, 1); err != nil {
			return c.fail(u, op, ep, attempt-1, lastStatus, false, err)
		}
		if err := c.tokBucket.Wait(ctx, float64(estTokens)); err != nil {
			return c.fail(u, op, ep, attempt-1, lastStatus, false, err)
		}
		var wait time.Duration
		ep, wait = c.pick()
		if wait > 0 {
			if err := sleepCtx(ctx, wait); err != nil {
				return c.fail(u, op, ep, attempt-1, lastStatus, false, err)
			}
		}
		if !c.cfg.NoProbe {
			c.probeOnce.Do(func() { c.probe(ctx) })
		}
		gen, err := c.lim.acquire(ctx)
		if err != nil {
			return c.fail(u, op, ep, attempt-1, lastStatus, false, err)
		}
		// The attempt's timeout starts now, when it is sent: waiting for a
		// slot or for the rate limits is not counted.
		info := &attemptInfo{}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, info), c.cfg.RequestTimeout)
		got, err := call(actx, ep)
		cancel()
		timedOut := err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		if n := c.lim.release(gen, err == nil, timedOut); n > 0 && timedOut {
			c.log.Warn("requests time out: fewer in flight (the server queues what it has no slot for)", "endpoint", ep.url, "concurrency", n)
		}
		u.Attempts++
		if attempt > 1 {
			u.Retries++
		}
		if err == nil {
			got.Attempts, got.Retries, got.RateLimited = u.Attempts, u.Retries, u.RateLimited
			got.Requests = 1
			got.CostUSD = c.cfg.Prices.Cost(got.PromptTokens, got.CompletionTokens)
			c.tokBucket.Adjust(float64(got.PromptTokens+got.CompletionTokens) - float64(estTokens))
			c.account(got)
			return got, ep, nil
		}
		if ctx.Err() != nil { // the caller gave up, not the endpoint
			return c.fail(u, op, ep, attempt, info.status, false, ctx.Err())
		}
		status := statusOf(err)
		if status == 0 && info.status >= 300 {
			status = info.status
		}
		lastErr, lastStatus = err, status
		if status == http.StatusTooManyRequests {
			u.RateLimited++
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("attempt timed out after %v: %w", c.cfg.RequestTimeout, err)
			lastErr = err
		}
		if sent := info.format; sent != "" && (status/100 == 4 || status == http.StatusInternalServerError) &&
			strings.Contains(strings.ToLower(err.Error()), "response_format") {
			// The endpoint refuses this shape: remember, step down, resend.
			// (llama-cpp-python's server answers a json_schema type with
			// 500 and pydantic's complaint naming response_format.)
			next := formatLevel(sent) + 1
			for cur := ep.format.Load(); cur < int32(next) && !ep.format.CompareAndSwap(cur, int32(next)); cur = ep.format.Load() {
			}
			c.log.Warn("endpoint rejects this response_format; sending the next shape", "endpoint", ep.url, "refused", sent, "now", Formats[next])
			if attempt <= c.cfg.MaxRetries {
				continue
			}
		}
		retry := retryableStatus(status) || (status == 0 || status == http.StatusOK) && retryableTransport(err)
		if timedOut && timeoutFails {
			// Not a failure yet: the caller asks for less.
			c.account(u)
			return u, ep, &Error{Op: op, Endpoint: ep.url, Attempts: attempt, Status: status, Err: lastErr}
		}
		if !retry || attempt > c.cfg.MaxRetries {
			return c.fail(u, op, ep, attempt, status, retry, lastErr)
		}
		delay := c.backoff(attempt)
		if info.retryAfter > 0 {
			// Honour the server: wait what it asks, plus a little jitter so
			// that the requests it refused do not all return at once.
			delay = info.retryAfter + time.Duration(rand.Int64N(int64(info.retryAfter/10)+1))
		}
		if status == http.StatusTooManyRequests {
			// Park this endpoint; if another one is free, retry there now.
			ep.until.Store(max(ep.until.Load(), time.Now().Add(delay).UnixNano()))
			if _, w := c.pick(); w == 0 {
				delay = c.backoff(1)
			}
		}
		c.log.Debug("llm retry", "op", op, "endpoint", ep.url, "attempt", attempt, "status", status, "delay", delay, "err", err)
		if err := sleepCtx(ctx, delay); err != nil {
			return c.fail(u, op, ep, attempt, status, false, err)
		}
	}
}

func (c *Client) fail(u Usage, op string, ep *endpoint, attempts, status int, retryable bool, err error) (Usage, *endpoint, error) {
	u.Failures = 1
	c.account(u)
	url := ""
	if ep != nil {
		url = ep.url
	} else if len(c.eps) > 0 {
		url = c.eps[0].url
	}
	return u, ep, &Error{Op: op, Endpoint: url, Attempts: attempts, Status: status, Retryable: retryable, Err: err}
}

// Chat sends one chat completion with limits and retries and returns the
// first choice. An empty answer is returned as such (Content ""); the caller
// judges content. A response without choices is retried.
func (c *Client) Chat(ctx context.Context, r ChatRequest) (ChatResponse, error) {
	if c.cfg.FoldSystem {
		r.Messages = FoldSystem(r.Messages)
	}
	est := r.MaxTokens
	for _, m := range r.Messages {
		est += EstimateTokens(m.Content) + 4
	}
	var out ChatResponse
	u, ep, err := c.do(ctx, "chat", est, false, func(actx context.Context, ep *endpoint) (Usage, error) {
		var resp chatAnswer
		body := r.Body(c.cfg.Model, Formats[ep.format.Load()])
		if info, ok := actx.Value(attemptKey{}).(*attemptInfo); ok && body.ResponseFormat != nil {
			info.format = formatOf(body.ResponseFormat)
		}
		if err := ep.post(actx, c.hc, "/chat/completions", body, &resp); err != nil {
			return Usage{}, err
		}
		if len(resp.Choices) == 0 {
			return Usage{}, errNoChoices
		}
		out = ChatResponse{Content: resp.Choices[0].Message.Content, FinishReason: resp.Choices[0].FinishReason, Model: resp.Model}
		return Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}, nil
	})
	if ep != nil {
		out.Endpoint = ep.url
	}
	out.Usage = u
	return out, err
}

// Embed returns one vector per input, in input order, from one embeddings
// request (the caller chooses batch sizes), with the same limits and retries
// as Chat. model empty means Config.Model.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, Usage, error) {
	return c.EmbedAs(ctx, EmbeddingBody{Model: model, Input: inputs})
}

// EmbedAs is Embed with the whole request body given: InputType tells a
// server that prefixes texts itself whether they are queries or documents.
//
// A request of several texts that outlasts Config.RequestTimeout is not
// sent again as it was (a server too slow for the batch is as slow the
// next time): the batch is halved and each half asked for in turn, down to
// one text, whose timeouts are retried as any failure (a stall may pass);
// when its retries run out the error names the endpoint and the timeout.
func (c *Client) EmbedAs(ctx context.Context, req EmbeddingBody) ([][]float32, Usage, error) {
	if req.Model == "" {
		req.Model = c.cfg.Model
	}
	if len(req.Input) == 0 {
		return nil, Usage{}, nil
	}
	one := len(req.Input) == 1
	vecs, u, err := c.embedOnce(ctx, req, !one)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return vecs, u, err
	}
	if one {
		return nil, u, fmt.Errorf("%w (one text alone took longer than the request timeout %v: raise --timeout, or lower --max-chars)", err, c.cfg.RequestTimeout)
	}
	var le *Error
	errors.As(err, &le)
	half := len(req.Input) / 2
	c.log.Warn("an embeddings request timed out: asking for its texts in halves", "endpoint", le.Endpoint, "texts", len(req.Input),
		"halves", fmt.Sprintf("%d+%d", half, len(req.Input)-half), "timeout", c.cfg.RequestTimeout)
	out := make([][]float32, 0, len(req.Input))
	for _, part := range [][]string{req.Input[:half], req.Input[half:]} {
		r := req
		r.Input = part
		v, pu, err := c.EmbedAs(ctx, r)
		u = u.Add(pu)
		if err != nil {
			return nil, u, err
		}
		out = append(out, v...)
	}
	return out, u, nil
}

// embedOnce is one embeddings request with the client's retries; with
// split, a timed-out attempt is returned at once (EmbedAs splits the batch).
func (c *Client) embedOnce(ctx context.Context, req EmbeddingBody, split bool) ([][]float32, Usage, error) {
	inputs := req.Input
	est := 0
	for _, s := range inputs {
		est += EstimateTokens(s)
	}
	var vecs [][]float32
	u, _, err := c.do(ctx, "embeddings", est, split, func(actx context.Context, ep *endpoint) (Usage, error) {
		var resp embeddingAnswer
		if err := ep.post(actx, c.hc, "/embeddings", req, &resp); err != nil {
			return Usage{}, err
		}
		if len(resp.Data) != len(inputs) {
			return Usage{}, fmt.Errorf("%w: %d embeddings for %d inputs", ErrBadResponse, len(resp.Data), len(inputs))
		}
		data := resp.Data
		sort.SliceStable(data, func(i, j int) bool { return data[i].Index < data[j].Index })
		vecs = make([][]float32, len(inputs))
		for i, d := range data {
			if d.Index != i {
				return Usage{}, fmt.Errorf("%w: embedding indices are not 0..%d", ErrBadResponse, len(inputs)-1)
			}
			vecs[i] = d.Embedding
		}
		pt := resp.Usage.PromptTokens
		if pt == 0 {
			pt = resp.Usage.TotalTokens
		}
		return Usage{PromptTokens: pt}, nil
	})
	if err != nil {
		return nil, u, err
	}
	return vecs, u, nil
}
