package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/crashtest"
	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

// TestMain lets a test run the driftkit command in a child process (as
// another user, say): with DRIFTKIT_RUN_MAIN=1 the test binary is driftkit.
func TestMain(m *testing.M) {
	if os.Getenv("DRIFTKIT_RUN_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	wvCluster.Close()
	os.Exit(code)
}

// pipelineWS runs every writing stage once on the bundled library and
// returns the workspace (in a folder other users can reach).
func pipelineWS(t *testing.T, base string) string {
	t.Helper()
	ws := filepath.Join(base, "ws")
	lean := filepath.Join("..", "..", "testdata", "lean")
	for _, args := range [][]string{
		{"extract", "--src", lean, "--library", "driftlib", "--ws", ws, "--quiet"},
		{"informalize", "--ws", ws},
		{"index", "--ws", ws, "--dim", "32", "--bm25-engine", "bleve"}, // bleve: its folder modes are tested
		{"mine", "--ws", ws, "--valid-frac", "0.3", "--negatives", "4"},
		{"train", "head", "--ws", ws, "--out-dim", "8", "--epochs", "1"},
		{"export", "flagembedding", "--ws", ws},
		{"export", "hf", "--ws", ws, "--license", "apache-2.0"},
	} {
		var stderr bytes.Buffer
		if code := run(args, io.Discard, &stderr); code != 0 {
			t.Fatalf("driftkit %v: exit %d\n%s", args, code, stderr.String())
		}
	}
	return ws
}

// sharedBase makes a folder that other users can enter (t.TempDir's are
// 0700), removed at the end of the test.
func sharedBase(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "driftkit-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// otherUser runs driftkit commands in a child process that cannot write what
// this process owns: as user nobody when this process is root (chmod does not
// stop root), else as this user after the caller made the files read-only.
type otherUser struct {
	bin  string
	cred *syscall.Credential
}

const nobody = 65534

func newOtherUser(t *testing.T, base string) *otherUser {
	t.Helper()
	// A copy of the test binary that the other user can execute.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "driftkit.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	u := &otherUser{bin: bin}
	if os.Geteuid() == 0 {
		u.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		// Can we become nobody here (a container may forbid setuid)?
		if _, _, err := u.run("version"); err != nil {
			t.Skipf("cannot run a child process as another user (uid %d): %v; the read-only checks need a non-root user or CAP_SETUID", nobody, err)
		}
	}
	return u
}

// run returns the exit code and stderr of `driftkit args…`.
func (u *otherUser) run(args ...string) (int, string, error) {
	cmd := exec.Command(u.bin, args...)
	cmd.Env = append(os.Environ(), "DRIFTKIT_RUN_MAIN=1")
	cmd.Dir = filepath.Dir(u.bin)
	if u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String(), nil
	}
	if err != nil {
		return -1, stderr.String(), err
	}
	return 0, stderr.String(), nil
}

// readOnly makes the tree at dir unwritable for the other user: for a
// non-root test, by removing write permission (the owner's too).
func (u *otherUser) readOnly(t *testing.T, dir string) {
	t.Helper()
	if u.cred != nil {
		return // nobody cannot write root's 0755/0644 files anyway
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			fi, _ := d.Info()
			os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		return nil
	})
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				fi, _ := d.Info()
				os.Chmod(p, fi.Mode().Perm()|0o200)
			}
			return nil
		})
	})
}

// writable gives the other user write access to the tree at dir.
func (u *otherUser) writable(t *testing.T, dir string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Lchown(p, nobody, nobody)
		}
		return nil
	})
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
}

