package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

// TestCardNamesNoMachinePath: the card of a workspace mined with an
// --exclude benchmark given by an absolute path, from another working
// directory, names the benchmark by file name and sha256; no folder of the
// machine (the workspace, the working directory, HOME, the temporary
// folder) appears in the card or in the shards' metadata.
func TestCardNamesNoMachinePath(t *testing.T) {
	home, tmp, cwd, benchDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	t.Chdir(cwd)
	ws := fixture(t, false)
	decls, _ := minetest.Tables(3)
	var theorem string
	for _, d := range decls {
		if d.Kind == "theorem" {
			theorem = d.Name
			break
		}
	}
	bench := filepath.Join(benchDir, "connf-dev.jsonl")
	body := fmt.Sprintf("{\"full_name\": %q, \"informal_stmt\": \"x\", \"formal_stmt\": \"theorem x : True\"}\n", theorem)
	if err := os.WriteFile(bench, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	if _, err := mine.Mine(context.Background(), ws, mine.Options{AllowTemplate: true, Exclude: []string{bench}, ValidFrac: 0.2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// The manifest keeps the absolute path (Stale hashes it again) …
	m, _ := ws.ReadManifest()
	if r := m.LastRun("mine"); r == nil || !strings.Contains(fmt.Sprint(r.Parameters["exclude"], r.Notes), benchDir) {
		t.Fatalf("the fixture does not exercise the leak: mine run %+v", r)
	}
	if _, err := HuggingFace(context.Background(), ws, HFOptions{License: "mit"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ws.Path(workspace.ExportDir, HFDir, HFCardFile))
	if err != nil {
		t.Fatal(err)
	}
	card := string(b)
	abs, _ := filepath.Abs(ws.Dir)
	for _, p := range []string{abs, home, tmp, cwd, benchDir, os.TempDir()} {
		if strings.Contains(card, p) {
			t.Errorf("the card names the machine's folder %s", p)
		}
	}
	// … the card names the benchmark by file name and sha256.
	want := fmt.Sprintf("`connf-dev.jsonl` (sha256 `%s`, %d bytes)", hex.EncodeToString(sum[:]), len(body))
	if !strings.Contains(card, "| decontamination benchmarks | "+want) {
		t.Errorf("the card does not identify the benchmark as %s:\n%s", want, card)
	}
	if !strings.Contains(card, `"exclude":["connf-dev.jsonl"]`) || !strings.Contains(card, "matching connf-dev.jsonl (name)") {
		t.Errorf("mining parameters or notes do not name the benchmark by file name:\n%s", card)
	}
	// The shards' key-value metadata.
	err = filepath.WalkDir(ws.Path(workspace.ExportDir, HFDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, _ := f.Stat()
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			return err
		}
		for _, kv := range pf.Metadata().KeyValueMetadata {
			if leak := ws.LeakedPath(kv.Key + kv.Value); leak != "" {
				t.Errorf("%s: metadata %s names %s", p, kv.Key, leak)
			}
		}
		if leak := ws.LeakedPath(pf.Metadata().CreatedBy); leak != "" {
			t.Errorf("%s: created_by names %s", p, leak)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
