package mine

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

// TestMineEveryStep: pairs.parquet and its manifest entry appear together
// whichever step of the commit a crash hits.
func TestMineEveryStep(t *testing.T) {
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "mine",
		Setup: func(t *testing.T, dir string) {
			if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
				t.Fatal(err)
			}
			ws, _ := workspace.OpenExisting(dir)
			if _, err := Mine(context.Background(), ws, Options{Seed: 1, ValidFrac: 0.3}); err != nil {
				t.Fatal(err)
			}
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Mine(ctx, ws, Options{Seed: 2, ValidFrac: 0.3})
			return err
		},
		Outputs: []string{workspace.PairsFile},
	})
}
