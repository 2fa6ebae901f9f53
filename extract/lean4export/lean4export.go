// Package lean4export imports the NDJSON export of lean4export
// (github.com/leanprover/lean4export, format 3.x): the kernel's view of every
// constant of a Lean environment, with names, universe levels and expressions
// as one hash-consed DAG of numbered records. The importer resolves the DAG
// to constants — those in a declaration's type are its statement
// dependencies, those in its value its proof dependencies — and writes the
// same workspace tables as `extract`.
//
// An export of Mathlib is gigabytes, so the file is streamed once and never
// held: names are kept as (prefix, component) pairs in one arena, levels in a
// small table, and expressions as 13 bytes each in chunked integer columns
// (see exprTable). Declarations are written as soon as they are read, except
// structure-like inductives, whose kind (inductive, structure or class) is
// only known once their projections have been seen; they are written at the
// end.
//
// The export has no source text, docstrings, attributes or modules: rows get a
// signature printed from the elaborated type (without notation), empty code
// and module, and kinds from the declaration record (instances by their
// inst… name, classes by their instance-implicit projections, structures
// as Lean's structure-like inductives with projections).
package lean4export

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
)

// Options configure an import.
type Options struct {
	// Library and Revision label every row (the export does not say which
	// package a constant comes from).
	Library  string
	Revision string
	// Force replaces tables the manifest does not know.
	Force bool
	// MaxWarnings bounds Stats.Warnings (0 = 100).
	MaxWarnings int
}

// Stats summarises an import.
type Stats struct {
	Lines        int64
	Bytes        int64
	Names        int64
	Levels       int64
	Exprs        int64
	Declarations int64 // rows written
	Auxiliary    int64 // compiler-generated constants inlined, not written
	Unsafe       int64 // unsafe constants skipped
	Duplicates   int
	Meta         Meta
	// Warnings are malformed declaration records that were skipped (each a
	// *elab.RecordError); WarningCount counts all of them.
	Warnings     []error
	WarningCount int
	Elapsed      time.Duration
}

// ErrNotNDJSON is wrapped when the file is the older text export format.
var ErrNotNDJSON = errors.New("not a lean4export NDJSON file")

