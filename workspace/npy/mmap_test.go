package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOpenMapsFloat32(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.npy")
	data := []float32{1, -2, 0.5, 3, 4, 5}
	if err := Write(p, data, 2, 3); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Mapped || m.Rows != 2 || m.Cols != 3 || !slices.Equal(m.Data, data) {
		t.Fatalf("matrix %+v", m)
	}
	// The mapping outlives the file name (a rebuilt index removes it).
	os.Remove(p)
	if !slices.Equal(m.Data, data) {
		t.Fatal("mapping changed after unlink")
	}
	if err := m.Close(); err != nil || m.Data != nil {
		t.Fatalf("close: %v", err)
	}

	// float64 files cannot be mapped as float32: read and converted.
	b := Encode(data, 2, 3)
	b64 := append(bytes.Replace(Header(2, 3), []byte("<f4"), []byte("<f8"), 1), make([]byte, 8*6)...)
	for i, v := range data {
		putF64(b64[len(Header(2, 3))+8*i:], float64(v))
	}
	p64 := filepath.Join(dir, "v64.npy")
	os.WriteFile(p64, b64, 0o644)
	m64, err := Open(p64)
	if err != nil || m64.Mapped || !slices.Equal(m64.Data, data) {
		t.Fatalf("float64: %+v %v", m64, err)
	}
	m64.Close()

	// A truncated file is an error, not a short mapping.
	pt := filepath.Join(dir, "t.npy")
	os.WriteFile(pt, b[:len(b)-4], 0o644)
	if _, err := Open(pt); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated: %v", err)
	}
}

func putF64(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) }

// FuzzOpen: a mapped (or read) file agrees with Decode of the same bytes.
func FuzzOpen(f *testing.F) {
	f.Add(Encode([]float32{1, 2}, 1, 2))
	f.Add(append(bytes.Replace(Header(1, 1), []byte("<f4"), []byte("<f8"), 1), make([]byte, 8)...))
	f.Add([]byte("\x93NUMPY\x02\x00\x00\x00\x10\x00{'shape': (1, 1)}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.npy")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want, r, c, derr := Decode(p, b)
		m, err := Open(p)
		if (err == nil) != (derr == nil) {
			t.Fatalf("Open err %v, Decode err %v", err, derr)
		}
		if err != nil {
			return
		}
		defer m.Close()
		if m.Rows != r || m.Cols != c || len(m.Data) != len(want) {
			t.Fatalf("Open (%d, %d) %d values, Decode (%d, %d) %d", m.Rows, m.Cols, len(m.Data), r, c, len(want))
		}
		for i := range want {
			if math.Float32bits(m.Data[i]) != math.Float32bits(want[i]) {
				t.Fatalf("value %d: %v vs %v", i, m.Data[i], want[i])
			}
		}
	})
}
