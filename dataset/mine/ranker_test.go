package mine

import (
	"context"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// recordingSearcher keeps the queries it is asked.
type recordingSearcher struct{ got []retrieval.Query }

func (r *recordingSearcher) Search(_ context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	r.got = append(r.got, q)
	return []retrieval.Hit{{Name: "A", Rank: 1}}, nil
}

// Hard negatives are ranked by premise retrieval, also with every kind a
// candidate (ProfileAuto would switch to theorem search there).
func TestIndexRankerPremiseProfile(t *testing.T) {
	for _, all := range []bool{false, true} {
		s := &recordingSearcher{}
		if _, err := (IndexRanker{Searcher: s, Mode: retrieval.ModeBest, AllKinds: all}).Rank(context.Background(), "q", "T", 5); err != nil {
			t.Fatal(err)
		}
		if q := s.got[0]; retrieval.ResolveProfile(&q) != retrieval.ProfilePremise || q.Filter.AllKinds != all || q.Filter.Exclude[0] != "T" {
			t.Errorf("all kinds %v: query %+v, want the premise profile", all, q)
		}
	}
}