// Import streams the export at path into ws's declarations.parquet and
// modules.parquet (the latter empty: the export names no modules).
func Import(ctx context.Context, ws *workspace.Workspace, path string, opts Options) (*Stats, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	sink, err := elab.NewSink(ws, "import lean4export", opts.Force, map[string]any{
		"export": path, "library": opts.Library, "revision": opts.Revision})
	if err != nil {
		return nil, err
	}
	defer sink.Abort()
	bar := progress.Start(ctx, "import lean4export", fi.Size())
	h := sha256.New()
	im := newImporter(path, opts, sink)
	t0 := time.Now()
	if err := im.read(ctx, io.TeeReader(f, h), bar); err != nil {
		return nil, err
	}
	if bar != nil {
		bar.Finish()
	}
	if err := im.finish(); err != nil {
		return nil, err
	}
	st := &im.stats
	st.Duplicates = sink.Duplicates()
	st.Elapsed = time.Since(t0)
	run := sink.Run()
	run.InputRef(workspace.FileRef{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: st.Bytes})
	run.Phase("read", st.Elapsed)
	run.Count("lines", st.Lines)
	run.Count("expressions", st.Exprs)
	run.Count("names", st.Names)
	run.Count("auxiliary_constants_inlined", st.Auxiliary)
	run.Count("unsafe_skipped", st.Unsafe)
	run.Count("malformed_records_skipped", int64(st.WarningCount))
	run.Note(fmt.Sprintf("imported from a lean4export export (exporter %s %s, format %s, Lean %s): elaborated constants; signatures printed from kernel types without notation; no source code, docstrings or modules",
		st.Meta.Exporter.Name, st.Meta.Exporter.Version, st.Meta.Format.Version, st.Meta.Lean.Version))
	if err := sink.Commit(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// rowSink receives the rows (an *elab.Sink; tests and fuzzing pass their own).
type rowSink interface {
	Add(d workspace.Declaration) error
}

// importer holds the tables of one export being read.
type importer struct {
	path   string
	opts   Options
	sink   rowSink
	stats  Stats
	names  *nameTable
	levels *levelTable
	ex     exprTable
	line   int
	sc     scanner

	// dependency walks: visited expressions (bitset + the ones to clear) and
	// a per-walk stamp on names
	visited   []uint64
	touched   []uint32
	nameStamp []uint32
	stamp     uint32
	stack     []uint32

	// per constant name id
	aux      map[uint32][]uint32 // auxiliary constant → the non-auxiliary constants it stands for
	auxState []uint8             // 0 unknown, 1 auxiliary, 2 not
	explicit map[uint32]explicitArgs
	disp     map[uint32]string // row names of constants
	declared map[uint32]bool   // constants read so far

	// structure-like inductives, written at the end once their projections
	// said whether they are classes
	pending    []*workspace.Declaration
	pendingIdx map[uint32]int
	classes    map[uint32]bool
	hasFields  map[uint32]bool
	metaSeen   bool
}

func newImporter(path string, opts Options, sink rowSink) *importer {
	if opts.MaxWarnings <= 0 {
		opts.MaxWarnings = 100
	}
	return &importer{path: path, opts: opts, sink: sink, names: newNameTable(), levels: newLevelTable(),
		ex:  exprTable{letBody: map[uint32]uint32{}},
		aux: map[uint32][]uint32{}, explicit: map[uint32]explicitArgs{}, disp: map[uint32]string{}, declared: map[uint32]bool{},
		pendingIdx: map[uint32]int{}, classes: map[uint32]bool{}, hasFields: map[uint32]bool{}}
}

func (im *importer) fail(format string, args ...any) error {
	return elab.Errorf(im.path, im.line, -1, format, args...)
}

func (im *importer) warn(err error) {
	im.stats.WarningCount++
	if len(im.stats.Warnings) < im.opts.MaxWarnings {
		im.stats.Warnings = append(im.stats.Warnings, err)
	}
}

// read consumes the export line by line.
func (im *importer) read(ctx context.Context, r io.Reader, bar *progress.Bar) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(b) > 0 {
			im.line++
			im.stats.Lines++
			im.stats.Bytes += int64(len(b))
			if bar != nil {
				bar.Add(len(b))
			}
			if im.line&0xffff == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if perr := im.record(bytes.TrimRight(b, "\r\n")); perr != nil {
				return perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return &elab.RecordError{Path: im.path, Line: im.line + 1, Record: -1, Err: err}
		}
	}
	if !im.metaSeen {
		return im.fail("empty export: no metadata line")
	}
	return ctx.Err()
}

// record handles one line.
func (im *importer) record(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if !im.metaSeen {
		if b[0] != '{' {
			return fmt.Errorf("%w", &elab.RecordError{Path: im.path, Line: im.line, Record: -1,
				Err: fmt.Errorf("%w: the line is not JSON; the text export format of lean4export < 3.0 is not supported, re-export with lean4export 3.x (NDJSON)", ErrNotNDJSON)})
		}
		var rec declRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.Meta == nil {
			return &elab.RecordError{Path: im.path, Line: im.line, Record: -1,
				Err: fmt.Errorf("%w: the first line must be the {\"meta\": …} object of lean4export 3.x", ErrNotNDJSON)}
		}
		if err := json.Unmarshal(rec.Meta, &im.stats.Meta); err != nil {
			return im.fail("meta: %v", err)
		}
		if v := im.stats.Meta.Format.Version; v != "" && !strings.HasPrefix(v, "3.") {
			return im.fail("format version %s: this importer reads format 3.x", v)
		}
		im.metaSeen = true
		return nil
	}
	p, ok, bad := parsePrimitive(b, &im.sc)
	if bad {
		return im.fail("malformed name, level or expression record")
	}
	if ok {
		return im.primitive(&p)
	}
	return im.declaration(b)
}

func (im *importer) primitive(p *prim) error {
	switch p.tab {
	case tabName:
		if p.id != im.names.len() {
			return im.fail("name id %d out of sequence (want %d): ids are dense and in order", p.id, im.names.len())
		}
		if p.a >= p.id {
			return im.fail("name %d refers to undefined name %d", p.id, p.a)
		}
		comp := p.str
		if p.num {
			comp = numComp(p.b)
		}
		if !im.names.add(p.a, comp) {
			return im.fail("name table full")
		}
		im.stats.Names++
	case tabLevel:
		n := uint32(len(im.levels.kind))
		if p.id != n {
			return im.fail("level id %d out of sequence (want %d)", p.id, n)
		}
		switch p.kind {
		case lvSucc:
			if p.a >= n {
				return im.fail("level %d refers to undefined level %d", p.id, p.a)
			}
		case lvMax, lvIMax:
			if p.a >= n || p.b >= n {
				return im.fail("level %d refers to an undefined level", p.id)
			}
		case lvParam:
			if p.a >= im.names.len() {
				return im.fail("level %d refers to undefined name %d", p.id, p.a)
			}
		}
		im.levels.kind = append(im.levels.kind, uint8(p.kind))
		im.levels.a = append(im.levels.a, p.a)
		im.levels.b = append(im.levels.b, p.b)
		im.stats.Levels++
	case tabExpr:
		return im.expr(p)
	}
	return nil
}

func (im *importer) expr(p *prim) error {
	id := p.id
	if id != im.ex.n {
		return im.fail("expression id %d out of sequence (want %d): ids are dense and in order", id, im.ex.n)
	}
	if id == 1<<32-1 {
		return im.fail("too many expressions")
	}
	e := func(x uint32) bool { return x < id }
	nameOK := func(x uint32) bool { return x < im.names.len() }
	k := uint8(p.kind)
	var a, b, c uint32
	switch p.kind {
	case exBVar:
		a = p.a
	case exSort:
		if int(p.a) >= len(im.levels.kind) {
			return im.fail("expression %d: undefined level %d", id, p.a)
		}
		a = p.a
	case exConst:
		if !nameOK(p.a) {
			return im.fail("expression %d: undefined name %d", id, p.a)
		}
		a = p.a
		k |= hasConst
	case exApp:
		if !e(p.a) || !e(p.b) {
			return im.fail("expression %d refers to an undefined expression", id)
		}
		a, b = p.a, p.b
		if im.ex.has(a) || im.ex.has(b) {
			k |= hasConst
		}
	case exLam, exForall:
		if !e(p.a) || !e(p.b) || !nameOK(p.c) {
			return im.fail("expression %d refers to an undefined expression or name", id)
		}
		a, b, c = p.a, p.b, p.c
		k |= uint8(p.bi) << biShift
		if im.ex.has(a) || im.ex.has(b) {
			k |= hasConst
		}
	case exLet:
		if !e(p.a) || !e(p.b) || !e(p.d) || !nameOK(p.c) {
			return im.fail("expression %d refers to an undefined expression or name", id)
		}
		a, b, c = p.a, p.b, p.c
		im.ex.letBody[id] = p.d
		if im.ex.has(a) || im.ex.has(b) || im.ex.has(p.d) {
			k |= hasConst
		}
	case exLit:
		if p.natOK {
			a = p.a
			k |= smallNat
		}
	case exMData:
		if !e(p.a) {
			return im.fail("expression %d refers to an undefined expression", id)
		}
		a = p.a
		if im.ex.has(a) {
			k |= hasConst
		}
	case exProj:
		if !e(p.a) || !nameOK(p.b) {
			return im.fail("expression %d refers to an undefined expression or name", id)
		}
		a, b, c = p.a, p.b, p.c
		if im.ex.has(a) {
			k |= hasConst
		}
	default:
		return im.fail("unknown expression kind")
	}
	im.ex.kind.set(id, k)
	im.ex.a.set(id, a)
	im.ex.b.set(id, b)
	im.ex.c.set(id, c)
	im.ex.n++
	im.stats.Exprs++
	return nil
}
