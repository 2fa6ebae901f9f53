package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/driftkit/driftkit/workspace"
)

// denseBuild is Build's use of the dense backend: which generation name to
// build under, storing the vectors, and retiring what old generations left
// outside their folders.
type denseBuild struct {
	kind string
	cfg  DenseConfig
	env  DenseEnv
	// ws is the workspace's absolute folder; prev the generation CURRENT
	// named when the build started ("" for none).
	ws, prev string
	key      string
}

// openDenseForBuild configures the backend of opts (the in-process one by
// default).
func openDenseForBuild(ws *workspace.Workspace, opts *BuildOptions) (*denseBuild, error) {
	spec := opts.Dense
	kind := spec.denseKind()
	env := opts.DenseEnv
	if env.Warn == nil {
		env.Warn = opts.Warn
	}
	cfg, err := ParseDense(kind, spec.params(), env)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(ws.Dir)
	if err != nil {
		return nil, err
	}
	d := &denseBuild{kind: kind, cfg: cfg, env: env, ws: abs}
	d.prev, _ = currentGeneration(ws.Path(workspace.IndexDir))
	return d, nil
}

// generation names the generation to build: the one a killed build with
// the same inputs left unfinished in a resumable backend (so that its
// stored vectors are reused), else a new one. enc is the encoder's spec
// before fitting (what the caller chose).
func (d *denseBuild) generation(ctx context.Context, m *Manifest, enc EncoderSpec) (string, error) {
	b, _ := json.Marshal(struct {
		Corpus, Rendering, Encoder, Kind string
		Params                           map[string]string
	}{m.CorpusSHA256, m.Rendering, enc.Key(), d.kind, d.cfg.Params()})
	sum := sha256.Sum256(b)
	d.key = hex.EncodeToString(sum[:])
	if r, ok := d.cfg.(DenseResumer); ok {
		gen, err := r.Resume(ctx, d.ws, d.key)
		if err != nil {
			return "", err
		}
		// An identical rebuild of the current generation gets a new name:
		// its folder is being served.
		if gen != "" && gen != d.prev {
			d.env.Warnf("%s: resuming generation %s, which a build with the same inputs left unfinished", d.kind, gen)
			return gen, nil
		}
	}
	return newGenerationID(), nil
}

// create stores the vectors and records the backend in the manifest; it
// returns the files written into the generation.
func (d *denseBuild) create(ctx context.Context, b *DenseBuild) ([]string, error) {
	b.Workspace, b.Key, b.Env = d.ws, d.key, d.env
	c, err := d.cfg.Create(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("dense backend %s: %w", d.kind, err)
	}
	params := d.cfg.Params()
	if len(c.Params) > 0 {
		if params == nil {
			params = map[string]string{}
		}
		maps.Copy(params, c.Params)
	}
	b.Manifest.Dense = &DenseSpec{Kind: d.kind, Params: params}
	if d.kind != DenseMmap {
		b.Manifest.Format = FormatRemoteDense
	}
	return c.Files, nil
}

// phase names the build phase of storing the vectors.
func (d *denseBuild) phase() string {
	if d.kind == DenseMmap {
		return "write_vectors"
	}
	return "dense_" + d.kind
}

// oldGeneration is a generation a build removed, with its dense backend.
type oldGeneration struct {
	id    string
	dense *DenseSpec
}

// retire deletes, after the switch to gen, what the workspace's other
// generations keep outside their folders (a remote backend's collections),
// except the generation just replaced. It only warns on failure: the build
// is committed, and the next build retires them again.
func (d *denseBuild) retire(ctx context.Context, gen string, old []oldGeneration) {
	keep := []string{gen}
	if d.prev != "" {
		keep = append(keep, d.prev)
	}
	done := map[string]bool{}
	try := func(kind string, params map[string]string, cfg DenseConfig) {
		b, _ := json.Marshal(struct {
			K string
			P map[string]string
		}{kind, params})
		if done[string(b)] {
			return
		}
		done[string(b)] = true
		r, ok := cfg.(DenseRetirer)
		if !ok {
			return
		}
		if err := r.Retire(ctx, d.ws, keep); err != nil {
			d.env.Warnf("%s: old generations' data not deleted (the next build tries again): %v", kind, err)
		}
	}
	try(d.kind, d.cfg.Params(), d.cfg)
	for _, o := range old {
		kind, params := o.dense.denseKind(), o.dense.params()
		if kind == DenseMmap {
			continue
		}
		cfg, err := ParseDense(kind, params, d.env)
		if err != nil {
			d.env.Warnf("generation %s: %v", o.id, err)
			continue
		}
		try(kind, cfg.Params(), cfg)
	}
}
