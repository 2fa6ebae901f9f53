package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// index with the openai encoder twice (the second sends nothing), --no-cache
// (sends everything), cache stats and prune, through the CLI.
func TestCacheCommands(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 8})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "k")
	ws := t.TempDir()
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	sh := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("driftkit %v: exit %d\n%s", args, code, errb.String())
		}
		return out.String()
	}
	sh("import", "rauto", "--library", lib, "--ws", ws)
	idx := []string{"index", "--ws", ws, "--encoder", "openai", "--model", "bge-m3", "--batch", "4"}
	out := sh(idx...)
	if !strings.Contains(out, "embedding cache: 0 hits") {
		t.Fatalf("first build: %s", out)
	}
	r0 := srv.EmbedStats().Requests
	out = sh(idx...)
	if !strings.Contains(out, "misses, 0 texts embedded in 0 request(s)") || strings.Contains(out, " 0 hits") {
		t.Fatalf("second build: %s", out)
	}
	if n := srv.EmbedStats().Requests - r0; n != 1 { // the dimension probe
		t.Fatalf("second build sent %d requests, want only the probe", n)
	}
	out = sh(append(idx, "--no-cache")...)
	if !strings.Contains(out, "embedding cache: off") {
		t.Fatalf("--no-cache: %s", out)
	}
	out = sh("cache", "stats", "--ws", ws, "--used")
	if !strings.Contains(out, "(current index)") || !strings.Contains(out, `model "bge-m3", 8 dims`) || !strings.Contains(out, "used by current documents") {
		t.Fatalf("stats: %s", out)
	}
	out = sh("cache", "prune", "--ws", ws, "--dry-run")
	if !strings.Contains(out, "would keep") {
		t.Fatalf("prune --dry-run: %s", out)
	}
	out = sh("cache", "prune", "--ws", ws)
	if !strings.Contains(out, "kept") {
		t.Fatalf("prune: %s", out)
	}
	out = sh("index", "--ws", ws, "--dim", "16")
	if !strings.Contains(out, "embedding cache: bypassed") {
		t.Fatalf("hash build: %s", out)
	}
	var errb bytes.Buffer
	if code := run([]string{"cache", "prune"}, &bytes.Buffer{}, &errb); code != 2 {
		t.Fatalf("prune without --ws: exit %d", code)
	}
}
