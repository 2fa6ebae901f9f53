package tomap_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/serve/tomap"
)

func killVariants() []tomap.Variant {
	vs, err := tomap.ParseVariants("tomap,proofflow,end2end", "0,3,10")
	if err != nil {
		panic(err)
	}
	return vs
}

// TestHelperToMapRun is not a test: TestSIGKILLResume runs the test binary
// with this test selected and the environment set, as a process it can
// kill -9.
func TestHelperToMapRun(t *testing.T) {
	if os.Getenv("TOMAP_KILL_HELPER") != "1" {
		t.Skip("helper process for TestSIGKILLResume")
	}
	cfg := newConfig(t, newAgents(t, os.Getenv("TOMAP_BASE_URL")), &tomapfake.Checker{Delay: 2 * time.Millisecond}, killVariants()...)
	cfg.Out = os.Getenv("TOMAP_OUT")
	cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	if _, err := tomap.Run(context.Background(), cfg, testProblems(8)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSIGKILLResume kills a run at random points several times (once after
// tearing a journal's last line), reruns it to the end, and checks that no
// request whose answer reached a journal was sent again and that the
// results equal those of an uninterrupted run.
func TestSIGKILLResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{Latency: 15 * time.Millisecond})
	out := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	run := func(killAfter time.Duration) (string, bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperToMapRun$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOMAP_KILL_HELPER=1", "TOMAP_OUT="+out, "TOMAP_BASE_URL="+srv.BaseURL())
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if killAfter > 0 {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run failed: %v\n%s", err, buf.String())
				}
				return buf.String(), true
			case <-time.After(killAfter):
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				return buf.String(), false
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("final run: %v\n%s", err, buf.String())
		}
		return buf.String(), true
	}
	asked := map[string]int{}
	kills := 0
	for i := 0; i < 6; i++ {
		outText, finished := run(time.Duration(250+rng.IntN(400)) * time.Millisecond)
		if finished {
			t.Logf("run %d finished before the kill", i)
			break
		}
		kills++
		stats := srv.Stats()
		for _, k := range journalKeys(t, out) {
			if stats[k].Requests == 0 {
				t.Fatalf("journal key %s… unknown to the server: the test's key function does not match the runner's", k[:12])
			}
			if _, ok := asked[k]; !ok {
				asked[k] = stats[k].Requests
			}
		}
		if i == 1 {
			tear(t, out)
		}
		_ = outText
	}
	// The final run (never killed) must cut and report a torn line too.
	tear(t, out)
	if final, _ := run(0); !strings.Contains(final, "torn") {
		t.Errorf("the run after a torn write did not report it:\n%s", final)
	}
	if kills < 2 {
		t.Fatalf("only %d runs were killed before finishing; the test proves nothing", kills)
	}
	stats := srv.Stats()
	for k, n := range asked {
		if stats[k].Requests != n {
			t.Errorf("request %s… was sent again after its answer was journalled (%d → %d)", k[:12], n, stats[k].Requests)
		}
	}
	t.Logf("%d kills, %d answers journalled before the final run, %d requests in all", kills, len(asked), srv.Requests())
	got := readSummary(t, out)
	for _, v := range got.Variants {
		if v.Finished != 8 || v.Errors != 0 {
			t.Errorf("%s: %d finished, %d errors", v.Variant, v.Finished, v.Errors)
		}
	}
	// The same numbers as a run that was never killed.
	m2 := tomapfake.NewModel()
	srv2 := newServer(t, m2, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv2.BaseURL()), &tomapfake.Checker{}, killVariants()...)
	clean := run2(t, cfg)
	compareOutcomes(t, got, clean)
}

// tear simulates a crash in the middle of a write: a torn last line in a
// journal.
func tear(t *testing.T, out string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, tomap.JournalDir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no journal after a killed run")
	}
	f, err := os.OpenFile(files[len(files)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"chat","key":"0123","content":"{\"units\": [`)
	f.Close()
}

func run2(t *testing.T, cfg tomap.Config) *tomap.Summary {
	sum, err := tomap.Run(context.Background(), cfg, testProblems(8))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func readSummary(t *testing.T, out string) *tomap.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, tomap.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	var s tomap.Summary
	if err := jsonUnmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// compareOutcomes compares what does not depend on timing: the metrics and
// the calls used (a killed run may have asked a few requests twice, which
// the spend shows, but each method's numbers are the same).
func compareOutcomes(t *testing.T, a, b *tomap.Summary) {
	t.Helper()
	for i := range a.Variants {
		x, y := a.Variants[i], b.Variants[i]
		if val(x.SC.Value) != val(y.SC.Value) || val(x.SF.Value) != val(y.SF.Value) || val(x.ProvedRate.Value) != val(y.ProvedRate.Value) ||
			val(x.OutputTokens.Value) != val(y.OutputTokens.Value) || val(x.RoundsUsed.Value) != val(y.RoundsUsed.Value) ||
			val(x.LeanCalls.Value) != val(y.LeanCalls.Value) || val(x.ModelCalls.Value) != val(y.ModelCalls.Value) {
			t.Errorf("%s differs after kills:\n%+v\n%+v", x.Variant, x, y)
		}
	}
}
