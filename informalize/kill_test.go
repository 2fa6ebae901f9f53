package informalize

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/llm/fakeopenai"
)

// TestHelperInformalize is not a test: TestSIGKILLResume runs the test
// binary with this test selected and the environment set, as a separate
// process it can kill -9.
func TestHelperInformalize(t *testing.T) {
	if os.Getenv("DRIFTKIT_INFORMALIZE_HELPER") != "1" {
		t.Skip("helper process for TestSIGKILLResume")
	}
	ws, err := dataset.Open(os.Getenv("DRIFTKIT_WS"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	opts := quietOpts(llmProvider(t, os.Getenv("DRIFTKIT_BASE_URL"), 8))
	opts.Out = os.Stdout
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
	run := func(killAfter time.Duration) (string, bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperInformalize$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DRIFTKIT_INFORMALIZE_HELPER=1", "DRIFTKIT_WS="+ws.Dir, "DRIFTKIT_BASE_URL="+srv.BaseURL())
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
	// asked[name] is how often the server was asked about name when the
	// journal first showed its answer.
	asked := map[string]int{}
	kills := 0
	for i := 0; i < 6; i++ {
		out, finished := run(time.Duration(200+rng.IntN(300)) * time.Millisecond)
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
			f, _ := os.OpenFile(ws.Path(dataset.InformalJournalFile), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"name":"Lib.N1.decl_001","status":"ok","inf`)
			f.Close()
		}
		if i == 3 && !strings.Contains(out, "torn") {
			t.Errorf("run after the torn write did not report it:\n%s", out)
		}
	}
	out, _ := run(0)
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
	if ws.Has(dataset.InformalJournalFile) {
		t.Error("journal left after the final run")
	}
	_ = out
}
