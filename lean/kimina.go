package lean

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kimina is the Checker of a kimina-lean-server (project-numina,
// github.com/project-numina/kimina-lean-server), implemented against
// server 2.0.0 (Lean v4.26.0 default, 2025):
//
//	POST {base}/api/check
//	Authorization: Bearer $KIMINA_API_KEY   (only when the key is set)
//	{"snippets": [{"id": "0:foo", "code": "import Mathlib\n…"}], "timeout": 300,
//	 "debug": false, "reuse": true}
//	→ 200 {"results": [{"id": "0:foo", "time": 1.2, "response": {"env": 0,
//	        "messages": […], "sorries": […]}} | {"id": …, "error": "Lean REPL command timed out in 300 seconds"}]}
//
// The server splits each code's import lines off itself, keeps one REPL per
// header and shifts positions back to the whole code, so a snippet is sent as
// Header + "\n" + Code and CodeLine0 says where Code starts. Snippet ids are
// made unique per request (the server rejects duplicates) and mapped back.
// A "response" of the form {"message": …} is a REPL error answer.
//
// A base URL ending in /verify (or /one_pass_verify_batch) selects the
// older, still served shape instead:
//
//	POST {base}/verify {"codes": [{"custom_id": "0", "proof": "…"}], "timeout": 300,
//	                    "infotree_type": null, "disable_cache": false}
//	→ {"results": [{"custom_id": "0", "error": null, "response": {…, "time": 1.2}}]}
//
// Requests carry KiminaBatch snippets, KiminaParallel at a time; 429 (the
// server has no free REPL), 5xx, connection errors and unreadable bodies
// are retried KiminaRetries times with jittered exponential backoff
// (Retry-After honoured). A server that never answers is ErrUnavailable; a
// rejected API key too. Kimina is safe for concurrent use.
type Kimina struct {
	opts      Options
	checkURL  string
	healthURL string
	legacy    bool
	key       string
	client    *http.Client
	sem       chan struct{}
	mu        sync.Mutex
	closed    bool
}

func newKimina(o Options) (*Kimina, error) {
	u, err := url.Parse(strings.TrimRight(o.Kimina, "/"))
	if err != nil {
		return nil, fmt.Errorf("%w: --kimina %q: %v", ErrBadOptions, o.Kimina, err)
	}
	// Redirects are not followed: Go's client would re-send the code and
	// the key (to the same host on another port) wherever Location points.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	k := &Kimina{opts: o, key: o.KiminaAPIKey, client: &http.Client{CheckRedirect: noRedirect}, sem: make(chan struct{}, o.KiminaParallel)}
	if k.key == "" {
		k.key = os.Getenv("KIMINA_API_KEY")
	}
	base := *u
	switch {
	case strings.HasSuffix(u.Path, "/verify") || strings.HasSuffix(u.Path, "/one_pass_verify_batch"):
		k.legacy = true
		k.checkURL = u.String()
		base.Path = u.Path[:strings.LastIndexByte(u.Path, '/')]
	case strings.HasSuffix(u.Path, "/api/check"):
		k.checkURL = u.String()
		base.Path = strings.TrimSuffix(u.Path, "/api/check")
	default:
		k.checkURL = u.String() + "/api/check"
	}
	h := base
	h.Path = strings.TrimRight(base.Path, "/") + "/health"
	k.healthURL = h.String()
	return k, nil
}

// Backend implements Checker.
func (k *Kimina) Backend() string { return "kimina" }

// Close drops idle connections; Check after Close fails.
func (k *Kimina) Close() error {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.client.CloseIdleConnections()
	return nil
}

func (k *Kimina) unavailable(detail string) error {
	return fmt.Errorf("%w: kimina-lean-server at %s does not answer: %s\n"+
		"  Start one (git clone https://github.com/project-numina/kimina-lean-server; cd kimina-lean-server;\n"+
		"  docker compose up, or: bash setup.sh && pip install -r requirements.txt && pip install . && prisma generate && python -m server)\n"+
		"  and pass its base URL, e.g. --kimina http://localhost:8000 (API key, if the server has one, in KIMINA_API_KEY)",
		ErrUnavailable, k.opts.Kimina, detail)
}

// health asks GET /health once: a connection error is ErrUnavailable; any
// HTTP answer means a server is there (older servers have no /health).
func (k *Kimina) health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.healthURL, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadOptions, err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return k.unavailable(err.Error())
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return nil
}

