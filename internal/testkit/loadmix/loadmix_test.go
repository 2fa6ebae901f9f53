package loadmix

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// The mix cycles through every kind, each asking the query it was given.
func TestForCyclesKinds(t *testing.T) {
	q := "a prime & its square"
	jq, _ := json.Marshal(q)
	for i := range 2 * len(Kinds) {
		r := For("http://h", i, q)
		if r.Kind != Kinds[i%len(Kinds)] {
			t.Fatalf("request %d: kind %s, want %s", i, r.Kind, Kinds[i%len(Kinds)])
		}
		if k := KindOf(r.Method, r.URL); k != r.Kind {
			t.Fatalf("request %d: KindOf says %s, want %s", i, k, r.Kind)
		}
		if r.Method == "POST" {
			if !json.Valid(r.Body) || !strings.Contains(string(r.Body), string(jq)) {
				t.Fatalf("request %d (%s): body %s does not ask %q", i, r.Kind, r.Body, q)
			}
		} else if r.Body != nil || !strings.Contains(r.URL, "q=a+prime+%26+its+square") {
			t.Fatalf("request %d (%s): %s %s", i, r.Kind, r.Method, r.URL)
		}
	}
}

// This process's own CPU time and RSS read from /proc are positive.
func TestProcessReadings(t *testing.T) {
	// /proc counts CPU time in clock ticks (10 ms): spin until one shows,
	// for at most 5 s — a fixed loop finished inside one tick on a fast
	// moment (CI, 3 December) and read 0.
	x, cpu := 0, 0.0
	for deadline := time.Now().Add(5 * time.Second); cpu <= 0 && time.Now().Before(deadline); {
		for i := range 5_000_000 {
			x += i % 3
		}
		cpu = CPUSeconds(os.Getpid())
	}
	if x == 0 || cpu <= 0 {
		t.Fatal("no CPU time read")
	}
	if RSSKB(os.Getpid()) <= 0 {
		t.Fatal("no RSS read")
	}
	if stop := WatchPeakRSS(os.Getpid()); stop() <= 0 {
		t.Fatal("no peak RSS")
	}
	if CPUSeconds(-1) != 0 || RSSKB(-1) != 0 {
		t.Fatal("a missing process read as non-zero")
	}
}
