package serve

import (
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// TestOverAskStaysWithinDepth: the extra hits serve asks for (to drop
// private declarations) never take the engine past its candidate depth,
// where the order of the public hits would change.
func TestOverAskStaysWithinDepth(t *testing.T) {
	for _, k := range []int{1, 10, 50, 96, 97, 150, 200} {
		for _, more := range []int{2, 8} {
			q := retrieval.Query{Text: "x", K: k, Filter: retrieval.Filter{AllKinds: true}}
			got := overAsk(q, more)
			if d := retrieval.CandidateDepth(q); got > d || got < k {
				t.Errorf("k=%d more=%d: asks %d, depth %d", k, more, got, d)
			}
			if k*more+8 <= retrieval.CandidateDepth(q) && got != k*more+8 {
				t.Errorf("k=%d more=%d: asks %d, want %d (room below the depth)", k, more, got, k*more+8)
			}
		}
	}
}
