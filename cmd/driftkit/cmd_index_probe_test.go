package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexProbeFailureNamesDim: `index --encoder openai` without --dim
// asks the endpoint for the model's dimension; when it cannot answer, the
// command fails (exit 1) naming the endpoint's host and --dim, the flag
// that skips the question. (The probe's bound and its progress line are
// tested in package index with injected deadlines.)
func TestIndexProbeFailureNamesDim(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model bge-m3 not found"}}`, http.StatusNotFound)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	ws := t.TempDir()
	if code, _, errs := runCmd("import", "rauto", "--library", filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl"), "--ws", ws); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errs)
	}
	code, _, errs := runCmd("index", "--ws", ws, "--encoder", "openai", "--quiet")
	host := strings.TrimPrefix(srv.URL, "http://")
	if code != 1 || !strings.Contains(errs, host) || !strings.Contains(errs, "--dim") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming %s and --dim", code, errs, host)
	}
}
