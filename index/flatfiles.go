package index

import (
	"bufio"
	"fmt"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// generationSec is the section of every flat file of a generation that
// names it: a file copied from another generation is refused at open even
// when it is intact.
const generationSec = "generation"

// writeFlat writes a flat file atomically (temporary file, fsync, rename):
// fn adds the sections, after the generation's name.
func writeFlat(path, gen string, fn func(w *flat.Writer)) error {
	f, err := workspace.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := flat.NewWriter(bw)
	flat.Put(w, generationSec, []byte(gen))
	fn(w)
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// openFlat opens a generation's flat file and checks that it is the
// generation's (its section table was checked by flat.Open; sections are
// checked as they are taken).
func openFlat(genDir, name, gen string) (*flat.File, error) {
	f, err := flat.Open(genDir + "/" + name)
	if err != nil {
		return nil, staleFlat(err)
	}
	id, err := flat.Take[byte](f, generationSec)
	if err == nil && string(id) != gen {
		err = &workspace.FileError{Path: f.Path(), Row: -1, Err: fmt.Errorf("%w: written for generation %q, not %q", ErrStale, id, gen)}
	}
	if err != nil {
		f.Close()
		return nil, staleFlat(err)
	}
	return f, nil
}

// staleFlat marks a flat file's format error as ErrStale (damaged index
// files).
func staleFlat(err error) error {
	if err == nil {
		return nil
	}
	if fe, ok := err.(*flat.Error); ok {
		return &workspace.FileError{Path: fe.Path, Row: -1, Err: fmt.Errorf("%w: %w", ErrStale, fe)}
	}
	return err
}

// writeTable writes every column of c to a flat file.
func writeTable(path, gen string, c *retrieval.TableColumns) error {
	return writeFlat(path, gen, func(w *flat.Writer) {
		for _, col := range c.Columns() {
			writeColumn(w, col)
		}
	})
}

// writeColumn writes one table column in the flat encoding of its type.
func writeColumn(w *flat.Writer, col retrieval.Column) {
	switch p := col.Ptr.(type) {
	case *flat.Keys:
		w.Keys(col.Name, *p)
	case *flat.Strings:
		w.Strings(col.Name, *p)
	case *flat.Lists:
		w.Lists(col.Name, *p)
	case *[]uint8:
		flat.Put(w, col.Name, *p)
	case *[]uint16:
		flat.Put(w, col.Name, *p)
	case *[]uint32:
		flat.Put(w, col.Name, *p)
	case *[]int32:
		flat.Put(w, col.Name, *p)
	case *[]float32:
		flat.Put(w, col.Name, *p)
	default:
		panic(fmt.Sprintf("index: table column %s of type %T", col.Name, p))
	}
}

// loadColumns takes one group of columns from f into c.
func loadColumns(f *flat.File, group string, c *retrieval.TableColumns) error {
	for _, col := range c.Columns() {
		if col.Group != group {
			continue
		}
		if retrieval.OptionalGroup(group) && !hasColumn(f, col) {
			continue // an index written before the group existed
		}
		var err error
		switch p := col.Ptr.(type) {
		case *flat.Keys:
			*p, err = f.Keys(col.Name)
		case *flat.Strings:
			*p, err = f.Strings(col.Name)
		case *flat.Lists:
			*p, err = f.Lists(col.Name, -1) // ranges: OpenTable and the group checks
		case *[]uint8:
			*p, err = flat.Take[uint8](f, col.Name)
		case *[]uint16:
			*p, err = flat.Take[uint16](f, col.Name)
		case *[]uint32:
			*p, err = flat.Take[uint32](f, col.Name)
		case *[]int32:
			*p, err = flat.Take[int32](f, col.Name)
		case *[]float32:
			*p, err = flat.Take[float32](f, col.Name)
		default:
			panic(fmt.Sprintf("index: table column %s of type %T", col.Name, p))
		}
		if err != nil {
			return staleFlat(err)
		}
	}
	return staleFlat(checkLimits(f, group, c))
}

// hasColumn reports whether f holds col (a column of several sections
// by its first: name.off).
func hasColumn(f *flat.File, col retrieval.Column) bool {
	switch col.Ptr.(type) {
	case *flat.Keys, *flat.Strings, *flat.Lists:
		return f.Has(col.Name + ".off")
	}
	return f.Has(col.Name)
}

// checkLimits checks the values of a group's bounded columns (ids into a
// dictionary, document ids, refs) by reading them with pread: nothing a
// lookup reads can be out of range, and the check makes no page resident.
func checkLimits(f *flat.File, group string, c *retrieval.TableColumns) error {
	for _, col := range c.Columns() {
		if col.Group != group || col.Limit == "" || retrieval.OptionalGroup(group) && !hasColumn(f, col) {
			continue
		}
		lim := c.LimitOf(col.Limit)
		var err error
		switch col.Ptr.(type) {
		case *[]uint8:
			err = flat.CheckRange[uint8](f, col.Name, lim)
		case *[]uint16:
			err = flat.CheckRange[uint16](f, col.Name, lim)
		case *[]uint32:
			err = flat.CheckRange[uint32](f, col.Name, lim)
		case *[]int32:
			err = flat.CheckRange[int32](f, col.Name, lim)
		case *flat.Lists:
			err = flat.CheckRange[int32](f, col.Name+".vals", lim)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// openTable opens the table of a table.dk: the core columns now, the
// others when first used.
func openTable(f *flat.File) (*retrieval.Table, error) {
	var c retrieval.TableColumns
	if err := loadColumns(f, retrieval.GroupCore, &c); err != nil {
		return nil, err
	}
	t, err := retrieval.OpenTable(&c, func(group string, c *retrieval.TableColumns) error { return loadColumns(f, group, c) })
	if err != nil {
		return nil, &workspace.FileError{Path: f.Path(), Row: -1, Err: fmt.Errorf("%w: %w", ErrStale, err)}
	}
	return t, nil
}
