package informalize

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

// extractBump extracts testdata/bump/<version> (a Lean library written for
// these tests; its README lists what changes between versions) into ws.
func extractBump(t *testing.T, ws *workspace.Workspace, version string) []workspace.Declaration {
	t.Helper()
	src := extract.Source{Dir: filepath.Join("testdata", "bump", version, "Bump"), Library: "bump", Revision: version}
	if _, err := extract.Run(context.Background(), ws, extract.Options{Sources: []extract.Source{src}, Force: true}); err != nil {
		t.Fatal(err)
	}
	ds, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// labelled answers "<label> statement of <key>", so that every run's text
// differs from the last one's: a redone row is visibly re-worded.
func labelled(label string, hopeless ...string) fakeopenai.Options {
	return fakeopenai.Options{
		Answer: func(r fakeopenai.Request) string {
			b, _ := json.Marshal(map[string]string{"informal_name": label + " name of " + r.Key, "informal_statement": label + " statement of " + r.Key + "."})
			return string(b)
		},
		Fault: func(r fakeopenai.Request) fakeopenai.Fault {
			if slices.Contains(hopeless, r.Key) {
				return fakeopenai.Malformed
			}
			return fakeopenai.OK
		},
	}
}

// asked lists the keys the server was asked about, failing on any asked more
// than once.
func asked(t *testing.T, srv *fakeopenai.Server) []string {
	t.Helper()
	var out []string
	for k, s := range srv.Stats() {
		if s.Requests > 1 {
			t.Errorf("%s asked %d times", k, s.Requests)
		}
		if s.Requests > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func bumpNames(short ...string) []string {
	out := make([]string, len(short))
	for i, s := range short {
		out[i] = "Bump." + s
	}
	slices.Sort(out)
	return out
}

// TestBumpRedoesWhatChanged informalizes the fixture library at v1 (the model
// fails Bump.ten_pos), extracts v2 into the same workspace and informalizes
// again: the default rule re-asks exactly the declarations whose own or
// whose statement dependencies' formal inputs changed, plus the new ones;
// --refresh-dependents also re-asks those whose dependencies were re-worded.
func TestBumpRedoesWhatChanged(t *testing.T) {
	changed := []string{"Small", "add_zero'"}
	depChanged := []string{"small_zero", "Smaller", "smaller_le"}
	newOnes := []string{"ten_pos", "small_one"}
	reworded := []string{"smaller_eq", "ten_pos_irrel"} // their dependencies' text changed, nothing formal
	for _, tc := range []struct {
		name    string
		refresh bool
	}{{"formal inputs", false}, {"refresh dependents", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := workspace.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			extractBump(t, ws, "v1")
			srv1 := newFake(labelled("v1", "Bump.ten_pos"))
			defer srv1.Close()
			rep, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv1.BaseURL(), 4)))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed != 1 || rep.New != 11 {
				t.Fatalf("v1 run: %+v", rep)
			}
			v1Rows := map[string]workspace.Informal{}
			for _, r := range readInformal(t, ws.Dir) {
				v1Rows[r.Name] = r
			}

			ds := extractBump(t, ws, "v2")
			srv2 := newFake(labelled("v2"))
			defer srv2.Close()
			p := llmProvider(t, srv2.BaseURL(), 4)
			wantDep := slices.Clone(depChanged)
			if tc.refresh {
				wantDep = append(wantDep, reworded...)
			}
			wantAsked := bumpNames(slices.Concat(changed, wantDep, newOnes)...)

			// The dry run says so before any request.
			var out bytes.Buffer
			opts := quietOpts(p)
			opts.DryRun, opts.Out, opts.RefreshDependents, opts.Prices = true, &out, tc.refresh, p.Client.Config().Prices
			dry, err := Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if srv2.Requests() != 0 {
				t.Fatal("the dry run sent requests")
			}
			if dry.Changed != len(changed) || dry.DepChanged != len(wantDep) || dry.New != len(newOnes) || dry.Requested != len(wantAsked) ||
				dry.Reused != len(ds)-len(wantAsked) || dry.EstCostUSD <= 0 {
				t.Errorf("dry run: changed %d, dependency changed %d, new %d, to request %d, reused %d\n%s",
					dry.Changed, dry.DepChanged, dry.New, dry.Requested, dry.Reused, out.String())
			}
			alt := len(changed) + len(depChanged) + len(newOnes) + len(reworded)
			if tc.refresh {
				alt = len(changed) + len(depChanged) + len(newOnes)
			}
			if dry.AltRedo != alt || dry.AltEstCostUSD <= 0 {
				t.Errorf("dry run's estimate of the other rule: %d to redo ($%.4f), want %d\n%s", dry.AltRedo, dry.AltEstCostUSD, alt, out.String())
			}
			for _, want := range []string{"own inputs changed", "new (no row yet)", "estimated cost", "to request: " + strconv.Itoa(len(wantAsked))} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("dry run output lacks %q:\n%s", want, out.String())
				}
			}

			opts.DryRun, opts.Out = false, &out
			rep, err = Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := asked(t, srv2); !slices.Equal(got, wantAsked) {
				t.Errorf("re-asked %v\nwant      %v", got, wantAsked)
			}
			if rep.Changed != len(changed) || rep.DepChanged != len(wantDep) || rep.New != len(newOnes) ||
				rep.Reused != len(ds)-len(wantAsked) || rep.Requested != len(wantAsked) || rep.Resumed != 0 {
				t.Errorf("report: %s", rep.Summary())
			}
			rows := checkTable(t, ws, ds, "openai:fake")
			byName := map[string]workspace.Informal{}
			for _, r := range rows {
				byName[r.Name] = r
				redone := slices.Contains(wantAsked, r.Name)
				if got := strings.HasPrefix(r.InformalName, "v2 "); got != redone {
					t.Errorf("%s: text %q (redone: %v)", r.Name, r.InformalName, redone)
				}
				if !redone && (r.InputSHA256 != v1Rows[r.Name].InputSHA256 || r.CreatedAt != v1Rows[r.Name].CreatedAt) {
					t.Errorf("%s: reused row changed: %+v → %+v", r.Name, v1Rows[r.Name], r)
				}
				if r.InformalSHA256 != workspace.InformalTextSHA256(r.InformalName, r.InformalStatement) || len(r.OwnInputSHA256) != 64 {
					t.Errorf("%s: hashes %+v", r.Name, r)
				}
			}
			// The audit trail: a reused row whose dependency was re-worded
			// names the dependency text it was made with, which is not the
			// current one. After a refresh, every context is current.
			stale := staleRows(byName)
			wantStale := []string{}
			if !tc.refresh {
				wantStale = []string{"Bump.smaller_eq"} // made with Smaller's v1 text
			}
			if !slices.Equal(stale, wantStale) {
				t.Errorf("stale contexts %v, want %v", stale, wantStale)
			}
			if c := byName["Bump.smaller_le"].Context; len(c) != 2 || c[0].Name != "Bump.Small" || c[1].Name != "Bump.Smaller" {
				t.Errorf("smaller_le context %+v", c)
			}
			// ten_pos_irrel was made when ten_pos had no text: an empty
			// context that a refresh fills.
			if c := byName["Bump.ten_pos_irrel"].Context; (len(c) == 1) != tc.refresh {
				t.Errorf("ten_pos_irrel context %+v", c)
			}
			m, err := ws.ReadManifest()
			if err != nil {
				t.Fatal(err)
			}
			run := m.LastRun("informalize")
			for k, want := range map[string]int64{"reused": int64(len(ds) - len(wantAsked)), "redone_changed": int64(len(changed)),
				"redone_dependency_changed": int64(len(wantDep)), "new": int64(len(newOnes)), "requested": int64(len(wantAsked))} {
				if run.RowCounts[k] != want {
					t.Errorf("manifest %s = %d, want %d", k, run.RowCounts[k], want)
				}
			}

			// A second run has nothing to do, whatever the rule.
			srv2.ResetStats()
			rep, err = Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(asked(t, srv2)) != 0 || rep.Reused != len(ds) {
				t.Errorf("rerun: %s", rep.Summary())
			}
		})
	}
}

// staleRows lists the rows whose context names a dependency text other than
// the dependency's current one: the query a curator runs.
func staleRows(byName map[string]workspace.Informal) []string {
	out := []string{}
	for name, r := range byName {
		for _, c := range r.Context {
			if d, ok := byName[c.Name]; ok && d.InformalSHA256 != c.InformalSHA256 {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
