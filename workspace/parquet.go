package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// ErrCorrupt is wrapped by errors about Parquet files that cannot be read: a
// truncated file, a bad footer, a column that does not decode.
var ErrCorrupt = errors.New("corrupt parquet file")

// ErrSchema is wrapped when a file lacks a column the reader needs.
var ErrSchema = errors.New("parquet schema mismatch")

// FileError reports a problem with a table file, naming it and, where known,
// the row at which reading failed.
type FileError struct {
	Path string
	Row  int64 // -1 when the error is not about a row
	Err  error
}

func (e *FileError) Error() string {
	if e.Row >= 0 {
		return fmt.Sprintf("%s: row %d: %v", e.Path, e.Row, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// DefaultRowGroupRows bounds the memory a writer holds before it flushes a
// row group: rows are never buffered for the whole table.
const DefaultRowGroupRows = 8192

// Writer streams rows of type T into a Parquet file that replaces its
// destination atomically on Close. It is not safe for concurrent use.
type Writer[T any] struct {
	path    string
	file    *AtomicFile
	w       *parquet.GenericWriter[T]
	pending int
	rows    int64
	groupN  int
	// finished: footer written, not yet renamed; closed: committed or aborted.
	finished bool
	closed   bool
}

// NewWriter starts a table file at path. Nothing is visible at path until
// Close succeeds; Abort discards the partial file.
func NewWriter[T any](path string) (*Writer[T], error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return newWriter[T](path, f), nil
}

// NewStagedWriter starts the table rel of a transaction: Close completes it,
// and the transaction's Commit puts it in place with the run's other outputs.
func NewStagedWriter[T any](t *Txn, rel string) (*Writer[T], error) {
	f, err := t.Create(rel)
	if err != nil {
		return nil, err
	}
	return newWriter[T](t.ws.Path(rel), f), nil
}

func newWriter[T any](path string, f *AtomicFile) *Writer[T] {
	return &Writer[T]{path: path, file: f, w: newParquetWriter[T](f), groupN: DefaultRowGroupRows}
}

// newParquetWriter is the one configuration of every table file (and of the
// row groups a ParallelWriter encodes, which must match it to be spliced).
func newParquetWriter[T any](out io.Writer) *parquet.GenericWriter[T] {
	return parquet.NewGenericWriter[T](out,
		parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("driftkit", Version, ""),
	)
}

// Write appends rows, flushing a row group whenever enough rows are pending.
func (w *Writer[T]) Write(rows ...T) error {
	for len(rows) > 0 {
		n := min(len(rows), w.groupN-w.pending)
		if _, err := w.w.Write(rows[:n]); err != nil {
			return &FileError{Path: w.path, Row: w.rows, Err: err}
		}
		w.rows += int64(n)
		w.pending += n
		rows = rows[n:]
		if w.pending >= w.groupN {
			if err := w.w.Flush(); err != nil {
				return &FileError{Path: w.path, Row: -1, Err: err}
			}
			w.pending = 0
		}
	}
	return nil
}

// Rows returns how many rows have been written.
func (w *Writer[T]) Rows() int64 { return w.rows }

// Close finishes the file and puts it in place.
func (w *Writer[T]) Close() error {
	if err := w.Finish(); err != nil {
		return err
	}
	return w.Commit()
}

// Finish completes the file (footer written, data on disk) without putting it
// in place yet, so that a stage writing several tables can replace them all
// only once every one is complete: Finish each, then Commit each.
func (w *Writer[T]) Finish() error {
	if w.closed {
		return errors.New("dataset: writer already closed")
	}
	if w.finished {
		return nil
	}
	w.finished = true
	if err := w.w.Close(); err != nil {
		w.closed = true
		w.file.Abort()
		return &FileError{Path: w.path, Row: -1, Err: err}
	}
	if err := w.file.Sync(); err != nil {
		w.closed = true
		w.file.Abort()
		return &FileError{Path: w.path, Row: -1, Err: err}
	}
	return nil
}

// Commit renames a finished file over its destination.
func (w *Writer[T]) Commit() error {
	if w.closed {
		return nil
	}
	if !w.finished {
		return errors.New("dataset: Commit before Finish")
	}
	w.closed = true
	return w.file.Commit()
}

// Abort discards what was written; the destination keeps its old content.
func (w *Writer[T]) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.file.Abort()
}

// ParallelWriter encodes a Writer's row groups on several goroutines: most
// of a large table's write is compressing its pages, which one goroutine
// did alone (2.6 of extract's 20 CPU-seconds on Mathlib, the last phase of
// the run, serial). Each group is encoded as a one-group Parquet file in
// memory with the Writer's configuration, then spliced into the file in
// order: its compressed pages are copied verbatim (parquet-go's
// WriteRowGroup copy path), so the file is byte for byte the one Write
// makes (TestParallelWriterSameBytes).
type ParallelWriter[T any] struct {
	w       *Writer[T]
	rows    []T                // the group being filled
	pending []chan encodedPart // encoded or being encoded, in file order
	sem     chan struct{}      // bounds the groups in flight
	err     error
	prepare func(*T) // applied to each row on the encoding goroutine (Map)
	// free holds group buffers whose encoding is done, for the next groups
	// (a fresh one per group was most of what writing allocated)
	free chan []T
}

type encodedPart struct {
	data []byte
	n    int
	err  error
}

// Parallel returns a ParallelWriter over w with at most workers groups
// being encoded at once. Rows must all go through it (w has none yet);
// Close it before closing w.
func (w *Writer[T]) Parallel(workers int) *ParallelWriter[T] {
	p := &ParallelWriter[T]{w: w, sem: make(chan struct{}, max(workers, 1)), free: make(chan []T, 2*max(workers, 1)+1)}
	if w.rows > 0 || w.pending > 0 || w.finished || w.closed {
		p.err = &FileError{Path: w.path, Row: -1, Err: errors.New("dataset: ParallelWriter over a writer already used")}
	}
	return p
}

// Map makes f be applied to every row on the goroutine that encodes its
// group, before it is encoded (a per-row transform off the caller's
// goroutine: the file is that of writing f's rows). Call it before Write.
// f gets a shallow copy of the caller's row: it must not write into the
// row's slices or maps (copy them first), or the caller's rows change too.
func (p *ParallelWriter[T]) Map(f func(*T)) *ParallelWriter[T] {
	p.prepare = f
	return p
}

// Write appends rows; a full group goes to an encoder, and the groups
// already encoded are written to the file.
func (p *ParallelWriter[T]) Write(rows ...T) error {
	for len(rows) > 0 && p.err == nil {
		if p.rows == nil {
			select {
			case b := <-p.free:
				// Truncated here too, not only by the encoder that handed it
				// back: a buffer arriving full would make every group full at
				// once and Write would never return.
				p.rows = b[:0]
			default:
				p.rows = make([]T, 0, p.w.groupN)
			}
		}
		n := min(len(rows), p.w.groupN-len(p.rows))
		p.rows = append(p.rows, rows[:n]...)
		rows = rows[n:]
		if len(p.rows) == p.w.groupN {
			p.encode()
		}
	}
	return p.err
}

// encode hands the group being filled to a goroutine, once one of the
// workers is free; meanwhile, and after, it writes the groups encoded
// (in order; at most twice the workers wait to be written).
func (p *ParallelWriter[T]) encode() {
	rows := p.rows
	p.rows = nil
	for p.err == nil {
		if len(p.pending) >= 2*cap(p.sem) {
			p.splice()
			continue
		}
		select {
		case p.sem <- struct{}{}:
			done := make(chan encodedPart, 1)
			p.pending = append(p.pending, done)
			go func() {
				if f := p.prepare; f != nil {
					for i := range rows {
						f(&rows[i])
					}
				}
				var buf bytes.Buffer
				pw := newParquetWriter[T](&buf)
				_, err := pw.Write(rows)
				if err == nil {
					err = pw.Close()
				}
				if cap(rows) == p.w.groupN {
					clear(rows) // the encoder keeps none of them
					select {
					case p.free <- rows[:0]:
					default:
					}
				}
				<-p.sem // before done: a spliced group's worker is free
				done <- encodedPart{data: buf.Bytes(), n: len(rows), err: err}
			}()
			p.spliceReady()
			return
		default:
			p.splice() // every worker busy: a held slot is a group in p.pending
		}
	}
}

// spliceReady writes the groups at the head of the queue that are encoded.
func (p *ParallelWriter[T]) spliceReady() {
	for len(p.pending) > 0 && len(p.pending[0]) > 0 {
		p.splice()
	}
}

// splice waits for the oldest group in flight and copies it into the file.
func (p *ParallelWriter[T]) splice() {
	part := <-p.pending[0]
	p.pending = p.pending[1:]
	if p.err != nil {
		return
	}
	if part.err != nil {
		p.err = &FileError{Path: p.w.path, Row: p.w.rows, Err: part.err}
		return
	}
	pf, err := parquet.OpenFile(bytes.NewReader(part.data), int64(len(part.data)))
	if err == nil && len(pf.RowGroups()) != 1 {
		err = fmt.Errorf("encoded group has %d row groups", len(pf.RowGroups()))
	}
	if err == nil {
		_, err = p.w.w.WriteRowGroup(pf.RowGroups()[0])
	}
	if err != nil {
		p.err = &FileError{Path: p.w.path, Row: p.w.rows, Err: err}
		return
	}
	p.w.rows += int64(part.n)
}

// Close encodes the last (partial) group and writes every group; the
// Writer can then be closed (or aborted on an error).
func (p *ParallelWriter[T]) Close() error {
	if len(p.rows) > 0 && p.err == nil {
		p.encode()
	}
	for len(p.pending) > 0 {
		p.splice()
	}
	return p.err
}

// WriteTable writes all rows to path atomically.
func WriteTable[T any](path string, rows []T) error {
	w, err := NewWriter[T](path)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Reader streams rows of type T from a Parquet file. Columns of T missing from
// the file are an ErrSchema error unless T lists them as added later (older
// files read as zero values, see Informal.AddedColumns); extra columns in
// the file are ignored, so readers keep working when later versions add
// columns.
type Reader[T any] struct {
	path string
	f    *os.File
	r    *parquet.GenericReader[T]
	row  int64
	n    int64
}

// OpenReader opens a table file and checks its footer and schema.
func OpenReader[T any](path string) (*Reader[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := openParquet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, &FileError{Path: path, Row: -1, Err: err}
	}
	want := parquet.SchemaOf(new(T))
	for _, col := range want.Columns() {
		if _, ok := pf.Schema().Lookup(col...); !ok && !isAdded[T](col) {
			f.Close()
			return nil, &FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: no column %q", ErrSchema, joinPath(col))}
		}
	}
	r := parquet.NewGenericReader[T](pf)
	return &Reader[T]{path: path, f: f, r: r, n: pf.NumRows()}, nil
}

// addedColumns is implemented by row types whose table gained columns after
// its first release: files written before lack them and read as zero values.
type addedColumns interface {
	// AddedColumns lists top-level column names.
	AddedColumns() []string
}

// isAdded reports whether the top-level column of path is one T added later.
func isAdded[T any](path []string) bool {
	a, ok := any(new(T)).(addedColumns)
	return ok && len(path) > 0 && slices.Contains(a.AddedColumns(), path[0])
}

func joinPath(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "."
		}
		s += x
	}
	return s
}

func openParquet(f io.ReaderAt, size int64) (pf *parquet.File, err error) {
	// The decoder can panic on adversarial input; a table file is outside
	// input, so turn that into an error.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes is too short for a parquet file (truncated?)", ErrCorrupt, size)
	}
	pf, err = parquet.OpenFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return pf, nil
}

