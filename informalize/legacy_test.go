package informalize

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// legacyWorkspace copies testdata/bump/legacy-v1 into a fresh workspace: the
// v1 fixture as driftkit 9d557a4 extracted and informalized it under the
// older rule (keys over the dependencies' informal text, no
// own_input_sha256, informal_sha256 or context columns), against a fake
// model answering "v1 …" that failed Bump.ten_pos.
func legacyWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{workspace.DeclarationsFile, workspace.ModulesFile, workspace.InformalFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "bump", "legacy-v1", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws.Path(f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestLegacyRowsMigrate runs this rule over rows the older rule wrote: rows
// whose inputs are unchanged are kept (and re-keyed), not re-asked; after a
// bump, the changed ones and one more level of dependents are redone.
func TestLegacyRowsMigrate(t *testing.T) {
	for _, tc := range []struct {
		name            string
		bump, refresh   bool
		asked           []string
		changed, depCh  int
		reused, newRows int
	}{
		// Same library: only the declaration the model failed is asked.
		{name: "unchanged library", asked: []string{"ten_pos"}, reused: 10, newRows: 1},
		// Refreshing also redoes the one whose dependency now has a text.
		{name: "unchanged library, refresh", refresh: true, asked: []string{"ten_pos", "ten_pos_irrel"}, reused: 9, depCh: 1, newRows: 1},
		// The bump: the older key covered dependencies' signatures, so the
		// direct dependents of Small count as changed and smaller_eq (a
		// dependent of the changed Smaller) is redone too: one level more
		// than TestBumpRedoesWhatChanged, for this one run.
		{name: "bump to v2", bump: true,
			asked:   []string{"Small", "add_zero'", "small_zero", "Smaller", "smaller_le", "smaller_eq", "ten_pos", "small_one"},
			changed: 5, depCh: 1, newRows: 2, reused: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := legacyWorkspace(t)
			old := map[string]workspace.Informal{}
			legacy, err := workspace.ReadTable[workspace.Informal](ws.Path(workspace.InformalFile))
			if err != nil {
				t.Fatalf("rows of the older rule do not load: %v", err)
			}
			for _, r := range legacy {
				if r.OwnInputSHA256 != "" || r.Context != nil {
					t.Fatalf("fixture row is not a legacy row: %+v", r)
				}
				old[r.Name] = r
			}
			ds, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
			if err != nil {
				t.Fatal(err)
			}
			if tc.bump {
				ds = extractBump(t, ws, "v2")
			}
			srv := newFake(labelled("v2"))
			defer srv.Close()
			opts := quietOpts(llmProvider(t, srv.BaseURL(), 4))
			opts.Force, opts.RefreshDependents = true, tc.refresh // the manifest does not know the copied table
			rep, err := Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := asked(t, srv), bumpNames(tc.asked...); !slices.Equal(got, want) {
				t.Errorf("asked %v\nwant  %v", got, want)
			}
			if rep.Changed != tc.changed || rep.DepChanged != tc.depCh || rep.New != tc.newRows || rep.Reused != tc.reused {
				t.Errorf("%s", rep.Summary())
			}
			rows := checkTable(t, ws, ds, "openai:fake")
			for _, r := range rows {
				if len(r.OwnInputSHA256) != 64 {
					t.Errorf("%s not re-keyed: %+v", r.Name, r)
				}
				if o, ok := old[r.Name]; ok && !slices.Contains(bumpNames(tc.asked...), r.Name) &&
					(r.InformalStatement != o.InformalStatement || r.CreatedAt != o.CreatedAt || r.InputSHA256 == o.InputSHA256) {
					t.Errorf("%s: kept row %+v\nfrom %+v", r.Name, r, o)
				}
			}
			// From now on the workspace is on the new rule: nothing to do.
			srv.ResetStats()
			opts.Force = false
			rep, err = Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(asked(t, srv)) != 0 || rep.Reused != len(ds) {
				t.Errorf("second run: %s", rep.Summary())
			}
		})
	}
}
