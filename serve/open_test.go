package serve

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/llm"
)

// TestOpenThroughApp: Open opens each workspace's index through app (as
// search does), says what it opened, answers searches, reports runs off
// without a model, and refuses an unusable configuration as app.ErrConfig
// having closed what it opened.
func TestOpenThroughApp(t *testing.T) {
	_, dir := realWorkspace(t)
	var out bytes.Buffer
	s, closeAll, err := Open(context.Background(), Setup{Workspaces: []app.WorkspaceSpec{{Name: "fix", Dir: dir}},
		Chat: llm.Config{BaseURLs: []string{"http://127.0.0.1:9/v1"}}, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "workspace fix: "+dir+", ") || !strings.Contains(out.String(), "encoder hash (offline fallback encoder)") {
		t.Errorf("Open said %q", out.String())
	}
	if why := s.RunsUnavailable(); !strings.Contains(why, "no model") {
		t.Errorf("runs without a model: %q", why)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, localRequest(http.MethodGet, "/api/search?q=cloud", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"hits"`) {
		t.Errorf("search: %d %s", rec.Code, rec.Body.String())
	}
	closeAll()

	for name, setup := range map[string]Setup{
		"augment without a model": {Workspaces: []app.WorkspaceSpec{{Name: "fix", Dir: dir}}, Augment: true},
		"malformed endpoint":      {Workspaces: []app.WorkspaceSpec{{Name: "fix", Dir: dir}}, Chat: llm.Config{BaseURLs: []string{"ftp://x"}, Model: "m"}},
	} {
		if _, _, err := Open(context.Background(), setup); !errors.Is(err, app.ErrConfig) {
			t.Errorf("%s: %v, want app.ErrConfig", name, err)
		}
	}
}
