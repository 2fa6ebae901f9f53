//go:build unix

package flat

import (
	"os"
	"syscall"
)

// MapFile maps the first size bytes of f read-only and shared: the pages
// are the page cache's, not copies on the heap, and only those a reader
// touches become resident. The returned function unmaps them; the mapping
// stays valid after the file is unlinked or replaced (the old inode lives
// until it is unmapped).
func MapFile(f *os.File, size int64) ([]byte, func() error, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
