package train

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// maskValue is added to the scores of in-batch documents that are positives of
// the query but not its target, so that they do not count as negatives.
const maskValue = -1e4

// model is the Gorgonia graph of the contrastive objective for one batch
// shape: B queries against P = B·G passages (each query's target positive
// followed by its G-1 negatives; every passage is an in-batch negative for the
// other queries).
//
//	zq = xq·Wq, zp = xp·Wd (Wd = Wq when tied)
//	S  = normalise(zq)·normalise(zp)ᵀ/τ − 1/τ + M
//	L  = mean_i [ log Σ_j exp(S_ij) − Σ_j Y_ij S_ij ]
//
// Workarounds for gorgonia v0.9.18: the L2 norm is written with Sqrt and a
// division (InverseSqrt has a wrong gradient) and the log-sum-exp is written
// by hand (tensor.SoftMax subtracts the first element, not the row maximum).
// Cosines are bounded, so subtracting the constant 1/τ keeps exp in range
// without a maximum.
//
// A model is not safe for concurrent use.
type model struct {
	dt         tensor.Dtype
	b, p       int
	in, out    int
	tied       bool
	g          *gorgonia.ExprGraph
	xq, xp     *gorgonia.Node
	mask, y    *gorgonia.Node
	wq, wd     *gorgonia.Node
	loss       *gorgonia.Node
	learnables gorgonia.Nodes
	vm         gorgonia.VM
	solver     gorgonia.Solver
	lossVal    gorgonia.Value

	// Input tensors, bound once; their backing arrays are refilled per batch.
	xqT, xpT, maskT, yT *tensor.Dense
}

func newDense(dt tensor.Dtype, rows, cols int) *tensor.Dense {
	if dt == tensor.Float64 {
		return tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(make([]float64, rows*cols)))
	}
	return tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(make([]float32, rows*cols)))
}

func denseFrom(dt tensor.Dtype, rows, cols int, v []float32) *tensor.Dense {
	t := newDense(dt, rows, cols)
	setDense(t, v)
	return t
}

// setDense copies v into the backing array of t.
func setDense(t *tensor.Dense, v []float32) {
	switch d := t.Data().(type) {
	case []float64:
		for i, x := range v {
			d[i] = float64(x)
		}
	case []float32:
		copy(d, v)
	}
}

// getDense copies the backing array of t out as float32.
func getDense(t tensor.Tensor) []float32 {
	switch d := t.Data().(type) {
	case []float64:
		out := make([]float32, len(d))
		for i, x := range d {
			out[i] = float32(x)
		}
		return out
	case []float32:
		return append([]float32(nil), d...)
	}
	return nil
}

func scalar(dt tensor.Dtype, v float64) any {
	if dt == tensor.Float64 {
		return v
	}
	return float32(v)
}

