package index

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/head"
)

// HeadInfo says which projection head an index applies at query time.
type HeadInfo struct {
	ID      string  `json:"id"`
	Encoder string  `json:"encoder"`
	InDim   int     `json:"in_dim"`
	OutDim  int     `json:"out_dim"`
	Mix     float64 `json:"mix"`
	// Fallback is true when the head was trained on the offline hash
	// encoder's embeddings.
	Fallback bool `json:"encoder_fallback"`
}

func headInfo(h *head.Head) *HeadInfo {
	return &HeadInfo{ID: h.ID(), Encoder: h.Config.Encoder, InDim: h.Config.InDim, OutDim: h.Config.OutDim,
		Mix: h.Config.Mix, Fallback: h.Config.EncoderFallback}
}

// projectedHead holds a loaded head and the projected vectors of the premise
// candidates. Only candidates are projected: the head was trained to rank
// premises, and the neighbour vote of mode best keeps the raw embeddings
// (projecting theorems too measurably hurt ConNF F1@1). Immutable after Open.
type projectedHead struct {
	h    *head.Head
	info *HeadInfo
	vecs []float32 // len(projected rows) × OutDim
	row  []int32   // index row → position in vecs, -1 when not projected
}

// loadHead loads WS/head when it exists and fits the index's embeddings.
// A head trained on other embeddings is an error: silently searching without
// it would report numbers the user did not ask for.
func (ix *Index) loadHead(wsDir string) error {
	dir := filepath.Join(wsDir, dataset.HeadDir)
	if !head.Exists(dir) {
		return nil
	}
	h, err := head.Load(dir)
	if err != nil {
		return err
	}
	m := ix.Manifest
	if err := h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)); err != nil {
		return fmt.Errorf("%s: %w (or search without it: --no-head)", dir, err)
	}
	if h.Config.InDim != ix.dense.Dim {
		return fmt.Errorf("%s: %w: head takes %d dimensions, index vectors have %d", dir, head.ErrMismatch, h.Config.InDim, ix.dense.Dim)
	}
	p := &projectedHead{h: h, info: headInfo(h), row: make([]int32, len(ix.Docs))}
	in := ix.dense.Dim
	var rows []int
	for r := range ix.Docs {
		p.row[r] = -1
		if ix.premise[r] {
			p.row[r] = int32(len(rows))
			rows = append(rows, r)
		}
	}
	x := make([]float32, 0, len(rows)*in)
	for _, r := range rows {
		x = append(x, ix.dense.Vecs[r*in:(r+1)*in]...)
	}
	if p.vecs, err = h.ProjectDocuments(x, len(rows)); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	ix.head = p
	return nil
}

// Head describes the projection head applied to dense candidate scores, or nil.
func (ix *Index) Head() *HeadInfo {
	if ix.head == nil {
		return nil
	}
	return ix.head.info
}

// headScan scores candidates with the head (score = (1−λ)·cos_head + λ·cos_raw)
// and neighbours with the raw embeddings. Callers check headCovers first: a
// query whose candidates include unprojected rows (theorems, with AllKinds)
// uses the raw scan, since head and raw cosines are not comparable.
func (ix *Index) headScan(qraw []float32, n, nn int, mask []uint8) (c, nb []scored, err error) {
	p := ix.head
	qh, err := p.h.ProjectQuery(qraw)
	if err != nil {
		return nil, nil, err
	}
	lambda := float32(p.h.Config.Mix)
	qn := head.Normalise(append([]float32(nil), qraw...))
	tc, tn := newTopK(n), newTopK(max(nn, 1))
	d, od := ix.dense.Dim, p.h.Dim()
	for r, m := range mask {
		switch {
		case m == 1:
			pr := p.row[r]
			s := (1 - lambda) * DotSIMD(qh, p.vecs[int(pr)*od:(int(pr)+1)*od])
			if lambda > 0 {
				s += lambda * DotSIMD(qn, ix.dense.Vecs[r*d:(r+1)*d])
			}
			tc.add(r, s)
		case m == 2 && nn > 0:
			tn.add(r, DotSIMD(qraw, ix.dense.Vecs[r*d:(r+1)*d]))
		}
	}
	if nn == 0 {
		return tc.sorted(), nil, nil
	}
	return tc.sorted(), tn.sorted(), nil
}

// headCovers reports whether every candidate of mask has a projected vector.
func (ix *Index) headCovers(mask []uint8) bool {
	for r, m := range mask {
		if m == 1 && ix.head.row[r] < 0 {
			return false
		}
	}
	return true
}

// RecordHead notes in WS/index/manifest.json which head search now applies
// (nil: none), and records the rewrite in the workspace manifest so that the
// next `driftkit index` does not take the manifest for a foreign file.
func RecordHead(ws *dataset.Workspace, h *head.Head) error {
	m, err := readManifest(ws.Path(dataset.IndexDir))
	if err != nil {
		return err
	}
	if h != nil {
		if err := h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)); err != nil {
			return err
		}
		m.Head = headInfo(h)
	} else {
		m.Head = nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	path := ws.Path(dataset.IndexDir, ManifestName)
	if err := dataset.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return err
	}
	run := ws.StartRun("index-head", map[string]any{"head": m.Head})
	if err := run.Output(path, 0); err != nil {
		return err
	}
	return run.Finish()
}

// headAtBuild returns the head a new index will apply, if WS/head fits it.
func headAtBuild(ws *dataset.Workspace, m *Manifest) *HeadInfo {
	dir := ws.Path(dataset.HeadDir)
	if !head.Exists(dir) {
		return nil
	}
	h, err := head.Load(dir)
	if err != nil || h.Fits(head.EncoderID(m.Encoder, m.Model, m.Dims)) != nil || h.Config.InDim != m.Dims {
		return nil
	}
	return headInfo(h)
}