var writingStages = [][]string{
	{"extract", "--src", "LEAN", "--library", "driftlib", "--quiet"},
	{"import", "rauto", "--library", "RAUTO"},
	{"informalize", "--force"},
	{"index", "--dim", "32"}, // the dimensions pipelineWS's head takes (another is refused before any write)
	{"mine", "--valid-frac", "0.3", "--negatives", "3", "--seed", "9"},
	{"train", "head", "--out-dim", "4", "--epochs", "1", "--seed", "9"},
	{"export", "flagembedding", "--seed", "9"},
	{"export", "hf", "--license", "mit"},
	{"import", "jixia", "--dir", "JIXIA", "--src", "LEAN", "--library", "driftlib", "--quiet"},
	{"import", "lean4export", "--library", "driftlib", "--quiet", "EXPORT"},
	{"export", "embeddings", "--quiet"},
}

func stageArgs(t *testing.T, base string, stage []string, ws string) []string {
	lean, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "lean"))
	lib, _ := filepath.Abs(filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl"))
	// the other user must be able to read the inputs
	for src, name := range map[string]string{lean: "lean", lib: "small.jsonl"} {
		if _, err := os.Stat(filepath.Join(base, name)); err != nil {
			copyTree(t, src, filepath.Join(base, name))
		}
	}
	elabFixtures(t, base)
	var out []string
	for _, a := range stage {
		switch a {
		case "LEAN":
			a = filepath.Join(base, "lean")
		case "RAUTO":
			a = filepath.Join(base, "small.jsonl")
		case "JIXIA":
			a = filepath.Join(base, "jixia")
		case "EXPORT":
			a = filepath.Join(base, "driftlib.ndjson")
		}
		out = append(out, a)
	}
	// --ws right after the command's words: flags go before positional
	// arguments (import lean4export's export file)
	n := 1
	if out[0] == "export" || out[0] == "train" || out[0] == "import" {
		n = 2
	}
	return append(append(out[:n:n], "--ws", ws), out[n:]...)
}

