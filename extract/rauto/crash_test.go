package rauto

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestImportEveryStep: the three tables and the manifest entry appear together
// whichever step of the commit a crash hits.
func TestImportEveryStep(t *testing.T) {
	small, err := os.ReadFile(filepath.Join("testdata", "small.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// a second library: the same rows with other informal texts and names
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(string(small), "Foo", "Qux")), 0o644); err != nil {
		t.Fatal(err)
	}
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "import rauto",
		Setup: func(t *testing.T, dir string) {
			ws, _ := workspace.OpenExisting(dir)
			if _, err := Import(ws, filepath.Join("testdata", "small.jsonl"), false); err != nil {
				t.Fatal(err)
			}
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Import(ws, other, false)
			return err
		},
		Outputs: []string{workspace.DeclarationsFile, workspace.InformalFile, workspace.ModulesFile},
	})
}
