package weaviate_test

import (
	"errors"
	"maps"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/weaviate"
)

// FuzzParseConfig: the parameters come from the command line, the
// environment and index manifests. Any input is refused with
// ErrDenseParam or accepted, and an accepted one is recorded so that
// parsing the record again gives the same record.
func FuzzParseConfig(f *testing.F) {
	f.Add("http://127.0.0.1:8080?grpc=50051,http://h:1", "3", "flat", "all", "true")
	f.Add("https://[::1]:443?grpc=[::1]:50051", "1", "hnsw", "quorum", "false")
	f.Add("http://a:8080?grpc=", "0", "", "", "")
	f.Fuzz(func(t *testing.T, url, shards, idx, write, rescore string) {
		p := map[string]string{weaviate.ParamURL: url, weaviate.ParamShards: shards, weaviate.ParamIndex: idx,
			weaviate.ParamWrite: write, weaviate.ParamRescore: rescore}
		cfg, err := index.ParseDense(weaviate.Kind, p, index.DenseEnv{})
		if err != nil {
			if !errors.Is(err, index.ErrDenseParam) {
				t.Fatalf("%v: %v does not wrap ErrDenseParam", p, err)
			}
			return
		}
		again, err := index.ParseDense(weaviate.Kind, cfg.Params(), index.DenseEnv{})
		if err != nil || !maps.Equal(again.Params(), cfg.Params()) {
			t.Fatalf("%v recorded as %v, which parses to %v (%v)", p, cfg.Params(), again, err)
		}
	})
}
