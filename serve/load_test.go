package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/driftkit/driftkit/internal/testkit/loadmix"
)

// BenchmarkServeLoad is the load benchmark of `driftkit serve` (not a
// timed test): 200 concurrent clients for 30 s (DRIFTKIT_LOAD_CLIENTS,
// DRIFTKIT_LOAD_DURATION) of mixed search requests against a running
// server at DRIFTKIT_LOAD_URL whose process id is DRIFTKIT_LOAD_PID. It
// reports requests/s, p50/p99 latency, errors, the server's RSS (before,
// peak, and 10 s, 60 s and 150 s after) and its Go heap in use from
// /metrics. Queries come from DRIFTKIT_LOAD_QUERIES (a JSONL file with
// informal_stmt, e.g. ProofNet valid) or a built-in list. Run it with
// serve/scripts/load.sh, which starts the server over a workspace.
func BenchmarkServeLoad(b *testing.B) {
	base := os.Getenv("DRIFTKIT_LOAD_URL")
	pid, _ := strconv.Atoi(os.Getenv("DRIFTKIT_LOAD_PID"))
	if base == "" || pid == 0 {
		b.Skip("set DRIFTKIT_LOAD_URL and DRIFTKIT_LOAD_PID (serve/scripts/load.sh does)")
	}
	clients := envInt("DRIFTKIT_LOAD_CLIENTS", 200)
	dur, err := time.ParseDuration(envOr("DRIFTKIT_LOAD_DURATION", "30s"))
	if err != nil {
		b.Fatal(err)
	}
	queries := loadQueries(b, os.Getenv("DRIFTKIT_LOAD_QUERIES"))
	targets := mixedTargets(base, queries)
	var mu sync.Mutex
	next := 0
	targeter := func(t *vegeta.Target) error {
		mu.Lock()
		*t = targets[next%len(targets)]
		next++
		mu.Unlock()
		return nil
	}
	// One transport for every request of the benchmark (the attacker's
	// options configure it), its kept-alive connections closed at the end:
	// the package's leak check would otherwise fail the run on their
	// goroutines.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	// Before the transport's first request (it must not change its
	// connection limits once used).
	atk := vegeta.NewAttacker(vegeta.Client(hc), vegeta.Workers(uint64(clients)), vegeta.MaxWorkers(uint64(clients)),
		vegeta.KeepAlive(true), vegeta.Connections(clients), vegeta.MaxConnections(clients), vegeta.Timeout(60*time.Second))
	before := loadmix.RSSKB(pid)
	heapBefore := heapInUse(b, hc, base)
	cpuBefore := loadmix.CPUSeconds(pid)
	stopWatch := loadmix.WatchPeakRSS(pid)
	b.ResetTimer()
	var m vegeta.Metrics
	byKind := map[string]*vegeta.Metrics{}
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: 0}, dur, "serve") {
		m.Add(res)
		k := loadmix.KindOf(res.Method, res.URL)
		if byKind[k] == nil {
			byKind[k] = &vegeta.Metrics{}
		}
		byKind[k].Add(res)
	}
	m.Close()
	b.StopTimer()
	peak := stopWatch()
	cpu := loadmix.CPUSeconds(pid) - cpuBefore
	heapPeakAfter := heapInUse(b, hc, base)
	// Go frees the heap at its next collection (forced at the latest every
	// 2 minutes when idle) and returns pages to the OS gradually: sample
	// for DRIFTKIT_LOAD_SETTLE (default 5m).
	settle, _ := time.ParseDuration(envOr("DRIFTKIT_LOAD_SETTLE", "5m"))
	type sample struct {
		at        time.Duration
		rss       int64
		heapInUse float64
	}
	var after []sample
	for at := 30 * time.Second; at <= settle; at += 30 * time.Second {
		time.Sleep(30 * time.Second)
		after = append(after, sample{at, loadmix.RSSKB(pid), heapInUse(b, hc, base)})
	}
	errs := m.Requests - uint64(m.StatusCodes["200"])
	b.ReportMetric(m.Throughput, "req/s")
	b.ReportMetric(float64(m.Latencies.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(m.Latencies.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(errs), "errors")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	fmt.Fprintf(os.Stderr, "load: %d clients, %v, %d requests, %.0f req/s, p50 %v, p90 %v, p99 %v, max %v, errors %d, status %v\n",
		clients, dur, m.Requests, m.Throughput, m.Latencies.P50, m.Latencies.P90, m.Latencies.P99, m.Latencies.Max, errs, m.StatusCodes)
	for _, k := range loadmix.Kinds {
		if km := byKind[k]; km != nil {
			km.Close()
			fmt.Fprintf(os.Stderr, "  %-16s %6d requests, p50 %v, p99 %v\n", k, km.Requests, km.Latencies.P50, km.Latencies.P99)
		}
	}
	fmt.Fprintf(os.Stderr, "server CPU: %.1f s for %d requests = %.1f ms per request\n", cpu, m.Requests, 1000*cpu/float64(max(m.Requests, 1)))
	fmt.Fprintf(os.Stderr, "server RSS: before %.0f MB, peak %.0f MB; Go heap in use before %.0f MB, right after %.0f MB\n",
		float64(before)/1024, float64(peak)/1024, heapBefore/1e6, heapPeakAfter/1e6)
	for _, s := range after {
		fmt.Fprintf(os.Stderr, "  +%v: RSS %.0f MB, heap in use %.0f MB\n", s.at, float64(s.rss)/1024, s.heapInUse/1e6)
	}
	b.ReportMetric(1000*cpu/float64(max(m.Requests, 1)), "cpu-ms/req")
	for _, e := range m.Errors {
		fmt.Fprintf(os.Stderr, "  error: %s\n", e)
	}
}

// mixedTargets are loadmix's requests as vegeta targets, one per query.
func mixedTargets(base string, queries []string) []vegeta.Target {
	ts := make([]vegeta.Target, len(queries))
	js := http.Header{"Content-Type": []string{"application/json"}}
	for i, q := range queries {
		r := loadmix.For(base, i, q)
		ts[i] = vegeta.Target{Method: r.Method, URL: r.URL, Body: r.Body}
		if r.Body != nil {
			ts[i].Header = js
		}
	}
	return ts
}

var builtinQueries = []string{
	"If p is a prime number dividing the product of two natural numbers, then p divides one of them.",
	"Every finite group of prime order is cyclic.",
	"The square root of two is irrational.",
	"A continuous function on a compact set attains its maximum.",
	"The sum of the first n odd numbers is n squared.",
	"Nat.Prime",
	"a subgroup of an abelian group is normal",
	"the determinant of a product of matrices is the product of their determinants",
	"There are infinitely many primes.",
	"An injective function from a finite set to itself is surjective.",
}

func loadQueries(b *testing.B, path string) []string {
	if path == "" {
		return builtinQueries
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var item struct {
			Informal string `json:"informal_stmt"`
		}
		if json.Unmarshal(sc.Bytes(), &item) == nil && strings.TrimSpace(item.Informal) != "" {
			out = append(out, truncate(item.Informal, 4000))
		}
	}
	if len(out) == 0 {
		b.Fatalf("%s: no informal_stmt", path)
	}
	return out
}

// heapInUse reads go_memstats_heap_inuse_bytes from the server's /metrics.
func heapInUse(b *testing.B, hc *http.Client, base string) float64 {
	resp, err := hc.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range bytes.Split(body, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("go_memstats_heap_inuse_bytes ")); ok {
			f, _ := strconv.ParseFloat(string(v), 64)
			return f
		}
	}
	return 0
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func envInt(k string, d int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return d
}