// NumRows is the row count recorded in the file's footer.
func (r *Reader[T]) NumRows() int64 { return r.n }

// Read fills buf with the next rows; it returns io.EOF after the last row.
func (r *Reader[T]) Read(buf []T) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &FileError{Path: r.path, Row: r.row, Err: fmt.Errorf("%w: %v", ErrCorrupt, p)}
		}
	}()
	n, err = r.r.Read(buf)
	r.row += int64(n)
	if err != nil && err != io.EOF {
		err = &FileError{Path: r.path, Row: r.row, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	if err == io.EOF && r.row < r.n && n == 0 {
		err = &FileError{Path: r.path, Row: r.row, Err: fmt.Errorf("%w: footer says %d rows, read %d", ErrCorrupt, r.n, r.row)}
	}
	return n, err
}

// Close releases the file.
func (r *Reader[T]) Close() error {
	r.r.Close()
	return r.f.Close()
}

// EachRow calls fn for every row of the table at path, in batches so that the
// table is never held whole in memory. fn must not keep the pointer.
func EachRow[T any](path string, fn func(*T) error) error {
	r, err := OpenReader[T](path)
	if err != nil {
		return err
	}
	defer r.Close()
	buf := make([]T, 1024)
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			if ferr := fn(&buf[i]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		clear(buf)
	}
}

// ReadTable reads the whole table at path.
func ReadTable[T any](path string) ([]T, error) {
	r, err := OpenReader[T](path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([]T, 0, r.NumRows())
	buf := make([]T, 1024)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		buf = make([]T, 1024)
	}
}
