// Package embeddings writes an index generation's documents and vectors as
// one Parquet table for dataset curators and vector databases
// (WS/export/embeddings.parquet): name, kind, module, library, revision,
// the informal text's source, the document text and its vector as a
// fixed-size list of float32, with the encoder spec in the file's key-value
// metadata. pyarrow, DuckDB, Hugging Face datasets and LanceDB read it as it
// is (python/tests/test_export_embeddings.py).
//
// The table is written with Apache Arrow's Go Parquet writer
// (github.com/apache/arrow-go), in row groups: one Arrow record of at most
// Options.RowGroupRows rows is built, written and released at a time, the
// vectors are read from the generation's memory-mapped vectors.npy, and the
// texts are streamed from its documents, so the matrix is never held in
// Arrow memory whole. arrow-go is imported by this package only: index,
// dataset and every consumer of retrieval stay free of it (a test in
// internal/layering holds that).
//
// It lives under index because it reads an index through its API
// (index.Open, Index.Pin, Generation.EachDocument, Generation.Vectors):
// dataset/export may not import index (DESIGN.md's layers).
package embeddings

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
)

// File is the table's path inside the workspace.
var File = filepath.ToSlash(filepath.Join(workspace.ExportDir, "embeddings.parquet"))

// Stage is the manifest's name of the export.
const Stage = "export embeddings"

// Keys of the file's key-value metadata (also the Arrow schema's metadata,
// which pyarrow shows as schema.metadata).
const (
	// MetaEncoderSpec is the index's index.EncoderSpec as JSON, without its
	// base_url (where the exporting machine reached its endpoint: it does not
	// change the vectors, and a public file should not name it).
	MetaEncoderSpec = "driftkit.encoder_spec"
	// MetaEncoderKey is EncoderSpec.Key(): equal keys, same vector space.
	MetaEncoderKey = "driftkit.encoder_key"
	// MetaFallback is "true" when the vectors come from the offline hash
	// encoder, a stand-in for a neural model; MetaNote then says so in words.
	MetaFallback      = "driftkit.encoder_fallback"
	MetaNote          = "driftkit.note"
	MetaDims          = "driftkit.dims"
	MetaRendering     = "driftkit.rendering"
	MetaGeneration    = "driftkit.index_generation"
	MetaCorpusSHA256  = "driftkit.corpus_sha256"
	MetaToolVersion   = "driftkit.tool_version"
	MetaRows          = "driftkit.rows"
	MetaVectorColumn  = "driftkit.vector_column"
	MetaNormalisation = "driftkit.normalize"
)

// Column names.
const (
	ColName           = "name"
	ColKind           = "kind"
	ColModule         = "module"
	ColLibrary        = "library"
	ColRevision       = "revision"
	ColInformalSource = "informal_source"
	ColText           = "text"
	ColVector         = "vector"
)

// FallbackNote is MetaNote's text for vectors of an encoder whose spec is
// marked Fallback (the hash encoder).
func FallbackNote(kind string) string {
	return "vectors from driftkit's offline " + kind + " encoder (a fallback for tests and offline use, not a neural embedding model)"
}

// Options configure Export.
type Options struct {
	// RowGroupRows bounds the rows of a row group, which is also the Arrow
	// record built in memory at once; 0 chooses about 64 MiB of vectors and
	// text per group.
	RowGroupRows int
	// Force replaces a table the manifest does not know.
	Force bool
	// Progress, when not nil, is told of each row written (nil: a progress
	// bar on the progress.Reporter of Export's context).
	Progress func(rows int)
	// DenseEnv gives the index's dense backend its secrets (app.DenseEnv):
	// the vectors of a remote backend are read from it.
	DenseEnv index.DenseEnv
	// allocator is the Arrow allocator (tests check that every buffer is
	// released); nil: the Go allocator.
	allocator memory.Allocator
}

// Stats says what Export wrote.
type Stats struct {
	Path       string
	Rows       int64
	Dims       int
	RowGroups  int
	Bytes      int64
	Encoder    string
	Fallback   bool
	Generation string
}

// ErrNoRevision is wrapped, with index.ErrStale, when an indexed
// declaration is missing from declarations.parquet: the index is older than
// the tables.
var ErrNoRevision = errors.New("index documents missing from declarations.parquet (the index is older than the tables)")

// Schema is the table's Arrow schema for vectors of dims dimensions.
func Schema(dims int, meta arrow.Metadata) *arrow.Schema {
	str := arrow.BinaryTypes.String
	return arrow.NewSchema([]arrow.Field{
		{Name: ColName, Type: str},
		{Name: ColKind, Type: str},
		{Name: ColModule, Type: str},
		{Name: ColLibrary, Type: str},
		{Name: ColRevision, Type: str, Nullable: true},
		{Name: ColInformalSource, Type: str, Nullable: true},
		{Name: ColText, Type: str},
		{Name: ColVector, Type: arrow.FixedSizeListOfNonNullable(int32(dims), arrow.PrimitiveTypes.Float32)},
	}, &meta)
}

