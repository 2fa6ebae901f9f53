package index_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// manyQueries mixes modes, profiles, filters and depths, as DRIFT's
// sub-queries and the server's concurrent users do.
func manyQueries() []index.Query {
	return []index.Query{
		{Text: "the cloud of a set of tangles", Formal: "ConNF.cloud"},
		{Text: "litter", Mode: index.ModeDense, K: 7},
		{Text: "near litter", Mode: index.ModeHybrid, Filter: retrieval.Filter{Exclude: []string{"ConNF.NearLitter"}}},
		{Text: "cloud of the empty set", Filter: retrieval.Filter{AllKinds: true}, K: 20},
		{Text: "litter set", Mode: index.ModeBM25},
		{Text: "structure of tangles", Filter: retrieval.Filter{Kinds: []string{"structure"}}},
		{Text: "the cloud of a set of tangles", Profile: retrieval.ProfileTheorem, K: 5},
	}
}

// TestSearchManyEqualsSearch holds the one-pass SearchMany to Search, query
// by query, with and without a projection head.
func TestSearchManyEqualsSearch(t *testing.T) {
	ctx := context.Background()
	dir := fixtureWS(t)
	check := func(t *testing.T, ix *index.Index) {
		qs := manyQueries()
		got, err := ix.SearchMany(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(qs) {
			t.Fatalf("%d answers for %d queries", len(got), len(qs))
		}
		for i, q := range qs {
			want, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("query %d found nothing: the comparison would be empty", i)
			}
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("query %d (%+v):\n SearchMany %v\n     Search %v", i, q, names(got[i]), names(want))
			}
		}
		via, err := retrieval.SearchAll(ctx, ix, qs)
		if err != nil || !reflect.DeepEqual(via, got) {
			t.Errorf("SearchAll differs from SearchMany (err %v)", err)
		}
	}
	t.Run("raw", func(t *testing.T) {
		ix, err := index.Open(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		check(t, ix)
	})
	t.Run("head", func(t *testing.T) {
		h := diagHead(t, 64, -1, head.EncoderID("hash", "", 64))
		if err := h.Save((&workspace.Workspace{Dir: dir}).Path(workspace.HeadDir)); err != nil {
			t.Fatal(err)
		}
		ix, err := index.Open(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if ix.Head() == nil {
			t.Fatal("head not loaded")
		}
		check(t, ix)
	})
}

// TestSearchManyNamesTheFailingQuery: a query that cannot run fails the
// call with a QueryError naming it; Search's error is unchanged.
func TestSearchManyNamesTheFailingQuery(t *testing.T) {
	ix := openFixture(t)
	qs := manyQueries()
	qs[3].Text = "  "
	_, err := ix.SearchMany(context.Background(), qs)
	var qe *retrieval.QueryError
	if !errors.As(err, &qe) || qe.Query != 3 || !errors.Is(err, index.ErrEmptyQuery) {
		t.Fatalf("err = %v, want a QueryError for query 3 wrapping ErrEmptyQuery", err)
	}
	qs = manyQueries()
	qs[5].Mode = "nonsense"
	if _, err := ix.SearchMany(context.Background(), qs); !errors.As(err, &qe) || qe.Query != 5 {
		t.Fatalf("unknown mode: %v, want a QueryError for query 5", err)
	}
	if _, err := ix.Search(context.Background(), index.Query{Text: " "}); err != index.ErrEmptyQuery {
		t.Errorf("Search: %v, want ErrEmptyQuery itself", err)
	}
}
