package index

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
)

func TestNPYHeaderBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.npy")
	data := []float32{1, -2, 0.5, 3, 4, 5}
	if err := WriteNPY(p, data, 2, 3); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	want := []byte("\x93NUMPY\x01\x00")
	// 10 bytes of prefix + 59 of dict + newline = 70 > 64: padded to 128.
	hl := 128 - 10
	want = append(want, byte(hl), byte(hl>>8))
	want = append(want, dict...)
	want = append(want, bytes.Repeat([]byte(" "), hl-len(dict)-1)...)
	want = append(want, '\n')
	if len(dict) != 59 || !bytes.Equal(b[:128], want) {
		t.Fatalf("header\n got %q\nwant %q", b[:128], want)
	}
	if len(b) != 128+4*6 {
		t.Fatalf("file is %d bytes", len(b))
	}
	// Data little-endian float32: -2 is 0xc0000000.
	if !bytes.Equal(b[132:136], []byte{0, 0, 0, 0xc0}) {
		t.Errorf("second value bytes %x", b[132:136])
	}
	got, r, c, err := ReadNPY(p)
	if err != nil || r != 2 || c != 3 || !slices.Equal(got, data) {
		t.Fatalf("round trip: %v %d %d %v", err, r, c, got)
	}
	// Larger shapes keep 64-byte alignment.
	for _, shape := range [][2]int{{0, 7}, {123456, 1024}} {
		h := npyHeader(shape[0], shape[1])
		if len(h)%64 != 0 || h[len(h)-1] != '\n' {
			t.Errorf("shape %v: header length %d", shape, len(h))
		}
	}
}

func TestReadNPYErrors(t *testing.T) {
	dir := t.TempDir()
	good := append(npyHeader(1, 2), make([]byte, 8)...)
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"no magic", []byte("hello world, this is not numpy")},
		{"truncated data", good[:len(good)-1]},
		{"float64", bytes.Replace(good, []byte("<f4"), []byte("<f8"), 1)},
		{"fortran", bytes.Replace(good, []byte("False"), []byte("True "), 1)},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, tc.b, 0o644)
		if _, _, _, err := ReadNPY(p); !errors.Is(err, ErrNPY) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(append(npyHeader(1, 2), make([]byte, 8)...))
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'shape': (1, 1)}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.npy")
		os.WriteFile(p, b, 0o644)
		data, r, c, err := ReadNPY(p)
		if err == nil && len(data) != r*c {
			t.Fatalf("%d values for (%d, %d)", len(data), r, c)
		}
	})
}

func TestHashEncoder(t *testing.T) {
	corpus := []string{
		"definition ConNF.cloud (s : Set Tangle) : Set NearLitter\nThe cloud map.",
		"definition ConNF.litterSet (L : Litter) : Set Atom\nThe litter set.",
		"inductive Nat : Type\nThe natural numbers.",
		"class ConNF.Params : Type\nModel parameters.",
	}
	h := NewHashEncoder(128)
	h.Fit(corpus)
	vs, err := h.Encode(context.Background(), append(corpus, "the cloud of a set of tangles", ""))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs[:5] {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d has norm² %v", i, n)
		}
	}
	q := vs[4]
	best, bi := float32(-2), -1
	for i := 0; i < 4; i++ {
		if s := DotLoop(q, vs[i]); s > best {
			best, bi = s, i
		}
	}
	if bi != 0 {
		t.Errorf("query closest to doc %d, want the cloud doc", bi)
	}
	for _, x := range vs[5] {
		if x != 0 {
			t.Fatal("empty text should encode to the zero vector")
		}
	}
	// Save/Load gives the same vectors.
	p := filepath.Join(t.TempDir(), "h.bin")
	if err := h.Save(p); err != nil {
		t.Fatal(err)
	}
	h2, err := LoadHashEncoder(p)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := h2.Encode(context.Background(), corpus[:1])
	if !slices.Equal(v2[0], vs[0]) {
		t.Error("loaded encoder differs")
	}
	os.WriteFile(p, []byte("junk"), 0o644)
	if _, err := LoadHashEncoder(p); err == nil {
		t.Error("junk state accepted")
	}
}

func TestDotSIMDMatchesLoop(t *testing.T) {
	for _, n := range []int{1, 7, 64, 257, 1024} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i%13)-6, float32(i%7)*0.25
		}
		if d := math.Abs(float64(DotSIMD(a, b) - DotLoop(a, b))); d > 1e-3 {
			t.Errorf("n=%d: simd %v loop %v", n, DotSIMD(a, b), DotLoop(a, b))
		}
	}
}

