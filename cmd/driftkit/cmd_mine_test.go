package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

// TestMineExportTrainCommands runs issue 6's commands through the CLI on the
// minetest fixture: exit codes for bad flags, then the stages in order.
func TestMineExportTrainCommands(t *testing.T) {
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	devnull, _ := os.Open(os.DevNull)
	os.Stdout = devnull
	defer func() { os.Stdout = stdout; devnull.Close() }()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"bad range", []string{"mine", "--ws", dir, "--range", "5-2"}, 2},
		{"bad mode", []string{"mine", "--ws", dir, "--mode", "magic"}, 2},
		{"no index", []string{"mine", "--ws", dir}, 1},
		{"no pairs to export", []string{"export", "flagembedding", "--ws", dir}, 1},
		{"index", []string{"index", "--ws", dir, "--dim", "32"}, 0},
		{"mine", []string{"mine", "--ws", dir, "--valid-frac", "0.3", "--range", "1-30", "--negatives", "4"}, 0},
		{"export flagembedding", []string{"export", "flagembedding", "--ws", dir}, 0},
		{"export hf without licence", []string{"export", "hf", "--ws", dir}, 2},
		{"export hf", []string{"export", "hf", "--ws", dir, "--license", "apache-2.0"}, 0},
		{"train head bad mix", []string{"train", "head", "--ws", dir, "--mix", "1.5"}, 2},
		{"train head wrong encoder", []string{"train", "head", "--ws", dir, "--encoder", "openai"}, 1},
		{"train head", []string{"train", "head", "--ws", dir, "--out-dim", "8", "--batch", "8", "--epochs", "2"}, 0},
		{"train head eval-only", []string{"train", "head", "--ws", dir, "--eval-only", "--bench", filepath.Join("..", "..", "testdata", "bench.jsonl")}, 0},
	} {
		if got := run(tc.args, io.Discard, io.Discard); got != tc.code {
			t.Fatalf("%s: exit %d, want %d", tc.name, got, tc.code)
		}
	}
	ws, _ := workspace.Open(dir)
	for _, p := range [][]string{{workspace.PairsFile}, {"export", "flagembedding", "finetune.sh"}, {"export", "hf", "README.md"}, {workspace.HeadDir, head.ConfigFile}} {
		if !ws.Has(p...) {
			t.Errorf("missing %v", p)
		}
	}
}
