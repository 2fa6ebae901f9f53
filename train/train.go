package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/internal/progress"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gorgonia.org/tensor"
)

// Example is one training query: its frozen embedding and the corpus indices
// of its positives and mined hard negatives.
type Example struct {
	ID    string
	Query []float32
	Pos   []int32
	Neg   []int32
}

// Data is what the head trains on: the frozen document embeddings of the
// corpus (row-major, NumDocs × InDim) and the queries of each split.
// Train normalises the vectors in place.
type Data struct {
	InDim   int
	NumDocs int
	Docs    []float32
	Train   []Example
	Valid   []Example
}

// Options configure training. Zero values take the defaults of DefaultOptions.
type Options struct {
	OutDim      int     // output dimension (default 256)
	Tied        bool    // one matrix for queries and documents
	Temperature float64 // InfoNCE temperature (default 0.02)
	LearnRate   float64 // Adam learning rate (default 1e-3)
	BatchSize   int     // queries per batch (default 64)
	GroupSize   int     // passages per query: 1 positive + GroupSize-1 hard negatives (default 4)
	Epochs      int     // maximum epochs (default 10)
	Patience    int     // evaluations without improvement before stopping (default 2)
	EvalEvery   int     // evaluate every this many steps; 0 = once per epoch
	K           int     // recall@K for early stopping (default 5)
	ValidMax    int     // evaluate on at most this many valid queries (default 2000)
	Seed        uint64  // all sampling is deterministic given the seed
	Float64     bool    // train in float64 (slower; for checks)
	// Mix fixes the residual weight λ of the raw cosine (head.Config.Mix);
	// negative (the default) chooses it on the valid split from MixGrid.
	Mix     float64
	MixGrid []float64
}

// DefaultOptions are the defaults of `driftkit train head`.
func DefaultOptions() Options {
	return Options{OutDim: 256, Temperature: 0.02, LearnRate: 1e-3, BatchSize: 64, GroupSize: 4,
		Epochs: 10, Patience: 2, K: 5, ValidMax: 2000, Seed: 1, Mix: -1, MixGrid: []float64{0, 0.25, 0.5, 0.75}}
}

func (o *Options) fill() {
	d := DefaultOptions()
	if o.OutDim <= 0 {
		o.OutDim = d.OutDim
	}
	if o.Temperature <= 0 {
		o.Temperature = d.Temperature
	}
	if o.LearnRate <= 0 {
		o.LearnRate = d.LearnRate
	}
	if o.BatchSize <= 0 {
		o.BatchSize = d.BatchSize
	}
	if o.GroupSize <= 0 {
		o.GroupSize = d.GroupSize
	}
	if o.Epochs <= 0 {
		o.Epochs = d.Epochs
	}
	if o.Patience <= 0 {
		o.Patience = d.Patience
	}
	if o.K <= 0 {
		o.K = d.K
	}
	if o.ValidMax <= 0 {
		o.ValidMax = d.ValidMax
	}
	if len(o.MixGrid) == 0 {
		o.MixGrid = d.MixGrid
	}
}

// LogEntry is one line of head/log.jsonl: an evaluation during training.
type LogEntry struct {
	Epoch       int     `json:"epoch"`
	Step        int     `json:"step"`
	Examples    int64   `json:"examples"`
	TrainLoss   float64 `json:"train_loss,omitempty"` // mean loss since the previous entry
	ValidRecall float64 `json:"valid_recall"`         // recall@K of the valid queries
	ValidMRR    float64 `json:"valid_mrr"`
	K           int     `json:"k"`
	Seconds     float64 `json:"seconds"` // since training started
	Best        bool    `json:"best,omitempty"`
}

