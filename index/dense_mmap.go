package index

import (
	"context"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"unsafe"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
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

// Open maps vectors.npy after checking its size against the manifest;
// its CRC32C is checked by the first search (or Vectors), which reads
// every vector anyway — a cold search pays memory speed, not sha256's.
// The export (VectorsOnly) checks it at once.
func (mmapConfig) Open(_ context.Context, o *DenseOpen) (_ DenseStore, err error) {
	m := o.Manifest
	if err := checkSize(o.Dir, m, VectorsName); err != nil {
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
	if s.raw.check, err = vectorsCheck(o.Dir, m, mat.Data); err != nil {
		return nil, err
	}
	if o.VectorsOnly {
		if err := s.raw.Verify(); err != nil {
			return nil, err
		}
	}
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

// warm does the first searches' work ahead (OpenOptions.Warm): verifies
// the vectors, makes their int8 copy, projects them through the head.
// Failures are kept for the searches to report.
func (s *mmapStore) warm() {
	if s.raw.Verify() == nil {
		s.raw.quantized()
	}
	if s.head != nil {
		s.head.projected()
	}
}

func (s *mmapStore) Vectors(context.Context) (*Store, error) {
	if err := s.raw.Verify(); err != nil {
		return nil, err
	}
	return s.raw, nil
}

// vectorsCheck returns the check of vectors.npy against the CRC32C the
// manifest records (the sha256 for generations that record none): the
// header is read now, while the file is surely there (a rebuild may remove
// it while the mapping lives on), the data is read from the mapping.
func vectorsCheck(dir string, m *Manifest, vecs []float32) (func() error, error) {
	path := filepath.Join(dir, VectorsName)
	want := m.Files[VectorsName].CRC32C
	if want == "" {
		return func() error { return verifyFile(dir, m, VectorsName) }, nil
	}
	data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vecs))), 4*len(vecs))
	head, err := fileHead(path, int64(len(data)))
	if err != nil {
		return nil, err
	}
	return func() error {
		got := fmt.Sprintf("%08x", crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, data))
		if got != want {
			return &workspace.FileError{Path: path, Row: -1,
				Err: fmt.Errorf("%w: CRC32C %s, the manifest says %s (the file is damaged or not this generation's)", ErrStale, got, want)}
		}
		return nil
	}, nil
}

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
