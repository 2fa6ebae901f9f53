package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/bruteforce"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

// A third backend plugs in through the registry alone (its package,
// internal/testkit/bruteforce, and the blank import of it above): `Build`
// with its kind stores the vectors its way (no vectors.npy), the manifest
// records it, Open picks it from the manifest, and search and evaluation
// rank as with the built-in store (the same dot product: the same scores).
func TestThirdDenseBackendPlugsIn(t *testing.T) {
	dir := fixtureWS(t)
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64, Dense: &index.DenseSpec{Kind: bruteforce.Kind}}); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dense == nil || m.Dense.Kind != bruteforce.Kind || m.Dense.Params["order"] != "rows" || m.Format != index.FormatRemoteDense {
		t.Fatalf("manifest records %+v (format %s), want the brute backend", m.Dense, m.Format)
	}
	if _, ok := m.Files[index.VectorsName]; ok {
		t.Fatal("the generation has a vectors.npy: the backend keeps the vectors")
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ref := openFixture(t)
	items, err := eval.ReadBenchFile("testdata/bench.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	calls := bruteforce.Calls()
	for _, mode := range []retrieval.Mode{retrieval.ModeDense, retrieval.ModeBest} {
		var got, want []eval.PerItem
		o := eval.Options{Mode: mode, Progress: func(int) {}}
		o.PerItem = func(p eval.PerItem) error { got = append(got, p); return nil }
		rt, err := eval.Retrieval(context.Background(), ix, ix, items, o)
		if err != nil {
			t.Fatal(err)
		}
		o.PerItem = func(p eval.PerItem) error { want = append(want, p); return nil }
		rr, err := eval.Retrieval(context.Background(), ref, ref, items, o)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) || rt.MRR != rr.MRR {
			t.Errorf("%s: the brute-force backend ranks differently from the store (MRR %v vs %v)", mode, rt.MRR, rr.MRR)
		}
	}
	if bruteforce.Calls() == calls {
		t.Fatal("the brute backend was never asked")
	}
	// The raw vectors come back through the backend, equal to the store's.
	g, release := ix.Pin()
	defer release()
	rg, rrel := ref.Pin()
	defer rrel()
	v, err := g.Vectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rv, _ := rg.Vectors(context.Background())
	for r := range rv.Rows() {
		if !slices.Equal(v.Vector(r), rv.Vector(r)) {
			t.Fatalf("row %d differs", r)
		}
	}
}

// A manifest naming a kind this driftkit does not know, or a parameter the
// kind does not take, is refused at Open with the manifest's path.
func TestUnknownDenseBackendRefused(t *testing.T) {
	for name, spec := range map[string]index.DenseSpec{
		"kind":  {Kind: "nosuch"},
		"param": {Kind: bruteforce.Kind, Params: map[string]string{"ordr": "rows"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureWS(t)
			gen, _ := index.CurrentDir(dir)
			path := filepath.Join(gen, index.ManifestName)
			b, _ := os.ReadFile(path)
			var m map[string]any
			json.Unmarshal(b, &m)
			m["dense"] = spec
			b, _ = json.Marshal(m)
			os.WriteFile(path, b, 0o644)
			_, err := index.Open(context.Background(), dir, nil)
			want := index.ErrUnknownDense
			if name == "param" {
				want = index.ErrDenseParam
			}
			var fe *workspace.FileError
			if !errors.Is(err, want) || !errors.As(err, &fe) || fe.Path != path {
				t.Fatalf("Open = %v, want %v naming %s", err, want, path)
			}
			// Without dense retrieval the backend is not needed.
			ix, err := index.Open(context.Background(), dir, &index.OpenOptions{NoDense: true})
			if err != nil {
				t.Fatal(err)
			}
			ix.Close()
		})
	}
	if _, err := index.ParseDense("nosuch", nil, index.DenseEnv{}); !errors.Is(err, index.ErrUnknownDense) {
		t.Fatal(err)
	}
	if !slices.Contains(index.DenseKinds(), index.DenseMmap) || !slices.Contains(index.DenseKinds(), bruteforce.Kind) {
		t.Fatalf("DenseKinds() = %v", index.DenseKinds())
	}
}
