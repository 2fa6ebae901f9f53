package head

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func randMat(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func TestNPYRoundTrip(t *testing.T) {
	for _, shape := range [][2]int{{0, 0}, {1, 1}, {3, 5}, {17, 4}} {
		r := rand.New(rand.NewPCG(1, 2))
		data := randMat(r, shape[0]*shape[1])
		b := EncodeNPY(data, shape[0], shape[1])
		if (len(b)-len(data)*4)%64 != 0 {
			t.Errorf("%v: header not padded to 64 bytes", shape)
		}
		got, rows, cols, err := DecodeNPY("x.npy", b)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if rows != shape[0] || cols != shape[1] || len(got) != len(data) {
			t.Fatalf("%v: got (%d, %d) with %d values", shape, rows, cols, len(got))
		}
		for i := range got {
			if got[i] != data[i] {
				t.Fatalf("%v: value %d: %v != %v", shape, i, got[i], data[i])
			}
		}
	}
}

// TestNPYFromNumpy reads files written by numpy.save (float32 and float64).
func TestNPYFromNumpy(t *testing.T) {
	want := []float32{0, 1, 2, 3, 4, 5}
	for _, name := range []string{"numpy_f4.npy", "numpy_f8.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		got, rows, cols, err := DecodeNPY(name, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rows != 2 || cols != 3 {
			t.Fatalf("%s: shape (%d, %d)", name, rows, cols)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v", name, got)
			}
		}
	}
}

func TestNPYErrors(t *testing.T) {
	good := EncodeNPY([]float32{1, 2, 3, 4}, 2, 2)
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"no magic", []byte("hello world, not numpy")},
		{"truncated data", good[:len(good)-1]},
		{"trailing data", append(append([]byte{}, good...), 0)},
		{"truncated header", good[:20]},
		{"int dtype", []byte(string(EncodeNPY(nil, 0, 0)[:10]) + "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 0), }\n")},
		{"fortran", []byte(string(EncodeNPY(nil, 0, 0)[:10]) + "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 0), }\n")},
		{"3-D", []byte(string(EncodeNPY(nil, 0, 0)[:10]) + "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 0, 0), }\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.b
			if len(b) > 10 && c.name != "truncated data" && c.name != "trailing data" && c.name != "truncated header" && c.name != "no magic" {
				// fix the header length field
				b[8] = byte(len(b) - 10)
				b[9] = 0
			}
			_, _, _, err := DecodeNPY("bad.npy", b)
			if !errors.Is(err, ErrNPY) {
				t.Fatalf("err = %v, want ErrNPY", err)
			}
			var ne *NPYError
			if !errors.As(err, &ne) || ne.Path != "bad.npy" {
				t.Fatalf("err %v does not name the file", err)
			}
		})
	}
}

