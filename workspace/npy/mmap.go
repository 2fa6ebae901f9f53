package npy

import (
	"bufio"
	"fmt"
	"os"
	"unsafe"

	"github.com/driftkit/driftkit/internal/flat"
)

// Matrix is a 2-D float32 matrix read from a .npy file: memory-mapped when
// the file allows it (little-endian float32 in C order on a little-endian
// Unix host), so that the pages are shared with the page cache and other
// processes instead of copied onto the heap; read into memory otherwise.
// Data is read-only and valid until Close; a mapping stays valid after the
// file is unlinked or replaced (Linux keeps the old inode).
type Matrix struct {
	Data       []float32
	Rows, Cols int
	// Mapped reports whether Data is a memory mapping.
	Mapped bool
	unmap  func() error
}

// Close releases the mapping (a no-op for a matrix read into memory). Data
// must not be used afterwards.
func (m *Matrix) Close() error {
	if m.unmap == nil {
		return nil
	}
	err := m.unmap()
	m.unmap, m.Data = nil, nil
	return err
}

// hostLittleEndian is true on little-endian machines, where a '<f4' file's
// bytes are the float32 values.
var hostLittleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Open maps (or reads) a .npy file, checking its header and size like Read.
func Open(path string) (*Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(path, bufio.NewReaderSize(f, 4096))
	if err != nil {
		return nil, err
	}
	n := int64(h.rows) * int64(h.cols)
	if have := st.Size() - int64(h.dataStart); have != n*int64(h.width) {
		return nil, &Error{Path: path, Offset: int64(h.dataStart), Err: fmt.Errorf("%w: shape (%d, %d) needs %d bytes of data, file has %d (truncated?)", ErrMalformed, h.rows, h.cols, n*int64(h.width), have)}
	}
	if h.width == 4 && h.dataStart%4 == 0 && hostLittleEndian && n > 0 {
		if b, unmap, err := flat.MapFile(f, st.Size()); err == nil {
			data := unsafe.Slice((*float32)(unsafe.Pointer(&b[h.dataStart])), n)
			return &Matrix{Data: data, Rows: h.rows, Cols: h.cols, Mapped: true, unmap: unmap}, nil
		}
	}
	data, rows, cols, err := Read(path)
	if err != nil {
		return nil, err
	}
	return &Matrix{Data: data, Rows: rows, Cols: cols}, nil
}