// Result is a trained head and how training went.
type Result struct {
	Q, D []float32 // best weights, InDim × OutDim
	// BaselineRecall is recall@K of the raw embeddings (no head);
	// InitialRecall that of the initial projection; BestRecall the kept one.
	BaselineRecall, BaselineMRR float64
	InitialRecall, BestRecall   float64
	BestEpoch, BestStep         int
	// Mix is the residual weight chosen (or fixed) and MixRecall the valid
	// recall@K with it; MixTried maps each λ tried to its recall.
	Mix        float64
	MixRecall  float64
	MixTried   map[string]float64
	Steps      int
	Examples   int64
	Log        []LogEntry
	StopReason string
	Seconds    float64
}

// ErrNoData is returned when there is nothing to train or validate on.
var ErrNoData = errors.New("no training data")

// ErrNoValid (wrapping ErrNoData) is returned when the pairs have no valid
// split to stop early on.
var ErrNoValid = fmt.Errorf("%w: no valid queries for early stopping", ErrNoData)

// ErrDiverged is returned when the loss becomes NaN or infinite: the
// learning rate is too high for the data.
var ErrDiverged = errors.New("training diverged")

// Train fits a projection head on d. onLog, if not nil, is called for every
// evaluation (the first is before any step). Cancelling ctx stops training
// and returns ctx's error.
func Train(ctx context.Context, d *Data, opt Options, onLog func(LogEntry)) (*Result, error) {
	opt.fill()
	if err := d.check(); err != nil {
		return nil, err
	}
	start := time.Now()
	in, out := d.InDim, opt.OutDim
	normaliseRows(d.Docs, in)
	for _, ex := range [][]Example{d.Train, d.Valid} {
		for i := range ex {
			head.Normalise(ex[i].Query)
		}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	valid := d.Valid
	if len(valid) > opt.ValidMax {
		valid = slices.Clone(valid)
		rng.Shuffle(len(valid), func(i, j int) { valid[i], valid[j] = valid[j], valid[i] })
		valid = valid[:opt.ValidMax]
	}
	res := &Result{}
	res.BaselineRecall, res.BaselineMRR = evaluate(valid, d.Docs, d.NumDocs, in, nil, opt.K)

	b := min(opt.BatchSize, len(d.Train))
	g := opt.GroupSize
	q0 := initWeights(rng, in, out)
	dt := tensor.Float32
	if opt.Float64 {
		dt = tensor.Float64
	}
	m, err := newModel(dt, b, b*g, in, out, opt.Tied, opt.Temperature, q0, q0, opt.LearnRate)
	if err != nil {
		return nil, err
	}
	defer m.close()

	stepsPerEpoch := len(d.Train) / b
	bar := progress.Start(ctx, "train head", int64(stepsPerEpoch*opt.Epochs))
	defer bar.Finish()
	evalNow := func(epoch, step int, loss float64) (improved bool) {
		q, dw := m.weights()
		h, _ := head.New(head.Config{InDim: in, OutDim: out, Tied: opt.Tied}, q, dw)
		r, mrr := evaluate(valid, d.Docs, d.NumDocs, in, h, opt.K)
		e := LogEntry{Epoch: epoch, Step: step, Examples: res.Examples, TrainLoss: loss, ValidRecall: r, ValidMRR: mrr,
			K: opt.K, Seconds: time.Since(start).Seconds()}
		if step == 0 {
			res.InitialRecall = r
		}
		if step == 0 || r > res.BestRecall {
			res.BestRecall, res.BestEpoch, res.BestStep = r, epoch, step
			res.Q, res.D = q, dw
			e.Best, improved = true, true
		}
		res.Log = append(res.Log, e)
		if onLog != nil {
			onLog(e)
		}
		return improved
	}
	evalNow(0, 0, 0)
	order := make([]int, len(d.Train))
	for i := range order {
		order[i] = i
	}
	bt := newBatch(b, b*g, in)
	docs := make([]int32, b*g)
	var lossSum float64
	var lossN, sinceBest int
	res.StopReason = "epochs"
train:
	for epoch := 1; epoch <= opt.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for s := 0; s+b <= len(order); s += b {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fillBatch(rng, d, order[s:s+b], g, bt, docs)
			loss, err := m.step(bt)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("%w: the loss became %v at epoch %d step %d", ErrDiverged, loss, epoch, res.Steps+1)
			}
			res.Steps++
			res.Examples += int64(b)
			lossSum += loss
			lossN++
			bar.Add(1)
			bar.Describe(fmt.Sprintf("epoch %d loss %.4f", epoch, lossSum/float64(lossN)))
			if opt.EvalEvery > 0 && res.Steps%opt.EvalEvery == 0 {
				if evalNow(epoch, res.Steps, lossSum/float64(lossN)) {
					sinceBest = 0
				} else if sinceBest++; sinceBest >= opt.Patience {
					res.StopReason = "patience"
					break train
				}
				lossSum, lossN = 0, 0
			}
		}
		if opt.EvalEvery == 0 {
			if evalNow(epoch, res.Steps, lossSum/float64(max(lossN, 1))) {
				sinceBest = 0
			} else if sinceBest++; sinceBest >= opt.Patience {
				res.StopReason = "patience"
				break
			}
			lossSum, lossN = 0, 0
		}
	}
	// Residual mix: λ·raw + (1−λ)·head, fixed or chosen on the valid split.
	grid := opt.MixGrid
	if opt.Mix >= 0 {
		grid = []float64{opt.Mix}
	}
	res.MixTried = map[string]float64{}
	res.MixRecall = -1
	for _, lam := range grid {
		h, err := head.New(head.Config{InDim: in, OutDim: out, Tied: opt.Tied, Mix: lam}, res.Q, res.D)
		if err != nil {
			return nil, err
		}
		r, _ := evaluate(valid, d.Docs, d.NumDocs, in, h, opt.K)
		res.MixTried[fmt.Sprintf("%.2f", lam)] = r
		if r > res.MixRecall {
			res.Mix, res.MixRecall = lam, r
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (d *Data) check() error {
	if d.InDim <= 0 || d.NumDocs <= 0 || len(d.Docs) != d.NumDocs*d.InDim {
		return fmt.Errorf("%w: %d document values for %d documents of dimension %d", ErrNoData, len(d.Docs), d.NumDocs, d.InDim)
	}
	if len(d.Train) == 0 {
		return fmt.Errorf("%w: no training queries with positives", ErrNoData)
	}
	if len(d.Valid) == 0 {
		return ErrNoValid
	}
	for _, ex := range [][]Example{d.Train, d.Valid} {
		for _, e := range ex {
			if len(e.Query) != d.InDim {
				return fmt.Errorf("train: query %s has dimension %d, documents %d", e.ID, len(e.Query), d.InDim)
			}
			if len(e.Pos) == 0 {
				return fmt.Errorf("train: query %s has no positives", e.ID)
			}
			for _, p := range slices.Concat(e.Pos, e.Neg) {
				if p < 0 || int(p) >= d.NumDocs {
					return fmt.Errorf("train: query %s refers to document %d of %d", e.ID, p, d.NumDocs)
				}
			}
		}
	}
	return nil
}

// initWeights draws a Gaussian projection scaled so that, by
// Johnson–Lindenstrauss, initial cosines approximate the raw ones; queries and
// documents start from the same matrix.
func initWeights(rng *rand.Rand, in, out int) []float32 {
	w := make([]float32, in*out)
	if in == out {
		// Start from the identity plus a little noise: the head begins as
		// the raw encoder.
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.01 / math.Sqrt(float64(out)))
		}
		for i := 0; i < in; i++ {
			w[i*out+i] += 1
		}
		return w
	}
	s := 1 / math.Sqrt(float64(out))
	for i := range w {
		w[i] = float32(rng.NormFloat64() * s)
	}
	return w
}

