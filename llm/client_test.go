package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

func testConfig(urls ...string) llm.Config {
	return llm.Config{
		BaseURLs: urls, APIKey: "test", Model: "fake-model", Concurrency: 4,
		MaxRetries: 5, RequestTimeout: 2 * time.Second, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond,
		Prices: llm.Prices{Prompt: 1, Completion: 2},
	}
}

func newClient(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ask(key string) llm.ChatRequest {
	return llm.ChatRequest{JSON: true, Messages: []llm.Message{
		{Role: "system", Content: "You answer in JSON."},
		{Role: "user", Content: "Declaration: " + key + "\nPlease answer."},
	}}
}

// firstAttempt makes the first request of every key fail with f.
func firstAttempt(f fakeopenai.Fault) func(fakeopenai.Request) fakeopenai.Fault {
	return func(r fakeopenai.Request) fakeopenai.Fault {
		if r.Attempt == 1 {
			return f
		}
		return fakeopenai.OK
	}
}

func TestChatRetriesTransientFaults(t *testing.T) {
	for _, f := range []fakeopenai.Fault{fakeopenai.RateLimit, fakeopenai.ServerError, fakeopenai.Unavailable,
		fakeopenai.Drop, fakeopenai.Slow, fakeopenai.BadBody, fakeopenai.NoChoices} {
		t.Run(f.String(), func(t *testing.T) {
			srv := fakeopenai.New(fakeopenai.Options{Fault: firstAttempt(f), Key: fakeopenai.KeyFromLine("Declaration: "), SlowDelay: 5 * time.Second})
			defer srv.Close()
			cfg := testConfig(srv.BaseURL())
			cfg.RequestTimeout = 300 * time.Millisecond
			c := newClient(t, cfg)
			resp, err := c.Chat(context.Background(), ask("Nat.succ"))
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if !strings.Contains(resp.Content, "Nat.succ") {
				t.Errorf("content %q does not name the key", resp.Content)
			}
			if resp.Usage.Attempts != 2 || resp.Usage.Retries != 1 || resp.Usage.Requests != 1 {
				t.Errorf("usage %+v, want 2 attempts, 1 retry, 1 request", resp.Usage)
			}
			if f == fakeopenai.RateLimit && resp.Usage.RateLimited != 1 {
				t.Errorf("rate limited = %d, want 1", resp.Usage.RateLimited)
			}
			if got := srv.Stats()["Nat.succ"]; got.Requests != 2 || got.Completed != 1 {
				t.Errorf("server saw %+v", got)
			}
		})
	}
}

func TestChatUsageAndCost(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Answer: func(fakeopenai.Request) string { return strings.Repeat("x", 40) }})
	defer srv.Close()
	c := newClient(t, testConfig(srv.BaseURL()))
	var want llm.Usage
	for i := 0; i < 3; i++ {
		r, err := c.Chat(context.Background(), ask(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage.CompletionTokens != 10 || r.Usage.PromptTokens == 0 {
			t.Fatalf("usage %+v", r.Usage)
		}
		wantCost := (float64(r.Usage.PromptTokens)*1 + float64(r.Usage.CompletionTokens)*2) / 1e6
		if diff := r.Usage.CostUSD - wantCost; diff > 1e-12 || diff < -1e-12 {
			t.Errorf("cost %v, want %v", r.Usage.CostUSD, wantCost)
		}
		want = want.Add(r.Usage)
	}
	if got := c.Usage(); got != want {
		t.Errorf("total %+v, want %+v", got, want)
	}
}

func TestChatGivesUp(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Fault: func(fakeopenai.Request) fakeopenai.Fault { return fakeopenai.ServerError }})
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	cfg.MaxRetries = 3
	c := newClient(t, cfg)
	_, err := c.Chat(context.Background(), ask("a"))
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("err %T %v, want *llm.Error", err, err)
	}
	if !errors.Is(err, llm.ErrRetriesExhausted) || le.Attempts != 4 || le.Status != 500 {
		t.Errorf("err %v: attempts %d status %d", err, le.Attempts, le.Status)
	}
	if u := c.Usage(); u.Failures != 1 || u.Attempts != 4 || u.Requests != 0 {
		t.Errorf("usage %+v", u)
	}
}

func TestChatDoesNotRetryBadRequest(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Fault: func(fakeopenai.Request) fakeopenai.Fault { return fakeopenai.BadRequest }})
	defer srv.Close()
	c := newClient(t, testConfig(srv.BaseURL()))
	_, err := c.Chat(context.Background(), ask("a"))
	var le *llm.Error
	if !errors.As(err, &le) || le.Attempts != 1 || le.Status != 400 || errors.Is(err, llm.ErrRetriesExhausted) {
		t.Fatalf("err %v", err)
	}
	if srv.Requests() != 1 {
		t.Errorf("server got %d requests, want 1", srv.Requests())
	}
}

