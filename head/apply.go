package head

import (
	"context"
	"fmt"
)

// Encoder is the shape of index.Encoder (declared here so that index can
// import this package without a cycle). Implementations are safe for
// concurrent use.
type Encoder interface {
	Name() string
	Dim() int
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// Fits reports whether the head applies to embeddings with this encoder ID
// (see EncoderID); the error says why not.
func (h *Head) Fits(encoderID string) error {
	if h.Config.Encoder != "" && h.Config.Encoder != encoderID {
		return fmt.Errorf("%w: head %s was trained on %s embeddings, index has %s",
			ErrMismatch, h.ID(), h.Config.Encoder, encoderID)
	}
	return nil
}

// QueryEncoder wraps a query encoder so that it returns head-projected,
// normalised vectors of dimension h.Dim(). It is safe for concurrent use when e is.
func (h *Head) QueryEncoder(e Encoder) Encoder { return headEncoder{h: h, e: e} }

type headEncoder struct {
	h *Head
	e Encoder
}

func (w headEncoder) Name() string { return w.e.Name() + "+head:" + w.h.ID() }
func (w headEncoder) Dim() int     { return w.h.Dim() }

func (w headEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := w.e.Encode(ctx, texts)
	if err != nil {
		return nil, err
	}
	in := w.h.Config.InDim
	flat := make([]float32, 0, len(vs)*in)
	for _, v := range vs {
		if len(v) != in {
			return nil, fmt.Errorf("%w: encoder %s returned %d dimensions, head takes %d", ErrMismatch, w.e.Name(), len(v), in)
		}
		flat = append(flat, v...)
	}
	p, err := w.h.ProjectQueries(flat, len(vs))
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(vs))
	d := w.h.Dim()
	for i := range out {
		out[i] = p[i*d : (i+1)*d : (i+1)*d]
	}
	return out, nil
}
