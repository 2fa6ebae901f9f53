package drift

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

// manySearcher is a MultiSearcher that fails one query of the batch.
type manySearcher struct {
	calls int
	fail  int
}

func (m *manySearcher) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	return nil, errors.New("Search called: SearchMany expected")
}

func (m *manySearcher) SearchMany(_ context.Context, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	m.calls++
	if m.fail >= 0 {
		return nil, &retrieval.QueryError{Query: m.fail, Err: errors.New("backend down")}
	}
	out := make([][]retrieval.Hit, len(qs))
	for i := range qs {
		out[i] = []retrieval.Hit{{Name: "Lib.Prime", Kind: "definition", Rank: 1, Score: 1}}
	}
	return out, nil
}

// An item's sub-queries go to the searcher in one SearchMany call, and a
// failing one is named in the error.
func TestSubQueriesInOneCall(t *testing.T) {
	sq := []SubQuery{{Informal: "prime number", Formal: "Nat.Prime p"}, {Informal: "divides a product", Formal: "p ∣ a * b"}}
	ms := &manySearcher{fail: -1}
	p := pipeline(t, Parts{Search: ms}, Options{})
	c, err := p.BuildContext(context.Background(), Query{Statement: "x"}, sq)
	if err != nil {
		t.Fatal(err)
	}
	if ms.calls != 1 || len(c.SubQueries) != 2 || len(c.Premises) != 1 || c.Premises[0].Name != "Lib.Prime" {
		t.Fatalf("calls %d, context %+v", ms.calls, c)
	}
	ms = &manySearcher{fail: 1}
	p = pipeline(t, Parts{Search: ms}, Options{})
	_, err = p.BuildContext(context.Background(), Query{Statement: "x"}, sq)
	if err == nil || !strings.Contains(err.Error(), `retrieve sub-query 1 "divides a product"`) || !strings.Contains(err.Error(), "backend down") {
		t.Fatalf("err = %v, want sub-query 1 named", err)
	}
}