// publicSpec is the spec as the file records it.
func publicSpec(s index.EncoderSpec) index.EncoderSpec {
	s.BaseURL = ""
	return s
}

// Metadata is the key-value metadata of a table made from an index of
// manifest m (MetaRows is added when the rows are counted).
func Metadata(m index.Manifest) (arrow.Metadata, error) {
	spec := publicSpec(m.EncoderSpec)
	js, err := json.Marshal(spec)
	if err != nil {
		return arrow.Metadata{}, err
	}
	kv := [][2]string{
		{MetaEncoderSpec, string(js)},
		{MetaEncoderKey, m.EncoderSpec.Key()},
		{MetaFallback, strconv.FormatBool(m.EncoderFallback || spec.Fallback)},
		{MetaDims, strconv.Itoa(m.Dims)},
		{MetaNormalisation, spec.Normalize},
		{MetaRendering, m.Rendering},
		{MetaGeneration, m.Generation},
		{MetaCorpusSHA256, m.CorpusSHA256},
		{MetaToolVersion, workspace.Version},
		{MetaVectorColumn, ColVector},
	}
	if m.EncoderFallback || spec.Fallback {
		kv = append(kv, [2]string{MetaNote, FallbackNote(spec.Kind)})
	}
	keys, vals := make([]string, len(kv)), make([]string, len(kv))
	for i, p := range kv {
		keys[i], vals[i] = p[0], p[1]
	}
	return arrow.NewMetadata(keys, vals), nil
}

// autoRows is the default rows per group: about 64 MiB of vectors and text.
func autoRows(dims int) int {
	const target = 64 << 20
	return max(1024, target/(4*dims+512))
}

// writerProps are the Parquet writer settings: zstd everywhere; dictionary
// pages for the short repeated strings only (a dictionary of floats or of
// whole texts only costs time before Parquet gives it up).
func writerProps(rows int, mem memory.Allocator) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rows)),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor(ColKind, true),
		parquet.WithDictionaryFor(ColModule, true),
		parquet.WithDictionaryFor(ColLibrary, true),
		parquet.WithDictionaryFor(ColRevision, true),
		parquet.WithDictionaryFor(ColInformalSource, true),
		parquet.WithCreatedBy("driftkit "+workspace.Version+" (github.com/apache/arrow-go/v18)"),
	)
}

// revisions maps each declaration of declarations.parquet to its revision,
// sharing one string per distinct revision.
func revisions(path string) (map[string]string, error) {
	type row struct {
		Name     string `parquet:"name"`
		Revision string `parquet:"revision,dict"`
	}
	out := map[string]string{}
	intern := map[string]string{}
	err := workspace.EachRow(path, func(r *row) error {
		rev, ok := intern[r.Revision]
		if !ok {
			rev = strings.Clone(r.Revision)
			intern[rev] = rev
		}
		out[strings.Clone(r.Name)] = rev
		return nil
	})
	return out, err
}

// writeOnly hides the file's Close from the Parquet writer, whose Close
// would otherwise close it before the atomic commit.
type writeOnly struct{ w io.Writer }

func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

