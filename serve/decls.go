package serve

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"

	"github.com/driftkit/driftkit/internal/leanname"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// Decls answers full declaration rows (code, path, lines, proof
// dependencies: what the index does not keep) by name from a workspace's
// declarations.parquet. It keeps only a name → row map in memory and
// decodes one row per lookup (the pages of one row group that hold it), so
// serving Mathlib costs a few tens of MB instead of the hundreds the source
// texts would take; a small cache keeps recently shown rows. A Decls is safe
// for concurrent use; Close it after the last Lookup.
type Decls struct {
	// refs counts the workspace's reference and the requests reading; the
	// file closes when it drops to 0 (release).
	refs atomic.Int64
	path string
	f    *os.File
	pf   *parquet.File
	id   fileID
	rows map[string]int64
	// docs holds the docstrings (LeanSearch answers one per hit, too often
	// to decode rows for it).
	docs map[string]string
	// private holds the names Lean makes private to their module
	// (workspace.Declaration.IsPrivate): search answers leave them out.
	private map[string]bool
	// readers holds a few reusable row readers (a GenericReader is not safe
	// for concurrent use; seeking one is cheap). It is bounded: a burst of
	// lookups makes more, and drops them after, so memory returns to its
	// baseline.
	readers chan *parquet.GenericReader[workspace.Declaration]

	mu    sync.Mutex
	cache map[string]*workspace.Declaration
	order []string // FIFO of cache keys
}

// declCacheSize is how many decoded rows a Decls keeps; declReaders how
// many row readers it keeps for reuse.
const (
	declCacheSize = 512
	declReaders   = 4
)

// Docstring returns a declaration's docstring ("" when it has none).
func (d *Decls) Docstring(name string) string { return d.docs[name] }

// Private reports whether Lean makes the declaration private to its module
// (no other module can write its name).
func (d *Decls) Private(name string) bool { return d.private[name] }

// Public drops from hits, in place, the declarations Lean keeps private to
// their module (the one filter searchHits and searchAllPublic share).
func (d *Decls) Public(hits []retrieval.Hit) []retrieval.Hit {
	return slices.DeleteFunc(hits, func(h retrieval.Hit) bool { return d.private[h.Name] })
}

// declNameCol is what OpenDecls reads of every row.
type declNameCol struct {
	Name       string   `parquet:"name"`
	Docstring  *string  `parquet:"docstring,optional"`
	Modifiers  []string `parquet:"modifiers,list"`
	Visibility string   `parquet:"visibility,dict"`
}

// AddedColumns: visibility is optional, as in workspace.Declaration.
func (*declNameCol) AddedColumns() []string { return (*workspace.Declaration)(nil).AddedColumns() }

// fileID identifies a file's content well enough to notice that an atomic
// rename replaced it.
type fileID struct {
	size  int64
	mtime int64
	ino   uint64
}

func statID(path string) (fileID, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	return fileID{size: st.Size(), mtime: st.ModTime().UnixNano(), ino: inode(st)}, nil
}

// ErrNoDeclarations is wrapped when a workspace has no declarations.parquet.
var ErrNoDeclarations = errors.New("no declarations.parquet")

// OpenDecls opens path (a declarations.parquet) for lookups by name. A
// repeated name keeps its first row, as the index does.
func OpenDecls(path string) (d *Decls, err error) {
	id, err := statID(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoDeclarations)
	}
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: %v", workspace.ErrCorrupt, r)}
		}
		if err != nil {
			f.Close()
		}
	}()
	pf, err := parquet.OpenFile(f, id.size)
	if err != nil {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: %v", workspace.ErrCorrupt, err)}
	}
	d = &Decls{path: path, f: f, pf: pf, id: id, rows: make(map[string]int64, pf.NumRows()), docs: map[string]string{},
		cache: map[string]*workspace.Declaration{}, readers: make(chan *parquet.GenericReader[workspace.Declaration], declReaders)}
	var row int64
	d.private = map[string]bool{}
	if err := workspace.EachRow(path, func(c *declNameCol) error {
		if _, dup := d.rows[c.Name]; !dup && c.Name != "" {
			name := strings.Clone(c.Name)
			d.rows[name] = row
			if c.Docstring != nil && *c.Docstring != "" {
				d.docs[name] = strings.Clone(*c.Docstring)
			}
			if workspace.IsPrivate(c.Visibility, c.Modifiers) {
				d.private[name] = true
			}
		}
		row++
		return nil
	}); err != nil {
		return nil, err
	}
	d.refs.Store(1)
	return d, nil
}

