package head

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ErrNPY is wrapped by every error about a malformed .npy file.
var ErrNPY = errors.New("malformed .npy file")

// NPYError reports a problem in a .npy file, with the byte offset where it was found.
type NPYError struct {
	Path   string
	Offset int64
	Err    error
}

func (e *NPYError) Error() string {
	return fmt.Sprintf("%s: byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *NPYError) Unwrap() error { return e.Err }

var npyMagic = []byte("\x93NUMPY")

// EncodeNPY returns a version 1.0 .npy file holding a C-order float32 matrix
// of rows × cols, as numpy.save writes it.
func EncodeNPY(data []float32, rows, cols int) []byte {
	if rows*cols != len(data) {
		panic(fmt.Sprintf("head: EncodeNPY: %d values for shape (%d, %d)", len(data), rows, cols))
	}
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	// Magic (6) + version (2) + header length (2) + dict + padding + "\n" is a
	// multiple of 64.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	header := dict + strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.Grow(10 + len(header) + 4*len(data))
	buf.Write(npyMagic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	b := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	buf.Write(b)
	return buf.Bytes()
}

var (
	npyDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// DecodeNPY parses a .npy file holding a 2-D little-endian float32 (or
// float64, converted) matrix in C order. path only names the file in errors.
func DecodeNPY(path string, b []byte) (data []float32, rows, cols int, err error) {
	fail := func(off int, format string, args ...any) error {
		return &NPYError{Path: path, Offset: int64(off), Err: fmt.Errorf("%w: "+format, append([]any{ErrNPY}, args...)...)}
	}
	if len(b) < 10 || !bytes.Equal(b[:6], npyMagic) {
		return nil, 0, 0, fail(0, "no NUMPY magic")
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, 0, 0, fail(8, "truncated header length")
		}
		h := binary.LittleEndian.Uint32(b[8:12])
		if h > 1<<20 {
			return nil, 0, 0, fail(8, "header length %d is too large", h)
		}
		hlen, start = int(h), 12
	default:
		return nil, 0, 0, fail(6, "unsupported format version %d", major)
	}
	if start+hlen > len(b) {
		return nil, 0, 0, fail(start, "header of %d bytes runs past the end of the file (%d bytes)", hlen, len(b))
	}
	header := string(b[start : start+hlen])
	m := npyDescr.FindStringSubmatch(header)
	if m == nil {
		return nil, 0, 0, fail(start, "header has no 'descr'")
	}
	var width int
	switch m[1] {
	case "<f4":
		width = 4
	case "<f8":
		width = 8
	default:
		return nil, 0, 0, fail(start, "dtype %q is not little-endian float32 or float64", m[1])
	}
	if f := npyFortran.FindStringSubmatch(header); f == nil || f[1] != "False" {
		return nil, 0, 0, fail(start, "only C-order arrays are supported (fortran_order must be False)")
	}
	s := npyShape.FindStringSubmatch(header)
	if s == nil {
		return nil, 0, 0, fail(start, "header has no 'shape'")
	}
	var dims []int
	for _, p := range strings.Split(s[1], ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1<<31 {
			return nil, 0, 0, fail(start, "bad dimension %q in shape", p)
		}
		dims = append(dims, n)
	}
	if len(dims) != 2 {
		return nil, 0, 0, fail(start, "shape (%s) is not 2-D", s[1])
	}
	rows, cols = dims[0], dims[1]
	body := b[start+hlen:]
	n := rows * cols
	if cols != 0 && n/cols != rows || n > len(body)/width {
		return nil, 0, 0, fail(start+hlen, "shape (%d, %d) needs %d bytes of data, file has %d (truncated?)", rows, cols, uint64(rows)*uint64(cols)*uint64(width), len(body))
	}
	if len(body) != n*width {
		return nil, 0, 0, fail(start+hlen+n*width, "%d trailing bytes after the data", len(body)-n*width)
	}
	data = make([]float32, n)
	for i := range data {
		if width == 4 {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		} else {
			data[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:])))
		}
	}
	return data, rows, cols, nil
}
