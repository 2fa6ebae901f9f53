package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/leanname"
)

// The tune/held-out split of the shared benchmarks is frozen: the committed
// lists (made by the rule when it was set) must still follow from the rule,
// so that no change moves an item from the held-out half into the half
// weights are tuned on.
func TestSplitListsFollowTheRule(t *testing.T) {
	files, _ := filepath.Glob("testdata/splits/*.txt")
	if len(files) != 10 {
		t.Fatalf("%d split lists, want 10 (connf-dev, proofnet-valid and the theorem-search benchmarks search-driftlib, search-mathlib-59fdb6b0 and search-dev-mathlib-v4.29.0, tune and held-out)", len(files))
	}
	for _, f := range files {
		half := SplitTune
		if strings.HasSuffix(f, ".held-out.txt") {
			half = SplitHeldOut
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names := strings.Fields(string(b))
		least := 80
		if strings.Contains(f, "/search-") {
			least = 20 // the theorem-search benchmarks are smaller
		}
		if len(names) < least {
			t.Errorf("%s: only %d names", f, len(names))
		}
		if strings.Contains(f, "/search-dev-") {
			continue // halves by module group, stated in the items (TestSearchBenchmarksAndSplits)
		}
		for _, n := range names {
			// However a name is spelt (the loader canonicalises it), it
			// stays in its half.
			for _, spelt := range []string{n, leanname.Canonical(n), leanname.Paste(n)} {
				if HalfOf(spelt) != half {
					t.Errorf("%s: %s now falls in the %s half", f, spelt, HalfOf(spelt))
				}
			}
		}
	}
	items := []BenchItem{{FullName: "a"}, {FullName: "b"}, {FullName: "c"}, {FullName: "d"}}
	tune, held := Split(items, SplitTune), Split(items, SplitHeldOut)
	if len(tune)+len(held) != len(items) || len(Split(items, "")) != len(items) {
		t.Errorf("halves of %d items: %d + %d", len(items), len(tune), len(held))
	}
	if _, err := ParseSplit("train"); err == nil {
		t.Error("--split train accepted")
	}
}
