package index

import "github.com/driftkit/driftkit/workspace/npy"

// ErrNPY is wrapped by errors about malformed .npy files.
var ErrNPY = npy.ErrMalformed

// npyHeader is the header WriteNPY writes (see npy.Header).
func npyHeader(rows, cols int) []byte { return npy.Header(rows, cols) }

// WriteNPY writes a rows×cols float32 matrix (row-major, data[i*cols+j]) as a
// NumPy v1 .npy file, atomically. numpy.load and faiss read it directly.
func WriteNPY(path string, data []float32, rows, cols int) error {
	return npy.Write(path, data, rows, cols)
}

// ReadNPY reads a 2-D C-order .npy file (float32, or float64 converted).
func ReadNPY(path string) (data []float32, rows, cols int, err error) { return npy.Read(path) }
