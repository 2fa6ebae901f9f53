package export

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

func exportSetup(t *testing.T, dir string, first func(*workspace.Workspace) error) {
	if err := minetest.WriteWorkspace(dir, 3, true); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.OpenExisting(dir)
	if err := first(ws); err != nil {
		t.Fatal(err)
	}
}

// TestFlagEmbeddingEveryStep: the JSONL files, the script and the manifest
// entry appear together whichever step of the commit a crash hits.
func TestFlagEmbeddingEveryStep(t *testing.T) {
	rel := func(n string) string { return filepath.ToSlash(filepath.Join(workspace.ExportDir, FlagDir, n)) }
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "export flagembedding",
		Setup: func(t *testing.T, dir string) {
			exportSetup(t, dir, func(ws *workspace.Workspace) error {
				_, err := FlagEmbedding(context.Background(), ws, FlagOptions{Seed: 1, Prompt: "old"})
				return err
			})
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := FlagEmbedding(ctx, ws, FlagOptions{Seed: 2, Prompt: "new", MinNegatives: 5})
			return err
		},
		Outputs: []string{rel(FlagTrainFile), rel(FlagValidFile), rel(FlagCorpusFile), rel(FlagScriptFile)},
	})
}

// TestHuggingFaceEveryStep: the export folder is replaced as a whole, with
// its manifest entry, whichever step of the commit a crash hits (two
// concurrent exports used to leave a manifest naming shards that did not
// exist).
func TestHuggingFaceEveryStep(t *testing.T) {
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "export hf",
		Setup: func(t *testing.T, dir string) {
			exportSetup(t, dir, func(ws *workspace.Workspace) error {
				_, err := HuggingFace(context.Background(), ws, HFOptions{License: "mit", ShardRows: 7})
				return err
			})
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := HuggingFace(ctx, ws, HFOptions{License: "apache-2.0", ShardRows: 20})
			return err
		},
		Outputs:   []string{"export/hf/README.md"},
		Recoverer: "mine",
	})
}

// TestFlagEmbeddingCannotCreate: an output that cannot be created is an error
// naming it, and the old export stays (the abort path used to call a nil
// function: a panic and exit 2).
func TestFlagEmbeddingCannotCreate(t *testing.T) {
	ws := fixture(t, true)
	// a file where the export folder must go: creating the outputs fails,
	// whoever runs the test (root ignores permissions)
	dir := ws.Path(workspace.ExportDir, FlagDir)
	os.MkdirAll(filepath.Dir(dir), 0o755)
	if err := os.WriteFile(dir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := crashtest.Snapshot(t, ws.Dir)
	_, err := FlagEmbedding(context.Background(), ws, FlagOptions{Seed: 2})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v, want one naming %s", err, dir)
	}
	if after := crashtest.Snapshot(t, ws.Dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("files changed")
	}
}
