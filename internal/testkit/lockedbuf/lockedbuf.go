// Package lockedbuf is a bytes.Buffer that a child process's output copier
// (or a command's goroutines) writes while a test reads it: tests that
// watch a server's log for "ready" or a crash message shared three copies
// of it.
package lockedbuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for one writer and readers at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
