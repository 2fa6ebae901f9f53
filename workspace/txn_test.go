package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/workspace"
)

// toyStage writes what real stages write, in one transaction: two tables, a
// folder replaced as a whole, a file removed, a file inside a folder that
// stays. gen makes each run's content differ.
func toyStage(gen string) func(ctx context.Context, ws *workspace.Workspace) error {
	return func(ctx context.Context, ws *workspace.Workspace) error {
		unlock, err := ws.Lock("import rauto")
		if err != nil {
			return err
		}
		defer unlock()
		if gen == "" {
			b, _ := os.ReadFile(ws.Path("gen"))
			gen = strings.TrimSpace(string(b)) + "+"
		}
		run := ws.StartRun("import rauto", nil)
		tx := ws.Begin("import rauto")
		defer tx.Abort()
		rows := []workspace.Module{{Library: "toy", Name: "M" + gen, Imports: []string{}}}
		if err := workspace.WriteStagedTable(tx, workspace.ModulesFile, rows); err != nil {
			return err
		}
		if err := tx.WriteFile(workspace.InformalFile, []byte("informal "+gen)); err != nil {
			return err
		}
		dir, err := tx.TempDir("export/hf")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			return err
		}
		for _, n := range []string{"README.md", "data/a.parquet"} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n+gen), 0o644); err != nil {
				return err
			}
		}
		if err := tx.WriteFile("index/manifest.json", []byte("{\"gen\": \""+gen+"\"}")); err != nil {
			return err
		}
		if err := tx.Remove(workspace.InformalJournalFile); err != nil {
			return err
		}
		tx.Output(workspace.ModulesFile, 1)
		tx.Output(workspace.InformalFile, 0)
		tx.Output("export/hf/README.md", 0)
		tx.Output("index/manifest.json", 0)
		return tx.Commit(run)
	}
}