func normaliseRows(v []float32, dim int) {
	for i := 0; i+dim <= len(v); i += dim {
		head.Normalise(v[i : i+dim])
	}
}

// fillBatch lays out queries idx as a batch: query i's passages are its target
// positive (chosen at random among its positives) then g-1 negatives (its
// mined negatives first, random documents when it has too few). Passages that
// are positives of a query, other than its target, are masked for it.
func fillBatch(rng *rand.Rand, d *Data, idx []int, g int, bt *batch, docs []int32) {
	in := d.InDim
	b := len(idx)
	p := b * g
	for i, k := range idx {
		ex := &d.Train[k]
		copy(bt.xq[i*in:(i+1)*in], ex.Query)
		docs[i*g] = ex.Pos[rng.IntN(len(ex.Pos))]
		negs := docs[i*g+1 : (i+1)*g]
		n := 0
		if len(ex.Neg) <= len(negs) {
			n = copy(negs, ex.Neg)
		} else {
			for _, j := range rng.Perm(len(ex.Neg))[:len(negs)] {
				negs[n] = ex.Neg[j]
				n++
			}
		}
		for tries := 0; n < len(negs) && tries < 100*len(negs); tries++ {
			c := int32(rng.IntN(d.NumDocs))
			if !slices.Contains(ex.Pos, c) {
				negs[n] = c
				n++
			}
		}
		for ; n < len(negs); n++ { // a corpus of only positives: masked below
			negs[n] = ex.Pos[0]
		}
	}
	for j, doc := range docs {
		copy(bt.xp[j*in:(j+1)*in], d.Docs[int(doc)*in:(int(doc)+1)*in])
	}
	clear(bt.mask)
	clear(bt.y)
	for i, k := range idx {
		pos := d.Train[k].Pos
		bt.y[i*p+i*g] = 1
		for j, doc := range docs {
			if j != i*g && slices.Contains(pos, doc) {
				bt.mask[i*p+j] = maskValue
			}
		}
	}
}