// Write streams the documents and vectors of generation g into w as the
// embeddings table, joining each document's revision from revs (name →
// revision; nil: no revisions). It returns the rows and row groups written.
func Write(ctx context.Context, w io.Writer, g *index.Generation, revs map[string]string, opts Options) (rows int64, groups int, err error) {
	m := g.Manifest()
	vecs, err := g.Vectors(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("embeddings: the index's vectors: %w", err)
	}
	if vecs.Dim() != m.Dims {
		return 0, 0, fmt.Errorf("%s: %w: vectors have %d dims, the manifest %d", g.Dir(), index.ErrStale, vecs.Dim(), m.Dims)
	}
	mem := opts.allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	per := opts.RowGroupRows
	if per <= 0 {
		per = autoRows(m.Dims)
	}
	meta, err := Metadata(m)
	if err != nil {
		return 0, 0, err
	}
	schema := Schema(m.Dims, meta)
	fw, err := pqarrow.NewFileWriter(schema, writeOnly{w}, writerProps(per, mem),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)))
	if err != nil {
		return 0, 0, err
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var (
		name    = b.Field(0).(*array.StringBuilder)
		kind    = b.Field(1).(*array.StringBuilder)
		module  = b.Field(2).(*array.StringBuilder)
		library = b.Field(3).(*array.StringBuilder)
		rev     = b.Field(4).(*array.StringBuilder)
		source  = b.Field(5).(*array.StringBuilder)
		text    = b.Field(6).(*array.StringBuilder)
		vector  = b.Field(7).(*array.FixedSizeListBuilder)
		values  = vector.ValueBuilder().(*array.Float32Builder)
	)
	// Reserving a row group when it starts allocates the vectors' buffer
	// once at its final size: grown by doubling, a group of 57 MiB of
	// vectors passed through buffers of 64 and 128 MiB (the 178k × 1024
	// Mathlib table peaked at 924 MiB of heap that way).
	total := g.Table().Len()
	reserve := func() {
		n := min(per, max(total-int(rows), 1))
		vector.Reserve(n)
		values.Reserve(n * m.Dims)
	}
	pending := 0
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		if err := fw.Write(rec); err != nil {
			return err
		}
		rows += int64(pending)
		groups++
		pending = 0
		return nil
	}
	missing, firstMissing := 0, ""
	err = g.EachDocument(ctx, func(row int, d *index.Doc) error {
		v := vecs.Vector(row)
		if len(v) != m.Dims {
			return fmt.Errorf("%s: %w: no vector for document %d (%s)", g.Dir(), index.ErrStale, row, d.Name)
		}
		if pending == 0 {
			reserve()
		}
		name.Append(d.Name)
		kind.Append(d.Kind)
		module.Append(d.Module)
		library.Append(d.Library)
		if r, ok := revs[d.Name]; ok && r != "" {
			rev.Append(r)
		} else {
			if !ok && revs != nil {
				if missing++; missing == 1 {
					firstMissing = d.Name
				}
			}
			rev.AppendNull()
		}
		if d.InformalSource != "" {
			source.Append(d.InformalSource)
		} else {
			source.AppendNull()
		}
		text.Append(d.Text)
		vector.Append(true)
		values.AppendValues(v, nil)
		pending++
		if opts.Progress != nil {
			opts.Progress(1)
		}
		if pending >= per {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && missing > 0 {
		err = fmt.Errorf("%w: %w: %d of them, first %s", index.ErrStale, ErrNoRevision, missing, firstMissing)
	}
	if err == nil {
		err = fw.AppendKeyValueMetadata(MetaRows, strconv.FormatInt(rows, 10))
	}
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	return rows, groups, err
}

// Export writes WS/export/embeddings.parquet from the workspace's current
// index generation (pinned for the whole run, so a build that switches
// generations meanwhile does not mix two), with the revisions of
// declarations.parquet, and records the run in the manifest. The table and
// its manifest entry are one workspace.Txn (a kill between the rename and the
// manifest update cannot leave a table that needs --force), under the
// stage's workspace locks.
func Export(ctx context.Context, ws *workspace.Workspace, opts Options) (*Stats, error) {
	unlock, err := ws.Lock(Stage)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, File); err != nil {
		return nil, err
	}
	if !ws.Has(workspace.DeclarationsFile) {
		return nil, ws.Missing(workspace.DeclarationsFile, "declarations")
	}
	ix, err := index.Open(ctx, ws.Dir, &index.OpenOptions{VectorsOnly: true, DenseEnv: opts.DenseEnv})
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	g, release := ix.Pin()
	defer release()
	m := g.Manifest()
	// The metadata is published with the table: it must not name this
	// machine's folders (an encoder's Params might).
	meta, err := Metadata(m)
	if err != nil {
		return nil, err
	}
	for i, v := range meta.Values() {
		if p := ws.LeakedPath(v); p != "" {
			return nil, fmt.Errorf("%s: metadata %s names the path %s of this machine; the table would publish it", ws.Path(File), meta.Keys()[i], p)
		}
	}
	run := ws.StartRun(Stage, map[string]any{"row_group_rows": opts.RowGroupRows, "index_generation": g.ID()})
	if err := run.Input(workspace.DeclarationsFile); err != nil {
		return nil, err
	}
	if err := run.Input(filepath.Join(g.Dir(), index.ManifestName)); err != nil {
		return nil, err
	}
	t0 := time.Now()
	revs, err := revisions(ws.Path(workspace.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	run.Phase("revisions", time.Since(t0))

	if opts.Progress == nil {
		bar := progress.Start(ctx, "export embeddings", int64(g.Table().Len()))
		defer bar.Finish()
		opts.Progress = bar.Add
	}
	tx := ws.Begin(Stage)
	defer tx.Abort() // a no-op after the commit
	af, err := tx.Create(File)
	if err != nil {
		return nil, err
	}
	defer af.Abort()
	bw := bufio.NewWriterSize(af, 1<<20)
	t0 = time.Now()
	rows, groups, err := Write(ctx, bw, g, revs, opts)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ws.Path(File), err)
	}
	run.Phase("write", time.Since(t0))
	if err := af.Commit(); err != nil { // staged: in place on tx.Commit
		return nil, err
	}
	tx.Output(File, rows)
	run.Count("rows", rows)
	run.Count("row_groups", int64(groups))
	run.Count("dims", int64(m.Dims))
	if m.EncoderFallback {
		run.Note(FallbackNote(m.Encoder))
	}
	if err := tx.Commit(run); err != nil {
		return nil, err
	}
	st := &Stats{Path: ws.Path(File), Rows: rows, Dims: m.Dims, RowGroups: groups, Encoder: m.Encoder,
		Fallback: m.EncoderFallback, Generation: g.ID()}
	if ref, err := ws.Ref(File); err == nil {
		st.Bytes = ref.Bytes
	}
	return st, nil
}
