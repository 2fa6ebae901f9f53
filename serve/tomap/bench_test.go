package tomap_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/serve/tomap"
)

// startFakeProcess runs the fake model server in a child copy of this test
// binary, so that its CPU is not this process's.
func startFakeProcess(b *testing.B, latency time.Duration) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fakeServeEnv+"="+latency.String())
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// BenchmarkRunnerCPU runs ToMap (10 rounds), ProofFlow and end-to-end on 24
// problems against the rule-based fake model in another process (answering
// at once) and the in-process fake Lean checker. It reports the runner's
// own CPU per problem (all three methods): prompts, parsing, DAG
// validation, Pareto bookkeeping, journal writes with fsync, the llm
// client's HTTP and JSON work — with the fake checker's CPU, measured
// separately on the same snippets, subtracted. Model and Lean time are not
// in it.
func BenchmarkRunnerCPU(b *testing.B) {
	const n = 24
	url := startFakeProcess(b, 0)
	vs, _ := tomap.ParseVariants("tomap,proofflow,end2end", "10")
	ps := testProblems(n)
	var used, lean time.Duration
	var wall time.Duration
	calls := 0
	for i := 0; i < b.N; i++ {
		ck := &tomapfake.Checker{}
		cfg := newConfig(b, newAgents(b, url), ck, vs...)
		cpu0, t0 := cpu.Time(), time.Now()
		sum, err := tomap.Run(context.Background(), cfg, ps)
		used += cpu.Time() - cpu0
		wall += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		calls += sum.Spend.FreshCalls
		snips := ck.Snippets()
		l0 := cpu.Time()
		for _, s := range snips {
			tomapfake.Judge(s)
		}
		lean += cpu.Time() - l0
	}
	per := float64(b.N * n)
	b.ReportMetric(float64((used-lean).Microseconds())/1000/per, "cpu-ms/problem")
	b.ReportMetric(float64(lean.Microseconds())/1000/per, "fake-lean-cpu-ms/problem")
	b.ReportMetric(float64(calls)/per, "model-calls/problem")
	b.ReportMetric(float64(wall.Milliseconds())/per, "wall-ms/problem")
}