// newModel builds the graph. q0 and d0 are the initial weights (in × out,
// row-major); d0 is ignored when tied. With lr == 0 no solver is attached
// (gradient checks).
func newModel(dt tensor.Dtype, b, p, in, out int, tied bool, tau float64, q0, d0 []float32, lr float64) (m *model, err error) {
	defer func() {
		// Gorgonia reports some shape errors by panicking.
		if r := recover(); r != nil {
			err = fmt.Errorf("train: building the graph: %v", r)
		}
	}()
	if p%b != 0 {
		return nil, fmt.Errorf("train: %d passages is not a multiple of %d queries", p, b)
	}
	m = &model{dt: dt, b: b, p: p, in: in, out: out, tied: tied}
	g := gorgonia.NewGraph()
	m.g = g
	m.xqT, m.xpT = newDense(dt, b, in), newDense(dt, p, in)
	m.maskT, m.yT = newDense(dt, b, p), newDense(dt, b, p)
	m.xq = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(b, in), gorgonia.WithName("xq"), gorgonia.WithValue(m.xqT))
	m.xp = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(p, in), gorgonia.WithName("xp"), gorgonia.WithValue(m.xpT))
	m.mask = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(b, p), gorgonia.WithName("mask"), gorgonia.WithValue(m.maskT))
	m.y = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(b, p), gorgonia.WithName("y"), gorgonia.WithValue(m.yT))
	m.wq = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(in, out), gorgonia.WithName("wq"), gorgonia.WithValue(denseFrom(dt, in, out, q0)))
	m.wd = m.wq
	m.learnables = gorgonia.Nodes{m.wq}
	if !tied {
		m.wd = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(in, out), gorgonia.WithName("wd"), gorgonia.WithValue(denseFrom(dt, in, out, d0)))
		m.learnables = append(m.learnables, m.wd)
	}
	must := gorgonia.Must
	eps := gorgonia.NewConstant(scalar(dt, 1e-12), gorgonia.WithName("eps"))
	normalise := func(z *gorgonia.Node, rows int) *gorgonia.Node {
		ss := must(gorgonia.Sum(must(gorgonia.Square(z)), 1))
		n := must(gorgonia.Sqrt(must(gorgonia.Add(ss, eps))))
		n = must(gorgonia.Reshape(n, tensor.Shape{rows, 1}))
		return must(gorgonia.BroadcastHadamardDiv(z, n, nil, []byte{1}))
	}
	zq := normalise(must(gorgonia.Mul(m.xq, m.wq)), b)
	zp := normalise(must(gorgonia.Mul(m.xp, m.wd)), p)
	cos := must(gorgonia.Mul(zq, must(gorgonia.Transpose(zp))))
	invTau := gorgonia.NewConstant(scalar(dt, 1/tau), gorgonia.WithName("inv_tau"))
	s := must(gorgonia.Sub(must(gorgonia.Mul(cos, invTau)), invTau))
	s = must(gorgonia.Add(s, m.mask))
	lse := must(gorgonia.Log(must(gorgonia.Sum(must(gorgonia.Exp(s)), 1))))
	tgt := must(gorgonia.Sum(must(gorgonia.HadamardProd(s, m.y)), 1))
	m.loss = must(gorgonia.Mean(must(gorgonia.Sub(lse, tgt))))
	gorgonia.Read(m.loss, &m.lossVal)
	if _, err := gorgonia.Grad(m.loss, m.learnables...); err != nil {
		return nil, fmt.Errorf("train: gradient graph: %w", err)
	}
	m.vm = gorgonia.NewTapeMachine(g, gorgonia.BindDualValues(m.learnables...))
	if lr > 0 {
		m.solver = gorgonia.NewAdamSolver(gorgonia.WithLearnRate(lr))
	}
	return m, nil
}

// batch holds one batch of inputs as float32, row-major.
type batch struct {
	xq, xp, mask, y []float32
}

func newBatch(b, p, in int) *batch {
	return &batch{xq: make([]float32, b*in), xp: make([]float32, p*in), mask: make([]float32, b*p), y: make([]float32, b*p)}
}

// forward runs the graph (forward and backward) on a batch and returns the
// loss; gradients are then in the learnables' dual values.
func (m *model) forward(bt *batch) (loss float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("train: running the graph: %v", r)
		}
	}()
	setDense(m.xqT, bt.xq)
	setDense(m.xpT, bt.xp)
	setDense(m.maskT, bt.mask)
	setDense(m.yT, bt.y)
	m.vm.Reset()
	if err := m.vm.RunAll(); err != nil {
		return 0, err
	}
	switch v := m.lossVal.Data().(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	}
	return 0, fmt.Errorf("train: loss has type %T", m.lossVal.Data())
}

// step runs one optimisation step on a batch.
func (m *model) step(bt *batch) (float64, error) {
	loss, err := m.forward(bt)
	if err != nil {
		return 0, err
	}
	if err := m.solver.Step(gorgonia.NodesToValueGrads(m.learnables)); err != nil {
		return 0, fmt.Errorf("train: adam step: %w", err)
	}
	return loss, nil
}

// grads returns the gradients of the last forward pass (dL/dWq, dL/dWd; the
// second is nil when tied).
func (m *model) grads() (gq, gd []float32, err error) {
	g, err := m.wq.Grad()
	if err != nil {
		return nil, nil, err
	}
	gq = getDense(g.(tensor.Tensor))
	if !m.tied {
		g, err := m.wd.Grad()
		if err != nil {
			return nil, nil, err
		}
		gd = getDense(g.(tensor.Tensor))
	}
	return gq, gd, nil
}

// weights returns the current weights.
func (m *model) weights() (q, d []float32) {
	q = getDense(m.wq.Value().(tensor.Tensor))
	if m.tied {
		return q, q
	}
	return q, getDense(m.wd.Value().(tensor.Tensor))
}

// close releases the VM.
func (m *model) close() {
	if m.vm != nil {
		m.vm.Close()
	}
}
