//go:build !unix

package flat

import (
	"errors"
	"os"
)

// MapFile is not supported here: readers fall back to reading the file.
func MapFile(*os.File, int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory mapping not supported here")
}
