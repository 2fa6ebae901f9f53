package npy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteReadDecodeAgree(t *testing.T) {
	for _, shape := range [][2]int{{0, 0}, {1, 1}, {3, 5}, {5000, 3}, {70001, 3}} {
		data := make([]float32, shape[0]*shape[1])
		for i := range data {
			data[i] = float32(i)*0.5 - 7
		}
		p := filepath.Join(t.TempDir(), "v.npy")
		if err := Write(p, data, shape[0], shape[1]); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if want := Encode(data, shape[0], shape[1]); !slices.Equal(b, want) {
			t.Fatalf("%v: Write and Encode differ", shape)
		}
		if (len(b)-4*len(data))%64 != 0 {
			t.Errorf("%v: data does not start at a multiple of 64", shape)
		}
		for name, read := range map[string]func() ([]float32, int, int, error){
			"Read":   func() ([]float32, int, int, error) { return Read(p) },
			"Decode": func() ([]float32, int, int, error) { return Decode(p, b) },
		} {
			got, r, c, err := read()
			if err != nil || r != shape[0] || c != shape[1] || !slices.Equal(got, data) {
				t.Fatalf("%s %v: (%d, %d) %v", name, shape, r, c, err)
			}
		}
	}
}

func TestMalformed(t *testing.T) {
	good := Encode([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := map[string][]byte{
		"empty":     nil,
		"magic":     []byte("\x93NUMPX\x01\x00\x10\x00"),
		"truncated": good[:len(good)-3],
		"trailing":  append(append([]byte(nil), good...), 0),
		"header":    good[:20],
		"version":   append([]byte("\x93NUMPY\x09\x00"), good[8:]...),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name+".npy")
			os.WriteFile(p, b, 0o644)
			for _, err := range []error{
				func() error { _, _, _, err := Read(p); return err }(),
				func() error { _, _, _, err := Decode(p, b); return err }(),
			} {
				var e *Error
				if !errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Path != p {
					t.Fatalf("err = %v, want an *Error naming %s wrapping ErrMalformed", err, p)
				}
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode([]float32{1, 2}, 1, 2))
	f.Add([]byte("\x93NUMPY\x02\x00\x00\x00\x10\x00{'shape': (1, 1)}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, r, c, err := Decode("f.npy", b)
		if err == nil && len(data) != r*c {
			t.Fatalf("%d values for (%d, %d)", len(data), r, c)
		}
	})
}
