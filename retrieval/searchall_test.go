package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSearchAllWithoutSearchMany: a plain Searcher is asked once per query,
// answers keep the queries' order, and a failure names its query.
func TestSearchAllWithoutSearchMany(t *testing.T) {
	boom := errors.New("boom")
	s := SearcherFunc(func(_ context.Context, q Query) ([]Hit, error) {
		if strings.HasPrefix(q.Text, "bad") {
			return nil, boom
		}
		return []Hit{{Name: q.Text, Rank: 1}}, nil
	})
	qs := []Query{{Text: "a"}, {Text: "b"}, {Text: "c"}}
	got, err := SearchAll(context.Background(), s, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Hit{{{Name: "a", Rank: 1}}, {{Name: "b", Rank: 1}}, {{Name: "c", Rank: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	qs[1].Text, qs[2].Text = "bad 1", "bad 2"
	_, err = SearchAll(context.Background(), s, qs)
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Query != 1 || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want a QueryError for query 1 wrapping boom", err)
	}
}
