package embeddings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqgo "github.com/parquet-go/parquet-go"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

// corpus makes n declarations in a few libraries and modules, with
// dependencies and informal rows for some.
func corpus(n int) ([]workspace.Declaration, []workspace.Informal) {
	kinds := []string{"definition", "theorem", "structure", "class", "theorem", "instance"}
	var decls []workspace.Declaration
	var infs []workspace.Informal
	for i := range n {
		lib := []string{"mathlib", "con-nf"}[i%2]
		d := workspace.Declaration{
			Library: lib, Revision: lib + "-rev" + strconv.Itoa(i%2+1),
			Name: fmt.Sprintf("Lib%d.Mod%d.decl_%d", i%2, i%7, i),
			Kind: kinds[i%len(kinds)], Module: fmt.Sprintf("Lib%d.Mod%d", i%2, i%7),
			Signature: fmt.Sprintf("(x : T%d) : P x ∧ Q %d", i%13, i%29),
		}
		if i > 0 {
			d.StatementDeps = []string{decls[i/2].Name}
		}
		if i%5 == 0 {
			s := fmt.Sprintf("Docstring of declaration %d about widgets of colour %d.", i, i%11)
			d.Docstring = &s
		}
		decls = append(decls, d)
		if i%3 == 0 {
			infs = append(infs, workspace.Informal{Name: d.Name, InformalName: "Thing " + strconv.Itoa(i),
				InformalStatement: fmt.Sprintf("Every gadget of size %d is a widget.", i%17), Provider: "template"})
		}
	}
	return decls, infs
}

// buildWS writes a workspace of n declarations and indexes it (hash
// encoder of dim dims, or enc when not nil).
func buildWS(t testing.TB, n, dims int, enc index.Encoder) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	decls, infs := corpus(n)
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), infs); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: dims, Encoder: enc}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// readArrow reads the whole table back with arrow-go's Parquet reader.
func readArrow(t *testing.T, path string) (arrow.Table, *file.Reader) {
	t.Helper()
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Release)
	return tbl, rd
}

func column[T arrow.Array](t *testing.T, tbl arrow.Table, name string) []T {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %s", name, tbl.Schema())
	}
	var out []T
	for _, c := range tbl.Column(idx[0]).Data().Chunks() {
		out = append(out, c.(T))
	}
	return out
}

