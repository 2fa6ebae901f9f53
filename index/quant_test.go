package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/viterin/vek/vek32"

	"github.com/driftkit/driftkit/retrieval"
)

// The int8 kernel gives q8Dot's exact sums, at the codes' extremes too.
func TestQ8KernelMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{32, 64, 256, 1024} {
		for trial := range 200 {
			row, q := make([]int8, n), make([]uint8, n)
			for i := range n {
				if trial%4 == 0 { // the extremes: the largest int16 pair sums
					row[i] = int8(127 - 254*(i%2))
					q[i] = uint8(1 + 126*((i+trial/4)%2))
				} else {
					row[i] = int8(rng.IntN(255) - 127)
					q[i] = uint8(1 + rng.IntN(127))
				}
			}
			if got, want := q8Dot1(row, q), q8Dot(row, q); got != want {
				t.Fatalf("n=%d trial %d: q8Dot1 %d, q8Dot %d", n, trial, got, want)
			}
		}
	}
}

// The filter kernel keeps every row whose float64 upper bound reaches its
// threshold (it may keep more: its float32 test is widened), and none
// whose threshold is +Inf.
func TestQ8FilterKeepsWhatTheBoundKeeps(t *testing.T) {
	if !haveQ8 {
		t.Skip("no int8 kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dim := range []int{32, 256, 1024} {
		const rows = q8Block * 4
		vecs := quantTestVectors(rng, rows, dim)
		q8 := quantizeRows(vecs, rows, dim)
		thr := make([]float32, q8Block)
		out := make([]uint8, q8Block/4)
		kept, extra := 0, 0
		for trial := range 50 {
			q, _ := quantizeQuery(vecs[rng.IntN(rows)*dim:][:dim])
			c := q.consts()
			for r0 := 0; r0 < rows; r0 += q8Block {
				his := make([]float64, q8Block)
				for i := range thr {
					r := r0 + i
					_, his[i] = q.bounds(&q8.rows[r], q8Dot(q8.codes[r*dim:(r+1)*dim], q.codes))
					switch trial % 3 {
					case 0: // thresholds at the bounds themselves, a float32 step either side
						thr[i] = math.Nextafter32(float32(his[i]), float32(math.Inf(2*(i%2)-1)))
					case 1:
						thr[i] = float32(his[i]) + float32(rng.NormFloat64())*0.01
					default:
						thr[i] = float32(math.Inf(1 - 2*(i%2)))
					}
				}
				// Each row its own class, the thresholds read through them.
				var cls [q8Block]uint8
				var thrOf [256]float32
				for i := range thr {
					cls[i] = uint8(255 - i - r0/q8Block)
					thrOf[cls[i]] = thr[i]
				}
				q8Filter(q8, r0, q8Block, &q, &c, cls[:], &thrOf, out)
				for i := range thr {
					got := out[i/4]&(1<<(i%4)) != 0
					want := his[i] >= float64(thr[i])
					switch {
					case want && !got:
						t.Fatalf("dim %d trial %d row %d: hi %v ≥ thr %v dropped", dim, trial, r0+i, his[i], thr[i])
					case got && math.IsInf(float64(thr[i]), 1):
						t.Fatalf("dim %d row %d kept at threshold +Inf", dim, r0+i)
					case got && !want:
						extra++
					case got:
						kept++
					}
				}
			}
		}
		if kept == 0 || extra > kept {
			t.Errorf("dim %d: %d rows kept, %d more by the widening: the test or the margin is off", dim, kept, extra)
		}
	}
}

// quantTestVectors are rows × dim vectors with what breaks a careless
// bound: normalised and unnormalised rows, rows dominated by one value
// (coarse codes), a zero row, exact duplicates (equal scores: the doc-id
// tie-break), and rows equal after quantization but not before.
func quantTestVectors(rng *rand.Rand, rows, dim int) []float32 {
	vecs := make([]float32, rows*dim)
	for r := range rows {
		v := vecs[r*dim : (r+1)*dim]
		scale := float32(math.Pow(10, float64(rng.IntN(5)-2)))
		for i := range v {
			v[i] = (rng.Float32()*2 - 1) * scale
		}
		switch r % 7 {
		case 0:
			normalizeForTest(v)
		case 1:
			v[rng.IntN(dim)] = 50 * scale
		case 2:
			if r >= 14 {
				copy(v, vecs[(r-14)*dim:(r-13)*dim])
			}
		case 3:
			if r >= 7 {
				copy(v, vecs[(r-7)*dim:(r-6)*dim])
				v[rng.IntN(dim)] += 1e-6 * scale
			}
		}
	}
	if rows > 5 {
		clear(vecs[5*dim : 6*dim])
	}
	return vecs
}

// Every row's exact float32 score lies in its int8 interval.
func TestQ8BoundsHold(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{32, 256, 768} {
		const rows = 300
		vecs := quantTestVectors(rng, rows, dim)
		q8 := quantizeRows(vecs, rows, dim)
		for trial := range 20 {
			v := append([]float32(nil), vecs[rng.IntN(rows)*dim:][:dim]...)
			for i := range v {
				v[i] += (rng.Float32()*2 - 1) * float32(trial) / 10
			}
			q, ok := quantizeQuery(v)
			if !ok {
				t.Fatal("finite query refused")
			}
			for r := range rows {
				row := vecs[r*dim : (r+1)*dim]
				exact := float64(vek32.Dot(v, row))
				lo, hi := q.bounds(&q8.rows[r], q8Dot(q8.codes[r*dim:(r+1)*dim], q.codes))
				if !(lo <= exact && exact <= hi) {
					t.Fatalf("dim %d trial %d row %d: exact %v outside [%v, %v]", dim, trial, r, exact, lo, hi)
				}
			}
		}
	}
}

// The int8 pass answers exactly what the float32 scan answers, list for
// list and bit for bit, for full and subset stores, several selections,
// requests asking for nothing, a query that is not finite, and many equal
// scores. Row counts that are not multiples of 4 or of the 64-row block
// (and stores too small for the kernel) run the Go tail loop; query 0 is the
// last row itself, so the tail holds the best row.
func TestQuantizedScanIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][2]int{{32, 3001}, {256, 3001}, {32, 1}, {32, 3}, {256, 67}, {32, 130}} {
		dim, rows := shape[0], shape[1]
		vecs := quantTestVectors(rng, rows, dim)
		var docs []int32
		for d := 0; d < rows; d += 3 {
			docs = append(docs, int32(d))
		}
		var sub []float32
		for _, d := range docs {
			sub = append(sub, vecs[int(d)*dim:(int(d)+1)*dim]...)
		}
		stores := map[string]*Store{"full": NewStore(vecs, rows, dim), "subset": newSubsetStore(sub, dim, docs, rows)}
		var qs [][]float32
		var bs []*retrieval.Batch
		for i := range 11 {
			v := append([]float32(nil), vecs[rng.IntN(rows)*dim:][:dim]...)
			if i == 0 {
				copy(v, vecs[(rows-1)*dim:])
			}
			if i%2 == 1 {
				for j := range v {
					v[j] += (rng.Float32()*2 - 1) * 0.1
				}
			}
			if i == 6 {
				v[1] = float32(math.Inf(1))
			}
			class := make([]uint8, rows)
			for d := range class {
				class[d] = uint8((d*(i+3)/7 + i) % 3)
			}
			reqs := []retrieval.Request{{K: 1 + i*i*3}, {K: 1 + i%4}}
			switch i {
			case 2:
				reqs = reqs[:1]
			case 4:
				reqs[1].K = 0
			case 8:
				reqs[0].K = rows // every row
			}
			qs = append(qs, v)
			bs = append(bs, &retrieval.Batch{Requests: reqs, Class: class})
		}
		for name, s := range stores {
			for _, n := range []int{1, 3, 4, 5, len(qs)} {
				exact := make([][][]retrieval.Scored, n)
				for i := range n {
					tops := bs[i].NewTops()
					s.scan(qs[i], bs[i].Class, tops)
					exact[i] = retrieval.SortedAll(tops)
				}
				q8 := quantizeRows(s.vecs, s.rows, dim)
				classes := make([][]uint8, n)
				tops := make([][]*retrieval.TopK, n)
				for i := range n {
					classes[i], tops[i] = bs[i].Class, bs[i].NewTops()
				}
				s.scanQuantized(q8, qs[:n], classes, nil, nil, tops)
				for i := range n {
					if got := retrieval.SortedAll(tops[i]); !reflect.DeepEqual(got, exact[i]) {
						t.Fatalf("dim %d, %d rows, %s, %d queries, query %d:\n int8 pass %v\n     exact %v", dim, rows, name, n, i, got, exact[i])
					}
				}
				// The same through shared classes that differ at patched
				// documents (a mining batch's exclusions).
				shared, patched := make([][]uint8, n), make([][]int32, n)
				for i := range n {
					tops[i] = bs[i].NewTops()
					if i%2 == 1 {
						continue
					}
					shared[i] = slices.Clone(classes[i])
					for range 40 {
						d := rng.IntN(rows)
						shared[i][d] = uint8(rng.IntN(3))
						if shared[i][d] != classes[i][d] && !slices.Contains(patched[i], int32(d)) {
							patched[i] = append(patched[i], int32(d))
						}
					}
					slices.Sort(patched[i])
				}
				s.scanQuantized(q8, qs[:n], classes, shared, patched, tops)
				for i := range n {
					if got := retrieval.SortedAll(tops[i]); !reflect.DeepEqual(got, exact[i]) {
						t.Fatalf("dim %d, %d rows, %s, %d queries, query %d:\n int8 pass %v\n     exact %v", dim, rows, name, n, i, got, exact[i])
					}
				}
			}
		}
	}
}

