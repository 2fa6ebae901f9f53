package index_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

// bruteFactory is a third dense backend written from the registry's
// contract alone, as a new package would be: it keeps the vectors in a file
// of its own (brute.f32, little-endian float32 rows) and scores every
// selected document with a plain loop. Registering it is the one line in
// init.
type bruteFactory struct{}

func init() { index.RegisterDense(bruteFactory{}) }

var bruteCalls atomic.Int64

func (bruteFactory) Kind() string { return "brute" }

func (bruteFactory) ParseConfig(params map[string]string, _ index.DenseEnv) (index.DenseConfig, error) {
	if err := index.CheckDenseParams("brute", params, "order"); err != nil {
		return nil, err
	}
	if o := params["order"]; o != "" && o != "rows" {
		return nil, fmt.Errorf("%w: order %q (rows)", index.ErrDenseParam, o)
	}
	return bruteConfig{}, nil
}

type bruteConfig struct{}

func (bruteConfig) Params() map[string]string { return map[string]string{"order": "rows"} }

func (bruteConfig) Create(_ context.Context, b *index.DenseBuild) (*index.DenseCreated, error) {
	v := b.Vectors
	buf := make([]byte, 0, v.Rows()*v.Dim()*4)
	for r := range v.Rows() {
		for _, x := range v.Vector(r) {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	if err := os.WriteFile(filepath.Join(b.Stage, "brute.f32"), buf, 0o644); err != nil {
		return nil, err
	}
	return &index.DenseCreated{Files: []string{"brute.f32"}}, nil
}

func (bruteConfig) Open(_ context.Context, o *index.DenseOpen) (index.DenseStore, error) {
	buf, err := os.ReadFile(filepath.Join(o.Dir, "brute.f32"))
	if err != nil {
		return nil, err
	}
	dim := o.Manifest.Dims
	if len(buf) != o.Manifest.Docs*dim*4 {
		return nil, fmt.Errorf("brute.f32: %d bytes for %d × %d", len(buf), o.Manifest.Docs, dim)
	}
	b := &bruteForce{}
	for r := range o.Manifest.Docs {
		row := make([]float32, dim)
		for j := range row {
			row[j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[(r*dim+j)*4:]))
		}
		b.vecs = append(b.vecs, row)
	}
	return b, nil
}

// bruteForce scores every selected document with a plain loop, sorts, cuts.
type bruteForce struct{ vecs [][]float32 }

func (b *bruteForce) Dim() int { return len(b.vecs[0]) }

func (b *bruteForce) Head() *index.HeadInfo { return nil }

func (b *bruteForce) Close() error { return nil }

func (b *bruteForce) Vectors(context.Context) (*index.Store, error) {
	return index.NewStore(slices.Concat(b.vecs...), len(b.vecs), b.Dim()), nil
}

func (b *bruteForce) SearchDense(_ context.Context, q []float32, batch *retrieval.Batch) ([][]retrieval.Scored, error) {
	bruteCalls.Add(1)
	out := make([][]retrieval.Scored, len(batch.Requests))
	for i, r := range batch.Requests {
		if r.K <= 0 {
			continue
		}
		var all []retrieval.Scored
		for doc, c := range batch.Class {
			if int(c) == i+1 {
				var s float32
				for j := range q {
					s += q[j] * b.vecs[doc][j]
				}
				all = append(all, retrieval.Scored{Doc: doc, Score: s})
			}
		}
		retrieval.SortScored(all)
		out[i] = all[:min(r.K, len(all))]
	}
	return out, nil
}

// A third backend plugs in through the registry alone: `Build` with its
// kind stores the vectors its way (no vectors.npy), the manifest records
// it, Open picks it from the manifest, and search and evaluation rank as
// with the built-in store (float sums in another order may only swap exact
// near-ties, which the fixture has none of).
func TestThirdDenseBackendPlugsIn(t *testing.T) {
	dir := fixtureWS(t)
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64, Dense: &index.DenseSpec{Kind: "brute"}}); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dense == nil || m.Dense.Kind != "brute" || m.Dense.Params["order"] != "rows" || m.Format != index.FormatRemoteDense {
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
	bruteCalls.Store(0)
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
	if bruteCalls.Load() == 0 {
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
		"param": {Kind: "brute", Params: map[string]string{"ordr": "rows"}},
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
	if !slices.Contains(index.DenseKinds(), index.DenseMmap) || !slices.Contains(index.DenseKinds(), "brute") {
		t.Fatalf("DenseKinds() = %v", index.DenseKinds())
	}
}
