// Package bruteforce is a third dense backend of driftkit's index (kind
// "brute"), written from the registry's contract alone, as a new backend's
// package would be: it keeps a generation's vectors in a file of its own
// (brute.f32, little-endian float32 rows), loads them at Open, applies the
// projection head the way every backend does (index.HeadRoutes) and scores
// every selected document with a loop over the documents. It is test
// support: it shows that a backend is this package plus one registration
// (a blank import: the test binaries of index and cmd/driftkit have it;
// app/dense_backends.go is where a product backend's line goes), and that
// every reader then works on it unchanged.
package bruteforce

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

// Kind is the backend's kind (--backend brute).
const Kind = "brute"

// File is the generation file the vectors are kept in.
const File = "brute.f32"

func init() { index.RegisterDense(factory{}) }

// calls counts dense searches answered, so that a test can tell the
// backend was asked.
var calls atomic.Int64

// Calls is the number of dense searches the backend has answered.
func Calls() int64 { return calls.Load() }

type factory struct{}

func (factory) Kind() string { return Kind }

// ParseConfig takes one parameter, order=rows (the layout of brute.f32),
// so that the registry's checks of unknown and malformed parameters have
// something to check.
func (factory) ParseConfig(params map[string]string, _ index.DenseEnv) (index.DenseConfig, error) {
	if err := index.CheckDenseParams(Kind, params, "order"); err != nil {
		return nil, err
	}
	if o := params["order"]; o != "" && o != "rows" {
		return nil, fmt.Errorf("%w: order %q (rows)", index.ErrDenseParam, o)
	}
	return config{}, nil
}

type config struct{}

func (config) Params() map[string]string { return map[string]string{"order": "rows"} }

// Create writes brute.f32 into the generation being built.
func (config) Create(_ context.Context, b *index.DenseBuild) (*index.DenseCreated, error) {
	v := b.Vectors
	buf := make([]byte, 0, v.Rows()*v.Dim()*4)
	for r := range v.Rows() {
		for _, x := range v.Vector(r) {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	if err := os.WriteFile(filepath.Join(b.Stage, File), buf, 0o644); err != nil {
		return nil, err
	}
	return &index.DenseCreated{Files: []string{File}}, nil
}

// Open reads brute.f32 and, when search applies a head, projects the
// premise documents through it.
func (config) Open(_ context.Context, o *index.DenseOpen) (index.DenseStore, error) {
	path := filepath.Join(o.Dir, File)
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rows, dim := o.Manifest.Docs, o.Manifest.Dims
	if len(buf) != rows*dim*4 {
		return nil, fmt.Errorf("%s: %w: %d bytes for %d × %d", path, index.ErrStale, len(buf), rows, dim)
	}
	vecs := make([]float32, rows*dim)
	for i := range vecs {
		vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	s := &store{raw: index.NewStore(vecs, rows, dim), table: o.Table}
	if o.Head != nil && !o.VectorsOnly {
		docs := index.PremiseRows(rows, o.Table.Premise)
		x := make([]float32, 0, len(docs)*dim)
		for _, d := range docs {
			x = append(x, s.raw.Vector(int(d))...)
		}
		p, err := o.Head.ProjectDocuments(x, len(docs))
		if err != nil {
			return nil, err
		}
		s.head, s.proj = o.Head, make(map[int][]float32, len(docs))
		for i, d := range docs {
			s.proj[int(d)] = p[i*o.Head.Dim() : (i+1)*o.Head.Dim()]
		}
	}
	return s, nil
}

// store is an opened generation.
type store struct {
	raw   *index.Store
	table *retrieval.Table
	head  *head.Head
	proj  map[int][]float32 // premise document → its projection
}

func (s *store) Dim() int { return s.raw.Dim() }

func (s *store) Head() *index.HeadInfo {
	if s.head == nil {
		return nil
	}
	return s.head.Info()
}

func (s *store) Close() error { return nil }

func (s *store) Vectors(context.Context) (*index.Store, error) { return s.raw, nil }

// SearchDense scores every document of each request's class with the dot
// product every backend uses (index.DotSIMD: the same bits as in process),
// through the head for the requests it answers, then sorts and cuts.
func (s *store) SearchDense(_ context.Context, q []float32, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	calls.Add(1)
	routes := make([]bool, len(b.Requests))
	var qh []float32
	if s.head != nil {
		routes = index.HeadRoutes(b, func(d int) bool { return s.proj[d] != nil })
		var err error
		if qh, err = s.head.ProjectQuery(q); err != nil {
			return nil, err
		}
	}
	out := make([][]retrieval.Scored, len(b.Requests))
	for doc, c := range b.Class {
		i := int(c) - 1
		if i < 0 || i >= len(b.Requests) || b.Requests[i].K <= 0 {
			continue
		}
		score := index.DotSIMD(q, s.raw.Vector(doc))
		if routes[i] {
			score = index.DotSIMD(qh, s.proj[doc])
		}
		out[i] = append(out[i], retrieval.Scored{Doc: doc, Score: score})
	}
	for i, r := range b.Requests {
		retrieval.SortScored(out[i])
		out[i] = out[i][:min(r.K, len(out[i]))]
	}
	return out, nil
}
