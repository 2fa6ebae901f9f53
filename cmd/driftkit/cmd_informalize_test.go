package main

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/llm/fakeopenai"
)

func informalizeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	doc := "Primes are at least two."
	ds := []dataset.Declaration{
		{Name: "Nat.Prime", Kind: "definition", Module: "M", Signature: "(p : ℕ) : Prop"},
		{Name: "Nat.Prime.two_le", Kind: "theorem", Module: "M", Signature: "{p : ℕ} (hp : p.Prime) : 2 ≤ p", StatementDeps: []string{"Nat.Prime"}, Docstring: &doc},
	}
	if err := dataset.WriteTable(filepath.Join(dir, dataset.DeclarationsFile), ds); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInformalizeCommand(t *testing.T) {
	progress.Quiet = true
	srv := fakeopenai.New(fakeopenai.Options{Key: fakeopenai.KeyFromLine("Declaration: ")})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "k")
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		provider string // of the rows written, "" for none
	}{
		{"template by default", []string{"informalize"}, 0, "template"},
		{"model means openai", []string{"informalize", "--model", "fake", "--concurrency", "2", "--force"}, 0, "openai:fake"},
		{"dry run writes nothing", []string{"informalize", "--model", "fake", "--dry-run", "--price-prompt", "1"}, 0, ""},
		{"no workspace", []string{"informalize", "--ws", ""}, 2, ""},
		{"unknown provider", []string{"informalize", "--provider", "magic"}, 2, ""},
		{"openai without model", []string{"informalize", "--provider", "openai"}, 2, ""},
		{"batch needs openai", []string{"informalize", "--batch-out", "x"}, 2, ""},
		{"unknown kind", []string{"informalize", "--kinds", "theorem,lemma"}, 2, ""},
		{"bad base url", []string{"informalize", "--model", "m", "--base-url", "ftp://x"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := informalizeFixture(t)
			args := append([]string{tc.args[0], "--ws", dir}, tc.args[1:]...)
			if code := run(args, io.Discard, io.Discard); code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			rows, err := dataset.ReadTable[dataset.Informal](filepath.Join(dir, dataset.InformalFile))
			if tc.provider == "" {
				if err == nil {
					t.Errorf("wrote %d rows", len(rows))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].Provider != tc.provider || rows[1].Provider != tc.provider {
				t.Errorf("rows %+v", rows)
			}
		})
	}
}
