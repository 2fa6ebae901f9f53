package serve

import (
	"container/list"
	"context"
	"math"
	"sync"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval/proof"
)

// premiseVectors embeds a /retrieve request's new premises with the pinned
// generation's encoder and keeps their vectors (an LRU of
// premiseVectorCache entries keyed by encoder and text), as the reference
// server does: a file's new premises come with every request, and only the
// first costs an encoding.
type premiseVectors struct {
	mu    sync.Mutex
	order *list.List // of *vecEntry, most recent first
	byKey map[string]*list.Element
	// encodes counts the texts encoded (tests read it).
	encodes int
}

type vecEntry struct {
	key string
	vec []float32
}

// encoderOf is the query encoder of a view that has one.
func encoderOf(v View) index.Encoder {
	if p, ok := v.(*pinned); ok {
		v = p.View
	}
	if e, ok := v.(interface{ Encoder() index.Encoder }); ok {
		return e.Encoder()
	}
	return nil
}

// score sets each new premise's Dense to its cosine similarity with the
// goal; without an encoder they stay NaN (ranked by words alone).
func (pv *premiseVectors) score(ctx context.Context, v View, goal string, nps []proof.NewPremise) error {
	enc := encoderOf(v)
	if len(nps) == 0 || enc == nil {
		return nil
	}
	prefix := enc.Name() + "\x00"
	vecs := make([][]float32, len(nps))
	var missing []int
	texts := []string{goal}
	pv.mu.Lock()
	for i, np := range nps {
		if vec, ok := pv.get(prefix + np.Decl); ok {
			vecs[i] = vec
		} else {
			missing = append(missing, i)
			texts = append(texts, np.Decl)
		}
	}
	pv.encodes += len(texts) - 1
	pv.mu.Unlock()
	out, err := enc.Encode(ctx, texts)
	if err != nil {
		return err
	}
	pv.mu.Lock()
	for j, i := range missing {
		vecs[i] = out[j+1]
		pv.put(prefix+nps[i].Decl, out[j+1])
	}
	pv.mu.Unlock()
	for i := range nps {
		nps[i].Dense = proof.Cosine(out[0], vecs[i])
	}
	return nil
}

func (pv *premiseVectors) get(key string) ([]float32, bool) {
	if pv.byKey == nil {
		return nil, false
	}
	el, ok := pv.byKey[key]
	if !ok {
		return nil, false
	}
	pv.order.MoveToFront(el)
	return el.Value.(*vecEntry).vec, true
}

func (pv *premiseVectors) put(key string, vec []float32) {
	if pv.byKey == nil {
		pv.byKey, pv.order = map[string]*list.Element{}, list.New()
	}
	if el, ok := pv.byKey[key]; ok {
		pv.order.MoveToFront(el)
		return
	}
	pv.byKey[key] = pv.order.PushFront(&vecEntry{key, vec})
	for pv.order.Len() > premiseVectorCache {
		last := pv.order.Back()
		pv.order.Remove(last)
		delete(pv.byKey, last.Value.(*vecEntry).key)
	}
}

func nan() float64 { return math.NaN() }
