package embeddings

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestCommitEveryStep: export/embeddings.parquet and its manifest entry
// appear together whichever step of the commit a failure or a kill hits (the
// table used to be renamed before the manifest was written: a kill between
// them left a table that only --force would replace).
func TestCommitEveryStep(t *testing.T) {
	crashtest.EveryStep(t, crashtest.Stage{
		Name: Stage,
		Setup: func(t *testing.T, dir string) {
			ws, err := workspace.OpenExisting(dir)
			if err != nil {
				t.Fatal(err)
			}
			decls, infs := corpus(300)
			if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
				t.Fatal(err)
			}
			if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
				t.Fatal(err)
			}
			if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 8}); err != nil {
				t.Fatal(err)
			}
			if _, err := Export(context.Background(), ws, Options{RowGroupRows: 100}); err != nil {
				t.Fatal(err)
			}
		},
		// other row groups: a new file
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Export(ctx, ws, Options{RowGroupRows: 50})
			return err
		},
		Outputs: []string{File},
	})
}
