package index

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace/npy"
)

func init() { RegisterDense(mmapFactory{}) }

// mmapFactory makes the in-process backend: the generation's vectors.npy,
// memory-mapped and scanned exactly, the projection head applied in
// process. It takes no parameters.
type mmapFactory struct{}

func (mmapFactory) Kind() string { return DenseMmap }

func (mmapFactory) ParseConfig(params map[string]string, _ DenseEnv) (DenseConfig, error) {
	if err := CheckDenseParams(DenseMmap, params); err != nil {
		return nil, err
	}
	return mmapConfig{}, nil
}

type mmapConfig struct{}

func (mmapConfig) Params() map[string]string { return nil }

// Create writes vectors.npy into the generation.
func (mmapConfig) Create(_ context.Context, b *DenseBuild) (*DenseCreated, error) {
	v := b.Vectors
	if err := WriteNPY(filepath.Join(b.Stage, VectorsName), v.vecs, v.rows, v.dim); err != nil {
		return nil, err
	}
	return &DenseCreated{Files: []string{VectorsName}}, nil
}

// Open verifies vectors.npy against the manifest and maps it.
func (mmapConfig) Open(_ context.Context, o *DenseOpen) (_ DenseStore, err error) {
	m := o.Manifest
	if err := verifyFile(o.Dir, m, VectorsName); err != nil {
		return nil, err
	}
	mat, err := npy.Open(filepath.Join(o.Dir, VectorsName))
	if err != nil {
		return nil, err
	}
	s := &mmapStore{mat: mat}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if mat.Rows != m.Docs || mat.Cols != m.Dims {
		return nil, fmt.Errorf("%s: %w: vectors.npy is (%d, %d), manifest says (%d, %d)", o.Dir, ErrStale, mat.Rows, mat.Cols, m.Docs, m.Dims)
	}
	s.raw = NewStore(mat.Data, mat.Rows, mat.Cols)
	s.inner = s.raw
	if o.Head != nil && !o.VectorsOnly {
		hb, err := newHeadBackend(o.Head, o.Table, s.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(o.Workspace, "head"), err)
		}
		s.head, s.inner = hb, hb
	}
	return s, nil
}

// mmapStore is an opened vectors.npy: searched through the raw Store, or
// through the head over it.
type mmapStore struct {
	inner retrieval.DenseBackend
	mat   *npy.Matrix
	raw   *Store
	head  *headBackend
}

var _ retrieval.MultiDenseBackend = (*mmapStore)(nil)

func (s *mmapStore) Dim() int { return s.inner.Dim() }

func (s *mmapStore) SearchDense(ctx context.Context, q []float32, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	return s.inner.SearchDense(ctx, q, b)
}

func (s *mmapStore) SearchDenseMany(ctx context.Context, qs [][]float32, bs []*retrieval.Batch) ([][][]retrieval.Scored, error) {
	return retrieval.SearchDenseMany(ctx, s.inner, qs, bs)
}

func (s *mmapStore) Vectors(context.Context) (*Store, error) { return s.raw, nil }

func (s *mmapStore) Head() *HeadInfo {
	if s.head == nil {
		return nil
	}
	return s.head.info
}

func (s *mmapStore) Close() error { return s.mat.Close() }

// Mapped reports whether the vectors are memory-mapped (not read onto the
// heap).
func (s *mmapStore) Mapped() bool { return s.mat.Mapped }
