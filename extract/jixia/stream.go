package jixia

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/driftkit/driftkit/extract/elab"
)

// lineCounter remembers where the newlines of what it reads are, so that an
// offset the JSON decoder reports can be named by line.
type lineCounter struct {
	r   io.Reader
	off int64
	nl  []int64
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			c.nl = append(c.nl, c.off+int64(i))
		}
	}
	c.off += int64(n)
	return n, err
}

func (c *lineCounter) line(off int64) int {
	return 1 + sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
}

// eachElement streams the elements of the JSON array in r, calling fn with
// each raw element, the line it starts on and its index. A file that is not
// a JSON array, or breaks off, is an *elab.RecordError.
func eachElement(r io.Reader, path string, fn func(raw json.RawMessage, line, index int) error) error {
	lc := &lineCounter{r: r}
	dec := json.NewDecoder(lc)
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return elab.Errorf(path, 1, -1, "empty file (want a JSON array)")
		}
		return syntaxError(path, lc, dec, -1, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return elab.Errorf(path, lc.line(dec.InputOffset()), -1, "want a JSON array, got %v", tok)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntaxError(path, lc, dec, i, err)
		}
		start := dec.InputOffset() - int64(len(raw))
		if err := fn(raw, lc.line(start), i); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntaxError(path, lc, dec, -1, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return elab.Errorf(path, lc.line(dec.InputOffset()), -1, "data after the array")
	}
	return nil
}

func syntaxError(path string, lc *lineCounter, dec *json.Decoder, index int, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = fmt.Errorf("file ends inside the array")
		off = lc.off
	}
	return &elab.RecordError{Path: path, Line: lc.line(off), Record: index, Err: fmt.Errorf("%w: %v", elab.ErrFormat, err)}
}