// evaluate returns mean recall@k and MRR (of the first positive) of the
// queries against all documents, through h (nil: raw embeddings). Vectors
// must be normalised.
func evaluate(qs []Example, docs []float32, n, in int, h *head.Head, k int) (recall, mrr float64) {
	if len(qs) == 0 {
		return 0, 0
	}
	dim := in
	dv := docs
	qv := make([]float32, 0, len(qs)*in)
	for _, q := range qs {
		qv = append(qv, q.Query...)
	}
	if h != nil {
		dim = h.Dim()
		dv, _ = h.ProjectDocuments(docs, n)
		qv, _ = h.ProjectQueries(qv, len(qs))
	}
	const chunk = 64
	scores := make([]float32, chunk*n)
	for s := 0; s < len(qs); s += chunk {
		c := min(chunk, len(qs)-s)
		blas32.Gemm(blas.NoTrans, blas.Trans, 1,
			blas32.General{Rows: c, Cols: dim, Stride: dim, Data: qv[s*dim : (s+c)*dim]},
			blas32.General{Rows: n, Cols: dim, Stride: dim, Data: dv},
			0, blas32.General{Rows: c, Cols: n, Stride: n, Data: scores[:c*n]})
		for i := 0; i < c; i++ {
			row := scores[i*n : (i+1)*n]
			pos := qs[s+i].Pos
			top := topK(row, k)
			hit := 0
			for _, t := range top {
				if slices.Contains(pos, int32(t)) {
					hit++
				}
			}
			recall += float64(hit) / float64(len(pos))
			// rank of the best positive: 1 + number of documents scoring higher
			best := float32(math.Inf(-1))
			for _, p := range pos {
				best = max(best, row[p])
			}
			rank := 1
			for _, v := range row {
				if v > best {
					rank++
				}
			}
			mrr += 1 / float64(rank)
		}
	}
	return recall / float64(len(qs)), mrr / float64(len(qs))
}

// topK returns the indices of the k largest values, best first (ties by index).
func topK(v []float32, k int) []int {
	k = min(k, len(v))
	top := make([]int, 0, k+1)
	for i, x := range v {
		if len(top) == k && x <= v[top[k-1]] {
			continue
		}
		j := len(top)
		for j > 0 && v[top[j-1]] < x {
			j--
		}
		top = slices.Insert(top, j, i)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
