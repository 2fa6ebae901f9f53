package weaviate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/index"
)

// TestRedirectNotFollowed: a node that answers with a redirect does not
// get the request (its body: vectors, queries) and WEAVIATE_API_KEY sent
// wherever Location points — Go's client would re-send both, the key
// included to the same host on another port; the redirect is an error.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere, withKey atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			withKey.Add(1)
		}
		w.Write([]byte(`{}`))
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	cl := newClient(&config{nodes: []node{{http: redirecting.URL}},
		env: index.DenseEnv{Getenv: func(k string) string { return map[string]string{"WEAVIATE_API_KEY": "wv-secret"}[k] }}})
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		err := cl.restTo(context.Background(), cl.nodes[0], method, "/v1/objects", []byte(`{"vector":[0.1,0.2]}`), nil)
		if err == nil || !strings.Contains(err.Error(), "redirect to") || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("%s: err %v, want the redirect refused", method, err)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d requests reached %s, %d with the key", n, other.URL, withKey.Load())
	}
}
