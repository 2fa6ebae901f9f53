package llm_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

// TestMaxRetriesFlagZeroMeansZero: --max-retries 0 sends one request and
// no retry (it meant the default 6: 7 attempts, 26.9 s against a refused
// port); --max-retries 2 three; no flag, the documented default.
func TestMaxRetriesFlagZeroMeansZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{{[]string{"--max-retries", "0"}, 1}, {[]string{"--max-retries", "2"}, 3}, {nil, 7}} {
		srv := fakeopenai.New(fakeopenai.Options{Fault: func(fakeopenai.Request) fakeopenai.Fault { return fakeopenai.ServerError }})
		cfg := llm.Config{BaseURLs: []string{srv.BaseURL()}, APIKey: "k"}
		fs := newFlagSet()
		cfg.RegisterFlags(fs)
		if err := fs.Parse(append([]string{"--model", "m"}, c.args...)); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Finalize(); err != nil {
			t.Fatal(err)
		}
		cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 2*time.Millisecond
		cl := newClient(t, cfg)
		if _, err := cl.Chat(context.Background(), ask("a")); err == nil {
			t.Fatalf("%v: a 500 answered", c.args)
		}
		if got := int(srv.Requests()); got != c.want {
			t.Errorf("%v: %d requests, want %d", c.args, got, c.want)
		}
		srv.Close()
	}
	fs := newFlagSet()
	var cfg llm.Config
	cfg.RegisterFlags(fs)
	if err := fs.Parse([]string{"--max-retries", "-1"}); err != nil || cfg.MaxRetries >= 0 {
		t.Errorf("--max-retries -1 (never): %v, %d", err, cfg.MaxRetries)
	}
	if d := fs.Lookup("max-retries").DefValue; d != strconv.Itoa(6) {
		t.Errorf("--max-retries default shown as %q", d)
	}
}
