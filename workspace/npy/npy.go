// Package npy reads and writes 2-D float32 matrices in NumPy's .npy format,
// the one format for vectors and weights across driftkit (index/vectors.npy,
// head/*.npy): numpy.load, numpy memory maps and FAISS read what it writes.
package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// ErrMalformed is wrapped by every error about a malformed .npy file.
var ErrMalformed = errors.New("malformed .npy file")

// Error reports a problem in a .npy file with the byte offset where it was found.
type Error struct {
	Path   string
	Offset int64
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: byte %d: %v", e.Path, e.Offset, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

var magic = []byte("\x93NUMPY")

// Header returns the format 1.0 header of a C-order float32 matrix of shape
// (rows, cols), padded with spaces and a newline so the data starts at a
// multiple of 64 bytes, as numpy.save writes it.
func Header(rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := make([]byte, 0, total+pad)
	h = append(h, magic...)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	h = append(h, strings.Repeat(" ", pad)...)
	return append(h, '\n')
}

// Encode returns a whole .npy file for a rows × cols row-major matrix.
func Encode(data []float32, rows, cols int) []byte {
	if rows*cols != len(data) {
		panic(fmt.Sprintf("npy.Encode: %d values for shape (%d, %d)", len(data), rows, cols))
	}
	b := Header(rows, cols)
	out := make([]byte, len(b)+4*len(data))
	copy(out, b)
	for i, v := range data {
		binary.LittleEndian.PutUint32(out[len(b)+4*i:], math.Float32bits(v))
	}
	return out
}

// Write writes a rows × cols row-major matrix to path atomically, streaming
// (the matrix is not copied into a second buffer).
func Write(path string, data []float32, rows, cols int) error {
	if len(data) != rows*cols {
		return fmt.Errorf("npy.Write %s: %d values for shape (%d, %d)", path, len(data), rows, cols)
	}
	f, err := workspace.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(Header(rows, cols)); err != nil {
		return err
	}
	// Blocks of writeBlock values, converted in a loop (a bufio.Write per
	// value was most of an index build's 2 s writing its vectors, #29).
	b := make([]byte, 4*min(len(data), writeBlock))
	for len(data) > 0 {
		n := min(len(data), writeBlock)
		for i, v := range data[:n] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		if _, err := f.Write(b[:4*n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return f.Commit()
}

// writeBlock is the number of values Write converts per write.
const writeBlock = 1 << 16

var (
	descrRE   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRE = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRE   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// header is a parsed .npy header.
type header struct {
	width      int // 4 (<f4) or 8 (<f8)
	rows, cols int
	dataStart  int
}

// parseHeader reads the header from the start of a file; pre holds at least
// the first 12 bytes (or the whole file when shorter), more reads the rest.
func parseHeader(path string, r io.Reader) (*header, error) {
	fail := func(off int, format string, args ...any) error {
		return &Error{Path: path, Offset: int64(off), Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)}
	}
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil || !bytes.Equal(pre[:6], magic) {
		if n >= 6 && bytes.Equal(pre[:6], magic) {
			return nil, fail(n, "truncated header")
		}
		return nil, fail(0, "no NUMPY magic")
	}
	var hlen, start int
	switch pre[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var more [2]byte
		if _, err := io.ReadFull(r, more[:]); err != nil {
			return nil, fail(10, "truncated header length")
		}
		h := binary.LittleEndian.Uint32(append(pre[8:10:10], more[:]...))
		if h > 1<<20 {
			return nil, fail(8, "header length %d is too large", h)
		}
		hlen, start = int(h), 12
	default:
		return nil, fail(6, "unsupported format version %d", pre[6])
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fail(start, "header of %d bytes runs past the end of the file", hlen)
	}
	hs := string(hb)
	h := &header{dataStart: start + hlen}
	m := descrRE.FindStringSubmatch(hs)
	if m == nil {
		return nil, fail(start, "header has no 'descr'")
	}
	switch m[1] {
	case "<f4":
		h.width = 4
	case "<f8":
		h.width = 8
	default:
		return nil, fail(start, "dtype %q is not little-endian float32 or float64", m[1])
	}
	if f := fortranRE.FindStringSubmatch(hs); f == nil || f[1] != "False" {
		return nil, fail(start, "only C-order arrays are supported (fortran_order must be False)")
	}
	s := shapeRE.FindStringSubmatch(hs)
	if s == nil {
		return nil, fail(start, "header has no 'shape'")
	}
	var dims []int
	for _, p := range strings.Split(s[1], ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1<<31 {
			return nil, fail(start, "bad dimension %q in shape", p)
		}
		dims = append(dims, n)
	}
	if len(dims) != 2 {
		return nil, fail(start, "shape (%s) is not 2-D", s[1])
	}
	h.rows, h.cols = dims[0], dims[1]
	if h.cols != 0 && (h.rows*h.cols)/h.cols != h.rows {
		return nil, fail(start, "shape (%d, %d) overflows", h.rows, h.cols)
	}
	return h, nil
}

// decodeBody converts n little-endian values of the header's width.
func decodeBody(dst []float32, body []byte, width int) {
	for i := range dst {
		if width == 4 {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		} else {
			dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:])))
		}
	}
}

// Decode parses a whole .npy file held in memory: a 2-D little-endian
// float32 (or float64, converted) matrix in C order. path only names the file
// in errors.
func Decode(path string, b []byte) (data []float32, rows, cols int, err error) {
	h, err := parseHeader(path, bytes.NewReader(b))
	if err != nil {
		return nil, 0, 0, err
	}
	body := b[h.dataStart:]
	n := h.rows * h.cols
	if n > len(body)/h.width {
		return nil, 0, 0, &Error{Path: path, Offset: int64(h.dataStart), Err: fmt.Errorf("%w: shape (%d, %d) needs %d bytes of data, file has %d (truncated?)", ErrMalformed, h.rows, h.cols, n*h.width, len(body))}
	}
	if len(body) != n*h.width {
		return nil, 0, 0, &Error{Path: path, Offset: int64(h.dataStart + n*h.width), Err: fmt.Errorf("%w: %d trailing bytes after the data", ErrMalformed, len(body)-n*h.width)}
	}
	data = make([]float32, n)
	decodeBody(data, body, h.width)
	return data, h.rows, h.cols, nil
}

// Read reads a .npy file, streaming its data into one []float32 (a vectors
// file of Mathlib is a few hundred MB; it is never held twice).
func Read(path string) (data []float32, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := parseHeader(path, r)
	if err != nil {
		return nil, 0, 0, err
	}
	n := int64(h.rows) * int64(h.cols)
	if have := st.Size() - int64(h.dataStart); have != n*int64(h.width) {
		return nil, 0, 0, &Error{Path: path, Offset: int64(h.dataStart), Err: fmt.Errorf("%w: shape (%d, %d) needs %d bytes of data, file has %d (truncated?)", ErrMalformed, h.rows, h.cols, n*int64(h.width), have)}
	}
	data = make([]float32, n)
	const chunk = 4096
	buf := make([]byte, chunk*h.width)
	for i := 0; i < len(data); {
		k := min(chunk, len(data)-i)
		if _, err := io.ReadFull(r, buf[:k*h.width]); err != nil {
			return nil, 0, 0, &Error{Path: path, Offset: int64(h.dataStart + i*h.width), Err: fmt.Errorf("%w: truncated data: %v", ErrMalformed, err)}
		}
		decodeBody(data[i:i+k], buf, h.width)
		i += k
	}
	return data, h.rows, h.cols, nil
}