// TestExportReadsBack writes a table in several row groups and reads it
// back with arrow-go: every row is the index's document and vector, the
// revision is the declaration's, the vector column is a fixed-size list of
// float32, and the metadata carries the encoder spec.
func TestExportReadsBack(t *testing.T) {
	const n, dims, per = 2500, 48, 1000
	ws := buildWS(t, n, dims, nil)
	st, err := Export(context.Background(), ws, Options{RowGroupRows: per})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != n || st.Dims != dims || st.RowGroups != 3 || !st.Fallback {
		t.Fatalf("stats %+v, want %d rows, %d dims, 3 row groups, fallback", st, n, dims)
	}
	tbl, rd := readArrow(t, ws.Path(File))
	if rd.NumRowGroups() != 3 {
		t.Errorf("%d row groups, want 3", rd.NumRowGroups())
	}
	for i := range rd.NumRowGroups() {
		want := int64(per)
		if i == 2 {
			want = n - 2*per
		}
		if got := rd.MetaData().RowGroup(i).NumRows(); got != want {
			t.Errorf("row group %d has %d rows, want %d", i, got, want)
		}
	}
	f, _ := tbl.Schema().FieldsByName(ColVector)
	fsl, ok := f[0].Type.(*arrow.FixedSizeListType)
	if !ok || fsl.Len() != dims || fsl.Elem().ID() != arrow.FLOAT32 {
		t.Fatalf("vector column is %s, want fixed_size_list<float32>[%d]", f[0].Type, dims)
	}

	ix, err := index.Open(context.Background(), ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	g, release := ix.Pin()
	defer release()
	m := ix.Manifest()

	// metadata: the file's key-value metadata, as any Parquet reader sees it
	kv := rd.MetaData().KeyValueMetadata()
	get := func(k string) string {
		v := kv.FindValue(k)
		if v == nil {
			t.Fatalf("no metadata key %s", k)
		}
		return *v
	}
	var spec index.EncoderSpec
	if err := json.Unmarshal([]byte(get(MetaEncoderSpec)), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Key() != m.EncoderSpec.Key() || get(MetaEncoderKey) != m.EncoderSpec.Key() {
		t.Errorf("encoder spec %+v (key %s), index has %+v", spec, get(MetaEncoderKey), m.EncoderSpec)
	}
	if spec.Kind != index.EncoderHash || !spec.Fallback || get(MetaFallback) != "true" || get(MetaNote) != FallbackNote(index.EncoderHash) {
		t.Errorf("the hash encoder is not labelled as the fallback: %+v, %s", spec, get(MetaFallback))
	}
	if get(MetaRows) != strconv.Itoa(n) || get(MetaDims) != strconv.Itoa(dims) || get(MetaGeneration) != g.ID() ||
		get(MetaCorpusSHA256) != m.CorpusSHA256 || get(MetaRendering) != workspace.RenderingVersion {
		t.Errorf("metadata rows %s dims %s generation %s corpus %s rendering %s", get(MetaRows), get(MetaDims),
			get(MetaGeneration), get(MetaCorpusSHA256), get(MetaRendering))
	}

	decls, _ := corpus(n)
	revOf := map[string]string{}
	for _, d := range decls {
		revOf[d.Name] = d.Revision
	}
	var docs []index.Doc
	if err := g.EachDocument(context.Background(), func(_ int, d *index.Doc) error {
		c := *d
		c.Name, c.Text = strings.Clone(d.Name), strings.Clone(d.Text)
		docs = append(docs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	names := column[*array.String](t, tbl, ColName)
	kinds := column[*array.String](t, tbl, ColKind)
	libs := column[*array.String](t, tbl, ColLibrary)
	revs := column[*array.String](t, tbl, ColRevision)
	texts := column[*array.String](t, tbl, ColText)
	vecs := column[*array.FixedSizeList](t, tbl, ColVector)
	row := 0
	for c := range names {
		values := vecs[c].ListValues().(*array.Float32).Float32Values()
		for j := range names[c].Len() {
			d := docs[row]
			e, ok := ix.Lookup(names[c].Value(j))
			switch {
			case names[c].Value(j) != d.Name || texts[c].Value(j) != d.Text:
				t.Fatalf("row %d: %q / %q, index has %q / %q", row, names[c].Value(j), texts[c].Value(j), d.Name, d.Text)
			case !ok || kinds[c].Value(j) != e.Kind || libs[c].Value(j) != e.Library:
				t.Fatalf("row %d (%s): kind %s library %s, index has %+v", row, d.Name, kinds[c].Value(j), libs[c].Value(j), e)
			case revs[c].IsNull(j) || revs[c].Value(j) != revOf[d.Name]:
				t.Fatalf("row %d (%s): revision %q, declarations.parquet has %q", row, d.Name, revs[c].Value(j), revOf[d.Name])
			}
			got := values[j*dims : (j+1)*dims]
			want := mustVectors(t, g).Vector(row)
			for k := range got {
				if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
					t.Fatalf("row %d (%s) dim %d: %v, vectors.npy has %v", row, d.Name, k, got[k], want[k])
				}
			}
			row++
		}
	}
	if row != n {
		t.Fatalf("read %d rows, want %d", row, n)
	}

	// the manifest records the run, its inputs and the table
	man, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	r := man.LastRun(Stage)
	if r == nil || len(r.Outputs) != 1 || r.Outputs[0].Path != File || r.Outputs[0].Rows != n || r.RowCounts["row_groups"] != 3 {
		t.Fatalf("manifest entry %+v", r)
	}
	in := map[string]bool{}
	for _, f := range r.Inputs {
		in[f.Path] = true
	}
	if !in[workspace.DeclarationsFile] || !in["index/"+g.ID()+"/"+index.ManifestName] {
		t.Errorf("inputs %+v", r.Inputs)
	}
}

// TestReadsInParquetGo: a second, independent Parquet implementation reads
// the vectors (as the list Parquet stores a fixed-size list as).
func TestReadsInParquetGo(t *testing.T) {
	ws := buildWS(t, 300, 16, nil)
	if _, err := Export(context.Background(), ws, Options{RowGroupRows: 128}); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name     string    `parquet:"name"`
		Revision *string   `parquet:"revision,optional"`
		Vector   []float32 `parquet:"vector,list"`
	}
	rows, err := pqgo.ReadFile[row](ws.Path(File))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	g, release := ix.Pin()
	defer release()
	if len(rows) != 300 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r.Revision == nil || !strings.Contains(*r.Revision, "-rev") || len(r.Vector) != 16 {
			t.Fatalf("row %d: %+v", i, r)
		}
		for k, v := range mustVectors(t, g).Vector(i) {
			if r.Vector[k] != v {
				t.Fatalf("row %d (%s) dim %d: %v, index has %v", i, r.Name, k, r.Vector[k], v)
			}
		}
	}
}

// peakAllocator records the most Arrow memory held at once.
type peakAllocator struct {
	*memory.CheckedAllocator
	peak atomic.Int64
}

func (p *peakAllocator) note() {
	if n := int64(p.CurrentAlloc()); n > p.peak.Load() {
		p.peak.Store(n)
	}
}

func (p *peakAllocator) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	p.note()
	return b
}

func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = p.CheckedAllocator.Reallocate(n, b)
	p.note()
	return b
}

