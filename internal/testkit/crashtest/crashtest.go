// Package crashtest kills a writing stage at every step of its commit and
// checks what the next run finds: the stage's old outputs or its new ones,
// never a mix, a manifest that agrees with the files (no --force needed), and
// a stage that runs again. It is test support, used by the stages' tests.
package crashtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// Stage is a writing stage under test.
type Stage struct {
	// Name is the stage's name in workspace.StageNames.
	Name string
	// Setup fills dir with a workspace that holds the stage's inputs and
	// its old outputs (from an earlier run), such that Run writes new ones.
	Setup func(t *testing.T, dir string)
	// Run runs the stage once on ws.
	Run func(ctx context.Context, ws *workspace.Workspace) error
	// Outputs are the workspace-relative files the stage records in the
	// manifest (checked with GuardOutputs after a crash: no --force needed).
	Outputs []string
	// Recoverer is the stage whose next run (its Lock) must repair the
	// workspace; default "export hf" — any stage recovers any commit.
	Recoverer string
	// Journals are files a run appends to before its commit (informalize's
	// journal): a failed or crashed run may leave them longer than before.
	Journals []string
}

// errInjected is the plain failure injected at a step.
var errInjected = errors.New("injected failure")

// EveryStep runs s once to count its commit steps, then for each step runs it
// on a fresh copy of the setup twice: once failing there (a plain error, as a
// full disk would give: the old outputs must be back at once) and once
// crashing there (workspace.ErrCrash, as a kill: the next stage run must roll
// the commit forward or back). It returns the steps it saw.
func EveryStep(t *testing.T, s Stage) []workspace.CommitStep {
	t.Helper()
	if s.Recoverer == "" {
		s.Recoverer = "export hf"
	}
	base := filepath.Join(t.TempDir(), "base")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	s.Setup(t, base)
	old := Snapshot(t, base)

	// count the steps of a clean run
	var steps []workspace.CommitStep
	{
		dir := copyWS(t, base)
		ws := open(t, dir)
		ws.CommitHook = func(st workspace.CommitStep) error { steps = append(steps, st); return nil }
		if err := s.Run(context.Background(), ws); err != nil {
			t.Fatalf("%s: clean run: %v", s.Name, err)
		}
		if len(steps) < 4 {
			t.Fatalf("%s: only %d commit steps (%v): does the stage commit through a workspace.Txn?", s.Name, len(steps), steps)
		}
		t.Logf("%s: %d commit steps: %v", s.Name, len(steps), steps)
		checkConsistent(t, s, dir, "clean run")
		if reflectEqual(Snapshot(t, dir), old) {
			t.Fatalf("%s: the clean run left the outputs as they were: the setup must make it write new ones", s.Name)
		}
	}
	for _, crash := range []bool{false, true} {
		for i, st := range steps {
			what := "fail at " + st.String()
			if crash {
				what = "crash at " + st.String()
			}
			dir := copyWS(t, base)
			ws := open(t, dir)
			// the record as it is when the fault strikes (a reader in Run
			// may recover it before Run returns)
			var pending *workspace.CommitInfo
			ws.CommitHook = func(c workspace.CommitStep) error {
				if c.N != i {
					return nil
				}
				var err error
				if pending, err = workspace.PendingCommit(dir); err != nil {
					t.Errorf("%s: %s: %v", s.Name, what, err)
				}
				if crash {
					return workspace.ErrCrash
				}
				return errInjected
			}
			err := s.Run(context.Background(), ws)
			switch {
			case crash && !errors.Is(err, workspace.ErrCrash):
				t.Fatalf("%s: %s: err %v, want the crash", s.Name, what, err)
			case !crash && st.Name != "cleanup" && st.Name != "unrecord" && !errors.Is(err, errInjected):
				t.Fatalf("%s: %s: err %v, want the errInjected failure", s.Name, what, err)
			case !crash && (st.Name == "cleanup" || st.Name == "unrecord") && err != nil:
				t.Fatalf("%s: %s: err %v; the commit had taken effect, the stage must succeed", s.Name, what, err)
			}
			if !crash && st.Name != "cleanup" && st.Name != "unrecord" {
				// A failure rolls back at once, leaving nothing behind.
				if p, _ := workspace.PendingCommit(dir); p != nil {
					t.Fatalf("%s: %s: commit record left after a failure", s.Name, what)
				}
				if got := Snapshot(t, dir); !s.equal(got, old) {
					t.Fatalf("%s: %s: outputs changed after a failed commit:\n%s", s.Name, what, diff(old, got))
				}
				if tmp := Temporaries(t, dir); len(tmp) > 0 {
					t.Fatalf("%s: %s: temporaries left: %v", s.Name, what, tmp)
				}
			}
			var want map[string]string // the new state, when the record says what it is
			if pending != nil {
				want = maps.Clone(old)
				for p := range want {
					for _, r := range pending.Replaced {
						if p == r || strings.HasPrefix(p, r+"/") {
							delete(want, p)
						}
					}
				}
				maps.Copy(want, pending.Files)
			}
			// The next run of any stage recovers.
			next := open(t, dir)
			unlock, err := next.Lock(s.Recoverer)
			if err != nil {
				t.Fatalf("%s: %s: next run (%s) cannot start: %v", s.Name, what, s.Recoverer, err)
			}
			unlock()
			if p, _ := workspace.PendingCommit(dir); p != nil {
				t.Fatalf("%s: %s: commit record still there after the next run", s.Name, what)
			}
			got := Snapshot(t, dir)
			switch {
			case s.equal(got, old):
			case want != nil && reflectEqual(got, want):
			case want == nil:
				t.Fatalf("%s: %s: no commit record, yet the outputs changed:\n%s", s.Name, what, diff(old, got))
			default:
				t.Fatalf("%s: %s: after recovery the outputs are neither the old nor the new ones:\nvs old:\n%s\nvs new:\n%s",
					s.Name, what, diff(old, got), diff(want, got))
			}
			// Leftovers may only be this process's own temporaries (a
			// killed process's are removed by the next run: see dataset's
			// tests); the record's files are all gone.
			for _, p := range Temporaries(t, dir) {
				if pending != nil && strings.Contains(p, pending.ID) {
					t.Fatalf("%s: %s: %s of the recovered commit left behind", s.Name, what, p)
				}
			}
			checkConsistent(t, s, dir, what)
			// and the stage runs again without --force (after a failure the
			// workspace is the setup's, checked above)
			if crash {
				again := open(t, dir)
				if err := s.Run(context.Background(), again); err != nil {
					t.Fatalf("%s: %s: rerun after recovery: %v", s.Name, what, err)
				}
			}
			os.RemoveAll(dir)
		}
	}
	return steps
}

