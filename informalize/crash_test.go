package informalize

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// cancelling is the template provider, cancelling the run after n answers.
type cancelling struct {
	Template
	n, after int32
	cancel   func()
}

func (c *cancelling) Informalize(ctx context.Context, in *Input) (Result, error) {
	if atomic.AddInt32(&c.n, 1) == c.after {
		c.cancel()
	}
	return c.Template.Informalize(ctx, in)
}

// TestCompactionEveryStep: the compaction writes informal.parquet, removes the
// journal and records the run as one commit, whichever step a crash hits.
func TestCompactionEveryStep(t *testing.T) {
	crashtest.EveryStep(t, crashtest.Stage{
		Name: "informalize",
		Setup: func(t *testing.T, dir string) {
			ws, _ := workspace.OpenExisting(dir)
			writeFixture(t, dir, synthDecls(30, 7))
			opts := quietOpts(Template{})
			opts.Limit = 5
			if _, err := Run(context.Background(), ws, opts); err != nil {
				t.Fatal(err)
			}
			// a cancelled run leaves answers in the journal
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := Run(ctx, ws, quietOpts(&cancelling{after: 8, cancel: cancel})); !errors.Is(err, context.Canceled) {
				t.Fatalf("setup: %v", err)
			}
			if !ws.Has(workspace.InformalJournalFile) {
				t.Fatal("setup: no journal")
			}
		},
		Run: func(ctx context.Context, ws *workspace.Workspace) error {
			_, err := Run(ctx, ws, quietOpts(Template{}))
			return err
		},
		Outputs:  []string{workspace.InformalFile},
		Journals: []string{workspace.InformalJournalFile},
	})
}