// TestStreamsRowGroups: the Arrow memory held at once stays near one row
// group, far below the whole matrix, and every buffer is released.
func TestStreamsRowGroups(t *testing.T) {
	const n, dims, per = 4000, 64, 250
	ws := buildWS(t, n, dims, nil)
	mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	if _, err := Export(context.Background(), ws, Options{RowGroupRows: per, allocator: mem}); err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	matrix := int64(n * dims * 4)
	t.Logf("peak Arrow memory %d bytes; the matrix is %d bytes", mem.peak.Load(), matrix)
	if mem.peak.Load() == 0 {
		t.Fatal("the allocator was not used")
	}
	if mem.peak.Load() > matrix/4 {
		t.Errorf("peak Arrow memory %d bytes for a %d-byte matrix in row groups of %d rows: not streamed", mem.peak.Load(), matrix, per)
	}
}

// remoteEncoder stands for a model behind an embeddings endpoint: its spec
// names a base URL on the exporting machine's network.
type remoteEncoder struct{ dim int }

func (e remoteEncoder) Name() string { return "openai:test-model" }
func (e remoteEncoder) Dim() int     { return e.dim }
func (e remoteEncoder) Spec() index.EncoderSpec {
	return index.EncoderSpec{Kind: index.EncoderOpenAI, Model: "test-model", Dims: e.dim, BaseURL: "http://gpu-box.internal:8080/v1",
		Normalize: "l2", MaxChars: 8000, Truncation: "chars"}
}
func (e remoteEncoder) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, e.dim)
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		var norm float64
		for k := range v {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v[k] = float32(int64(x%2001)-1000) / 1000
			norm += float64(v[k]) * float64(v[k])
		}
		for k := range v {
			v[k] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out, nil
}