func open(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.OpenExisting(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// checkConsistent: the manifest knows every output in its current form.
func checkConsistent(t *testing.T, s Stage, dir, what string) {
	t.Helper()
	ws := open(t, dir)
	if err := ws.GuardOutputs(false, s.Outputs...); err != nil {
		t.Fatalf("%s: %s: the manifest does not match the outputs (a rerun would need --force): %v", s.Name, what, err)
	}
}

// Snapshot hashes every file of the workspace but the manifest, locks, the
// commit record and temporaries.
func Snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if workspace.IsTemporary(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		if rel == workspace.ManifestFile || rel == ".commit.json" || strings.HasSuffix(name, ".lock") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Temporaries lists the temporaries in a workspace (workspace-relative).
func Temporaries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if workspace.IsTemporary(d.Name()) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

func reflectEqual(a, b map[string]string) bool { return maps.Equal(a, b) }

// equal compares snapshots but for the content of the stage's journals
// (which must still exist or still be absent).
func (s Stage) equal(got, want map[string]string) bool {
	if len(s.Journals) == 0 {
		return maps.Equal(got, want)
	}
	g, w := maps.Clone(got), maps.Clone(want)
	for _, j := range s.Journals {
		if _, ok := g[j]; ok {
			g[j] = "(journal)"
		}
		if _, ok := w[j]; ok {
			w[j] = "(journal)"
		}
	}
	return maps.Equal(g, w)
}

func diff(want, got map[string]string) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		if g, ok := got[k]; !ok {
			b.WriteString("  missing " + k + "\n")
		} else if g != want[k] {
			b.WriteString("  changed " + k + "\n")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			b.WriteString("  extra   " + k + "\n")
		}
	}
	return b.String()
}

// copyWS copies the workspace folder base to a new folder beside it.
func copyWS(t *testing.T, base string) string {
	t.Helper()
	dst, err := os.MkdirTemp(filepath.Dir(base), "ws-")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