// Check implements Checker.
func (k *Kimina) Check(ctx context.Context, snippets []Snippet) ([]Result, error) {
	k.mu.Lock()
	closed := k.closed
	k.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	results := make([]Result, len(snippets))
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var callErr error
	for lo := 0; lo < len(snippets); lo += k.opts.KiminaBatch {
		hi := min(lo+k.opts.KiminaBatch, len(snippets))
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			select {
			case k.sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-k.sem }()
			wait := time.Since(t0)
			if err := k.batch(ctx, snippets[lo:hi], results[lo:hi]); err != nil {
				errMu.Lock()
				if callErr == nil {
					callErr = err
				}
				errMu.Unlock()
			}
			for i := lo; i < hi; i++ {
				results[i].Wait = wait
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for i := range results {
			if results[i].Backend == "" {
				results[i] = Result{ID: snippets[i].ID, Backend: "kimina", Error: "cancelled: " + err.Error()}
			}
		}
		return results, err
	}
	return results, callErr
}

// kiminaSnippet and friends are the wire shapes.
type kiminaSnippet struct {
	ID   string `json:"id"`
	Code string `json:"code"`
}

type kiminaCheckRequest struct {
	Snippets []kiminaSnippet `json:"snippets"`
	Timeout  int             `json:"timeout"`
	Debug    bool            `json:"debug"`
	Reuse    bool            `json:"reuse"`
}

type kiminaCode struct {
	CustomID string `json:"custom_id"`
	Proof    string `json:"proof"`
}

type kiminaVerifyRequest struct {
	Codes        []kiminaCode `json:"codes"`
	Timeout      int          `json:"timeout"`
	InfotreeType *string      `json:"infotree_type"`
	DisableCache bool         `json:"disable_cache"`
}

type kiminaResult struct {
	ID       string          `json:"id"`
	CustomID json.RawMessage `json:"custom_id"`
	Time     float64         `json:"time"`
	Error    *string         `json:"error"`
	Response json.RawMessage `json:"response"`
}

type kiminaResponse struct {
	Results []kiminaResult `json:"results"`
}

// parseKimina decodes a /api/check or /verify response body into results
// keyed by the ids sent.
func parseKimina(body []byte) (map[string]kiminaResult, error) {
	var r kiminaResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("kimina: unreadable response: %v: %q", err, clip(string(body), 200))
	}
	if r.Results == nil {
		return nil, fmt.Errorf("kimina: response without \"results\": %q", clip(string(body), 200))
	}
	out := make(map[string]kiminaResult, len(r.Results))
	for _, x := range r.Results {
		id := x.ID
		if len(x.CustomID) > 0 {
			var s string
			if json.Unmarshal(x.CustomID, &s) == nil {
				id = s
			} else {
				id = string(x.CustomID) // an integer id
			}
		}
		out[id] = x
	}
	return out, nil
}

// kiminaToResult turns one server result into a Result.
func kiminaToResult(x kiminaResult, s Snippet, line0 int) Result {
	r := Result{ID: s.ID, Backend: "kimina", CodeLine0: line0, Time: secs(x.Time)}
	if x.Error != nil && *x.Error != "" {
		r.Error = "kimina: " + *x.Error
		r.judge()
		return r
	}
	if len(x.Response) == 0 || string(x.Response) == "null" {
		r.Error = "kimina: result with neither response nor error"
		r.judge()
		return r
	}
	var a struct {
		replAnswer
		Time *float64 `json:"time"` // /verify puts the time in the response
	}
	if err := json.Unmarshal(x.Response, &a); err != nil {
		r.Error = fmt.Sprintf("kimina: unreadable response: %v", err)
		r.judge()
		return r
	}
	if a.Time != nil && r.Time == 0 {
		r.Time = secs(*a.Time)
	}
	if a.Message != nil && a.Env == nil {
		r.Error = "REPL: " + *a.Message
		r.judge()
		return r
	}
	for i := range a.Messages {
		a.Messages[i].Severity = normSeverity(a.Messages[i].Severity)
	}
	r.Messages, r.Sorries, r.Env = a.Messages, a.Sorries, a.Env
	r.judge()
	return r
}

