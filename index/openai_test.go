package index_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

// llmEmbedder wires driftkit's llm client (retries, Retry-After, timeouts)
// into an index.Embedder, as cmd/driftkit does.
func llmEmbedder(t *testing.T, baseURL string, timeout time.Duration, retries int) index.Embedder {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURLs: []string{baseURL}, APIKey: "test", Model: "bge-m3", Concurrency: 4,
		MaxRetries: retries, RequestTimeout: timeout, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return index.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		v, _, err := c.Embed(ctx, "bge-m3", texts)
		return v, err
	})
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("definition Foo.bar%d : Nat → Nat\nthe %d-th bar", i, i)
	}
	return out
}

func TestOpenAIEncoderFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault fakeopenai.Fault
	}{
		{"ok", fakeopenai.OK},
		{"429 with Retry-After", fakeopenai.RateLimit},
		{"500", fakeopenai.ServerError},
		{"503 html", fakeopenai.Unavailable},
		{"slow past timeout", fakeopenai.Slow},
		{"garbage body", fakeopenai.BadBody},
		{"dropped connection", fakeopenai.Drop},
		{"missing vector", fakeopenai.NoChoices},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Every third request fails with the fault; retries recover.
			srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 24, SlowDelay: 3 * time.Second, RetryAfter: 20 * time.Millisecond,
				Fault: func(r fakeopenai.Request) fakeopenai.Fault {
					if r.Seq%3 == 1 {
						return tc.fault
					}
					return fakeopenai.OK
				}})
			defer srv.Close()
			ctx := context.Background()
			enc, err := index.NewOpenAIEncoder(ctx, llmEmbedder(t, srv.BaseURL(), 300*time.Millisecond, 4),
				index.OpenAIConfig{Model: "bge-m3", BatchSize: 4, Concurrency: 3, MaxChars: 40})
			if err != nil {
				t.Fatal(err)
			}
			if enc.Dim() != 24 {
				t.Fatalf("probed dim %d, want 24", enc.Dim())
			}
			in := texts(21)
			got, err := enc.Encode(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(in) {
				t.Fatalf("%d vectors for %d texts", len(got), len(in))
			}
			for i, v := range got {
				// The fake's vector of the truncated text, normalised: order kept, truncation applied.
				want := fakeopenai.Vector(index.Truncate(in[i], 40), 24)
				for j := range v {
					if math.Abs(float64(v[j]-want[j])) > 1e-5 {
						t.Fatalf("text %d dim %d: %v, want %v", i, j, v[j], want[j])
					}
				}
			}
			if srv.MaxInFlight() > 3 {
				t.Errorf("max in flight %d > concurrency 3", srv.MaxInFlight())
			}
			if tc.fault != fakeopenai.OK && srv.Faults()[tc.fault] == 0 {
				t.Errorf("fault %v never served", tc.fault)
			}
		})
	}
}

func TestOpenAIEncoderGivesUp(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 8, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if r.Seq == 0 {
			return fakeopenai.OK // the probe
		}
		return fakeopenai.ServerError
	}})
	defer srv.Close()
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), time.Second, 2), index.OpenAIConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = enc.Encode(context.Background(), texts(3))
	if err == nil || !strings.Contains(err.Error(), "texts 0–2") {
		t.Fatalf("err = %v, want a failure naming the batch", err)
	}
}

