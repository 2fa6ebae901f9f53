package index_test

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestBuildEveryStep: the new generation, CURRENT pointing at it and the
// workspace manifest entry appear together whichever step of the commit a
// crash or failure hits (before generations, 3 of 25 random kills left
// vectors of one build beside the manifest of the other, which search
// rejected and index would not replace without --force; with generations
// alone, a kill between the switch and the manifest entry still made the
// next index demand --force).
func TestBuildEveryStep(t *testing.T) {
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "index",
		Setup: func(t *testing.T, dir string) {
			ws, _ := workspace.OpenExisting(dir)
			decls, infs := fixtureDecls()
			if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
				t.Fatal(err)
			}
			if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
				t.Fatal(err)
			}
			if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
				t.Fatal(err)
			}
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 32}); err != nil {
				return err
			}
			// and the new index opens
			ix, err := index.Open(context.Background(), ws.Dir, nil)
			if err != nil {
				return err
			}
			return ix.Close()
		},
		Outputs: []string{"index/CURRENT"},
	})
}
