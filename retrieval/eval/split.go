package eval

import (
	"crypto/sha1"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/internal/leanname"
)

// The shared benchmarks are split once, by a rule of the item's name alone,
// into a half that weights and other settings may be tuned on and a half
// that is only reported. The lists of both halves are committed in
// testdata/splits, and a test checks the rule still gives them.

// Halves of a benchmark.
const (
	SplitTune    = "tune"
	SplitHeldOut = "held-out"
)

// SplitRule states the rule.
const SplitRule = "sha1(full_name) even → tune, odd → held-out"

// HalfOf is the half of the benchmark an item belongs to: the parity of
// the SHA-1 of its full_name read as a big-endian number. The name is
// hashed as its plain dotted components (`Dummit-Foote.exercise_1_1_18`,
// never `«Dummit-Foote».exercise_1_1_18`): the split was frozen on the
// benchmark files' spelling, and the loader now canonicalises names to
// Lean's Name.toString (#26), which had moved ProofNet items whose
// source component needs «» from one half to the other.
func HalfOf(fullName string) string {
	if strings.ContainsAny(fullName, "«»") {
		fullName = strings.Join(leanname.Components(fullName), ".")
	}
	if sha1.Sum([]byte(fullName))[sha1.Size-1]&1 == 0 {
		return SplitTune
	}
	return SplitHeldOut
}

// ParseSplit checks a --split value ("" and "all" mean the whole benchmark).
func ParseSplit(s string) (string, error) {
	switch s {
	case "", "all":
		return "", nil
	case SplitTune, SplitHeldOut:
		return s, nil
	}
	return "", fmt.Errorf("unknown split %q (tune, held-out or all)", s)
}

// Split keeps the items of one half ("" keeps all).
func Split(items []BenchItem, half string) []BenchItem {
	if half == "" {
		return items
	}
	var out []BenchItem
	for _, it := range items {
		if HalfOf(it.FullName) == half {
			out = append(out, it)
		}
	}
	return out
}