func setupToy(t *testing.T, dir string) {
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := toyStage("old")(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	// files the commit must leave alone, and one it removes
	for n, s := range map[string]string{"index/vectors.npy": "v", workspace.InformalJournalFile: "j", "gen": "new"} {
		if err := os.WriteFile(ws.Path(n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var toyOutputs = []string{workspace.ModulesFile, workspace.InformalFile, "export/hf/README.md", "index/manifest.json"}

func TestCommitEveryStep(t *testing.T) {
	steps := crashtest.EveryStep(t, crashtest.Stage{Name: "toy", Setup: setupToy, Run: toyStage(""), Outputs: toyOutputs})
	var names []string
	for _, s := range steps {
		names = append(names, s.Name+" "+s.Path)
	}
	want := "record .commit.json|backup modules.parquet|place modules.parquet|backup informal.parquet|place informal.parquet|" +
		"backup export/hf|place export/hf|backup index/manifest.json|place index/manifest.json|remove informal.journal.jsonl|manifest manifest.json|cleanup |unrecord .commit.json"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("steps\n got %s\nwant %s", got, want)
	}
}

func TestCommitPutsEverythingInPlace(t *testing.T) {
	dir := t.TempDir()
	setupToy(t, dir)
	ws, _ := workspace.OpenExisting(dir)
	if err := toyStage("")(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if ws.Has(workspace.InformalJournalFile) {
		t.Error("removed file still there")
	}
	if b, _ := os.ReadFile(ws.Path("export/hf/data/a.parquet")); string(b) != "data/a.parquetnew+" {
		t.Errorf("folder content %q", b)
	}
	if !ws.Has("index/vectors.npy") {
		t.Error("a file beside the staged one went away")
	}
	m, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	last := m.Runs[len(m.Runs)-1]
	if last.Commit == "" || len(last.Outputs) != 4 {
		t.Fatalf("manifest entry %+v", last)
	}
	if err := ws.GuardOutputs(false, toyOutputs...); err != nil {
		t.Fatal(err)
	}
	if tmp := crashtest.Temporaries(t, dir); len(tmp) > 0 {
		t.Fatalf("temporaries left: %v", tmp)
	}
	for _, p := range []string{"export/hf", "export/hf/data"} {
		if fi, _ := os.Stat(ws.Path(p)); fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v, want 0755 under umask 022", p, fi.Mode().Perm())
		}
	}
}

// A staged file damaged after the record was written (a disk that lost it)
// cannot be put in place: the recovery puts every old output back instead.
// Damage of the same size is found by the sha256 (a review that made
// matches compare sizes only passed the other cases), and a staged file
// that is gone while its destination still holds the old output is not
// "in place already" (#24).
func TestRecoverRollsBackDamagedStage(t *testing.T) {
	for _, c := range []struct{ victim, damage string }{
		{"informal.parquet", "truncate"}, {"export/hf", "rewrite"},
		{"informal.parquet", "flip"}, {"export/hf", "flip"}, {"informal.parquet", "delete"},
		{"export/hf", "extra"}, // a folder holds exactly the files recorded
	} {
		victim := c.victim
		dir := t.TempDir()
		setupToy(t, dir)
		before := crashtest.Snapshot(t, dir)
		ws, _ := workspace.OpenExisting(dir)
		ws.CommitHook = func(s workspace.CommitStep) error {
			// after the first two renames
			if s.Name == "backup" && s.Path == "informal.parquet" {
				return workspace.ErrCrash
			}
			return nil
		}
		if err := toyStage("")(context.Background(), ws); !errors.Is(err, workspace.ErrCrash) {
			t.Fatal(err)
		}
		// damage the staged copy of victim
		ents, _ := filepath.Glob(filepath.Join(dir, filepath.Dir(victim), "."+filepath.Base(victim)+".tmp-*"))
		if len(ents) != 1 {
			t.Fatalf("%s: staged copies %v", victim, ents)
		}
		staged := ents[0]
		if victim == "export/hf" {
			staged = filepath.Join(ents[0], "README.md")
		}
		switch c.damage {
		case "rewrite":
			os.WriteFile(staged, []byte("bit rot"), 0o644)
		case "truncate":
			os.Truncate(staged, 3)
		case "flip": // same size, one bit
			b, err := os.ReadFile(staged)
			if err != nil || len(b) == 0 {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			os.WriteFile(staged, b, 0o644)
		case "delete":
			os.Remove(staged)
		case "extra":
			os.WriteFile(filepath.Join(filepath.Dir(staged), "half-written.part"), []byte("x"), 0o644)
		}
		if err := ws.Recover(); err != nil {
			t.Fatal(err)
		}
		if got := crashtest.Snapshot(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("%s damaged (%s): outputs not rolled back", victim, c.damage)
		}
		if err := ws.GuardOutputs(false, toyOutputs...); err != nil {
			t.Fatal(err)
		}
		if tmp := crashtest.Temporaries(t, dir); len(tmp) > 0 {
			t.Fatalf("temporaries left: %v", tmp)
		}
	}
}

// TestKillAtEveryStep kills a real process (SIGKILL, no deferred cleanup, no
// flushing) at every step of a commit; the next stage run must recover and
// remove every temporary the dead process left.
func TestKillAtEveryStep(t *testing.T) {
	if os.Getenv("DATASET_KILL_HELPER") != "" {
		return // the helper runs in TestMain
	}
	base := t.TempDir()
	setupToy(t, base)
	old := crashtest.Snapshot(t, base)
	for step := 0; step < 13; step++ {
		dir := filepath.Join(t.TempDir(), "ws")
		if err := exec.Command("cp", "-a", base, dir).Run(); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DATASET_KILL_HELPER="+dir+":"+strconv.Itoa(step))
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("step %d: helper was not killed: %v\n%s", step, err, out)
		}
		pending, err := workspace.PendingCommit(dir)
		if err != nil {
			t.Fatal(err)
		}
		if step > 0 && pending == nil {
			t.Fatalf("step %d: no commit record after the kill", step)
		}
		ws, _ := workspace.OpenExisting(dir)
		unlock, err := ws.Lock("mine") // any stage
		if err != nil {
			t.Fatalf("step %d: next run: %v", step, err)
		}
		unlock()
		got := crashtest.Snapshot(t, dir)
		if fmt.Sprint(got) != fmt.Sprint(old) {
			if pending == nil {
				t.Fatalf("step %d: outputs changed without a commit record", step)
			}
			for p, sum := range pending.Files {
				if got[p] != sum {
					t.Fatalf("step %d: neither old nor new: %s", step, p)
				}
			}
		}
		if err := ws.GuardOutputs(false, toyOutputs...); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if tmp := crashtest.Temporaries(t, dir); len(tmp) > 0 {
			t.Fatalf("step %d: the dead run's temporaries are still there: %v", step, tmp)
		}
	}
}

func TestMain(m *testing.M) {
	if h := os.Getenv("DATASET_KILL_HELPER"); h != "" {
		i := strings.LastIndexByte(h, ':')
		dir, n := h[:i], h[i+1:]
		step, _ := strconv.Atoi(n)
		ws, err := workspace.OpenExisting(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		ws.CommitHook = func(s workspace.CommitStep) error {
			if s.N == step {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
			return nil
		}
		err = toyStage("")(context.Background(), ws)
		fmt.Fprintln(os.Stderr, "helper survived:", err)
		os.Exit(4)
	}
	os.Exit(m.Run())
}

func TestLockRules(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b     string
		conflict bool
	}{
		{"mine", "mine", true},
		{"train head", "train head", true},
		{"export hf", "export hf", true},
		{"export flagembedding", "export flagembedding", true},
		{"train head", "index", true}, // both write index/ (and index reads head/)
		{"extract", "informalize", true},
		{"extract", "import rauto", true},
		{"informalize", "index", true},
		{"mine", "export hf", true}, // export reads pairs
		{"index", "export hf", false},
		{"index", "export flagembedding", false},
		{"export hf", "export flagembedding", false},
		{"train head", "export hf", false}, // both only read pairs
	} {
		u1, err := ws.Lock(c.a)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := workspace.OpenExisting(ws.Dir) // another run: another Workspace value
		u2, err := other.Lock(c.b)
		switch {
		case c.conflict && !errors.Is(err, workspace.ErrBusy):
			t.Errorf("%s beside %s: err %v, want ErrBusy", c.a, c.b, err)
		case c.conflict && !strings.Contains(err.Error(), ws.Dir):
			t.Errorf("%s beside %s: %v does not name the workspace", c.a, c.b, err)
		case !c.conflict && err != nil:
			t.Errorf("%s beside %s: %v", c.a, c.b, err)
		}
		if err == nil {
			u2()
		}
		u1()
	}
	// re-entrant on one value
	u1, err := ws.Lock("mine")
	if err != nil {
		t.Fatal(err)
	}
	u2, err := ws.Lock("mine")
	if err != nil {
		t.Fatalf("second Lock on the same value: %v", err)
	}
	u2()
	other, _ := workspace.OpenExisting(ws.Dir)
	if _, err := other.Lock("mine"); !errors.Is(err, workspace.ErrBusy) {
		t.Fatalf("lock released after the inner unlock: %v", err)
	}
	u1()
	u3, err := other.Lock("mine")
	if err != nil {
		t.Fatalf("after both unlocks: %v", err)
	}
	u3()
}

// deadOwner returns an owner tag of a process that has exited.
func deadOwner(t *testing.T) string {
	cmd := exec.Command("cat", "/proc/self/stat")
	out, err := cmd.Output()
	if err != nil {
		t.Skip("no /proc:", err)
	}
	s := string(out)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	b := strings.ReplaceAll(strings.TrimSpace(string(boot)), "-", "")[:8]
	return fmt.Sprintf("p%ds%sb%s", cmd.Process.Pid, f[19], b)
}

func TestCleanTemporaries(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dead := deadOwner(t)
	mk := func(rel string, dir bool) {
		p := ws.Path(rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if dir {
			os.MkdirAll(filepath.Join(p, "bm25"), 0o755)
			os.WriteFile(filepath.Join(p, "vectors.npy"), []byte("x"), 0o644)
		} else {
			os.WriteFile(p, []byte("x"), 0o644)
		}
	}
	// a live run's temporaries: this process's
	live := workspace.Workspace{Dir: ws.Dir}
	tx := live.Begin("mine")
	f, err := tx.Create(workspace.PairsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Abort()
	liveDir, err := workspace.MkdirTemp(ws.Path("index", "gen-1"))
	if err != nil {
		t.Fatal(err)
	}
	staleNames := []string{
		"index/.build.tmp-" + dead + "-0a1b2c", // a killed index build
		"export/.hf.tmp-" + dead + "-0a1b2c",   // a killed export
		".manifest.json.tmp-" + dead + "-0a1b2c",
		"export/flagembedding/.train.jsonl.tmp-" + dead + "-0a1b2c",
		".pairs.parquet.old-" + dead + "-0a1b2c",
		"index/.build.tmp-123456", // before owner tags; index lock free
		".manifest.json.tmp-99",
		"export/.hf.tmp-77.old",
	}
	for _, n := range staleNames {
		mk(n, strings.Contains(n, "build") || strings.Contains(n, "hf"))
	}
	// an untagged temporary of a resource another run holds: kept
	other, _ := workspace.OpenExisting(ws.Dir)
	unlock, err := other.TryLock(string(workspace.ResHead))
	if err != nil {
		t.Fatal(err)
	}
	mk("head/.config.json.tmp-5555", false)
	// a dead owner's, where another run holds the lock: its owner may
	// live in another pid namespace (a container sharing the workspace)
	mk("head/.query.npy.tmp-"+dead+"-0a1b2c", false)
	got := ws.CleanTemporaries(nil)
	if !ws.Has("head/.query.npy.tmp-" + dead + "-0a1b2c") {
		t.Errorf("a temporary of a locked part was removed")
	}
	unlock()
	for _, n := range staleNames {
		if ws.Has(n) {
			t.Errorf("stale %s kept", n)
		}
	}
	if !ws.Has(filepath.Base(f.Name())) {
		t.Errorf("a live run's staged file was removed")
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("a live run's folder was removed")
	}
	if !ws.Has("head/.config.json.tmp-5555") {
		t.Errorf("an untagged temporary of a locked resource was removed")
	}
	if len(got) != len(staleNames) {
		t.Errorf("removed %v", got)
	}
	// once the holder is gone, they go too
	ws.CleanTemporaries(nil)
	if ws.Has("head/.config.json.tmp-5555") || ws.Has("head/.query.npy.tmp-"+dead+"-0a1b2c") {
		t.Errorf("temporaries of a free part kept")
	}
}

func TestReadSnapshotRecovers(t *testing.T) {
	dir := t.TempDir()
	setupToy(t, dir)
	ws, _ := workspace.OpenExisting(dir)
	ws.CommitHook = func(s workspace.CommitStep) error {
		if s.Name == "place" && s.Path == "export/hf" {
			return workspace.ErrCrash
		}
		return nil
	}
	if err := toyStage("")(context.Background(), ws); !errors.Is(err, workspace.ErrCrash) {
		t.Fatal(err)
	}
	// mid-commit: informal.parquet is new, export/hf is missing
	if ws.Has("export/hf") {
		t.Fatal("unexpected layout mid-commit")
	}
	release, err := workspace.ReadSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if p, _ := workspace.PendingCommit(dir); p != nil {
		t.Fatal("record left")
	}
	if b, _ := os.ReadFile(ws.Path("export/hf/README.md")); string(b) != "README.mdnew+" {
		t.Fatalf("not rolled forward: %q", b)
	}
}

func TestCommitRespectsUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	ws, _ := workspace.OpenExisting(dir)
	tx := ws.Begin("mine")
	if err := tx.WriteFile("pairs.parquet", []byte("x")); err != nil {
		t.Fatal(err)
	}
	d, err := tx.TempDir("export/hf")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "a"), nil, 0o644)
	if err := tx.Commit(nil); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{"pairs.parquet": 0o600, "export/hf": 0o700} {
		fi, err := os.Stat(ws.Path(p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %v under umask 077, want %v", p, fi.Mode().Perm(), want)
		}
	}
}
