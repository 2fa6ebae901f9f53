package informalize

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

// TestHelperInformalize is not a test: TestSIGKILLResume runs the test
// binary with this test selected and the environment set, as a separate
// process it can kill -9.
func TestHelperInformalize(t *testing.T) {
	if os.Getenv("DRIFTKIT_INFORMALIZE_HELPER") != "1" {
		t.Skip("helper process for TestSIGKILLResume")
	}
	ws, err := workspace.Open(os.Getenv("DRIFTKIT_WS"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	conc := 8
	if c, err := strconv.Atoi(os.Getenv("DRIFTKIT_CONCURRENCY")); err == nil {
		conc = c
	}
	opts := quietOpts(llmProvider(t, os.Getenv("DRIFTKIT_BASE_URL"), conc))
	opts.Out = os.Stdout
	opts.RefreshDependents = os.Getenv("DRIFTKIT_REFRESH") == "1"
	if _, err := Run(context.Background(), ws, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSIGKILLResume kills an informalize process at random points several
// times, reruns it to the end, and checks that the table holds every
// declaration exactly once and that no answer that reached the journal was
// requested again.
func TestSIGKILLResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ws, ds := openWS(t, 400)
	srv := newFake(fakeopenai.Options{Latency: 40 * time.Millisecond})
	defer srv.Close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	run := helperRunner(t, ws.Dir, srv.BaseURL())
	// asked[name] is how often the server was asked about name when the
	// journal first showed its answer.
	asked := map[string]int{}
	kills := 0
	var afterTorn strings.Builder // what the runs after the torn write printed
	torn := false
	for i := 0; i < 6; i++ {
		out, finished := run(time.Duration(200+rng.IntN(300)) * time.Millisecond)
		if i >= 3 {
			afterTorn.WriteString(out)
		}
		if finished {
			t.Logf("run %d finished before the kill", i)
			break
		}
		kills++
		stats := srv.Stats()
		for name := range journalNames(t, ws.Dir) {
			if _, ok := asked[name]; !ok {
				asked[name] = stats[name].Requests
			}
		}
		if i == 2 {
			// Simulate a crash in the middle of a write: a torn last line.
			f, _ := os.OpenFile(ws.Path(workspace.InformalJournalFile), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"name":"Lib.N1.decl_001","status":"ok","inf`)
			f.Close()
			torn = true
		}
	}
	out, _ := run(0)
	afterTorn.WriteString(out)
	// The first run after the torn write reports it, unless it was killed
	// before it read the journal (a slow start on a loaded machine): then
	// a later one does.
	if torn && !strings.Contains(afterTorn.String(), "torn") {
		t.Errorf("no run after the torn write reported it:\n%s", afterTorn.String())
	}
	if kills < 2 {
		t.Fatalf("only %d runs were killed before finishing; the test proves nothing", kills)
	}
	t.Logf("%d kills, %d answers journalled before the final run", kills, len(asked))
	checkTable(t, ws, ds, "openai:fake")
	stats := srv.Stats()
	for name, n := range asked {
		if stats[name].Requests != n {
			t.Errorf("%s was requested again after its answer was journalled (%d → %d)", name, n, stats[name].Requests)
		}
	}
	if ws.Has(workspace.InformalJournalFile) {
		t.Error("journal left after the final run")
	}
}

// helperRunner returns a function that runs TestHelperInformalize on dir
// against url as a separate process, killing it with SIGKILL after killAfter
// (0: let it finish, failing the test if it fails). It reports the output
// and whether the process finished. env adds variables.
func helperRunner(t *testing.T, dir, url string, env ...string) func(killAfter time.Duration) (string, bool) {
	return func(killAfter time.Duration) (string, bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperInformalize$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DRIFTKIT_INFORMALIZE_HELPER=1", "DRIFTKIT_WS="+dir, "DRIFTKIT_BASE_URL="+url)
		cmd.Env = append(cmd.Env, env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if killAfter > 0 {
			select {
			case err := <-done:
				return out.String(), err == nil
			case <-time.After(killAfter):
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				return out.String(), false
			}
		}
		err := <-done
		if err != nil {
			t.Fatalf("final run: %v\n%s", err, out.String())
		}
		return out.String(), true
	}
}

// TestSIGKILLIncrementalKeepsRule informalizes a library, changes the
// signatures of a few declarations, and runs the incremental rerun as a
// separate process killed with SIGKILL at random points: over all the
// processes, only the declarations the rule redoes are asked, none whose
// answer reached the journal is asked again, and the run that finishes
// reports the same verdicts as an uninterrupted one.
func TestSIGKILLIncrementalKeepsRule(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, refresh := range []bool{false, true} {
		t.Run(map[bool]string{false: "formal inputs", true: "refresh dependents"}[refresh], func(t *testing.T) {
			ws, ds := openWS(t, 400)
			srv1 := newFake(labelled("v1"))
			defer srv1.Close()
			if _, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv1.BaseURL(), 8))); err != nil {
				t.Fatal(err)
			}
			// Change signatures until 50 to 80 declarations are to be
			// redone: long enough to kill the run in the middle, short
			// enough for a test.
			var changed, want []string
			var deps map[string]bool
			for i := 10; i < len(ds) && len(want) < 50; i += 7 {
				c := append(slices.Clone(changed), ds[i].Name)
				d := dependents(ds, c, refresh)
				if len(c)+len(d) > 80 {
					continue
				}
				ds[i].Signature = "(z : ℚ) : z = z"
				changed, deps = c, d
				want = slices.Concat(changed, slices.Collect(maps.Keys(deps)))
			}
			writeFixture(t, ws.Dir, ds)
			slices.Sort(want)

			slow := labelled("v2")
			slow.Latency = 60 * time.Millisecond // long enough to be killed in the middle
			srv := newFake(slow)
			defer srv.Close()
			env := []string{"DRIFTKIT_CONCURRENCY=2"}
			if refresh {
				env = append(env, "DRIFTKIT_REFRESH=1")
			}
			run := helperRunner(t, ws.Dir, srv.BaseURL(), env...)
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
			journalled := map[string]int{}
			kills := 0
			// A run killed before it journalled anything (the process
			// started slowly on a loaded machine) proves nothing: the next
			// one gets twice the time.
			base := 250 * time.Millisecond
			for i := 0; i < 5; i++ {
				if _, finished := run(base + time.Duration(rng.IntN(500))*time.Millisecond); finished {
					break
				}
				kills++
				stats := srv.Stats()
				before := len(journalled)
				for name := range journalNames(t, ws.Dir) {
					if _, ok := journalled[name]; !ok {
						journalled[name] = stats[name].Requests
					}
				}
				if len(journalled) == before {
					base *= 2
				}
			}
			run(0)
			if kills < 2 || len(journalled) == 0 {
				t.Fatalf("%d kills with %d of %d answers journalled; the test proves nothing", kills, len(journalled), len(want))
			}
			t.Logf("%d kills, %d of %d answers journalled before the final run", kills, len(journalled), len(want))
			stats := srv.Stats()
			var got []string
			for name, s := range stats {
				if s.Requests > 0 {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("asked %d declarations, want %d: extra %v, missing %v", len(got), len(want), minus(got, want), minus(want, got))
			}
			for name, n := range journalled {
				if stats[name].Requests != n {
					t.Errorf("%s was asked again after its answer was journalled (%d → %d)", name, n, stats[name].Requests)
				}
			}
			checkTable(t, ws, ds, "openai:fake")
			m, err := ws.ReadManifest()
			if err != nil {
				t.Fatal(err)
			}
			// The first informalize run after v1's is the one that finished
			// the incremental work (a process killed after compacting may
			// leave a later, idle one).
			var runs []workspace.Run
			for _, r := range m.Runs {
				if r.Stage == "informalize" {
					runs = append(runs, r)
				}
			}
			if len(runs) < 2 {
				t.Fatalf("%d informalize runs recorded", len(runs))
			}
			for _, r := range runs[2:] {
				if r.RowCounts["reused"] != int64(len(ds)) {
					t.Errorf("a run after the finishing one did work: %v", r.RowCounts)
				}
			}
			c := runs[1].RowCounts
			if c["redone_changed"] != int64(len(changed)) || c["redone_dependency_changed"] != int64(len(deps)) ||
				c["reused"] != int64(len(ds)-len(want)) || c["new"] != 0 || c["requested"]+c["resumed_from_journal"] != int64(len(want)) ||
				c["resumed_from_journal"] < int64(len(journalled)) {
				t.Errorf("the finishing run's counts %v; want %d changed, %d dependency changed, %d reused, %d answers (%d journalled before)",
					c, len(changed), len(deps), len(ds)-len(want), len(want), len(journalled))
			}
		})
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