func FuzzDecodeNPY(f *testing.F) {
	f.Add(EncodeNPY([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	f.Add(EncodeNPY(nil, 0, 7))
	for _, name := range []string{"numpy_f4.npy", "numpy_f8.npy"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data, rows, cols, err := DecodeNPY("fuzz.npy", b)
		if err != nil {
			if !errors.Is(err, ErrNPY) {
				t.Fatalf("error %v does not wrap ErrNPY", err)
			}
			return
		}
		if len(data) != rows*cols {
			t.Fatalf("%d values for (%d, %d)", len(data), rows, cols)
		}
	})
}

func naiveProject(w, x []float32, in, out int) []float32 {
	xn := Normalise(append([]float32(nil), x...))
	y := make([]float32, out)
	for j := 0; j < out; j++ {
		var s float64
		for i := 0; i < in; i++ {
			s += float64(xn[i]) * float64(w[i*out+j])
		}
		y[j] = float32(s)
	}
	return Normalise(y)
}

func TestSaveLoadProject(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const in, out = 12, 5
	for _, tied := range []bool{false, true} {
		cfg := Config{InDim: in, OutDim: out, Tied: tied, Encoder: "hash:12", EncoderFallback: true, Temperature: 0.02}
		q, d := randMat(r, in*out), randMat(r, in*out)
		h, err := New(cfg, q, d)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := h.Save(dir); err != nil {
			t.Fatal(err)
		}
		_, derr := os.Stat(filepath.Join(dir, DocumentWeightsFile))
		if tied != os.IsNotExist(derr) {
			t.Errorf("tied=%v: document.npy stat err %v", tied, derr)
		}
		h2, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if h2.ID() != h.ID() {
			t.Errorf("ID changed across save/load: %s vs %s", h.ID(), h2.ID())
		}
		xs := randMat(r, 3*in)
		gotQ, err := h2.ProjectQueries(xs, 3)
		if err != nil {
			t.Fatal(err)
		}
		gotD, err := h2.ProjectDocuments(xs, 3)
		if err != nil {
			t.Fatal(err)
		}
		wd := d
		if tied {
			wd = q
		}
		for i := 0; i < 3; i++ {
			wantQ := naiveProject(q, xs[i*in:(i+1)*in], in, out)
			wantD := naiveProject(wd, xs[i*in:(i+1)*in], in, out)
			one, _ := h2.ProjectQuery(xs[i*in : (i+1)*in])
			for j := 0; j < out; j++ {
				if math.Abs(float64(gotQ[i*out+j]-wantQ[j])) > 1e-5 || math.Abs(float64(one[j]-wantQ[j])) > 1e-5 {
					t.Fatalf("tied=%v query %d: %v vs %v", tied, i, gotQ[i*out:(i+1)*out], wantQ)
				}
				if math.Abs(float64(gotD[i*out+j]-wantD[j])) > 1e-5 {
					t.Fatalf("tied=%v doc %d: %v vs %v", tied, i, gotD[i*out:(i+1)*out], wantD)
				}
			}
		}
		if _, err := h2.ProjectQuery(make([]float32, in+1)); !errors.Is(err, ErrMismatch) {
			t.Errorf("wrong dimension: err = %v", err)
		}
	}
}

func TestLoadDetectsTampering(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	h, _ := New(Config{InDim: 4, OutDim: 2}, randMat(r, 8), randMat(r, 8))
	dir := t.TempDir()
	if err := h.Save(dir); err != nil {
		t.Fatal(err)
	}
	other, _ := New(Config{InDim: 4, OutDim: 2}, randMat(r, 8), randMat(r, 8))
	os.WriteFile(filepath.Join(dir, DocumentWeightsFile), EncodeNPY(other.D, 4, 2), 0o644)
	if _, err := Load(dir); err == nil {
		t.Fatal("Load accepted a document.npy that does not match config.json")
	}
	if _, err := Load(t.TempDir()); !os.IsNotExist(errors.Unwrap(err)) && !os.IsNotExist(err) {
		t.Fatalf("missing head: err = %v", err)
	}
}

func TestNormaliseZero(t *testing.T) {
	v := Normalise([]float32{0, 0})
	if v[0] != 0 || v[1] != 0 {
		t.Fatal(v)
	}
	v = Normalise([]float32{3, 4})
	if math.Abs(float64(v[0])-0.6) > 1e-6 {
		t.Fatal(v)
	}
}

type fixedEncoder struct{ vecs [][]float32 }

func (f fixedEncoder) Name() string { return "fixed" }
func (f fixedEncoder) Dim() int     { return len(f.vecs[0]) }
func (f fixedEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	return f.vecs[:len(texts)], nil
}

func TestQueryEncoderAndFits(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const in, out = 6, 3
	h, _ := New(Config{InDim: in, OutDim: out, Encoder: EncoderID("hash", "", in)}, randMat(r, in*out), randMat(r, in*out))
	enc := fixedEncoder{vecs: [][]float32{randMat(r, in), randMat(r, in)}}
	qe := h.QueryEncoder(enc)
	if qe.Dim() != out || !strings.HasPrefix(qe.Name(), "fixed+head:") {
		t.Fatalf("wrapped encoder %s dim %d", qe.Name(), qe.Dim())
	}
	got, err := qe.Encode(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range enc.vecs {
		want, _ := h.ProjectQuery(v)
		for j := range want {
			if got[i][j] != want[j] {
				t.Fatalf("query %d: %v vs %v", i, got[i], want)
			}
		}
	}
	if err := h.Fits("hash:6"); err != nil {
		t.Fatal(err)
	}
	if err := h.Fits("openai:bge-m3:1024"); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Fits(other) = %v", err)
	}
	if got := EncoderID("openai", "bge-m3", 1024); got != "openai:bge-m3:1024" {
		t.Fatal(got)
	}
	if got := EncoderID("openai:bge-m3", "bge-m3", 1024); got != "openai:bge-m3:1024" {
		t.Fatal(got)
	}
}

// TestMixScore checks that mixed vectors score λ·raw cosine + (1−λ)·head cosine.
func TestMixScore(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	const in, out = 7, 4
	q, d := randMat(r, in*out), randMat(r, in*out)
	pure, _ := New(Config{InDim: in, OutDim: out}, q, d)
	for _, lam := range []float64{0.25, 0.5, 0.9} {
		h, err := New(Config{InDim: in, OutDim: out, Mix: lam}, q, d)
		if err != nil {
			t.Fatal(err)
		}
		if h.Dim() != in+out {
			t.Fatalf("Dim %d", h.Dim())
		}
		x, y := randMat(r, in), randMat(r, in)
		mq, _ := h.ProjectQuery(x)
		md, _ := h.ProjectDocument(y)
		pq, _ := pure.ProjectQuery(x)
		pd, _ := pure.ProjectDocument(y)
		dot := func(a, b []float32) float64 {
			var s float64
			for i := range a {
				s += float64(a[i]) * float64(b[i])
			}
			return s
		}
		raw := dot(Normalise(append([]float32(nil), x...)), Normalise(append([]float32(nil), y...)))
		want := lam*raw + (1-lam)*dot(pq, pd)
		if got := dot(mq, md); math.Abs(got-want) > 1e-5 {
			t.Fatalf("λ=%v: score %v, want %v", lam, got, want)
		}
		if n := dot(mq, mq); math.Abs(n-1) > 1e-5 {
			t.Fatalf("mixed vector norm² %v", n)
		}
	}
	if _, err := New(Config{InDim: in, OutDim: out, Mix: 1}, q, d); err == nil {
		t.Fatal("mix 1 accepted")
	}
}
