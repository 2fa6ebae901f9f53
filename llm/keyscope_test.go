package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/llm"
)

// TestOrigin: a key's scope is scheme, host and port; the default port is
// the scheme's, the host's case and the path do not matter.
func TestOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://api.openai.com/v1", "https://API.openai.com:443/other", true},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000", true},
		{"http://localhost/v1", "http://localhost:80/v1", true},
		{"https://h.example:8443/v1", "http://h.example:8443/v1", false}, // the key would travel in clear text
		{"https://api.openai.com/v1", "http://api.openai.com/v1", false},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1", false},
		{"http://a.example/v1", "http://b.example/v1", false},
		{"https://api.openai.com.evil.example/v1", "https://api.openai.com/v1", false},
	} {
		if got := llm.Origin(tc.a) == llm.Origin(tc.b); got != tc.same {
			t.Errorf("Origin(%q) = %q, Origin(%q) = %q: same %v, want %v", tc.a, llm.Origin(tc.a), tc.b, llm.Origin(tc.b), got, tc.same)
		}
	}
	if o := llm.Origin("not a url"); o != "" {
		t.Errorf("Origin of a non-URL = %q, want \"\"", o)
	}
}

// authServer records the Authorization header of every request, whatever
// the path (embeddings, files, the parallelism probe's GETs).
func authServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/embeddings"):
			w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m"}`))
		case strings.HasSuffix(r.URL.Path, "/files"):
			w.Write([]byte(`{"object":"list","data":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestKeyNotSentOutsideItsScope: a key scoped to https://HOST:PORT is not
// sent to http://HOST:PORT (same host and port, clear text), neither with
// the client's requests and probe GETs nor through OpenAI(), the go-openai
// client that informalize --submit uploads batch files with.
func TestKeyNotSentOutsideItsScope(t *testing.T) {
	srv, seen := authServer(t)
	base := srv.URL + "/v1"
	c, err := llm.New(llm.Config{BaseURLs: []string{base}, APIKey: "sk-secret", KeyScope: []string{strings.Replace(base, "http://", "https://", 1)}, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.Embed(context.Background(), "m", []string{"q"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.OpenAI().ListFiles(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := seen()
	var files bool
	for _, s := range got {
		files = files || strings.Contains(s, "/files")
		if strings.Contains(s, "sk-secret") {
			t.Errorf("the key went out of its scope: %s", s)
		}
	}
	if !files || len(got) < 2 {
		t.Fatalf("requests seen %q, want the embeddings and the files listing", got)
	}

	// In scope, every path carries it (the test would pass vacuously if
	// nothing ever did).
	c2, err := llm.New(llm.Config{BaseURLs: []string{base}, APIKey: "sk-secret", KeyScope: []string{srv.URL}, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	n := len(seen())
	if _, err := c2.OpenAI().ListFiles(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := seen()[n:]; len(got) != 1 || !strings.HasSuffix(got[0], "Bearer sk-secret") {
		t.Errorf("in scope, the files listing carried %q, want the key", got)
	}
}

// TestCredentialsInBaseURLRefused: a base URL with user:password is
// refused, its credentials not repeated (a token may stand as the user): an index records its embeddings
// endpoint (manifest, export hf) and messages name endpoints, so the
// password would go wherever they go. The key belongs in OPENAI_API_KEY.
func TestCredentialsInBaseURLRefused(t *testing.T) {
	for _, u := range []string{"https://user:pw-secret@gw.example/v1", "http://pw-secret@127.0.0.1:8000/v1"} {
		_, err := llm.New(llm.Config{BaseURLs: []string{u}})
		if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("%s: err %v, want a refusal naming OPENAI_API_KEY without the password", u, err)
		}
	}
	if _, err := llm.New(llm.Config{BaseURLs: []string{"https://gw.example/v1"}}); err != nil {
		t.Errorf("plain URL: %v", err)
	}
}
