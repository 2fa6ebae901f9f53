package head

import "github.com/driftkit/driftkit/workspace/npy"

// ErrNPY is wrapped by every error about a malformed .npy file.
var ErrNPY = npy.ErrMalformed

// NPYError reports a problem in a .npy file, with the byte offset where it was found.
type NPYError = npy.Error

// EncodeNPY returns a version 1.0 .npy file holding a C-order float32 matrix
// of rows × cols, as numpy.save writes it.
func EncodeNPY(data []float32, rows, cols int) []byte { return npy.Encode(data, rows, cols) }

// DecodeNPY parses a .npy file holding a 2-D little-endian float32 (or
// float64, converted) matrix in C order. path only names the file in errors.
func DecodeNPY(path string, b []byte) (data []float32, rows, cols int, err error) {
	return npy.Decode(path, b)
}
