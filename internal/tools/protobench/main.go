// Command protobench measures the Lean-tool protocols of a running
// `driftkit serve`: the server CPU per premise-selection request (POST
// /premises/retrieve, k = 32, without and with 64 new premises) and the
// latency of the MCP search tool over streamable HTTP. CPU is the server
// process's user+system time (/proc/PID/stat) over the requests, divided by
// their number: under a shared machine's load, wall times are the
// scheduler's, CPU per request is the server's.
//
//	go run ./internal/tools/protobench -url http://127.0.0.1:8080 -pid PID -bench ITEMS.jsonl [-n 100]
//
// ITEMS.jsonl is `driftkit eval proof --bench-out`'s file: each formal_stmt
// becomes a goal (proof.GoalOf), as the evaluation asks it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftkit/driftkit/retrieval/proof"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the server")
	pid := flag.Int("pid", 0, "the server's process id (for its CPU time)")
	bench := flag.String("bench", "", "`eval proof --bench-out` items")
	n := flag.Int("n", 100, "requests per measure")
	flag.Parse()
	if *pid == 0 || *bench == "" {
		fmt.Fprintln(os.Stderr, "protobench: -pid and -bench are required")
		os.Exit(2)
	}
	goals, err := readGoals(*bench, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "protobench:", err)
		os.Exit(1)
	}
	// Warm up: the first request loads the proof graph.
	if _, err := retrieve(*url, goals[0], nil, nil); err != nil {
		fmt.Fprintln(os.Stderr, "protobench:", err)
		os.Exit(1)
	}
	news := newPremises(goals, 64)
	mods, err := moduleIndices(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "protobench:", err)
		os.Exit(1)
	}
	// Lean's client under `import Mathlib`: every module's index (the
	// import closure), as Cloud.lean's selectPremisesCore sends it.
	lean := map[string]any{"imported_modules": mods, "local_premises": []int{}, "caller_in_module_system": true, "imported_all_modules": []int{}}
	for _, m := range []struct {
		label string
		news  []map[string]string
		extra map[string]any
	}{{"/premises/retrieve k=32", nil, nil}, {"/premises/retrieve k=32, 64 new premises", news, nil},
		{fmt.Sprintf("/premises/retrieve k=32, %d imported modules", len(mods)), nil, lean}} {
		cpu, wall, err := measure(*pid, goals, func(g string) error { _, err := retrieve(*url, g, m.news, m.extra); return err })
		report(m.label, len(goals), cpu, wall, err)
	}
	cpu, wall, err := measureMCP(*url, *pid, goals)
	report("MCP search (limit 10, streamable HTTP)", len(goals), cpu, wall, err)
}

func report(label string, n int, cpu time.Duration, wall []time.Duration, err error) {
	if err != nil {
		fmt.Printf("%-45s error: %v\n", label, err)
		return
	}
	slices.Sort(wall)
	fmt.Printf("%-45s n=%d  server CPU/request %.1f ms  latency p50 %.1f ms p90 %.1f ms\n", label, n,
		float64(cpu.Microseconds())/1000/float64(n), ms(wall[len(wall)/2]), ms(wall[len(wall)*9/10]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func readGoals(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && len(out) < n {
		var it struct {
			Formal string `json:"formal_stmt"`
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, err
		}
		out = append(out, proof.GoalOf(it.Formal))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no items", path)
	}
	return out, sc.Err()
}

// newPremises makes n new premises from the goals (as a file's own lemmas
// would be: different names, similar statements).
func newPremises(goals []string, n int) []map[string]string {
	var out []map[string]string
	for i := range n {
		g := goals[i%len(goals)]
		out = append(out, map[string]string{"name": fmt.Sprintf("Local.lemma_%d", i),
			"decl": "theorem Local.lemma_" + strconv.Itoa(i) + " : " + strings.ReplaceAll(g, "\n", " ")})
	}
	return out
}

// moduleIndices lists every index of the server's /indexed-modules.
func moduleIndices(url string) ([]int, error) {
	resp, err := http.Get(url + "/premises/indexed-modules")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var mods []string
	if err := json.NewDecoder(resp.Body).Decode(&mods); err != nil {
		return nil, fmt.Errorf("/indexed-modules: %w", err)
	}
	out := make([]int, len(mods))
	for i := range out {
		out[i] = i
	}
	return out, nil
}

func retrieve(url, goal string, news []map[string]string, extra map[string]any) ([]byte, error) {
	req := map[string]any{"state": goal, "new_premises": news, "k": 32}
	for k, v := range extra {
		req[k] = v
	}
	body, _ := json.Marshal(req)
	resp, err := http.Post(url+"/premises/retrieve", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%d %s", resp.StatusCode, b.String())
	}
	return b.Bytes(), nil
}

func measure(pid int, goals []string, do func(string) error) (time.Duration, []time.Duration, error) {
	before, err := cpuTime(pid)
	if err != nil {
		return 0, nil, err
	}
	var wall []time.Duration
	for _, g := range goals {
		start := time.Now()
		if err := do(g); err != nil {
			return 0, nil, err
		}
		wall = append(wall, time.Since(start))
	}
	after, err := cpuTime(pid)
	return after - before, wall, err
}

func measureMCP(url string, pid int, goals []string) (time.Duration, []time.Duration, error) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "protobench", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp"}, nil)
	if err != nil {
		return 0, nil, err
	}
	defer cs.Close()
	return measure(pid, goals, func(g string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": g, "limit": 10}})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	})
}

// cpuTime is a process's user+system CPU time (/proc/PID/stat, clock ticks
// of 1/100 s).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, err1 := strconv.ParseInt(fields[11], 10, 64)
	st, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