func secs(f float64) time.Duration {
	if f <= 0 || math.IsNaN(f) || f > 1e9 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// joinHeader is the text a backend without environments checks, and the
// line of Code's first line in it.
func joinHeader(s Snippet) (string, int) {
	if s.Header == "" {
		return s.Code, 1
	}
	return s.Header + "\n" + s.Code, lines(s.Header) + 1
}

// batch checks one request's worth of snippets, retrying the request.
func (k *Kimina) batch(ctx context.Context, snippets []Snippet, out []Result) error {
	timeout := time.Duration(0)
	line0 := make([]int, len(snippets))
	ids := make([]string, len(snippets))
	var body any
	codes := make([]string, len(snippets))
	for i, s := range snippets {
		t := s.Timeout
		if t <= 0 {
			t = k.opts.Timeout
		}
		timeout = max(timeout, t)
		codes[i], line0[i] = joinHeader(s)
		ids[i] = strconv.Itoa(i)
		if !k.legacy && s.ID != "" {
			ids[i] += ":" + s.ID
		}
	}
	secsTimeout := int(math.Ceil(timeout.Seconds()))
	if k.legacy {
		req := kiminaVerifyRequest{Timeout: secsTimeout}
		for i := range snippets {
			req.Codes = append(req.Codes, kiminaCode{CustomID: ids[i], Proof: codes[i]})
		}
		body = req
	} else {
		req := kiminaCheckRequest{Timeout: secsTimeout, Reuse: true}
		for i := range snippets {
			req.Snippets = append(req.Snippets, kiminaSnippet{ID: ids[i], Code: codes[i]})
		}
		body = req
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	t0 := time.Now()
	got, err := k.post(ctx, payload, 2*timeout+time.Minute)
	elapsed := time.Since(t0)
	if err != nil {
		for i, s := range snippets {
			out[i] = Result{ID: s.ID, Backend: "kimina", CodeLine0: line0[i], Time: elapsed, Error: err.Error()}
		}
		if errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
			return err
		}
		return nil
	}
	for i, s := range snippets {
		x, ok := got[ids[i]]
		if !ok {
			out[i] = Result{ID: s.ID, Backend: "kimina", CodeLine0: line0[i], Time: elapsed,
				Error: fmt.Sprintf("kimina: the response has no result for id %q", ids[i])}
			continue
		}
		out[i] = kiminaToResult(x, s, line0[i])
		if out[i].Time == 0 {
			out[i].Time = elapsed
		}
	}
	return nil
}

// httpStatusError is a non-2xx answer.
type httpStatusError struct {
	code int
	body string
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.code, clip(strings.TrimSpace(e.body), 300))
}

// post sends the request with retries and returns the parsed results.
func (k *Kimina) post(ctx context.Context, payload []byte, perTry time.Duration) (map[string]kiminaResult, error) {
	var last error
	connOnly := true
	for attempt := 0; ; attempt++ {
		got, retryAfter, err := k.try(ctx, payload, perTry)
		if err == nil {
			return got, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var se *httpStatusError
		isStatus := errors.As(err, &se)
		if isStatus {
			connOnly = false
			if se.code == http.StatusUnauthorized || se.code == http.StatusForbidden {
				return nil, fmt.Errorf("%w: kimina-lean-server at %s refused the API key (%v); set KIMINA_API_KEY to the server's LEAN_SERVER_API_KEY",
					ErrUnavailable, k.opts.Kimina, err)
			}
			if !(se.code == http.StatusTooManyRequests || se.code >= 500) {
				return nil, fmt.Errorf("kimina: %v", err)
			}
		} else if errors.Is(err, errBadBody) {
			connOnly = false
		}
		last = err
		if attempt >= k.opts.KiminaRetries {
			break
		}
		delay := k.backoff(attempt + 1)
		if retryAfter > delay {
			delay = min(retryAfter, 5*time.Minute)
		}
		if k.opts.Logf != nil {
			k.opts.Logf("lean: kimina: %v; retry %d/%d in %v", err, attempt+1, k.opts.KiminaRetries, delay.Round(time.Millisecond))
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if connOnly {
		return nil, k.unavailable(fmt.Sprintf("%v (after %d attempts)", last, k.opts.KiminaRetries+1))
	}
	return nil, fmt.Errorf("kimina: %v (after %d attempts)", last, k.opts.KiminaRetries+1)
}

var errBadBody = errors.New("unreadable body")

func (k *Kimina) backoff(n int) time.Duration {
	d := float64(k.opts.KiminaBackoff) * math.Pow(2, float64(n-1))
	d = min(d, float64(30*time.Second))
	return time.Duration(d * (0.5 + rand.Float64()))
}

// try is one HTTP attempt.
func (k *Kimina) try(ctx context.Context, payload []byte, perTry time.Duration) (map[string]kiminaResult, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, perTry)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.checkURL, bytes.NewReader(payload))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if k.key != "" {
		req.Header.Set("Authorization", "Bearer "+k.key)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("reading the response: %w", err)
	}
	if resp.StatusCode/100 == 3 {
		return nil, 0, &httpStatusError{code: resp.StatusCode, body: fmt.Sprintf("redirect to %q not followed (give --kimina the server's own URL)", resp.Header.Get("Location"))}
	}
	if resp.StatusCode/100 != 2 {
		return nil, retryAfter(resp.Header), &httpStatusError{code: resp.StatusCode, body: string(body)}
	}
	got, err := parseKimina(body)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errBadBody, err)
	}
	return got, 0, nil
}

func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}
