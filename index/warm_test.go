package index_test

import (
	"context"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

// A server's index (OpenOptions.Warm) makes the int8 copy of the vectors
// and loads the postings when a generation is loaded — in the background
// after Open, before the switch in Reload — instead of on its first
// searches; without Warm a search leaves the int8 copy unmade.
func TestWarmAtLoad(t *testing.T) {
	dir := t.TempDir()
	buildVersion(t, dir, "_v1", 64)
	cold, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	if _, err := cold.Search(context.Background(), retrieval.Query{Text: "prime", K: 3}); err != nil {
		t.Fatal(err)
	}
	g, release := cold.Pin()
	q, _, kernel := index.WarmedForTest(g)
	release()
	if !kernel {
		t.Skip("no int8 kernel on this machine")
	}
	if q {
		t.Fatal("a single search without Warm made the int8 copy")
	}

	ix, err := index.Open(context.Background(), dir, &index.OpenOptions{Warm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		g, release := ix.Pin()
		q, p, _ := index.WarmedForTest(g)
		release()
		if q && p {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after Open with Warm: int8 copy %v, postings %v", q, p)
		}
	}
	buildVersion(t, dir, "_v2", 64)
	if changed, err := ix.Reload(context.Background()); err != nil || !changed {
		t.Fatalf("Reload: %v %v", changed, err)
	}
	g, release = ix.Pin()
	defer release()
	if q, p, _ := index.WarmedForTest(g); !q || !p {
		t.Fatalf("the generation Reload switched to: int8 copy %v, postings %v", q, p)
	}
}