// Vectors with a value that is not finite are not quantized: the exact
// scan's answer then depends on where NaNs fall in its heap.
func TestQuantizeRefusesNaN(t *testing.T) {
	vecs := quantTestVectors(rand.New(rand.NewPCG(1, 1)), 100, 32)
	if quantizeRows(vecs, 100, 32) == nil {
		t.Fatal("finite vectors refused")
	}
	vecs[77*32+5] = float32(math.NaN())
	if quantizeRows(vecs, 100, 32) != nil {
		t.Fatal("a NaN quantized")
	}
}

// Once a multi-query pass made the int8 copy, SearchDense and
// SearchDenseMany both go through it and still answer the exact scan.
func TestStoreUsesQuantizedCopy(t *testing.T) {
	if !haveQ8 {
		t.Skip("no int8 kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, dim = 2000, 64
	vecs := quantTestVectors(rng, rows, dim)
	s := NewStore(vecs, rows, dim)
	class := make([]uint8, rows)
	for d := range class {
		class[d] = uint8(1 + d%2)
	}
	b := &retrieval.Batch{Requests: []retrieval.Request{{K: 50}, {K: 5}}, Class: class}
	q := vecs[3*dim : 4*dim]
	before, _ := s.SearchDense(context.Background(), q, b)
	if s.q8.Load() != nil {
		t.Fatal("a single query made the int8 copy")
	}
	many, err := s.SearchDenseMany(context.Background(), [][]float32{q, vecs[:dim]}, []*retrieval.Batch{b, b})
	if err != nil {
		t.Fatal(err)
	}
	if s.q8.Load() == nil {
		t.Fatal("a pass for two queries made no int8 copy")
	}
	after, _ := s.SearchDense(context.Background(), q, b)
	if !reflect.DeepEqual(before, after) || !reflect.DeepEqual(before, many[0]) {
		t.Fatalf("exact %v\nint8 single %v\nint8 many %v", before, after, many[0])
	}
}

// BenchmarkQ8Dot compares the int8 kernel and filter with the float32
// kernel, per row and query, over rows of a 256-dimensional store.
func BenchmarkQ8Dot(b *testing.B) {
	const dim, rows = 256, 30000
	rng := rand.New(rand.NewPCG(1, 1))
	vecs := quantTestVectors(rng, rows, dim)
	q8 := quantizeRows(vecs, rows, dim)
	qs := make([]q8Query, 4)
	for i := range qs {
		qs[i], _ = quantizeQuery(vecs[i*dim : (i+1)*dim])
	}
	var out [4]int32
	var out3 [3]float32
	b.Run("q8x1", func(b *testing.B) {
		for b.Loop() {
			for r := range rows {
				out[0] = q8Dot1(q8.codes[r*dim:(r+1)*dim], qs[0].codes)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row-query")
	})
	b.Run("filter", func(b *testing.B) {
		var thrOf [256]float32
		thrOf[1] = 0.5
		cls := make([]uint8, q8Block)
		for i := range cls {
			cls[i] = 1
		}
		fo := make([]uint8, q8Block/4)
		c := qs[0].consts()
		for b.Loop() {
			for r0 := 0; r0+q8Block <= rows; r0 += q8Block {
				q8Filter(q8, r0, q8Block, &qs[0], &c, cls, &thrOf, fo)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row-query")
	})
	b.Run("f32x3", func(b *testing.B) {
		for b.Loop() {
			for r := range rows {
				dot3(vecs[:dim], vecs[dim:2*dim], vecs[2*dim:3*dim], vecs[r*dim:(r+1)*dim], &out3)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows*3), "ns/row-query")
	})
}

// BenchmarkQuantizedScanMany is BenchmarkDenseScanMany's pass for 1, 8 and
// 64 queries, exact and through the int8 copy, over 250k × 256 vectors
// whose scores spread like real embeddings' (rows near a few centres).
func BenchmarkQuantizedScanMany(b *testing.B) {
	const rows, dim = 250_000, 256
	rng := rand.New(rand.NewPCG(2, 2))
	centres := make([][]float32, 64)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = rng.Float32()*2 - 1
		}
	}
	vecs := make([]float32, rows*dim)
	for r := range rows {
		v := vecs[r*dim : (r+1)*dim]
		c := centres[rng.IntN(len(centres))]
		for j := range v {
			v[j] = c[j]*0.3 + rng.Float32()*2 - 1
		}
		normalizeForTest(v)
	}
	s := NewStore(vecs, rows, dim)
	class := make([]uint8, rows)
	for i := range class {
		class[i] = uint8(1 + i%5/4)
	}
	q8 := quantizeRows(vecs, rows, dim)
	for _, nq := range []int{1, 8, 64} {
		qs := make([][]float32, nq)
		classes := make([][]uint8, nq)
		for i := range qs {
			qs[i] = vecs[(i*7919%rows)*dim:][:dim]
			classes[i] = class
		}
		newTops := func() [][]*retrieval.TopK {
			tops := make([][]*retrieval.TopK, nq)
			for i := range tops {
				tops[i] = []*retrieval.TopK{retrieval.NewTopK(200), retrieval.NewTopK(20)}
			}
			return tops
		}
		b.Run(fmt.Sprintf("exact/%d", nq), func(b *testing.B) {
			for b.Loop() {
				s.scanMany(qs, classes, newTops())
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*nq), "ms/query")
		})
		b.Run(fmt.Sprintf("int8/%d", nq), func(b *testing.B) {
			for b.Loop() {
				s.scanQuantized(q8, qs, classes, nil, nil, newTops())
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*nq), "ms/query")
		})
	}
}

// A row of subnormal values quantizes to zero codes with the row as its
// error (1/scale would overflow), and its bounds hold; a query of the
// wrong length is refused before any kernel reads it.
func TestQ8SubnormalRowAndQueryLength(t *testing.T) {
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i%3-1) * 0x1p-140
	}
	codes := make([]int8, len(x))
	row, ok := quantizeRow(x, codes)
	if !ok || row.scale != 0 || row.sum != 0 || slices.ContainsFunc(codes, func(c int8) bool { return c != 0 }) {
		t.Fatalf("subnormal row: %+v %v %v", row, codes, ok)
	}
	v := make([]float32, 32)
	v[1] = 1
	q, _ := quantizeQuery(v)
	lo, hi := q.bounds(&row, q8Dot(codes, q.codes))
	if exact := float64(vek32.Dot(x, v)); exact < lo || exact > hi {
		t.Fatalf("exact %g outside [%g, %g]", exact, lo, hi)
	}
	s := NewStore(make([]float32, 4*32), 4, 32)
	b := &retrieval.Batch{Requests: []retrieval.Request{{K: 2}}, Class: []uint8{1, 1, 1, 1}}
	if _, err := s.SearchDense(context.Background(), make([]float32, 31), b); err == nil {
		t.Fatal("SearchDense took a query of 31 values for 32")
	}
	if _, err := s.SearchDenseMany(context.Background(), [][]float32{make([]float32, 32), make([]float32, 8)}, []*retrieval.Batch{b, b}); err == nil {
		t.Fatal("SearchDenseMany took a query of 8 values for 32")
	}
}