// tryAcquire takes a reference unless the rows are closed for good.
func (d *Decls) tryAcquire() bool {
	for {
		n := d.refs.Load()
		if n <= 0 {
			return false
		}
		if d.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one closes the file.
func (d *Decls) release() error {
	if d.refs.Add(-1) == 0 {
		return d.f.Close()
	}
	return nil
}

// Len is the number of distinct declaration names.
func (d *Decls) Len() int { return len(d.rows) }

// Changed reports whether the file at the path d was opened from is no
// longer the one d reads (a new extract replaced it).
func (d *Decls) Changed() bool {
	id, err := statID(d.path)
	return err != nil || id != d.id
}

// Lookup returns the row of a declaration; the result is shared and must
// not be modified. ok is false for an unknown name; err reports a file
// that cannot be decoded.
func (d *Decls) Lookup(name string) (decl *workspace.Declaration, ok bool, err error) {
	row, ok := d.rows[name]
	if !ok {
		// either spelling of a keyword component (Foo.structure,
		// Foo.«structure»): tables store Lean's Name.toString, older ones
		// the escaped form
		for _, alt := range []string{leanname.Canonical(name), leanname.Paste(name)} {
			if row, ok = d.rows[alt]; ok {
				name = alt
				break
			}
		}
		if !ok {
			return nil, false, nil
		}
	}
	d.mu.Lock()
	if c := d.cache[name]; c != nil {
		d.mu.Unlock()
		return c, true, nil
	}
	d.mu.Unlock()
	var r *parquet.GenericReader[workspace.Declaration]
	select {
	case r = <-d.readers:
	default:
		r = parquet.NewGenericReader[workspace.Declaration](d.pf)
	}
	defer func() {
		if p := recover(); p != nil {
			err = &workspace.FileError{Path: d.path, Row: row, Err: fmt.Errorf("%w: %v", workspace.ErrCorrupt, p)}
			return // a reader that panicked is not reused
		}
		select {
		case d.readers <- r:
		default:
			r.Close()
		}
	}()
	if err := r.SeekToRow(row); err != nil {
		return nil, false, &workspace.FileError{Path: d.path, Row: row, Err: err}
	}
	buf := make([]workspace.Declaration, 1)
	if n, err := r.Read(buf); n != 1 {
		return nil, false, &workspace.FileError{Path: d.path, Row: row, Err: fmt.Errorf("%w: row unreadable: %v", workspace.ErrCorrupt, err)}
	}
	decl = cloneDecl(&buf[0])
	if decl.Name != name {
		return nil, false, &workspace.FileError{Path: d.path, Row: row, Err: fmt.Errorf("%w: row %d is %q, not %q", workspace.ErrCorrupt, row, decl.Name, name)}
	}
	d.mu.Lock()
	if _, had := d.cache[name]; !had {
		if len(d.order) >= declCacheSize {
			delete(d.cache, d.order[0])
			d.order = d.order[1:]
		}
		d.cache[name] = decl
		d.order = append(d.order, name)
	}
	d.mu.Unlock()
	return decl, true, nil
}

// Close drops the reference OpenDecls gave: the file closes once no
// request reads it.
func (d *Decls) Close() error { return d.release() }

// cloneDecl copies a decoded row out of the reader's buffers.
func cloneDecl(d *workspace.Declaration) *workspace.Declaration {
	c := *d
	for _, p := range []*string{&c.Library, &c.Revision, &c.Name, &c.Kind, &c.Keyword, &c.Module, &c.Path, &c.Namespace, &c.Signature, &c.Code} {
		*p = strings.Clone(*p)
	}
	for _, p := range []**string{&c.Docstring, &c.GeneratedFrom} {
		if *p != nil {
			s := strings.Clone(**p)
			*p = &s
		}
	}
	for _, p := range []*[]string{&c.Opens, &c.Modifiers, &c.Attributes, &c.StatementDeps, &c.ProofDeps} {
		*p = cloneStrings(*p)
	}
	return &c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.Clone(x)
	}
	return out
}
