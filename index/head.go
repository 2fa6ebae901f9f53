package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// HeadInfo says which projection head an index applies at query time.
type HeadInfo = head.Info

func headInfo(h *head.Head) *HeadInfo { return h.Info() }

// headBackend is the projection head as a wrapper of a dense backend: a
// request whose documents all have projected vectors (premise candidates:
// the head was trained to rank premises) is answered from them with the
// projected query; any other request (the neighbours that vote, which keep
// the raw embeddings — projecting theorems too measurably hurt ConNF F1@1 —
// or candidates that include theorems, whose head and raw cosines are not
// comparable) goes to the raw backend. Immutable, safe for concurrent use.
type headBackend struct {
	raw  retrieval.DenseBackend
	h    *head.Head
	info *HeadInfo
	// project makes the projected vectors of the premise documents, on
	// the first search (a cold search of a workspace with a head pays for
	// it only when it searches densely).
	project func() (*Store, error)
	once    sync.Once
	proj    *Store
	err     error
}

// projected returns the projected vectors, projecting them on first use.
func (hb *headBackend) projected() (*Store, error) {
	hb.once.Do(func() { hb.proj, hb.err = hb.project() })
	return hb.proj, hb.err
}

var _ retrieval.MultiDenseBackend = (*headBackend)(nil)

func (hb *headBackend) Dim() int { return hb.raw.Dim() }

// SearchDense implements retrieval.DenseBackend.
func (hb *headBackend) SearchDense(ctx context.Context, q []float32, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	res, err := hb.SearchDenseMany(ctx, [][]float32{q}, []*retrieval.Batch{b})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// SearchDenseMany implements retrieval.MultiDenseBackend: the requests the
// raw vectors answer go to the raw backend in one pass for all queries; the
// projected vectors (premise documents only) are scanned per query.
func (hb *headBackend) SearchDenseMany(ctx context.Context, qs [][]float32, bs []*retrieval.Batch) ([][][]retrieval.Scored, error) {
	if len(qs) != len(bs) {
		return nil, fmt.Errorf("%d queries, %d batches", len(qs), len(bs))
	}
	proj, err := hb.projected()
	if err != nil {
		return nil, err
	}
	out := make([][][]retrieval.Scored, len(bs))
	coveredAll := make([][]bool, len(bs))
	var rawQs [][]float32
	var rawBs []*retrieval.Batch
	var rawOf []int
	for j, b := range bs {
		covered := HeadRoutes(b, proj.Has)
		coveredAll[j] = covered
		out[j] = make([][]retrieval.Scored, len(b.Requests))
		rawReqs := slices.Clone(b.Requests)
		anyRaw := false
		for i, c := range covered {
			if c {
				rawReqs[i].K = 0
			} else if b.Requests[i].K > 0 {
				anyRaw = true
			}
		}
		if anyRaw {
			rawQs = append(rawQs, qs[j])
			rawBs = append(rawBs, &retrieval.Batch{Requests: rawReqs, Class: b.Class})
			rawOf = append(rawOf, j)
		}
	}
	if len(rawQs) > 0 {
		res, err := retrieval.SearchDenseMany(ctx, hb.raw, rawQs, rawBs)
		if err != nil {
			return nil, err
		}
		for i, j := range rawOf {
			copy(out[j], res[i])
		}
	}
	for j, b := range bs {
		anyProj := false
		tops := b.NewTops()
		for i, c := range coveredAll[j] {
			if c {
				anyProj = true
			} else {
				tops[i] = nil
			}
		}
		if !anyProj {
			continue
		}
		qh, err := hb.h.ProjectQuery(qs[j])
		if err != nil {
			return nil, fmt.Errorf("project query: %w", err)
		}
		proj.scan(qh, b.Class, tops)
		for i, t := range tops {
			if t != nil {
				out[j][i] = t.Sorted()
			}
		}
	}
	return out, ctx.Err()
}

// loadHead loads WS/head when it exists and fits the index's embeddings
// (nil when there is none). A head trained on other embeddings is an error:
// silently searching without it would report numbers the user did not ask
// for.
func loadHead(wsDir string, m *Manifest) (*head.Head, error) {
	dir := filepath.Join(wsDir, workspace.HeadDir)
	if !head.Exists(dir) {
		return nil, nil
	}
	h, err := head.Load(dir)
	if err != nil {
		return nil, err
	}
	if err := h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if h.Config.InDim != m.Dims {
		return nil, fmt.Errorf("%s: %w: head takes %d dimensions, index vectors have %d", dir, head.ErrMismatch, h.Config.InDim, m.Dims)
	}
	return h, nil
}

// newHeadBackend wraps raw with h; the premise documents of raw are
// projected through h on the first search.
func newHeadBackend(h *head.Head, t *retrieval.Table, raw *Store) (*headBackend, error) {
	if h.Config.InDim != raw.Dim() {
		return nil, fmt.Errorf("%w: head takes %d dimensions, index vectors have %d", head.ErrMismatch, h.Config.InDim, raw.Dim())
	}
	project := func() (*Store, error) {
		if err := raw.Verify(); err != nil {
			return nil, err
		}
		docs := PremiseRows(t.Len(), t.Premise)
		x := make([]float32, 0, len(docs)*raw.Dim())
		for _, r := range docs {
			x = append(x, raw.Vector(int(r))...)
		}
		vecs, err := h.ProjectDocuments(x, len(docs))
		if err != nil {
			return nil, err
		}
		return newSubsetStore(vecs, h.Dim(), docs, t.Len()), nil
	}
	return &headBackend{raw: raw, h: h, info: headInfo(h), project: project}, nil
}

// PremiseRows lists the documents the head projects: the premises (the
// candidates it was trained to rank), in row order.
func PremiseRows(n int, premise func(doc int) bool) []int32 {
	var docs []int32
	for r := range n {
		if premise(r) {
			docs = append(docs, int32(r))
		}
	}
	return docs
}

// WithHead returns a searcher over the loaded generation whose dense
// candidate scores go through h instead of the workspace's head (to compare
// a head being trained with the raw embeddings by the same evaluation
// code). It pins the generation until release is called.
func (ix *Index) WithHead(ctx context.Context, h *head.Head) (s retrieval.Searcher, release func(), err error) {
	g, release := ix.Pin()
	raw, err := g.Vectors(ctx)
	if err != nil {
		release()
		return nil, nil, err
	}
	hb, err := newHeadBackend(h, g.table, raw)
	if err != nil {
		release()
		return nil, nil, err
	}
	return &retrieval.Engine{Table: g.table, Dense: hb, Encoder: g.enc, Lexical: g.engine.Lexical, Formula: g.engine.Formula}, release, nil
}

// RecordHead notes in the current generation's manifest.json which head
// search now applies (nil: none), and records the rewrite in the workspace
// manifest, in one commit. The manifest is the one file of a generation that
// changes after the switch, and no reader depends on it (Open loads the head
// from WS/head). The caller holds the lock of a stage that writes the index;
// train.TrainWorkspace does not call it: it stages the same change
// (StageHeadRecord) in the commit that writes the head.
func RecordHead(ws *workspace.Workspace, h *head.Head) error {
	tx := ws.Begin("index-head")
	defer tx.Abort()
	info, err := StageHeadRecord(tx, ws, h)
	if err != nil {
		return err
	}
	return tx.Commit(ws.StartRun("index-head", map[string]any{"head": info}))
}

// StageHeadRecord stages, in tx, the current generation's manifest recording
// h as the head search applies (nil: none), and lists it among tx's outputs,
// so that the head and the index manifest that names it take effect
// together.
func StageHeadRecord(tx *workspace.Txn, ws *workspace.Workspace, h *head.Head) (*HeadInfo, error) {
	gdir, err := CurrentDir(ws.Dir)
	if err != nil {
		return nil, err
	}
	m, err := readManifest(gdir)
	if err != nil {
		return nil, err
	}
	if h != nil {
		if err := h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)); err != nil {
			return nil, err
		}
		m.Head = headInfo(h)
	} else {
		m.Head = nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	rel := filepath.ToSlash(filepath.Join(workspace.IndexDir, filepath.Base(gdir), ManifestName))
	if err := tx.WriteFile(rel, append(b, '\n')); err != nil {
		return nil, err
	}
	tx.Output(rel, 0)
	return m.Head, nil
}