// elabFixtures writes jixia output and a lean4export export of the bundled
// library (generated from base/ws's rows) into base, once, for the importers.
func elabFixtures(t *testing.T, base string) {
	t.Helper()
	jdir := filepath.Join(base, "jixia")
	if _, err := os.Stat(jdir); err == nil {
		return
	}
	rows, err := workspace.ReadTable[workspace.Declaration](filepath.Join(base, "ws", workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := elabtest.WriteLean4export(&buf, rows, elabtest.Lean4exportOptions{Aux: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "driftlib.ndjson"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := elabtest.WriteJixia(jdir, filepath.Join(base, "lean"), rows, true); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyWorkspace runs every writing stage on a workspace it cannot
// write: each must exit 1 with a message naming a path of the workspace — no
// panic, no stack trace (export flagembedding used to call a nil function
// and exit 2) — and leave every file as it was. Then only the stages' output
// folders are unwritable (the workspace itself is): the stages that write
// there must fail the same way, and the others succeed.
func TestReadOnlyWorkspace(t *testing.T) {
	base := sharedBase(t)
	ws := pipelineWS(t, base)
	u := newOtherUser(t, base)
	for _, variant := range []string{"read-only workspace", "read-only output folders"} {
		for i, stage := range writingStages {
			dir := filepath.Join(base, fmt.Sprintf("ro-%d-%d", len(variant), i))
			copyTree(t, ws, dir)
			outDirs := []string{"index", "head", "export"}
			if variant == "read-only workspace" {
				u.readOnly(t, dir)
			} else {
				u.writable(t, dir)
				for _, d := range outDirs {
					p := filepath.Join(dir, d)
					if u.cred != nil {
						filepath.WalkDir(p, func(q string, _ fs.DirEntry, _ error) error { return os.Lchown(q, 0, 0) })
					} else {
						u.readOnly(t, p)
					}
				}
			}
			before := crashtest.Snapshot(t, dir)
			code, stderr, err := u.run(stageArgs(t, base, stage, dir)...)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.Join(stage[:1], " ")
			if stage[0] == "export" || stage[0] == "train" || stage[0] == "import" {
				name = stage[0] + " " + stage[1]
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("%s: %s: crashed:\n%s", variant, name, stderr)
			}
			writesOutDir := stage[0] == "index" || stage[0] == "train" || stage[0] == "export"
			if variant == "read-only workspace" || writesOutDir {
				if code != 1 {
					t.Fatalf("%s: %s: exit %d, want 1\n%s", variant, name, code, stderr)
				}
				if !strings.Contains(stderr, dir+"/") || !strings.Contains(stderr, "permission denied") {
					t.Errorf("%s: %s: the message does not name the unwritable path and the reason:\n%s", variant, name, stderr)
				}
				if after := crashtest.Snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
					t.Errorf("%s: %s: files changed", variant, name)
				}
				if tmp := crashtest.Temporaries(t, dir); len(tmp) > 0 {
					t.Errorf("%s: %s: temporaries left: %v", variant, name, tmp)
				}
			} else if code != 0 {
				t.Errorf("%s: %s: exit %d (it writes only the workspace folder, which is writable)\n%s", variant, name, code, stderr)
			}
		}
	}
}

// TestSharedWorkspace: a workspace built under umask 022 has folders 0755 and
// files 0644 (index/bm25/ and export/hf/ were 0700, so another user could
// not search it: "cannot open index, metadata missing"), and another user
// can search it.
func TestSharedWorkspace(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	base := sharedBase(t)
	ws := pipelineWS(t, base)
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o644)
		if d.IsDir() || d.Name() == "finetune.sh" {
			want = 0o755
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return // no other user to search as
	}
	u := newOtherUser(t, base)
	for _, args := range [][]string{
		{"search", "--ws", ws, "prime number"},
		{"search", "--ws", ws, "--bm25-engine", "bleve", "prime number"},
	} {
		if code, stderr, err := u.run(args...); err != nil || code != 0 {
			t.Fatalf("driftkit %v as another user: exit %d %v\n%s", args, code, err, stderr)
		}
	}
	// An index whose BM25 folder the user cannot read (built by an older
	// driftkit): the error names it and says why (it said "metadata missing").
	private := filepath.Join(base, "private")
	copyTree(t, ws, private)
	gen, err := index.CurrentDir(private)
	if err != nil {
		t.Fatal(err)
	}
	bm25 := filepath.Join(gen, index.BM25Name)
	os.Chmod(bm25, 0o700)
	code, stderr, err := u.run("search", "--ws", private, "--bm25-engine", "bleve", "prime number")
	if err != nil || code != 1 || !strings.Contains(stderr, bm25) || !strings.Contains(stderr, "permission denied") {
		t.Fatalf("search of an unreadable index: exit %d %v\n%s", code, err, stderr)
	}
	// A commit that a killed run left half done: a reader without write
	// access refuses to read a mix and says how to finish it; one with write
	// access finishes it and answers.
	crashed := filepath.Join(base, "crashed")
	copyTree(t, ws, crashed)
	cw, err := workspace.OpenExisting(crashed)
	if err != nil {
		t.Fatal(err)
	}
	cw.CommitHook = func(s workspace.CommitStep) error {
		if s.Name == "place" && s.Path == "index/CURRENT" {
			return workspace.ErrCrash
		}
		return nil
	}
	pre, err := index.ReadManifest(crashed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), cw, index.BuildOptions{HashDim: 32}); !errors.Is(err, workspace.ErrCrash) {
		t.Fatal(err)
	}
	code, stderr, err = u.run("search", "--ws", crashed, "prime number")
	if err != nil || code != 1 || !strings.Contains(stderr, "a killed run left a commit half done") || !strings.Contains(stderr, "run any driftkit stage") {
		t.Fatalf("read-only reader of a half-done commit: exit %d %v\n%s", code, err, stderr)
	}
	var errOut bytes.Buffer
	if code := run([]string{"search", "--ws", crashed, "--no-head", "prime number"}, io.Discard, &errOut); code != 0 {
		t.Fatalf("reader with write access: exit %d\n%s", code, errOut.String())
	}
	if m, err := index.ReadManifest(crashed); err != nil || m.Generation == pre.Generation {
		t.Fatalf("not rolled forward: %+v %v", m, err)
	}
}

// TestStaleTemporariesRemoved: temporaries that killed runs left (20 killed
// index builds left 387 MB of index/.build.tmp-* that no later run removed)
// go at the start of the next stage, whichever it is.
func TestStaleTemporariesRemoved(t *testing.T) {
	ws := t.TempDir()
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	if code := run([]string{"import", "rauto", "--library", lib, "--ws", ws}, io.Discard, io.Discard); code != 0 {
		t.Fatal(code)
	}
	// as driftkit before owner tags named them, and as a killed run of this one
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	leftovers := []string{
		"index/.build.tmp-1411982478/bm25/store/root.bolt",
		"export/.hf.tmp-2227/data/pairs/.train-00000.parquet",
		".manifest.json.tmp-3657288918",
		fmt.Sprintf("index/.vectors.npy.tmp-p%ds1b%s-0a0b0c", dead.Process.Pid, "0"),
	}
	for _, p := range leftovers {
		p = filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("junk"), 0o644)
	}
	if code := run([]string{"index", "--ws", ws, "--dim", "16"}, io.Discard, io.Discard); code != 0 {
		t.Fatal(code)
	}
	if tmp := crashtest.Temporaries(t, ws); len(tmp) > 0 {
		t.Fatalf("left: %v", tmp)
	}
}

// TestSecondWriterRefused: while a run of a stage holds the workspace, a
// second run of it — or of a stage that reads what it writes — exits 1 with
// the busy message (two mine, two train head or two export hf used to both
// exit 0; the export pair left a manifest naming shards that did not exist,
// and train head beside index a head that no longer matched).
func TestSecondWriterRefused(t *testing.T) {
	base := sharedBase(t)
	ws := pipelineWS(t, base)
	for _, c := range []struct {
		holder string
		args   []string
	}{
		{"extract", writingStages[0]},
		{"import rauto", writingStages[1]},
		{"informalize", writingStages[2]},
		{"index", writingStages[3]},
		{"mine", writingStages[4]},
		{"train head", writingStages[5]},
		{"export flagembedding", writingStages[6]},
		{"export hf", writingStages[7]},
		{"import jixia", writingStages[8]},
		{"import lean4export", writingStages[9]},
		{"extract", writingStages[8]},            // an importer beside extract
		{"import jixia", writingStages[9]},       // two importers
		{"import lean4export", writingStages[4]}, // mine reads the tables
		{"export embeddings", writingStages[10]},
		{"index", writingStages[10]},            // export embeddings reads the index
		{"export embeddings", writingStages[3]}, // index beside export embeddings
		{"index", writingStages[5]},             // train head beside index
		{"train head", writingStages[3]},        // index beside train head
		{"extract", writingStages[4]},           // mine reads the tables
		{"informalize", writingStages[7]},       // export hf reads informal.parquet
	} {
		holder, err := workspace.OpenExisting(ws)
		if err != nil {
			t.Fatal(err)
		}
		unlock, err := holder.Lock(c.holder)
		if err != nil {
			t.Fatal(err)
		}
		before := crashtest.Snapshot(t, ws)
		var stderr bytes.Buffer
		code := run(stageArgs(t, base, c.args, ws), io.Discard, &stderr)
		unlock()
		if code != 1 || !strings.Contains(stderr.String(), "workspace busy") || !strings.Contains(stderr.String(), ws) {
			t.Errorf("%v while %s runs: exit %d\n%s", c.args[:2], c.holder, code, stderr.String())
		}
		if after := crashtest.Snapshot(t, ws); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%v while %s runs: files changed", c.args[:2], c.holder)
		}
	}
}