// TestRemoteEncoderNeedsNoEndpoint: an index of a remote model exports
// without an embeddings endpoint, and the file does not name the machine's
// endpoint; the vectors are not labelled as the fallback.
func TestRemoteEncoderNeedsNoEndpoint(t *testing.T) {
	ws := buildWS(t, 50, 8, remoteEncoder{8})
	st, err := Export(context.Background(), ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Fallback || st.Encoder != index.EncoderOpenAI {
		t.Errorf("stats %+v", st)
	}
	b, err := os.ReadFile(ws.Path(File))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("gpu-box")) {
		t.Error("the file names the exporting machine's endpoint")
	}
	abs, _ := filepath.Abs(ws.Dir)
	if bytes.Contains(b, []byte(abs)) || bytes.Contains(b, []byte(os.TempDir())) {
		t.Error("the file holds a path of the exporting machine")
	}
	_, rd := readArrow(t, ws.Path(File))
	kv := rd.MetaData().KeyValueMetadata()
	var spec index.EncoderSpec
	if err := json.Unmarshal([]byte(*kv.FindValue(MetaEncoderSpec)), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Model != "test-model" || spec.BaseURL != "" || spec.MaxChars != 8000 || *kv.FindValue(MetaFallback) != "false" || kv.FindValue(MetaNote) != nil {
		t.Errorf("spec %+v, fallback %s", spec, *kv.FindValue(MetaFallback))
	}
}

// pathEncoder is a remote model whose spec names a file by its absolute
// path (a fitted state on the building machine, say).
type pathEncoder struct {
	remoteEncoder
	state string
}

func (e pathEncoder) Spec() index.EncoderSpec {
	s := e.remoteEncoder.Spec()
	s.Params = map[string]string{"state_file": e.state}
	return s
}

// TestMetadataNamingAMachinePathIsRefused: an encoder spec that names a
// folder of this machine would be published in the key-value metadata; the
// export refuses and writes no table.
func TestMetadataNamingAMachinePathIsRefused(t *testing.T) {
	dir := t.TempDir()
	ws := buildWS(t, 20, 8, pathEncoder{remoteEncoder{8}, filepath.Join(dir, "state.bin")})
	_, err := Export(context.Background(), ws, Options{})
	if err == nil || !strings.Contains(err.Error(), MetaEncoderSpec) || !strings.Contains(err.Error(), "would publish") {
		t.Fatalf("err = %v, want a refusal naming %s", err, MetaEncoderSpec)
	}
	if _, serr := os.Stat(ws.Path(File)); !os.IsNotExist(serr) {
		t.Errorf("a table was written: %v", serr)
	}
}

// TestStaleIndex: declarations that are no longer in declarations.parquet
// have no revision; the export says the index is older than the tables.
func TestStaleIndex(t *testing.T) {
	ws := buildWS(t, 60, 8, nil)
	decls, _ := corpus(50)
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	_, err := Export(context.Background(), ws, Options{})
	if !errors.Is(err, ErrNoRevision) || !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), "10 of them") {
		t.Fatalf("got %v, want ErrNoRevision for 10 documents", err)
	}
	if ws.Has(File) {
		t.Error("a failed export left a table")
	}
}

// TestInterruptedKeepsOldTable: a run cancelled half way leaves the old
// table and no temporary; a table edited by hand is not replaced without
// Force.
func TestInterruptedKeepsOldTable(t *testing.T) {
	ws := buildWS(t, 600, 8, nil)
	if _, err := Export(context.Background(), ws, Options{RowGroupRows: 100}); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(ws.Path(File))
	ctx, cancel := context.WithCancel(context.Background())
	done := 0
	_, err := Export(ctx, ws, Options{RowGroupRows: 100, Progress: func(n int) {
		if done += n; done == 300 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	now, _ := os.ReadFile(ws.Path(File))
	if !bytes.Equal(old, now) {
		t.Error("an interrupted export changed the table")
	}
	ents, _ := os.ReadDir(filepath.Dir(ws.Path(File)))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
	if err := os.WriteFile(ws.Path(File), []byte("hand made"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), ws, Options{}); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("got %v, want ErrForeignOutput", err)
	}
	if _, err := Export(context.Background(), ws, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
}

// TestNoDeclarations: a workspace without declarations.parquet gets a
// workspace.MissingError naming it (the command adds which command makes it).
func TestNoDeclarations(t *testing.T) {
	ws, _ := workspace.Open(t.TempDir())
	_, err := Export(context.Background(), ws, Options{})
	var missing *workspace.MissingError
	if !errors.As(err, &missing) || missing.Path != ws.Path(workspace.DeclarationsFile) {
		t.Fatalf("got %v, want a MissingError for %s", err, workspace.DeclarationsFile)
	}
}

// TestNoIndex: a workspace without an index is told to build one.
func TestNoIndex(t *testing.T) {
	ws, _ := workspace.Open(t.TempDir())
	decls, _ := corpus(5)
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), ws, Options{}); !errors.Is(err, index.ErrNoIndex) {
		t.Fatalf("got %v, want index.ErrNoIndex", err)
	}
}

func BenchmarkExport(b *testing.B) {
	ws := buildWS(b, 20000, 256, nil)
	b.ResetTimer()
	for range b.N {
		st, err := Export(context.Background(), ws, Options{Force: true, Progress: func(int) {}})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Bytes)
	}
}

// mustVectors is g's raw vectors.
func mustVectors(t *testing.T, g *index.Generation) *index.Store {
	t.Helper()
	v, err := g.Vectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}
