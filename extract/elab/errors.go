package elab

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error about a malformed export record.
var ErrFormat = errors.New("malformed export record")

// RecordError names the record of an export file at fault, like
// encoding/csv.ParseError: the file, the 1-based line the record starts on
// and, for files that hold a JSON array (jixia), the 0-based index of the
// element; Record is -1 for line-per-record files (lean4export).
type RecordError struct {
	Path   string
	Line   int
	Record int
	Err    error
}

func (e *RecordError) Error() string {
	if e.Record >= 0 {
		return fmt.Sprintf("%s:%d: record %d: %v", e.Path, e.Line, e.Record, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Errorf makes a RecordError wrapping ErrFormat.
func Errorf(path string, line, record int, format string, args ...any) *RecordError {
	return &RecordError{Path: path, Line: line, Record: record, Err: fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))}
}
