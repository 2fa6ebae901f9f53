package index_test

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

// TestAskingToCandidateDepthKeepsOrder: the first K hits of a query asked
// for retrieval.CandidateDepth hits are the K hits asked for K — the rule
// serve relies on when it asks for more to drop private declarations. One
// hit past that depth and the lists do change (the test is not vacuous).
func TestAskingToCandidateDepthKeepsOrder(t *testing.T) {
	ix, err := index.Open(context.Background(), rankingWorkspace(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	queries := readRankingQueries(t)[:40]
	deeper := 0
	for _, k := range []int{10, 100, 150} {
		for _, q := range queries {
			for _, prof := range []retrieval.Profile{retrieval.ProfileAuto, retrieval.ProfileTheorem} {
				base := retrieval.Query{Text: q.Text, K: k, Profile: prof}
				want, err := ix.Search(context.Background(), base)
				if err != nil {
					t.Fatal(err)
				}
				for _, ask := range []int{retrieval.CandidateDepth(base), 2*k + 8} {
					more := base
					more.K = ask
					got, err := ix.Search(context.Background(), more)
					if err != nil {
						t.Fatal(err)
					}
					same := len(got) >= len(want)
					for i := 0; same && i < len(want); i++ {
						same = got[i].Name == want[i].Name
					}
					switch {
					case ask <= retrieval.CandidateDepth(base) && !same:
						t.Fatalf("k=%d %q %s: asking %d reorders the first %d", k, q.Text, prof, ask, k)
					case ask > retrieval.CandidateDepth(base) && !same:
						deeper++
					}
				}
			}
		}
	}
	t.Logf("lists reordered by asking past the candidate depth: %d", deeper)
	if deeper == 0 {
		t.Error("asking past the candidate depth never changed a list: the test shows nothing")
	}
}