func TestChatLearnsNoJSONMode(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{NoJSONMode: true})
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	var logged bytes.Buffer // the warning goes to the caller's logger
	cfg.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	c := newClient(t, cfg)
	defer func() {
		if !strings.Contains(logged.String(), "endpoint rejects this response_format") {
			t.Errorf("the configured logger got %q", logged.String())
		}
	}()
	for i := 0; i < 3; i++ {
		if _, err := c.Chat(context.Background(), ask("a")); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Requests() != 4 {
		t.Errorf("server got %d requests, want 4 (one rejected with response_format)", srv.Requests())
	}
}

func TestChatCancel(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Fault: func(fakeopenai.Request) fakeopenai.Fault { return fakeopenai.Slow }, SlowDelay: time.Minute})
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	cfg.RequestTimeout = time.Minute
	c := newClient(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Requests() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Chat(ctx, ask("a"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if errors.Is(err, llm.ErrRetriesExhausted) {
		t.Error("cancellation reported as exhausted retries")
	}
}

func TestConcurrencyLimit(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Latency: 20 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv.BaseURL())
	cfg.Concurrency = 3
	c := newClient(t, cfg)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), ask("k")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m := srv.MaxInFlight(); m > 3 || m < 2 {
		t.Errorf("max in flight %d, want 2..3", m)
	}
}

func TestRoundRobinAndBackoffPerEndpoint(t *testing.T) {
	var limited atomic.Bool
	a := fakeopenai.New(fakeopenai.Options{Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if limited.CompareAndSwap(false, true) {
			return fakeopenai.RateLimit
		}
		return fakeopenai.OK
	}, RetryAfter: time.Minute}) // far longer than the test, however slow the machine
	defer a.Close()
	b := fakeopenai.New(fakeopenai.Options{})
	defer b.Close()
	cfg := testConfig(a.BaseURL(), b.BaseURL())
	cfg.Concurrency = 1
	c := newClient(t, cfg)
	for i := 0; i < 6; i++ {
		if _, err := c.Chat(context.Background(), ask("k")); err != nil {
			t.Fatal(err)
		}
	}
	// a answered 429 with a one-minute Retry-After on its first request: the
	// client parks it and sends the retry and every other request to b.
	if a.Requests() != 1 || b.Requests() != 6 {
		t.Errorf("requests a=%d b=%d, want 1 and 6", a.Requests(), b.Requests())
	}
	c2 := newClient(t, testConfig(b.BaseURL(), a.BaseURL()))
	b.ResetStats()
	for i := 0; i < 4; i++ {
		c2.Chat(context.Background(), ask("k"))
	}
	if got := b.Stats()["" /* no Key function */].Requests; got != 2 {
		t.Errorf("round robin sent %d of 4 to the first endpoint, want 2", got)
	}
}

func TestEmbed(t *testing.T) {
	var n atomic.Int32
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 8, Fault: func(fakeopenai.Request) fakeopenai.Fault {
		if n.Add(1) == 1 {
			return fakeopenai.RateLimit
		}
		return fakeopenai.OK
	}})
	defer srv.Close()
	c := newClient(t, testConfig(srv.BaseURL()))
	in := []string{"alpha", "beta", "gamma"}
	vecs, u, err := c.Embed(context.Background(), "bge-m3", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || u.Retries != 1 || u.PromptTokens == 0 {
		t.Fatalf("got %d vectors, usage %+v", len(vecs), u)
	}
	for i, s := range in {
		want := fakeopenai.Vector(s, 8)
		for j := range want {
			if vecs[i][j] != want[j] {
				t.Fatalf("vector %d differs at %d", i, j)
			}
		}
	}
	// A response with the wrong number of vectors is retried, then reported.
	srv2 := fakeopenai.New(fakeopenai.Options{Fault: func(fakeopenai.Request) fakeopenai.Fault { return fakeopenai.NoChoices }})
	defer srv2.Close()
	cfg := testConfig(srv2.BaseURL())
	cfg.MaxRetries = 1
	_, _, err = newClient(t, cfg).Embed(context.Background(), "m", in)
	if !errors.Is(err, llm.ErrBadResponse) || !errors.Is(err, llm.ErrRetriesExhausted) {
		t.Errorf("err %v, want bad response after retries", err)
	}
}

func TestConfigFlags(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://a/v1, http://b/v1/")
	t.Setenv("OPENAI_API_KEY", "k")
	cfg := llm.ConfigFromEnv()
	if len(cfg.BaseURLs) != 2 || cfg.BaseURLs[1] != "http://b/v1" || cfg.APIKey != "k" {
		t.Fatalf("from env: %+v", cfg)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "http://a/v1,http://b/v1"},
		{[]string{"--base-url", "http://c/v1", "--base-url", "http://d/v1,http://e/v1"}, "http://c/v1,http://d/v1,http://e/v1"},
	} {
		cfg := llm.ConfigFromEnv()
		fs := newFlagSet()
		cfg.RegisterFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Finalize(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(cfg.BaseURLs, ","); got != tc.want {
			t.Errorf("%v: urls %s, want %s", tc.args, got, tc.want)
		}
	}
	bad := llm.Config{BaseURLs: []string{"ftp://x"}}
	if bad.Validate() == nil {
		t.Error("ftp URL accepted")
	}
}
