// Command loadgen puts a search load on a running `driftkit serve` and
// reports the server's CPU time per request (from /proc/PID/stat), for
// scripts/bench_speed.sh:
//
//	loadgen -url http://127.0.0.1:PORT -pid PID -ws WS [-clients 200] [-requests 3000] [-distinct 0]
//
// Requests cycle through the kinds a deployment sees (internal/testkit/loadmix,
// as serve's BenchmarkServeLoad): the JSON API in best mode (premises, and
// every kind), its POST form in bm25 mode, LeanSearch's POST /search and the
// search page.
// Queries are the workspace's own docstrings (the library's text, never a
// benchmark's): -distinct N cycles through N of them (0: every request a
// query not asked before, so no answer comes from a cache). It prints one
// JSON object (errors counted, the first one quoted).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/loadmix"
	"github.com/driftkit/driftkit/workspace"
)

// Report is what loadgen prints.
type Report struct {
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	Clients    int     `json:"clients"`
	Distinct   int     `json:"distinct_queries"`
	WallS      float64 `json:"wall_seconds"`
	ReqPerS    float64 `json:"requests_per_second"`
	ServerCPUS float64 `json:"server_cpu_seconds"`
	CPUMsPerRq float64 `json:"server_cpu_ms_per_request"`
	PeakRSSMB  float64 `json:"server_peak_rss_mb"`
	FirstError string  `json:"first_error,omitempty"`
}

func main() {
	base := flag.String("url", "", "server base URL")
	pid := flag.Int("pid", 0, "server process id (its CPU time is measured)")
	ws := flag.String("ws", "", "workspace whose docstrings are the queries")
	clients := flag.Int("clients", 200, "concurrent clients")
	requests := flag.Int("requests", 3000, "requests in all")
	distinct := flag.Int("distinct", 0, "distinct queries cycled (0: one per request)")
	flag.Parse()
	if *base == "" || *pid == 0 || *ws == "" {
		fmt.Fprintln(os.Stderr, "usage: loadgen -url URL -pid PID -ws WS [-clients N] [-requests N] [-distinct N]")
		os.Exit(2)
	}
	n := *distinct
	if n <= 0 {
		n = *requests
	}
	qs, err := queries(*ws, n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	r := run(*base, *pid, *clients, *requests, qs)
	r.Distinct = len(qs)
	json.NewEncoder(os.Stdout).Encode(r)
}

// queries picks n docstrings of ws spread over the library (every k-th
// declaration with a docstring of 20 to 400 bytes, first line only).
func queries(ws string, n int) ([]string, error) {
	decls, err := workspace.ReadTable[workspace.Declaration](filepath.Join(ws, workspace.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	var all []string
	seen := map[string]bool{}
	for _, d := range decls {
		if d.Docstring == nil {
			continue
		}
		s, _, _ := strings.Cut(strings.TrimSpace(*d.Docstring), "\n")
		if len(s) >= 20 && len(s) <= 400 && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	if len(all) < n {
		return nil, fmt.Errorf("%s: %d docstrings, want %d", ws, len(all), n)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out, nil
}

func run(base string, pid, clients, requests int, qs []string) Report {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Minute}
	var next, errs atomic.Int64
	var mu sync.Mutex
	first := ""
	stopWatch := loadmix.WatchPeakRSS(pid)
	cpu0 := loadmix.CPUSeconds(pid)
	t0 := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= requests {
					return
				}
				// Query i%len(qs) always goes with the same kind: a
				// repeated request is identical.
				k := i % len(qs)
				if err := do(hc, loadmix.For(base, k, qs[k])); err != nil {
					errs.Add(1)
					mu.Lock()
					if first == "" {
						first = err.Error()
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(t0).Seconds()
	cpu := loadmix.CPUSeconds(pid) - cpu0
	peak := stopWatch()
	return Report{Requests: requests, Errors: int(errs.Load()), Clients: clients, WallS: round(wall, 2),
		ReqPerS: round(float64(requests)/wall, 1), ServerCPUS: round(cpu, 2), CPUMsPerRq: round(1000*cpu/float64(requests), 2),
		PeakRSSMB: round(float64(peak)/1024, 0), FirstError: first}
}

func do(hc *http.Client, t loadmix.Request) error {
	var body io.Reader
	if t.Body != nil {
		body = bytes.NewReader(t.Body)
	}
	req, err := http.NewRequest(t.Method, t.URL, body)
	if err != nil {
		return err
	}
	if t.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d", t.Method, t.URL[:min(len(t.URL), 80)], resp.StatusCode)
	}
	return nil
}

func round(x float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return f
}