func TestStoreSearchDense(t *testing.T) {
	s := NewStore([]float32{1, 0, 0, 1, 0.7, 0.7, -1, 0, 1, 0}, 5, 2)
	// Two requests in one pass: class 1 = docs 0, 1, 4; class 2 = doc 3;
	// doc 2 belongs to neither.
	b := &retrieval.Batch{Requests: []retrieval.Request{{K: 2}, {K: 5}}, Class: []uint8{1, 1, 0, 2, 1}}
	got, err := s.SearchDense(context.Background(), []float32{1, 0}, b)
	if err != nil {
		t.Fatal(err)
	}
	// Docs 0 and 4 tie at 1: the lower id first.
	want := [][]retrieval.Scored{{{Doc: 0, Score: 1}, {Doc: 4, Score: 1}}, {{Doc: 3, Score: -1}}}
	if len(got) != 2 || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// A request with K 0 asks for nothing.
	b.Requests[1].K = 0
	if got, _ := s.SearchDense(context.Background(), []float32{1, 0}, b); got[1] != nil {
		t.Errorf("K 0 answered %v", got[1])
	}
}

// The hash encoder weighs features by IDF learned from the corpus: a word
// every document has ("set") counts for little, a rare one ("gamma") for
// much, so the query goes to the one document sharing its rare word even
// though others share more of its common words.
func TestHashEncoderIDF(t *testing.T) {
	common := "set group ring map element "
	corpus := []string{
		strings.Repeat(common, 4) + "alpha", strings.Repeat(common, 2) + "beta", common + "delta", common + "gamma",
		common + "alpha beta", common + "beta delta", common + "delta alpha", common + "alpha beta delta",
	}
	h := NewHashEncoder(512)
	h.Fit(corpus)
	query := strings.Repeat(common, 4) + "gamma"
	vs, err := h.Encode(context.Background(), append(slices.Clone(corpus), query))
	if err != nil {
		t.Fatal(err)
	}
	q := vs[len(corpus)]
	best, bi := float32(-2), -1
	for i := range corpus {
		if s := DotLoop(q, vs[i]); s > best {
			best, bi = s, i
		}
	}
	if bi != 3 {
		t.Errorf("query closest to %q, want %q (the rare word must outweigh the common ones)", corpus[max(bi, 0)], corpus[3])
	}
	// Unfitted (all IDF equal), the common words win: the test above
	// depends on the fit.
	u := NewHashEncoder(512)
	uv, _ := u.Encode(context.Background(), []string{corpus[0], corpus[3], query})
	if DotLoop(uv[2], uv[0]) <= DotLoop(uv[2], uv[1]) {
		t.Fatal("without IDF the rare word already wins: the corpus no longer tests IDF")
	}
}

// Postings scores textbook BM25 (k1 1.2, b 0.75, the true mean length) in
// bleve's query form: each query token adds idf²·tf-weight, times the
// coordination factor matched tokens / query tokens. Checked against the
// formula written out.
func TestPostingsBM25(t *testing.T) {
	docs := []string{"alpha beta", "alpha alpha alpha gamma delta", "beta gamma", "delta"}
	p, err := BuildPostings(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]float64{}
	p.Score("alpha beta beta", func(d int, s float32) { got[d] = float64(s) })
	n := 4.0
	lens := []float64{2, 5, 2, 1}
	avg := (2 + 5 + 2 + 1) / n
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	w := func(tf, l float64) float64 { return tf * 2.2 / (tf + 1.2*(1-0.75+0.75*l/avg)) }
	ia, ib := idf(2), idf(2)
	// Query tokens: alpha ×1, beta ×2 (3 in all).
	want := map[int]float64{
		0: (ia*ia*w(1, lens[0]) + 2*ib*ib*w(1, lens[0])) * 3 / 3, // all three tokens match
		1: (ia * ia * w(3, lens[1])) * 1 / 3,                     // only alpha
		2: (2 * ib * ib * w(1, lens[2])) * 2 / 3,                 // beta twice
	}
	if len(got) != len(want) {
		t.Fatalf("scored %v, want documents %v", got, want)
	}
	for d, ws := range want {
		if math.Abs(got[d]-ws) > 1e-4*ws {
			t.Errorf("doc %d: score %v, want %v", d, got[d], ws)
		}
	}
}
