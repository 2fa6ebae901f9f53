package eval

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrBench is wrapped by errors about malformed benchmark files.
var ErrBench = errors.New("bad benchmark file")

// BenchError names the benchmark file and the line at fault (Line 0: the
// file as a whole). Every reader of benchmarks (retrieval, theorem search,
// DRIFT, decontamination) reports its problems as one.
type BenchError struct {
	Path string
	Line int
	Err  error
}

func (e *BenchError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *BenchError) Unwrap() error { return e.Err }

// maxBenchLine is the longest benchmark line read (an item with a long
// header or proof fits; a file without newlines does not).
const maxBenchLine = 64 << 20

// ReadLines reads a JSON-lines benchmark from r: item gets each non-blank
// line with its 1-based number, and an error it returns becomes the
// *BenchError of that line (it should wrap ErrBench). It returns how many
// lines there were.
func ReadLines(r io.Reader, path string, item func(line int, b []byte) error) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxBenchLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if strings.TrimSpace(string(b)) == "" {
			continue
		}
		if err := item(line, b); err != nil {
			return line, &BenchError{Path: path, Line: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return line, &BenchError{Path: path, Line: line + 1, Err: fmt.Errorf("%w: %v", ErrBench, err)}
	}
	return line, nil
}

// ReadItems reads a JSON-lines benchmark of items, one per non-blank line
// (ReadLines): item parses and checks one. A file without any item is an
// error too, saying that an item is want.
func ReadItems[T any](r io.Reader, path, want string, item func(line int, b []byte) (T, error)) ([]T, error) {
	var out []T
	lines, err := ReadLines(r, path, func(line int, b []byte) error {
		it, err := item(line, b)
		if err == nil {
			out = append(out, it)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &BenchError{Path: path, Line: max(lines, 1), Err: fmt.Errorf("%w: no items (want %s)", ErrBench, want)}
	}
	return out, nil
}

// ReadFile opens the benchmark at path and reads it with read (ReadBench,
// ReadSearchBench, drift.ReadBench).
func ReadFile[T any](path string, read func(r io.Reader, path string) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path)
}
