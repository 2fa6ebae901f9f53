package flat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeSample(t testing.TB) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	Put(w, "u8", []uint8{1, 2, 3})
	Put(w, "u16", []uint16{1, 65535})
	Put(w, "u32", []uint32{7, 8, 9})
	Put(w, "i32", []int32{-1, 0, 1 << 30})
	Put(w, "u64", []uint64{1 << 40})
	Put(w, "f32", []float32{0.5, -2})
	Put(w, "empty", []uint32{})
	w.Keys("names", NewKeys(NewStrings([]string{"Nat", "Nat.add", "", "Nat", "ℝ≥0∞"})))
	w.Lists("deps", NewLists([][]int32{{1, 2}, nil, {0}}))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "x.dk")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	p, _ := writeSample(t)
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.Mapped() {
		t.Log("not mapped on this platform")
	}
	check := func(name string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	u8, _ := Take[uint8](f, "u8")
	u16, _ := Take[uint16](f, "u16")
	u32, _ := Take[uint32](f, "u32")
	i32, _ := Take[int32](f, "i32")
	u64, _ := Take[uint64](f, "u64")
	f32, _ := Take[float32](f, "f32")
	e, err := Take[uint32](f, "empty")
	check("u8", u8, []uint8{1, 2, 3})
	check("u16", u16, []uint16{1, 65535})
	check("u32", u32, []uint32{7, 8, 9})
	check("i32", i32, []int32{-1, 0, 1 << 30})
	check("u64", u64, []uint64{1 << 40})
	check("f32", f32, []float32{0.5, -2})
	if err != nil || len(e) != 0 {
		t.Errorf("empty: %v %v", e, err)
	}
	k, err := f.Keys("names")
	if err != nil {
		t.Fatal(err)
	}
	// A repeated key finds its last occurrence; the empty string is a key.
	for key, want := range map[string]int{"Nat": 3, "Nat.add": 1, "": 2, "ℝ≥0∞": 4, "Na": -1, "Nat.ad": -1} {
		if got := k.Find(key); got != want {
			t.Errorf("Find(%q) = %d, want %d", key, got, want)
		}
	}
	if k.Len() != 5 || k.At(4) != "ℝ≥0∞" {
		t.Errorf("keys %d %q", k.Len(), k.At(4))
	}
	l, err := f.Lists("deps", 3)
	if err != nil || l.Len() != 3 || !slices.Equal(l.At(0), []int32{1, 2}) || len(l.At(1)) != 0 {
		t.Errorf("lists %+v %v", l, err)
	}
	if _, err := f.Lists("deps", 2); !errors.Is(err, ErrFormat) {
		t.Errorf("a value out of range: %v", err)
	}
	if _, err := Take[float32](f, "u32"); !errors.Is(err, ErrFormat) {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := Take[uint32](f, "nope"); !errors.Is(err, ErrFormat) {
		t.Errorf("missing section: %v", err)
	}
	if err := f.Verify(); err != nil {
		t.Error(err)
	}
}

// A flipped bit in one section fails that section, naming it, every time,
// and leaves the others readable.
func TestBitFlip(t *testing.T) {
	p, b := writeSample(t)
	f0, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	s := f0.secs["u32"]
	f0.Close()
	b[s.off+1] ^= 0x10
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatalf("Open reads only the table: %v", err)
	}
	defer f.Close()
	for range 2 {
		var fe *Error
		if _, err := Take[uint32](f, "u32"); !errors.Is(err, ErrFormat) || !errors.As(err, &fe) || fe.Section != "u32" {
			t.Errorf("damaged section: %v", err)
		}
	}
	if v, err := Take[int32](f, "i32"); err != nil || v[2] != 1<<30 {
		t.Errorf("other section: %v %v", v, err)
	}
	if err := f.Verify(); !errors.Is(err, ErrFormat) {
		t.Errorf("Verify: %v", err)
	}
}

// Truncation, a foreign file and a damaged table are refused at Open.
func TestOpenRefuses(t *testing.T) {
	_, b := writeSample(t)
	dir := t.TempDir()
	cases := map[string][]byte{
		"truncated":  b[:len(b)-5],
		"short":      b[:10],
		"foreign":    append([]byte("PAR1"), b[4:]...),
		"table flip": func() []byte { c := slices.Clone(b); c[len(c)-footerSize-3] ^= 1; return c }(),
	}
	for name, data := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		if f, err := Open(p); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
			if f != nil {
				f.Close()
			}
		}
	}
}

func TestKeysCollide(t *testing.T) {
	var ss []string
	for i := range 5000 {
		ss = append(ss, fmt.Sprintf("Mathlib.Name%d.x", i))
	}
	k := NewKeys(NewStrings(ss))
	for i, s := range ss {
		if k.Find(s) != i {
			t.Fatalf("Find(%q) = %d", s, k.Find(s))
		}
	}
	if len(k.Slots) < 2*len(ss) {
		t.Errorf("%d slots for %d keys", len(k.Slots), len(ss))
	}
}

// FuzzOpen: no input makes Open, Verify or taking a section panic.
func FuzzOpen(f *testing.F) {
	_, b := writeSample(f)
	f.Add(b)
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.dk")
		os.WriteFile(p, data, 0o644)
		fl, err := Open(p)
		if err != nil {
			return
		}
		defer fl.Close()
		fl.Verify()
		for _, n := range fl.Sections() {
			Take[uint8](fl, n)
			Take[uint32](fl, n)
		}
		fl.Keys("names")
		fl.Lists("deps", 10)
	})
}
