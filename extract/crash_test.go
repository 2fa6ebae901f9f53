package extract

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestCommitEveryStep: declarations.parquet, modules.parquet and the manifest
// entry appear together whichever step of the commit a crash hits (a kill
// between the two renames used to leave new declarations beside old modules).
func TestCommitEveryStep(t *testing.T) {
	src := filepath.Join(t.TempDir(), "lean")
	if err := exec.Command("cp", "-a", filepath.Join("..", "testdata", "lean"), src).Run(); err != nil {
		t.Fatal(err)
	}
	opts := func() Options {
		return Options{Sources: []Source{{Dir: src, Library: "driftlib", Revision: "r"}}, Workers: 1}
	}
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "extract",
		Setup: func(t *testing.T, dir string) {
			ws, _ := workspace.OpenExisting(dir)
			if _, err := Run(context.Background(), ws, opts()); err != nil {
				t.Fatal(err)
			}
			// the next run reads a changed source: both tables change
			if err := os.WriteFile(filepath.Join(src, "Crash.lean"), []byte("theorem crash_new : True := trivial\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Run(ctx, ws, opts())
			return err
		},
		Outputs: []string{workspace.DeclarationsFile, workspace.ModulesFile},
	})
}