// ErrHeadWouldNotFit is returned by Build when the workspace's trained
// head (WS/head) cannot take the vectors the build would make (another
// encoder, model or number of dimensions): the new generation would make
// every search, eval and DRIFT run fail, and a server reloading it would
// refuse it while serving files the commit deleted (#24).
var ErrHeadWouldNotFit = errors.New("the trained head cannot take this build's vectors")

// checkHeadFits refuses, before anything is built, an encoder whose vectors
// the workspace's trained head cannot take; a head that cannot be read is
// refused too (it would fail every search the same way).
func checkHeadFits(ws *workspace.Workspace, enc Encoder) error {
	dir := ws.Path(workspace.HeadDir)
	if !head.Exists(dir) {
		return nil
	}
	spec := enc.Spec()
	id := head.EncoderID(spec.Kind, spec.Model, enc.Dim())
	h, err := head.Load(dir)
	if err != nil {
		return fmt.Errorf("%s: %w: it cannot be read (%v)", dir, ErrHeadWouldNotFit, err)
	}
	if h.Fits(id) != nil || h.Config.InDim != enc.Dim() {
		return fmt.Errorf("%s: %w: head %s takes %s embeddings (%d dimensions), this build makes %s", dir, ErrHeadWouldNotFit, h.ID(), h.Config.Encoder, h.Config.InDim, id)
	}
	return nil
}

// headAtBuild returns the head a new index will apply, if WS/head fits it.
func headAtBuild(ws *workspace.Workspace, m *Manifest) (*head.Head, *HeadInfo) {
	dir := ws.Path(workspace.HeadDir)
	if !head.Exists(dir) {
		return nil, nil
	}
	h, err := head.Load(dir)
	if err != nil || h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)) != nil || h.Config.InDim != m.Dims {
		return nil, nil
	}
	return h, headInfo(h)
}
