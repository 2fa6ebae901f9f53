package jixia

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestCommitEveryStep: both tables and the manifest entry of an import
// appear together whichever step of the commit a failure or a kill hits, and
// the next run of any stage repairs the workspace without --force.
func TestCommitEveryStep(t *testing.T) {
	p := demo
	p.Module = ModuleFromFile(p.Decl, "")
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "import jixia",
		Setup: func(t *testing.T, dir string) {
			ws, _ := workspace.OpenExisting(dir)
			if _, err := Import(context.Background(), ws, []Pair{p}, Options{Library: "demo", Revision: "r1"}); err != nil {
				t.Fatal(err)
			}
		},
		// a new revision: every row and the module table change
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Import(ctx, ws, []Pair{p}, Options{Library: "demo", Revision: "r2"})
			return err
		},
		Outputs: []string{workspace.DeclarationsFile, workspace.ModulesFile},
	})
}
