package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"

	"github.com/driftkit/driftkit/dataset"
)

// ErrNPY is wrapped by errors about malformed .npy files.
var ErrNPY = errors.New("bad npy file")

// npyHeader returns the NumPy format 1.0 header for a C-order float32 matrix
// of shape (rows, cols): magic, version 1.0, little-endian header length, and
// the dict padded with spaces and a final newline so that the data starts at a
// multiple of 64 bytes (numpy's own alignment).
func npyHeader(rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := make([]byte, 0, total+pad)
	h = append(h, "\x93NUMPY"...)
	h = append(h, 1, 0)
	hl := len(dict) + pad + 1
	h = binary.LittleEndian.AppendUint16(h, uint16(hl))
	h = append(h, dict...)
	for range pad {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// WriteNPY writes a rows×cols float32 matrix (row-major, data[i*cols+j]) as a
// NumPy v1 .npy file, atomically. numpy.load and faiss read it directly.
func WriteNPY(path string, data []float32, rows, cols int) error {
	if len(data) != rows*cols {
		return fmt.Errorf("WriteNPY: %d values for shape (%d, %d)", len(data), rows, cols)
	}
	f, err := dataset.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(npyHeader(rows, cols)); err != nil {
		return err
	}
	var b [4]byte
	for _, v := range data {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		if _, err := w.Write(b[:]); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

var shapeRE = regexp.MustCompile(`'shape':\s*\((\d+),\s*(\d+)\s*,?\)`)

// ReadNPY reads a float32 C-order 2-D .npy file (versions 1.0 and 2.0).
func ReadNPY(path string) (data []float32, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	bad := func(format string, a ...any) error {
		return &dataset.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrNPY}, a...)...)}
	}
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return nil, 0, 0, bad("no NUMPY magic")
	}
	var hl int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, 0, bad("truncated header")
		}
		hl = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, 0, bad("truncated header")
		}
		hl = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, 0, 0, bad("version %d.%d", pre[6], pre[7])
	}
	if hl > 1<<20 {
		return nil, 0, 0, bad("header length %d", hl)
	}
	hdr := make([]byte, hl)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, 0, 0, bad("truncated header")
	}
	h := string(hdr)
	if !regexp.MustCompile(`'descr':\s*'<f4'`).MatchString(h) {
		return nil, 0, 0, bad("dtype is not little-endian float32: %s", h)
	}
	if !regexp.MustCompile(`'fortran_order':\s*False`).MatchString(h) {
		return nil, 0, 0, bad("fortran order not supported")
	}
	m := shapeRE.FindStringSubmatch(h)
	if m == nil {
		return nil, 0, 0, bad("not a 2-D shape: %s", h)
	}
	rows, _ = strconv.Atoi(m[1])
	cols, _ = strconv.Atoi(m[2])
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	want := int64(rows) * int64(cols) * 4
	if st.Size()-int64(8+hl+map[bool]int{true: 2, false: 4}[pre[6] == 1]) != want {
		return nil, 0, 0, bad("shape (%d, %d) needs %d data bytes, file has %d", rows, cols, want, st.Size())
	}
	data = make([]float32, rows*cols)
	buf := make([]byte, 4*4096)
	for i := 0; i < len(data); {
		n := min(4096, len(data)-i)
		if _, err := io.ReadFull(r, buf[:4*n]); err != nil {
			return nil, 0, 0, bad("truncated data")
		}
		for j := 0; j < n; j++ {
			data[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		}
		i += n
	}
	return data, rows, cols, nil
}
