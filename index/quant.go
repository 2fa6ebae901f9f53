package index

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"

	"github.com/driftkit/driftkit/retrieval"
)

// The int8 first pass. A search pass that scores every row exactly costs
// 256 float multiply-adds per row and query and reads 1 KiB per row; the
// int8 copy of the vectors is a quarter of the memory and its integer dot
// products are about twice as fast. It only prunes: each row's int8 score
// comes with an interval that surely holds the exact float32 score (what
// vek32.Dot gives, bit for bit), every row whose interval can still reach
// the request's top k is scored again exactly, and the top k is chosen from
// those exact scores by the same TopK. So the answer is the exact scan's,
// ties included:
//
// A row is dropped only when its upper bound is below the k-th best lower
// bound of the request's rows seen so far; then k other rows' exact scores
// are strictly above its exact score, and it is in no top k whatever the
// tie order. The threshold only rises, so a row dropped when it is visited
// stays dropped at the end; the rows kept are filtered once more by the
// final threshold and rescored. The exact top k lies among them, and TopK
// over a superset of it that holds only rows of the request is the top k.
//
// The interval. Row x (float32, n values) is stored as s·c + e: c int8 in
// [-127, 127], s = max|x|/127, e the rounding error; the query v as t·y + f
// with y in [-63, 63] (one side must stay within 7 bits: the kernel's
// VPMADDUBSW adds two u8·s8 products in an int16). Then
//
//	x·v − s·t·(c·y) = x·f + e·(t·y),
//	|x·v − s·t·(c·y)| ≤ ‖x‖·‖f‖ + ‖e‖·‖t·y‖,
//
// c·y is exact (an int32), and the float32 dot product differs from x·v by
// at most γ·Σ|x_i v_i| ≤ γ·‖x‖·‖v‖ for any order of summation, γ = m·u/(1 −
// m·u) with u = 2⁻²⁴ and m ≥ the number of rounded operations on a path (n
// + 2 here; Higham, Accuracy and Stability, §3.1). Norms are summed in
// float64 and stored as float32 rounded up (a relative margin of 2⁻²⁴, far
// above float64's errors in computing them); the bound is then widened by
// a relative 1e-9 for float64's rounding of the products. Vectors with a
// value that is not finite are not quantized (scanned exactly), nor is a
// query that is not finite.
//
// The pass: blocks of 64 rows, each scored against every query by a kernel
// (dotq8_amd64.s) that also tests the upper bound against the row's
// threshold in float32, widened by 1e-5 relatively (more than its
// roundings); the few rows that pass get their interval in float64 here.
//
// Only passes for several queries build the copy (Store.quantized, on the
// first SearchDenseMany: a server under load, mining, evaluation): a cold
// search answers one query and would spend more on quantizing than on
// scanning.

// q8Row is a row's quantization: x ≈ scale·codes, with ‖x‖ ≤ norm and
// ‖x − scale·codes‖ ≤ err (both rounded up), and sum = Σ codes (for the
// query codes' offset). The filter kernel reads it: keep the layout.
type q8Row struct {
	scale, norm, err float32
	sum              int32
}

// q8Store is the int8 copy of a Store's vectors.
type q8Store struct {
	codes []int8
	rows  []q8Row
	dim   int
}

// q8QueryMax is the largest query code: y in [-63, 63], stored offset by
// q8QueryOffset as the kernel's unsigned operand (1 … 127).
const (
	q8QueryMax    = 63
	q8QueryOffset = 64
)

// q8Slack widens every bound relatively, for float64's rounding of the
// bound's own products.
const q8Slack = 1e-9

// quantized returns the store's int8 copy, made on the first call (nil when
// the vectors cannot be: a dimension the kernel does not take).
func (s *Store) quantized() *q8Store {
	s.q8once.Do(func() {
		// At most 2048 values: |c·y| ≤ 2048·127·63 < 2²⁴, exact in the
		// kernel's float32.
		if s.dim%32 == 0 && s.dim > 0 && s.dim <= 2048 && haveQ8 {
			s.q8.Store(quantizeRows(s.vecs, s.rows, s.dim))
		}
	})
	return s.q8.Load()
}

