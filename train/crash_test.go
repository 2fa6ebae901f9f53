package train

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

// TestTrainHeadEveryStep: head/ (as a whole) and the index manifest naming the
// head appear together, with the manifest entry, whichever step of the commit
// a crash or a failure hits (a full disk after the first rename used to leave
// a new log.jsonl beside the old weights).
func TestTrainHeadEveryStep(t *testing.T) {
	train := func(ctx context.Context, ws *workspace.Workspace, seed uint64, tied bool) error {
		ix, err := index.Open(context.Background(), ws.Dir, &index.OpenOptions{NoHead: true})
		if err != nil {
			return err
		}
		defer ix.Close()
		_, err = TrainWorkspace(ctx, ws, ix, WorkspaceOptions{Options: Options{OutDim: 8, BatchSize: 8, Epochs: 1, Seed: seed, Tied: tied}})
		return err
	}
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "train head",
		Setup: func(t *testing.T, dir string) {
			if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
				t.Fatal(err)
			}
			ws, _ := workspace.OpenExisting(dir)
			ctx := context.Background()
			if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 32}); err != nil {
				t.Fatal(err)
			}
			if _, err := mine.Mine(ctx, ws, mine.Options{ValidFrac: 0.3}); err != nil {
				t.Fatal(err)
			}
			if err := train(ctx, ws, 1, false); err != nil {
				t.Fatal(err)
			}
		},
		// tied: the new head has no document.npy, which must go with the rest
		Run:     func(ctx context.Context, ws *workspace.Workspace) error { return train(ctx, ws, 2, true) },
		Outputs: []string{"head/config.json", "head/query.npy", "head/log.jsonl", "index/manifest.json"},
	})
}
