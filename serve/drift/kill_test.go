package drift

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/lockedbuf"
	"github.com/driftkit/driftkit/llm"
)

// killItems are distinct statements, so that the fake server counts each
// item's requests under its own key.
func killItems(n int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{Key: fmt.Sprintf("Lib.Kill.t%03d", i), Line: i + 1, Informal: fmt.Sprintf("A prime p divides a product (variant %03d).", i),
			Gold: []string{"Lib.Prime", "Lib.Dvd"}, Self: fmt.Sprintf("Lib.Kill.t%03d", i)}
	}
	return out
}

// TestHelperDriftRun is not a test: TestSIGKILLResume runs the test binary
// with this test selected, as a separate process it can kill -9.
func TestHelperDriftRun(t *testing.T) {
	if os.Getenv("DRIFTKIT_DRIFT_HELPER") != "1" {
		t.Skip("helper process for TestSIGKILLResume")
	}
	c, err := llm.New(llm.Config{BaseURLs: []string{os.Getenv("DRIFTKIT_BASE_URL")}, Model: "fake", Concurrency: 8, BackoffBase: 5 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	p := pipeline(t, Parts{Chat: c, Lean: &fakeLean{}}, Options{Samples: 2})
	if _, err := Run(context.Background(), p, killItems(120), RunOptions{Dir: os.Getenv("DRIFTKIT_OUT"), Jobs: 8, Out: os.Stdout,
		Settings: map[string]any{"test": "kill"}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSIGKILLResume kills a run at random points, once after tearing the
// journal's last line, reruns it to the end, and checks that every item has
// exactly one final record and that no item whose record reached the
// journal was requested again.
func TestSIGKILLResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{Latency: 50 * time.Millisecond})
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	// run starts a run and kills it after killAfter (0: lets it finish), or
	// as soon as its output contains killOn when that is set (a run must
	// be given the time to say what it found, however loaded the machine).
	run := func(killAfter time.Duration, killOn string) (string, bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDriftRun$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DRIFTKIT_DRIFT_HELPER=1", "DRIFTKIT_OUT="+dir, "DRIFTKIT_BASE_URL="+srv.BaseURL())
		out := &lockedbuf.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if killAfter > 0 {
			deadline := time.After(killAfter)
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case err := <-done:
					return out.String(), err == nil
				case <-tick.C:
					if killOn == "" || !strings.Contains(out.String(), killOn) {
						continue
					}
				case <-deadline:
				}
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				return out.String(), false
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("final run: %v\n%s", err, out.String())
		}
		return out.String(), true
	}
	journal := filepath.Join(dir, RecordsFile)
	asked := map[string]int{} // item key → requests for it when its record first appeared
	stmtOf := map[string]string{}
	for _, it := range killItems(120) {
		stmtOf[it.Key] = it.Informal
	}
	requests := func(key string) int {
		st := srv.Stats()
		return st["decompose:"+stmtOf[key]].Requests + st["formalize:"+stmtOf[key]].Requests
	}
	kills := 0
	for i := 0; i < 6; i++ {
		killAfter, killOn := time.Duration(250+rng.IntN(300))*time.Millisecond, ""
		if i == 3 {
			// The run after the torn write: killed once it has reported
			// the torn line (a kill before that would lose the report
			// with the line it cut).
			killAfter, killOn = time.Minute, "torn last line"
		}
		out, finished := run(killAfter, killOn)
		if finished {
			t.Logf("run %d finished before the kill", i)
			break
		}
		kills++
		if _, err := os.Stat(journal); err == nil {
			for _, r := range readRecordsTorn(t, journal) {
				if _, ok := asked[r]; !ok {
					asked[r] = requests(r)
				}
			}
		}
		if i == 2 {
			f, _ := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			f.WriteString(`{"key":"Lib.Kill.t119","status":"ok","prot`)
			f.Close()
		}
		if i == 3 && !strings.Contains(out, "torn last line") {
			t.Errorf("the run after the torn write did not report it:\n%s", out)
		}
	}
	out, _ := run(0, "")
	if kills < 2 {
		t.Fatalf("only %d runs were killed; the test proves nothing", kills)
	}
	t.Logf("%d kills, %d items journalled before the final run", kills, len(asked))
	if len(asked) > 0 && !strings.Contains(out, "already finished, skipped") {
		t.Errorf("final run does not say what it skipped:\n%s", out)
	}
	items := readRecords(t, filepath.Join(dir, ItemsFile))
	if len(items) != 120 {
		t.Fatalf("items.jsonl has %d records, want 120", len(items))
	}
	seen := map[string]bool{}
	for _, r := range items {
		if seen[r.Key] || r.Status != "ok" {
			t.Errorf("item %s: duplicate or failed (%s %s)", r.Key, r.Status, r.Error)
		}
		seen[r.Key] = true
	}
	for key, n := range asked {
		if got := requests(key); got != n {
			t.Errorf("%s was requested again after its record was journalled (%d → %d)", key, n, got)
		}
	}
}

// readRecordsTorn lists the keys of the complete lines of a journal.
func readRecordsTorn(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasSuffix(l, "\n") {
			break
		}
		if i := strings.Index(l, `"key":"`); i >= 0 {
			rest := l[i+7:]
			keys = append(keys, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return keys
}
