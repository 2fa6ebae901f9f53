package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

// diagHead is a head of dimension n whose query matrix is the identity and
// whose document matrix is sign·identity: with sign = -1 it reverses every
// dense candidate ranking, which no raw scan can produce.
func diagHead(t *testing.T, n int, sign float32, encoder string) *head.Head {
	t.Helper()
	q, d := make([]float32, n*n), make([]float32, n*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
		d[i*n+i] = sign
	}
	h, err := head.New(head.Config{InDim: n, OutDim: n, Encoder: encoder, EncoderFallback: true}, q, d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func denseNames(t *testing.T, ix *index.Index, q index.Query) []string {
	t.Helper()
	q.Mode, q.K = index.ModeDense, 50
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return names(hits)
}

func TestHeadAppliedToDenseCandidates(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	q := index.Query{Text: "the cloud of a set of tangles"}
	raw, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if raw.Head() != nil {
		t.Fatal("head reported without WS/head")
	}
	rawOrder := denseNames(t, raw, q)

	h := diagHead(t, 64, -1, head.EncoderID("hash", "", 64))
	if err := h.Save(ws.Path(workspace.HeadDir)); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Head() == nil || ix.Head().ID != h.ID() {
		t.Fatalf("Head() = %+v, want %s", ix.Head(), h.ID())
	}
	got := denseNames(t, ix, q)
	want := slices.Clone(rawOrder)
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Errorf("with the reversing head:\n got %v\nwant %v (raw order reversed)", got, want)
	}

	// --no-head gives the raw order back.
	nh, err := index.Open(context.Background(), dir, &index.OpenOptions{NoHead: true})
	if err != nil {
		t.Fatal(err)
	}
	defer nh.Close()
	if nh.Head() != nil || !slices.Equal(denseNames(t, nh, q), rawOrder) {
		t.Error("NoHead still applies the head")
	}

	// Candidates the head did not project (theorems, with AllKinds) make
	// the scan fall back to raw cosines, which are comparable to each other.
	all := q
	all.Filter.AllKinds = true
	if a, b := denseNames(t, ix, all), denseNames(t, raw, all); !slices.Equal(a, b) {
		t.Errorf("AllKinds with a head: %v, raw %v", a, b)
	}
}

func TestHeadMismatchIsAnError(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	if err := diagHead(t, 64, 1, "openai:bge-m3:64").Save(ws.Path(workspace.HeadDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Open(context.Background(), dir, nil); !errors.Is(err, head.ErrMismatch) {
		t.Fatalf("head for other embeddings: err = %v, want ErrMismatch", err)
	}
	ix, err := index.Open(context.Background(), dir, &index.OpenOptions{NoHead: true})
	if err != nil {
		t.Fatalf("NoHead: %v", err)
	}
	ix.Close()
}

func TestRecordHeadInManifest(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	h := diagHead(t, 64, 1, head.EncoderID("hash", "", 64))
	if err := h.Save(ws.Path(workspace.HeadDir)); err != nil {
		t.Fatal(err)
	}
	if err := index.RecordHead(ws, h); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Head == nil || m.Head.ID != h.ID() || m.Head.OutDim != 64 || !m.Head.Fallback {
		t.Fatalf("manifest head %+v", m.Head)
	}
	// The rewrite is recorded: a rebuild is not refused as a foreign edit,
	// and the new manifest records the head that fits it.
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatalf("rebuild after RecordHead: %v", err)
	}
	if m, _ = index.ReadManifest(dir); m.Head == nil || m.Head.ID != h.ID() {
		t.Fatalf("rebuilt manifest head %+v", m.Head)
	}
	// A rebuild with other dimensions does not fit the head: refused while
	// it is there (TestBuildRefusesVectorsTheHeadCannotTake); moved aside,
	// the new manifest records no head.
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 32}); !errors.Is(err, index.ErrHeadWouldNotFit) {
		t.Fatalf("32 dimensions under a 64-dimension head: %v", err)
	}
	if err := os.Rename(ws.Path(workspace.HeadDir), ws.Path(workspace.HeadDir)+".off"); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	if m, _ = index.ReadManifest(dir); m.Head != nil {
		t.Fatalf("manifest claims head %+v for 32-dim vectors", m.Head)
	}
}

// A build whose vectors the trained head cannot take is refused before
// anything is written (issue 24: `index --dim 32` under a head trained on
// 64 dimensions committed exit 0, and every search, eval and DRIFT run
// failed after it): the current generation stays, and still searches with
// its head. The same encoder and dimensions build.
func TestBuildRefusesVectorsTheHeadCannotTake(t *testing.T) {
	ctx := context.Background()
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	if err := diagHead(t, 64, 1, head.EncoderID("hash", "", 64)).Save(ws.Path(workspace.HeadDir)); err != nil {
		t.Fatal(err)
	}
	before, err := index.CurrentDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, dim := range []int{32, 128} {
		_, err := index.Build(ctx, ws, index.BuildOptions{HashDim: dim})
		if !errors.Is(err, index.ErrHeadWouldNotFit) || !strings.Contains(err.Error(), ws.Path(workspace.HeadDir)) ||
			!strings.Contains(err.Error(), "hash:64") || !strings.Contains(err.Error(), fmt.Sprintf("hash:%d", dim)) {
			t.Errorf("--dim %d under a 64-dimension head: %v, want ErrHeadWouldNotFit naming the head and both encoders", dim, err)
		}
	}
	if after, _ := index.CurrentDir(dir); after != before {
		t.Fatalf("a refused build switched the generation: %s → %q", before, after)
	}
	ix, err := index.Open(ctx, dir, nil)
	if err != nil {
		t.Fatalf("after the refused builds: %v", err)
	}
	if ix.Head() == nil {
		t.Error("the head is no longer applied")
	}
	ix.Close()
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatalf("the head's own dimensions: %v", err)
	}
	// A head trained on other embeddings, same dimensions: refused too.
	if err := diagHead(t, 64, 1, "openai:bge-m3:64").Save(ws.Path(workspace.HeadDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 64}); !errors.Is(err, index.ErrHeadWouldNotFit) {
		t.Errorf("a head of other embeddings: %v", err)
	}
}