// Raw wire-format responses that are well-formed HTTP but unusable.
func TestOpenAIEncoderBadVectors(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"wrong dimension", `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`},
		{"nan", `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0,"NaN"]}],"model":"m"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.URL+"/v1", time.Second, -1),
				index.OpenAIConfig{Model: "m", Dim: 3})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := enc.Encode(context.Background(), []string{"x"}); err == nil {
				t.Fatal("bad vector accepted")
			}
		})
	}
}

func TestOpenAIEncoderCancel(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 8, Latency: 2 * time.Second})
	defer srv.Close()
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 10*time.Second, 1), index.OpenAIConfig{Model: "m", Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := enc.Encode(ctx, texts(4)); !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "context")) {
		t.Fatalf("err = %v, want cancellation", err)
	}
}

// An index built with the openai encoder records it, and serving needs a
// query encoder for the same model.
func TestBuildWithOpenAIEncoder(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
	defer srv.Close()
	dir := fixtureWS(t)
	ctx := context.Background()
	enc, err := index.NewOpenAIEncoder(ctx, llmEmbedder(t, srv.BaseURL(), time.Second, 2), index.OpenAIConfig{Model: "bge-m3", BaseURL: srv.BaseURL(), BatchSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, &workspace.Workspace{Dir: dir}, index.BuildOptions{Encoder: enc}); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Encoder != "openai" || m.EncoderFallback || m.Model != "bge-m3" || m.Dims != 12 {
		t.Errorf("manifest %+v", m)
	}
	if m.EncoderSpec.Kind != "openai" || m.EncoderSpec.Model != "bge-m3" || m.EncoderSpec.Dims != 12 || m.EncoderSpec.MaxChars != 8000 ||
		m.EncoderSpec.Rendering != workspace.RenderingVersion || m.EncoderSpec.BaseURL != srv.BaseURL() {
		t.Errorf("encoder spec %+v", m.EncoderSpec)
	}
	gdir, _ := index.CurrentDir(dir)
	if _, err := os.Stat(filepath.Join(gdir, index.HashStateName)); !os.IsNotExist(err) {
		t.Errorf("hash state in an openai generation: %v", err)
	}
	if _, err := index.Open(context.Background(), dir, nil); !errors.Is(err, index.ErrNoEmbedder) || !strings.Contains(err.Error(), "bge-m3") {
		t.Errorf("open without a query encoder: %v", err)
	}
	// A query encoder of another model is refused.
	other, err := index.NewOpenAIEncoder(ctx, llmEmbedder(t, srv.BaseURL(), time.Second, 2), index.OpenAIConfig{Model: "e5", Dim: 12})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Open(context.Background(), dir, &index.OpenOptions{Encoder: other}); !errors.Is(err, index.ErrStale) {
		t.Errorf("open with an e5 query encoder for a bge-m3 index: %v", err)
	}
	// The manifest's spec is enough to rebuild the encoder over an endpoint.
	var asked []string
	ix, err := index.Open(context.Background(), dir, &index.OpenOptions{Endpoint: func(_ context.Context, spec index.EncoderSpec) (index.Embedder, error) {
		asked = append(asked, spec.Model)
		return llmEmbedder(t, srv.BaseURL(), time.Second, 2), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if len(asked) != 1 || asked[0] != "bge-m3" {
		t.Errorf("the endpoint was asked for %q, want the manifest's model once", asked)
	}
	ws := &workspace.Workspace{Dir: dir}
	// The fake's vectors are deterministic per text: a document's own text
	// is its nearest neighbour.
	docs, err := workspace.LoadDocuments(ws)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, d := range docs {
		if d.Name == "ConNF.litterSet" {
			text = d.Text
		}
	}
	hits, err := ix.Search(ctx, index.Query{Text: text, Mode: index.ModeDense, K: 1})
	if err != nil || len(hits) != 1 || hits[0].Name != "ConNF.litterSet" {
		t.Fatalf("hits %+v, err %v", hits, err)
	}
}

// probeEmbedder is driftkit's llm client at baseURL with retries that
// would wait an hour: only the probe's own deadline (or the caller) ends
// a probe of an endpoint that refuses or never answers, as the ~25 s of
// the default backoff did before the probe had a bound.
func probeEmbedder(t *testing.T, baseURL string) index.Embedder {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURLs: []string{baseURL}, Model: "bge-m3", MaxRetries: 6, NoProbe: true,
		RequestTimeout: time.Hour, BackoffBase: time.Hour, BackoffMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return index.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		v, _, err := c.Embed(ctx, "bge-m3", texts)
		return v, err
	})
}

// hangingServer accepts embeddings requests and answers none until the
// test ends (or release is closed, when it answers a 5-dim vector).
func hangingServer(t *testing.T, release <-chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body read to its end: only then does the server watch the
		// connection, so that a client that hangs up cancels r.Context().
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
			return
		case <-release:
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0,0,0,0]}],"model":"bge-m3"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOpenAIProbeBounded: without a dimension the encoder asks the
// endpoint once; an endpoint that never answers or refuses the connection
// ends the probe at its deadline (injected here, 15 s by default) with an
// error naming the endpoint and --dim, not after the client's retries.
func TestOpenAIProbeBounded(t *testing.T) {
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL + "/v1"
	refused.Close() // nothing listens there any more
	for _, tc := range []struct {
		name, url string
	}{
		{"never answers", hangingServer(t, nil).URL + "/v1"},
		{"connection refused", refusedURL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := index.NewOpenAIEncoder(context.Background(), probeEmbedder(t, tc.url),
				index.OpenAIConfig{Model: "bge-m3", BaseURL: tc.url, ProbeTimeout: 50 * time.Millisecond})
			host := strings.TrimPrefix(tc.url, "http://")
			if !errors.Is(err, index.ErrProbe) || !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "--dim") ||
				!strings.Contains(err.Error(), "within") {
				t.Fatalf("err = %v, want ErrProbe naming %s, the deadline and --dim", err, host)
			}
		})
	}
}

// TestOpenAIProbeProgress: a probe that waits says so (once, naming the
// endpoint and --dim) and still learns the dimension when the answer comes;
// the caller's cancellation while it waits is a cancellation (Ctrl-C:
// exit 130), not a probe failure.
func TestOpenAIProbeProgress(t *testing.T) {
	release := make(chan struct{})
	url := hangingServer(t, release).URL + "/v1"
	var msgs []string
	enc, err := index.NewOpenAIEncoder(context.Background(), probeEmbedder(t, url), index.OpenAIConfig{Model: "bge-m3", BaseURL: url,
		ProbeTimeout: time.Hour, ProgressAfter: time.Nanosecond, Progress: func(msg string) {
			msgs = append(msgs, msg)
			close(release) // the server answers only after the progress line
		}})
	if err != nil {
		t.Fatal(err)
	}
	if enc.Dim() != 5 {
		t.Errorf("dim %d, want 5", enc.Dim())
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], strings.TrimPrefix(url, "http://")) || !strings.Contains(msgs[0], "--dim") {
		t.Errorf("progress %q, want one line naming %s and --dim", msgs, url)
	}

	url = hangingServer(t, nil).URL + "/v1"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = index.NewOpenAIEncoder(ctx, probeEmbedder(t, url), index.OpenAIConfig{Model: "bge-m3", BaseURL: url,
		ProbeTimeout: time.Hour, ProgressAfter: time.Nanosecond, Progress: func(string) { cancel() }})
	if !errors.Is(err, context.Canceled) || errors.Is(err, index.ErrProbe) {
		t.Fatalf("err = %v, want the caller's cancellation", err)
	}
}
