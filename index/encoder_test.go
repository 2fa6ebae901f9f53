package index_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// letterEncoder is an encoder added the way a new one is: one type, one
// RegisterEncoder call; Build and Open need no change. It counts letters
// a–z (folded into Dims buckets), L2-normalised.
type letterEncoder struct{ dims int }

func (e letterEncoder) Name() string { return "letters" }
func (e letterEncoder) Dim() int     { return e.dims }
func (e letterEncoder) Spec() index.EncoderSpec {
	return index.EncoderSpec{Kind: "test-letters", Dims: e.dims, Normalize: "l2", Params: map[string]string{"alphabet": "a-z"}}
}
func (e letterEncoder) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dims)
		for _, r := range t {
			if r >= 'a' && r <= 'z' {
				v[int(r-'a')%e.dims]++
			}
		}
		var s float32
		for _, x := range v {
			s += x * x
		}
		if s > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(float64(s)))
			}
		}
		out[i] = v
	}
	return out, nil
}

var (
	letterFactoryCalls int
	letterFactoryCtx   context.Context // the context the factory was last given
)

type ctxLabel struct{}

func init() {
	index.RegisterEncoder("test-letters", func(ctx context.Context, spec index.EncoderSpec, env index.EncoderEnv) (index.Encoder, error) {
		letterFactoryCalls++
		letterFactoryCtx = ctx
		if spec.Params["alphabet"] != "a-z" {
			return nil, errors.New("spec lost its params")
		}
		return letterEncoder{dims: spec.Dims}, nil
	})
}

func TestRegisteredEncoderRoundTrip(t *testing.T) {
	dir := fixtureWS(t)
	ws := &workspace.Workspace{Dir: dir}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{Encoder: letterEncoder{dims: 13}}); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Encoder != "test-letters" || m.Dims != 13 || m.EncoderFallback || m.EncoderSpec.Params["alphabet"] != "a-z" || m.EncoderSpec.Rendering != workspace.RenderingVersion {
		t.Errorf("manifest %+v", m)
	}
	calls := letterFactoryCalls
	ix, err := index.Open(context.WithValue(context.Background(), ctxLabel{}, "open"), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if letterFactoryCalls != calls+1 {
		t.Error("Open did not rebuild the encoder from its spec")
	}
	if letterFactoryCtx == nil || letterFactoryCtx.Value(ctxLabel{}) != "open" {
		t.Error("Open did not pass its context to the encoder's factory")
	}
	// Reload opens the next generation's encoder under its own context.
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{Encoder: letterEncoder{dims: 13}}); err != nil {
		t.Fatal(err)
	}
	if changed, err := ix.Reload(context.WithValue(context.Background(), ctxLabel{}, "reload")); err != nil || !changed {
		t.Fatalf("reload: %v %v", changed, err)
	}
	if letterFactoryCtx.Value(ctxLabel{}) != "reload" {
		t.Error("Reload did not pass its context to the encoder's factory")
	}
	if _, ok := ix.Encoder().(letterEncoder); !ok {
		t.Errorf("query encoder %T", ix.Encoder())
	}
	hits, err := ix.Search(context.Background(), retrieval.Query{Text: "cloud", Mode: retrieval.ModeDense, K: 3})
	if err != nil || len(hits) != 3 {
		t.Fatalf("hits %v, err %v", hits, err)
	}
	// An unknown kind names the registered ones.
	if _, err := index.NewEncoder(context.Background(), index.EncoderSpec{Kind: "nope"}, index.EncoderEnv{}); !errors.Is(err, index.ErrUnknownEncoder) {
		t.Errorf("unknown kind: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a kind twice did not panic")
		}
	}()
	index.RegisterEncoder("hash", nil)
}

// The spec's key is the key of an embedding cache: stable across processes
// (a fixed spec has a fixed key), blind to where the model is served, and
// different for anything that changes the vectors.
func TestEncoderSpecKey(t *testing.T) {
	base := index.EncoderSpec{Kind: "openai", Model: "bge-m3", Dims: 1024, BaseURL: "http://a/v1", Normalize: "l2", MaxChars: 8000, Truncation: "chars", Rendering: "doc-v1"}
	const want = "6fd3e411" // first 8 hex digits of the key of base; change only with a cache migration
	if k := base.Key(); len(k) != 64 || k[:8] != want {
		t.Errorf("key of the reference spec is %s, want %s…", k, want)
	}
	moved := base
	moved.BaseURL = "http://b/v1"
	moved.Preset = "none"
	if moved.Key() != base.Key() {
		t.Error("the endpoint's URL or the preset's name changed the key")
	}
	for i, change := range []func(*index.EncoderSpec){
		func(s *index.EncoderSpec) { s.Model = "bge-m3-ft" },
		func(s *index.EncoderSpec) { s.Dims = 512 },
		func(s *index.EncoderSpec) { s.MaxChars = 4000 },
		func(s *index.EncoderSpec) { s.Rendering = "doc-v2" },
		func(s *index.EncoderSpec) { s.State = "ab" },
		func(s *index.EncoderSpec) { s.Params = map[string]string{"pooling": "mean"} },
		func(s *index.EncoderSpec) { s.QueryPrefix = "query: " },
		func(s *index.EncoderSpec) { s.DocPrefix = "passage: " },
		func(s *index.EncoderSpec) { s.QueryInputType = "query" },
		func(s *index.EncoderSpec) { s.DocInputType = "passage" },
	} {
		s := base
		change(&s)
		if s.Key() == base.Key() {
			t.Errorf("change %d left the key unchanged", i)
		}
	}
	// A query encoder with other prefixes does not embed into the index's space.
	pre := base
	pre.Roles, _ = index.PresetRoles("e5")
	if err := pre.Compatible(base); err == nil || !strings.Contains(err.Error(), "query prefix") {
		t.Errorf("e5 index, plain query encoder: %v", err)
	}
	// Two fits of the hash encoder on different corpora differ in State.
	a, b := index.NewHashEncoder(16), index.NewHashEncoder(16)
	a.Fit([]string{"cloud of tangles"})
	b.Fit([]string{"litter set"})
	if a.Spec().Key() == b.Spec().Key() || a.Spec().State == "" {
		t.Error("hash encoders fitted on different corpora share a key")
	}
}
