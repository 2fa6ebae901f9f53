package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestManifestRecordsRuns(t *testing.T) {
	ws, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.Path("input.txt"), []byte("lean"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(ws.Path(PairsFile), []Pair{{QueryID: "a"}, {QueryID: "b"}}); err != nil {
		t.Fatal(err)
	}
	rr := ws.StartRun("mine", map[string]any{"negatives": 15})
	if err := rr.Input("input.txt"); err != nil {
		t.Fatal(err)
	}
	if err := rr.Output(ws.Path(PairsFile), 2); err != nil {
		t.Fatal(err)
	}
	rr.Phase("parse", 1500_000_000)
	rr.Count("pairs", 2)
	if err := rr.Finish(); err != nil {
		t.Fatal(err)
	}
	m, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	r := m.LastRun("mine")
	if r == nil {
		t.Fatal("run not recorded")
	}
	if r.Inputs[0].Path != "input.txt" || r.Inputs[0].SHA256 != sha256hex("lean") {
		t.Fatalf("bad input ref %+v", r.Inputs[0])
	}
	if r.Outputs[0].Path != PairsFile || r.Outputs[0].Rows != 2 {
		t.Fatalf("bad output ref %+v", r.Outputs[0])
	}
	if r.Phases["parse"] != 1.5 || r.RowCounts["pairs"] != 2 || r.ToolVersion == "" {
		t.Fatalf("bad run %+v", r)
	}
	// Nothing stale yet; changing the input makes mine stale.
	if st, _ := ws.Stale(); len(st) != 0 {
		t.Fatalf("stale too early: %v", st)
	}
	os.WriteFile(ws.Path("input.txt"), []byte("lean 2"), 0o644)
	if st, _ := ws.Stale(); len(st["mine"]) != 1 {
		t.Fatalf("changed input not reported: %v", st)
	}
}

func TestGuardOutputs(t *testing.T) {
	ws, _ := Open(t.TempDir())
	// Missing output: fine.
	if err := ws.GuardOutputs(false, PairsFile); err != nil {
		t.Fatal(err)
	}
	// Present but unknown to the manifest: refused unless forced.
	WriteTable(ws.Path(PairsFile), []Pair{{QueryID: "x"}})
	if err := ws.GuardOutputs(false, PairsFile); !errors.Is(err, ErrForeignOutput) {
		t.Fatalf("want ErrForeignOutput, got %v", err)
	}
	if err := ws.GuardOutputs(true, PairsFile); err != nil {
		t.Fatal(err)
	}
	// Recorded: fine; edited afterwards: refused.
	rr := ws.StartRun("mine", nil)
	rr.Output(ws.Path(PairsFile), 1)
	rr.Finish()
	if err := ws.GuardOutputs(false, PairsFile); err != nil {
		t.Fatal(err)
	}
	WriteTable(ws.Path(PairsFile), []Pair{{QueryID: "edited"}})
	if err := ws.GuardOutputs(false, PairsFile); !errors.Is(err, ErrForeignOutput) {
		t.Fatalf("edited output not refused: %v", err)
	}
}

func TestConcurrentRecordsKeepEveryRun(t *testing.T) {
	ws, _ := Open(t.TempDir())
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ws.StartRun("index", nil).Finish(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	m, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 20 {
		t.Fatalf("%d runs recorded, want 20", len(m.Runs))
	}
}

func TestCorruptManifest(t *testing.T) {
	ws, _ := Open(t.TempDir())
	os.WriteFile(ws.Path(ManifestFile), []byte("{\"runs\": [tru"), 0o644)
	_, err := ws.ReadManifest()
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != ws.Path(ManifestFile) {
		t.Fatalf("want FileError naming the manifest, got %v", err)
	}
}

// TestNewerManifest: a manifest from a newer driftkit (a higher format, or
// a field this one does not know) is refused with a message, never read
// and rewritten without its fields; an older one (no format) is read and
// rewritten with the current format.
func TestNewerManifest(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		want string // "" = accepted
	}{
		"old":          {`{"runs": [{"stage": "extract", "tool_version": "v0", "started_at": "2026-01-01T00:00:00Z", "wall_seconds": 1, "inputs": null, "outputs": null}]}`, ""},
		"current":      {`{"format": 1, "runs": []}`, ""},
		"newer format": {`{"format": 2, "runs": []}`, "format 2, this driftkit"},
		"new field":    {`{"runs": [], "generations": {}}`, `the field "generations"`},
		"new run field": {`{"runs": [{"stage": "index", "tool_version": "v9", "started_at": "2026-01-01T00:00:00Z", "wall_seconds": 1, "inputs": null, "outputs": null, "from_the_future": "c1"}]}`,
			`the field "from_the_future"`},
	} {
		ws, _ := Open(t.TempDir())
		os.WriteFile(ws.Path(ManifestFile), []byte(c.text), 0o644)
		_, err := ws.ReadManifest()
		rerr := ws.Record(Run{Stage: "mine"})
		if c.want == "" {
			if err != nil || rerr != nil {
				t.Errorf("%s: %v, %v", name, err, rerr)
			}
			b, _ := os.ReadFile(ws.Path(ManifestFile))
			if !strings.Contains(string(b), `"format": 1`) {
				t.Errorf("%s: rewritten manifest lacks the format: %s", name, b)
			}
			continue
		}
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, ErrNewerManifest) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), ws.Path(ManifestFile)) {
			t.Errorf("%s: err = %v, want ErrNewerManifest naming the file and %q", name, err, c.want)
		}
		if !errors.Is(rerr, ErrNewerManifest) {
			t.Errorf("%s: Record over a newer manifest: %v", name, rerr)
		}
		if b, _ := os.ReadFile(ws.Path(ManifestFile)); string(b) != c.text {
			t.Errorf("%s: the newer manifest was rewritten: %s", name, b)
		}
	}
}

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestOpenExisting(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nows")
	_, err := OpenExisting(missing)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != missing || !errors.Is(err, ErrNoWorkspace) {
		t.Fatalf("missing folder: err %v, want FileError naming it and wrapping ErrNoWorkspace", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenExisting created %s", missing)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenExisting(file); !errors.Is(err, ErrNoWorkspace) {
		t.Errorf("plain file: err %v, want ErrNoWorkspace", err)
	}
	ws, err := OpenExisting(dir)
	if err != nil || ws.Dir != dir {
		t.Errorf("existing folder: %v, %v", ws, err)
	}
	if _, err := OpenExisting(""); err == nil {
		t.Error("empty dir accepted")
	}
}

func TestTryLock(t *testing.T) {
	ws, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := ws.TryLock("index")
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to open file descriptions: a second open in the
	// same process conflicts just as another process would.
	if _, err := ws.TryLock("index"); !errors.Is(err, ErrBusy) {
		t.Fatalf("second lock: err %v, want ErrBusy", err)
	}
	other, err := ws.TryLock("extract")
	if err != nil {
		t.Fatalf("another stage's lock: %v", err)
	}
	other()
	unlock()
	again, err := ws.TryLock("index")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
