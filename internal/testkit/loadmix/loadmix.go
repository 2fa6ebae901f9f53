// Package loadmix is the search load of `driftkit serve` benchmarks, one copy
// for serve's BenchmarkServeLoad and internal/tools/loadgen: the mix of
// request kinds a deployment sees, and the server process's CPU time and
// resident set read from /proc.
package loadmix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Request is one search request of the mix.
type Request struct {
	// Kind names the request kind (api-search-best, api-search-all,
	// leansearch, api-search-post, page).
	Kind        string
	Method, URL string
	// Body is the JSON body of a POST (nil for a GET).
	Body []byte
}

// Kinds are the request kinds in the order For cycles through them.
var Kinds = [...]string{"api-search-best", "api-search-all", "leansearch", "api-search-post", "page"}

// For is request i of the mix asking query q of the server at base: the
// JSON API in best mode (premises, and every kind), LeanSearch's POST
// /search, the API's POST form in bm25 mode, the search page.
func For(base string, i int, q string) Request {
	e := url.QueryEscape(q)
	k := i % len(Kinds)
	r := Request{Kind: Kinds[k], Method: "GET"}
	switch k {
	case 0:
		r.URL = base + "/api/search?k=10&q=" + e
	case 1:
		r.URL = base + "/api/search?k=20&all_kinds=1&q=" + e
	case 2:
		r.Method, r.URL = "POST", base+"/search"
		r.Body, _ = json.Marshal(map[string]any{"query": []string{q}, "num_results": 6})
	case 3:
		r.Method, r.URL = "POST", base+"/api/search"
		r.Body, _ = json.Marshal(map[string]any{"query": q, "k": 10, "mode": "bm25"})
	default:
		r.URL = base + "/?q=" + e
	}
	return r
}

// KindOf is the kind of a request of the mix from its method and URL (what
// a load tool's result keeps of it).
func KindOf(method, u string) string {
	switch {
	case method == "POST" && strings.Contains(u, "/api/search"):
		return Kinds[3]
	case method == "POST":
		return Kinds[2]
	case strings.Contains(u, "all_kinds=1"):
		return Kinds[1]
	case strings.Contains(u, "/api/search"):
		return Kinds[0]
	}
	return Kinds[4]
}

// CPUSeconds is a process's user + system CPU time (/proc/PID/stat, clock
// ticks of 1/100 s); 0 when it cannot be read.
func CPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) close with ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100
}

// RSSKB is a process's resident set size in KiB (VmRSS); 0 when it cannot
// be read.
func RSSKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// WatchPeakRSS samples a process's RSS every 100 ms until stop is called,
// which returns the largest sample in KiB.
func WatchPeakRSS(pid int) (stop func() int64) {
	quit, done := make(chan struct{}), make(chan struct{})
	var peak int64
	go func() {
		defer close(done)
		for {
			if r := RSSKB(pid); r > peak {
				peak = r
			}
			select {
			case <-quit:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(quit)
		<-done
		return peak
	}
}