// quantizeRows makes the int8 copy of rows × dim vectors, on every CPU;
// nil when a value is not finite (the exact scan's order among NaNs is its
// insertion order, which a pass that rescored only some rows would not
// repeat).
func quantizeRows(vecs []float32, rows, dim int) *q8Store {
	q := &q8Store{codes: make([]int8, rows*dim), rows: make([]q8Row, rows), dim: dim}
	workers := max(1, min(runtime.GOMAXPROCS(0), rows/4096))
	var wg sync.WaitGroup
	var bad atomic.Bool
	for w := range workers {
		lo, hi := rows*w/workers, rows*(w+1)/workers
		wg.Go(func() {
			for r := lo; r < hi && !bad.Load(); r++ {
				var ok bool
				if q.rows[r], ok = quantizeRow(vecs[r*dim:(r+1)*dim], q.codes[r*dim:(r+1)*dim]); !ok {
					bad.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() {
		return nil
	}
	return q
}

// quantizeRow writes x's codes and returns its scale and bounds; ok is
// false when x is not finite. (Any codes would do: the bounds are those of
// the codes written. Float32 rounding half away from zero keeps it quick.)
func quantizeRow(x []float32, codes []int8) (_ q8Row, ok bool) {
	var amax float32
	for _, v := range x {
		a := max(v, -v)
		if !(a <= math.MaxFloat32) {
			return q8Row{}, false
		}
		amax = max(amax, a)
	}
	scale := amax / 127
	var inv float32
	if scale >= 0x1p-126 {
		inv = 1 / scale
	} else {
		// A subnormal scale (1/scale overflows): every code 0, the whole
		// row its error.
		scale = 0
	}
	var ss, es float64
	var sum int32
	for i, v := range x {
		y := v * inv
		var c int32
		if y >= 0 {
			c = min(int32(y+0.5), 127)
		} else {
			c = max(int32(y-0.5), -127)
		}
		codes[i] = int8(c)
		sum += c
		e := float64(v) - float64(scale)*float64(c)
		ss += float64(v) * float64(v)
		es += e * e
	}
	return q8Row{scale: scale, norm: roundUp32(math.Sqrt(ss)), err: roundUp32(math.Sqrt(es)), sum: sum}, true
}

// roundUp32 is a float32 not below x.
// (one float32 step above the nearest: at least 2⁻²⁵ relatively above x,
// more than float64's error in summing 1024 squares).
func roundUp32(x float64) float32 {
	if x == 0 {
		return 0
	}
	return math.Nextafter32(float32(x), float32(math.Inf(1)))
}

// q8Query is a query's quantization and the parts of its bound.
type q8Query struct {
	codes []uint8 // y + q8QueryOffset
	// t is the query's scale; fNorm bounds ‖f‖ + γ‖v‖ and tyNorm ‖t·y‖.
	t, fNorm, tyNorm float64
}

// quantizeQuery quantizes v; ok is false for a query that is not finite
// (it is scanned exactly).
func quantizeQuery(v []float32) (q q8Query, ok bool) {
	var amax float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return q, false
		}
		amax = max(amax, math.Abs(float64(x)))
	}
	q.codes = make([]uint8, len(v))
	q.t = amax / q8QueryMax
	var fs, ys, vs float64
	for i, x := range v {
		y := 0.0
		if q.t > 0 {
			y = max(-q8QueryMax, min(q8QueryMax, math.Round(float64(x)/q.t)))
		}
		q.codes[i] = uint8(int(y) + q8QueryOffset)
		f := float64(x) - q.t*y
		fs += f * f
		ys += y * y
		vs += float64(x) * float64(x)
	}
	const u = 1.0 / (1 << 24)
	m := float64(len(v) + 2)
	gamma := m * u / (1 - m*u)
	q.fNorm = (math.Sqrt(fs) + gamma*math.Sqrt(vs)) * (1 + q8Slack)
	q.tyNorm = q.t * math.Sqrt(ys) * (1 + q8Slack)
	return q, true
}

// bounds returns the interval of row r's exact score for q, given the
// kernel's dot product of r's codes with q's offset codes.
func (q *q8Query) bounds(row *q8Row, kernelDot int32) (lo, hi float64) {
	d := kernelDot - q8QueryOffset*row.sum
	a := float64(row.scale) * q.t * float64(d)
	b := (float64(row.norm)*q.fNorm + float64(row.err)*q.tyNorm) * (1 + q8Slack)
	b += math.Abs(a) * q8Slack
	return a - b, a + b
}

// q8Dot is the kernel's dot product of a row's codes with a query's offset
// codes, in Go (the reference of the assembly kernels).
func q8Dot(row []int8, query []uint8) int32 {
	var s int32
	for i, c := range row {
		s += int32(c) * int32(query[i])
	}
	return s
}

// prune is one request's first-pass state: the k best lower bounds seen
// (a min-heap: its root is the threshold once it holds k) and the rows
// whose upper bound reached the threshold when they were seen.
type prune struct {
	k     int
	lows  []float64
	thr   float64
	cands []q8Cand
}

type q8Cand struct {
	row int32
	hi  float64
}

func newPrune(k int) *prune {
	return &prune{k: max(k, 1), lows: make([]float64, 0, max(k, 1)), thr: math.Inf(-1)}
}

// offer takes a row's interval.
func (p *prune) offer(row int, lo, hi float64) {
	if hi < p.thr {
		return
	}
	p.cands = append(p.cands, q8Cand{int32(row), hi})
	h := p.lows
	if len(h) < p.k {
		h = append(h, lo)
		for i := len(h) - 1; i > 0; {
			par := (i - 1) / 2
			if h[par] <= h[i] {
				break
			}
			h[i], h[par] = h[par], h[i]
			i = par
		}
		p.lows = h
		if len(h) == p.k {
			p.thr = h[0]
		}
		return
	}
	if lo <= h[0] {
		return
	}
	h[0] = lo
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		j := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			j = r
		}
		if h[i] <= h[j] {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	p.thr = h[0]
}

// rescore adds the exact score of every kept row that can still enter the
// top k to top.
func (p *prune) rescore(s *Store, q []float32, top *retrieval.TopK) {
	for _, c := range p.cands {
		if c.hi < p.thr {
			continue
		}
		r := int(c.row)
		doc := r
		if s.docs != nil {
			doc = int(s.docs[r])
		}
		top.Add(doc, vek32.Dot(q, s.vecs[r*s.dim:(r+1)*s.dim:(r+1)*s.dim]))
	}
}

// q8Consts are a query's constants as the filter kernel reads them.
type q8Consts struct {
	t, f, ty float32
	abs      uint32  // float32's absolute-value mask
	margin   float32 // relative widening for float32's rounding
}

// q8Margin widens the filter's float32 bound relatively: its five roundings
// (and the float32 threshold's) move it by less than 2⁻²¹ of |a| + b.
const q8Margin = 1e-5

func (q *q8Query) consts() q8Consts {
	return q8Consts{t: float32(q.t), f: float32(q.fNorm), ty: float32(q.tyNorm), abs: 0x7fffffff, margin: q8Margin}
}

// q8Block is how many rows the filter takes per call (out has a byte per
// four).
const q8Block = 64

// q8Filter sets bit i of out[g] when row 4g+i of the block may reach its
// threshold thrOf[cls[4g+i]] (+Inf: not wanted): the kernel's float32
// test, widened, or in Go the float64 bound (never narrower than the
// kernel's would be needed: it is the bound itself). rows is a multiple of
// 4.
func q8Filter(q8 *q8Store, r0, rows int, q *q8Query, c *q8Consts, cls []uint8, thrOf *[256]float32, out []uint8) {
	dim := q8.dim
	_ = cls[rows-1]
	if haveQ8 {
		q8FilterAVX2(&q8.codes[r0*dim], rows, dim, &q.codes[0], &q8.rows[r0], &cls[0], thrOf, c, &out[0])
		return
	}
	for g := range rows / 4 {
		out[g] = 0
		for i := range 4 {
			r := r0 + 4*g + i
			_, hi := q.bounds(&q8.rows[r], q8Dot(q8.codes[r*dim:(r+1)*dim], q.codes))
			if hi >= float64(thrOf[cls[4*g+i]]) {
				out[g] |= 1 << i
			}
		}
	}
}

// scanQuantized is scanMany through the int8 copy: blocks of rows are
// filtered against each query's thresholds by the kernel, the rows that
// pass get their float64 interval, which prunes, and the rows kept are
// scored exactly. Queries that are not finite are scanned exactly. The
// lists are scanMany's, bit for bit.
//
// shared[j] and patched[j] (nil: none) are the batch's Shared and Patched:
// the thresholds of a block are read from the shared classes (one array in
// cache for every query of a mining batch) and patched; a row that passes
// takes its request from classes[j].
func (s *Store) scanQuantized(q8 *q8Store, qs [][]float32, classes [][]uint8, shared [][]uint8, patched [][]int32, tops [][]*retrieval.TopK) {
	dim := s.dim
	qq := make([]q8Query, len(qs))
	consts := make([]q8Consts, len(qs))
	prunes := make([][]*prune, len(qs))
	var live []int
	var exactQs [][]float32
	var exactCl [][]uint8
	var exactTops [][]*retrieval.TopK
	for j, v := range qs {
		var ok bool
		if qq[j], ok = quantizeQuery(v); !ok {
			exactQs, exactCl, exactTops = append(exactQs, v), append(exactCl, classes[j]), append(exactTops, tops[j])
			continue
		}
		live = append(live, j)
		consts[j] = qq[j].consts()
		prunes[j] = make([]*prune, len(tops[j]))
		for c, t := range tops[j] {
			if t != nil {
				prunes[j][c] = newPrune(t.K())
			}
		}
	}
	if len(exactQs) > 0 {
		s.scanMany(exactQs, exactCl, exactTops)
	}
	// thrOf[c] is the threshold of class c's request (+Inf: no request).
	var thrOf [256]float32
	inf := float32(math.Inf(1))
	for c := range thrOf {
		thrOf[c] = inf
	}
	out := make([]uint8, q8Block/4)
	blockCl := make([]uint8, q8Block)
	// cursor[j] is what is left of patched[j] past the blocks done.
	var cursor [][]int32
	if patched != nil {
		cursor = slices.Clone(patched)
	}
	for r0 := 0; r0 < s.rows; r0 += q8Block {
		n := min(q8Block, s.rows-r0)
		nk := n &^ 3
		for _, j := range live {
			ps := prunes[j]
			for c, p := range ps {
				if p != nil && c+1 < len(thrOf) {
					thrOf[c+1] = float32(p.thr)
				}
			}
			// cl[i] is the class of the block's row i.
			var cl []uint8
			switch {
			case s.docs != nil:
				cl = blockCl[:n]
				for i, d := range s.docs[r0 : r0+n] {
					cl[i] = classes[j][d]
				}
			case shared != nil && shared[j] != nil:
				cl = blockCl[:n]
				copy(cl, shared[j][r0:r0+n])
				patch := cursor[j]
				for ; len(patch) > 0 && int(patch[0]) < r0+n; patch = patch[1:] {
					if d := int(patch[0]); d >= r0 {
						cl[d-r0] = classes[j][d]
					}
				}
				cursor[j] = patch
			default:
				cl = classes[j][r0 : r0+n]
			}
			offer := func(i int) {
				if cl[i] == 0 {
					return // no request (an upper bound of +Inf passes +Inf)
				}
				r := r0 + i
				lo, hi := qq[j].bounds(&q8.rows[r], q8Dot1(q8.codes[r*dim:(r+1)*dim:(r+1)*dim], qq[j].codes))
				ps[cl[i]-1].offer(r, lo, hi)
			}
			if nk > 0 {
				q8Filter(q8, r0, nk, &qq[j], &consts[j], cl, &thrOf, out)
				for g := range nk / 4 {
					for m := out[g]; m != 0; m &= m - 1 {
						offer(4*g + bits.TrailingZeros8(m))
					}
				}
			}
			for i := nk; i < n; i++ {
				if thrOf[cl[i]] != inf {
					offer(i)
				}
			}
			for c := range ps {
				if c+1 < len(thrOf) {
					thrOf[c+1] = inf
				}
			}
		}
	}
	for _, j := range live {
		for c, p := range prunes[j] {
			if p != nil {
				p.rescore(s, qs[j], tops[j][c])
			}
		}
	}
}
