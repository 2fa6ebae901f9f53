package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

func informalizeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	doc := "Primes are at least two."
	ds := []workspace.Declaration{
		{Name: "Nat.Prime", Kind: "definition", Module: "M", Signature: "(p : ℕ) : Prop"},
		{Name: "Nat.Prime.two_le", Kind: "theorem", Module: "M", Signature: "{p : ℕ} (hp : p.Prime) : 2 ≤ p", StatementDeps: []string{"Nat.Prime"}, Docstring: &doc},
	}
	if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), ds); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInformalizeCommand(t *testing.T) {
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
			rows, err := workspace.ReadTable[workspace.Informal](filepath.Join(dir, workspace.InformalFile))
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

// TestInformalizeRefreshDependents checks the reuse-rule flags end to end: a
// declaration whose body changed is redone; by default its dependent is not,
// with --refresh-dependents it is (its dependency was re-worded); the dry run
// says both numbers first.
func TestInformalizeRefreshDependents(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		// Every answer differs, so a redone declaration is re-worded.
		srv := fakeopenai.New(fakeopenai.Options{Key: fakeopenai.KeyFromLine("Declaration: "), Answer: func(r fakeopenai.Request) string {
			return fmt.Sprintf(`{"informal_name": "name %d", "informal_statement": "Statement number %d of the run."}`, r.Seq, r.Seq)
		}})
		defer srv.Close()
		t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
		t.Setenv("OPENAI_API_KEY", "k")
		dir := informalizeFixture(t)
		base := []string{"informalize", "--ws", dir, "--model", "fake", "--concurrency", "2"}
		if refresh {
			base = append(base, "--refresh-dependents")
		}
		if code := run(base, io.Discard, io.Discard); code != 0 {
			t.Fatalf("first run: exit %d", code)
		}
		ds, err := workspace.ReadTable[workspace.Declaration](filepath.Join(dir, workspace.DeclarationsFile))
		if err != nil {
			t.Fatal(err)
		}
		ds[0].Code = "def Nat.Prime (p : ℕ) : Prop := 2 ≤ p ∧ ∀ m, m ∣ p → m = 1 ∨ m = p"
		if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), ds); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if code := run(append(base, "--dry-run"), &out, io.Discard); code != 0 {
			t.Fatalf("dry run: exit %d", code)
		}
		want, other := "to request: 1", "with --refresh-dependents (full cascade): 2 to redo"
		if refresh {
			want, other = "to request: 2", "with the default rule (formal inputs): 1 to redo"
		}
		if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), other) {
			t.Errorf("refresh=%v: dry run says\n%s", refresh, out.String())
		}
		before := srv.Requests()
		out.Reset()
		if code := run(base, &out, io.Discard); code != 0 {
			t.Fatalf("rerun: exit %d", code)
		}
		if got, want := srv.Requests()-before, map[bool]int64{false: 1, true: 2}[refresh]; got != want {
			t.Errorf("refresh=%v: rerun sent %d requests, want %d\n%s", refresh, got, want, out.String())
		}
	}
}
