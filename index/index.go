// Package index builds and serves driftkit's premise-retrieval index: one
// document per declaration, dense vectors from an Encoder (the built-in hash
// encoder or an OpenAI-compatible /v1/embeddings endpoint, rebuilt at Open
// from the EncoderSpec in the manifest), BM25 over an identifier-aware
// analyzer (in-memory postings, and a bleve index), and the premise-usage
// graph. It implements retrieval's interfaces: a Store and the projection
// head are retrieval.DenseBackends, Postings and the bleve index
// retrieval.LexicalBackends, and an *Index is a retrieval.Searcher and a
// retrieval.Corpus.
//
// Build writes a new generation of WS/index/ and switches to it atomically;
// Open loads the current one, verified against its manifest; Reload swaps in
// a newer one under live readers. An *Index is safe for concurrent use by
// many goroutines until Close.
//
// Files in WS/index/:
//
//	CURRENT          the name of the current generation (replaced by an atomic rename)
//	gen-…/           one generation, never modified after the switch but for manifest.json's head:
//	  manifest.json  encoder spec, dims, rendering, corpus sha256, counts, size and sha256 of each file
//	  table.dk       retrieval.TableColumns as a flat file (internal/flat): names, kinds, modules,
//	                 signatures, informal texts, dependencies, usage graph, name indexes — memory-mapped
//	  bm25.dk        the BM25 postings as a flat file (terms, postings, weights) — memory-mapped
//	  formula.dk     the formula postings, bm25.dk's layout over statements' layout n-grams
//	                 (formula.go; theorem search's formula list) — memory-mapped
//	  docs.parquet   one Doc per row (texts included), for other tools; row i ↔ vectors.npy row i ↔ document i
//	  vectors.npy    float32 (rows, dims), NumPy format 1.0, C order (memory-mapped when serving);
//	                 only with the in-process dense backend ("dense": {"kind": "mmap"}): another
//	                 backend (index/weaviate) keeps the vectors itself, see DenseSpec
//	  bm25/          bleve index (BM25 scoring), only with `index --bm25-engine bleve`
//	  usage.parquet  workspace.Usage: premise → declarations whose statement uses it, for other tools
//	  hash_state.bin document frequencies of the hash encoder (hash only)
package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// File names inside WS/index/ and a generation folder.
const (
	CurrentName   = "CURRENT"
	ManifestName  = "manifest.json"
	DocsName      = "docs.parquet"
	VectorsName   = "vectors.npy"
	BM25Name      = "bm25"
	UsageName     = "usage.parquet"
	HashStateName = "hash_state.bin"
	PostingsName  = "bm25.dk"
	TableName     = "table.dk"
)

// generationPrefix starts the name of every generation folder.
const generationPrefix = "gen-"

// FormatVersion is the layout version of a generation whose vectors are in
// it (vectors.npy). Version 1 kept the files directly in WS/index/ (no
// generations, no file hashes); versions 2 (vectors.npy) and 3 (vectors in
// another backend) served from docs.parquet, usage.parquet and
// bm25.postings, decoded at Open; version 4 serves from memory-mapped flat
// files (table.dk, bm25.dk) that Open does not decode.
const FormatVersion = "driftkit-index/4"

// FormatRemoteDense is the layout of a generation whose vectors another
// dense backend holds (no vectors.npy): a driftkit that predates the
// registry refuses it instead of failing on the missing file.
const FormatRemoteDense = "driftkit-index/4+remote-dense"

// generationFiles are the files of a generation that are not an encoder's
// state (Manifest.Files lists those too).
var generationFiles = []string{TableName, PostingsName, FormulaName, VectorsName, DocsName, UsageName}

// BM25 engines a generation may have (Manifest.BM25Engines).
const (
	BM25Postings = "postings"
	BM25Bleve    = "bleve"
)

// ErrNoBleve is returned by Open with BleveBM25 for a generation built
// without the bleve index.
var ErrNoBleve = errors.New("this index has no bleve BM25 index (it is built only on demand): rebuild it with `driftkit index --bm25-engine bleve`")

// Manifest is a generation's manifest.json.
type Manifest struct {
	Format      string `json:"format"`
	ToolVersion string `json:"tool_version"`
	BuiltAt     string `json:"built_at"`
	// Generation is the name of the folder the manifest belongs to.
	Generation string `json:"generation"`
	// Encoder is the encoder kind (EncoderSpec.Kind), EncoderFallback true
	// for the offline hash encoder, so that every consumer can label results
	// as coming from the fallback; Model, BaseURL, Dims and MaxChars repeat
	// EncoderSpec for readers of the manifest.
	Encoder         string      `json:"encoder"`
	EncoderFallback bool        `json:"encoder_fallback"`
	EncoderSpec     EncoderSpec `json:"encoder_spec"`
	Model           string      `json:"model,omitempty"`
	BaseURL         string      `json:"base_url,omitempty"`
	Dims            int         `json:"dims"`
	Rendering       string      `json:"rendering"`
	// CorpusSHA256 hashes the rendered documents (names and texts, in order).
	CorpusSHA256   string         `json:"corpus_sha256"`
	Docs           int            `json:"docs"`
	PremiseDocs    int            `json:"premise_docs"`
	InformalSource map[string]int `json:"informal_sources"`
	BM25Analyzer   string         `json:"bm25_analyzer"`
	MaxChars       int            `json:"max_chars,omitempty"`
	// Files lists every file of the generation but the manifest, with its
	// size and sha256 (the bleve folder's as "bm25/…", since #24); Open
	// checks the files it loads against them, so a damaged or foreign file
	// is refused once, at load.
	Files map[string]FileSum `json:"files"`
	// BM25Engines lists the lexical indexes built: "postings" (bm25.dk,
	// always) and "bleve" (bm25/, only with `index --bm25-engine bleve`).
	BM25Engines []string `json:"bm25_engines"`
	// EmbeddingCache says where the vectors came from: the embedding
	// cache's mode, hits, misses and the requests sent (nil in generations
	// built before the cache existed).
	EmbeddingCache *CacheReport `json:"embedding_cache,omitempty"`
	// Head is the projection head (WS/head) that search applies to dense
	// candidate scores, recorded by `index` when one fits at build time and
	// by `train head` when it writes a new one.
	Head *HeadInfo `json:"head,omitempty"`
	// Notations is the number of library notation symbols the table maps
	// to their constants for theorem search (retrieval.AddNotations; read
	// from the workspace's notations.parquet): 0 when the workspace had
	// none, absent in generations built before.
	Notations int `json:"notations,omitempty"`
	// FormulaAnalyzer names how formula.dk reads statements and queries
	// (FormulaAnalyzer; absent in generations built before it, which have
	// no formula postings), FormulaGrams how many grams it holds.
	FormulaAnalyzer string `json:"formula_analyzer,omitempty"`
	FormulaGrams    int    `json:"formula_grams,omitempty"`
	// Dense is the backend that holds the vectors (nil in generations
	// written before the registry: the in-process one, DenseMmap).
	Dense *DenseSpec `json:"dense,omitempty"`
}

// FileSum is the size and sha256 of a file.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// CRC32C (Castagnoli, hex) is the check Open uses for vectors.npy: it
	// runs at memory speed on the first dense search, where sha256 would
	// cost a cold search a fifth of a second on Mathlib.
	CRC32C string `json:"crc32c,omitempty"`
}

// ErrNoIndex is returned by Open when the workspace has no index.
var ErrNoIndex = errors.New("no index in workspace")

// ErrStale is wrapped when index files disagree with each other or with the
// manifest.
var ErrStale = errors.New("index files are inconsistent")

// currentGeneration reads WS/index/CURRENT.
func currentGeneration(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, CurrentName))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, ManifestName)); err == nil {
			return "", &workspace.FileError{Path: dir, Row: -1,
				Err: fmt.Errorf("%w: the index has the layout of an older driftkit (files directly in index/, no generations)", ErrStale)}
		}
		return "", fmt.Errorf("%s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if !strings.HasPrefix(id, generationPrefix) || strings.ContainsAny(id, `/\`) || id != filepath.Base(id) {
		return "", &workspace.FileError{Path: filepath.Join(dir, CurrentName), Row: -1,
			Err: fmt.Errorf("%w: %q is not a generation name", ErrStale, id)}
	}
	return id, nil
}

func readManifest(genDir string) (*Manifest, error) {
	path := filepath.Join(genDir, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &workspace.FileError{Path: path, Row: -1,
			Err: fmt.Errorf("%w: malformed index manifest (JSON: %v)", ErrStale, err)}
	}
	if m.Format != FormatVersion && m.Format != FormatRemoteDense {
		return nil, &workspace.FileError{Path: path, Row: -1,
			Err: fmt.Errorf("%w: format %q, this driftkit reads %q and %q: rebuild it with `driftkit index`", ErrStale, m.Format, FormatVersion, FormatRemoteDense)}
	}
	if m.Generation != filepath.Base(genDir) {
		return nil, &workspace.FileError{Path: path, Row: -1,
			Err: fmt.Errorf("%w: manifest of generation %q found in %s", ErrStale, m.Generation, filepath.Base(genDir))}
	}
	return &m, nil
}

// ReadManifest reads the manifest of the workspace's current index
// generation.
func ReadManifest(wsDir string) (*Manifest, error) {
	dir := filepath.Join(wsDir, workspace.IndexDir)
	id, err := currentGeneration(dir)
	if err != nil {
		return nil, err
	}
	return readManifest(filepath.Join(dir, id))
}

// CurrentDir is the folder of the workspace's current index generation.
func CurrentDir(wsDir string) (string, error) {
	dir := filepath.Join(wsDir, workspace.IndexDir)
	id, err := currentGeneration(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id), nil
}

// sumFile hashes a file for the manifest (workspace.HashFile), and adds
// its CRC32C.
func sumFile(path string) (FileSum, error) {
	sum, n, err := workspace.HashFile(path)
	if err != nil {
		return FileSum{}, err
	}
	c, err := fileCRC(path)
	if err != nil {
		return FileSum{}, err
	}
	return FileSum{Size: n, SHA256: sum, CRC32C: c}, nil
}

// fileCRC is a file's CRC32C (hex).
func fileCRC(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	c := crc32.New(castagnoli)
	if _, err := io.Copy(c, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x", c.Sum32()), nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checkSize checks that a generation's file is listed in the manifest with
// its size.
func checkSize(genDir string, m *Manifest, name string) error {
	path := filepath.Join(genDir, name)
	want, ok := m.Files[name]
	if !ok {
		return &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: not listed in the manifest", ErrStale)}
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() != want.Size {
		return &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: %d bytes, the manifest says %d (truncated or replaced)", ErrStale, st.Size(), want.Size)}
	}
	return nil
}

// fileHead reads the bytes of a file before its last n.
func fileHead(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < n {
		return nil, fmt.Errorf("%s: %w: shorter than its data", path, ErrStale)
	}
	head := make([]byte, st.Size()-n)
	_, err = io.ReadFull(f, head)
	return head, err
}

// verifyFile checks a generation's file against its manifest entry: its
// size, then its sha256.
func verifyFile(genDir string, m *Manifest, name string) error {
	if err := checkSize(genDir, m, name); err != nil {
		return err
	}
	path, want := filepath.Join(genDir, name), m.Files[name]
	got, _, err := workspace.HashFile(path)
	if err != nil {
		return err
	}
	if got != want.SHA256 {
		return &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: sha256 %.12s, the manifest says %.12s (the file is damaged or not this generation's)", ErrStale, got, want.SHA256)}
	}
	return nil
}

// isBleveFile reports whether a Manifest.Files name is in the bleve folder.
func isBleveFile(name string) bool { return strings.HasPrefix(name, BM25Name+"/") }

// treeFiles lists the files under genDir/sub as slash paths relative to
// genDir, sorted (none when sub does not exist).
func treeFiles(genDir, sub string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(genDir, sub), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(genDir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	slices.Sort(out)
	return out, err
}

// checkBleveFiles checks the bleve folder against the manifest before
// bleve reads it: every listed file by size and sha256, and no file that is
// not listed (bleve's store panics on a damaged page instead of returning
// an error). A generation written before the folder had checksums lists
// none and is not checked (openBM25 still turns a panic into an error).
func checkBleveFiles(genDir string, m *Manifest) error {
	var listed []string
	for n := range m.Files {
		if isBleveFile(n) {
			listed = append(listed, n)
		}
	}
	if len(listed) == 0 {
		return nil
	}
	slices.Sort(listed)
	have, err := treeFiles(genDir, BM25Name)
	if err != nil {
		return err
	}
	for _, n := range have {
		if !slices.Contains(listed, n) {
			return &workspace.FileError{Path: filepath.Join(genDir, n), Row: -1, Err: fmt.Errorf("%w: not listed in the manifest", ErrStale)}
		}
	}
	for _, n := range listed {
		if err := verifyFile(genDir, m, n); err != nil {
			return err
		}
	}
	return nil
}

// OpenOptions configure Open.
type OpenOptions struct {
	// Encoder encodes queries. Nil means the encoder the manifest's
	// EncoderSpec describes, made by its registered factory (the saved hash
	// encoder; an OpenAI encoder over Embedder). A given encoder must be
	// compatible with the spec.
	Encoder Encoder
	// Endpoint reaches the embeddings endpoint for an index built with an
	// encoder of a remote model, when Encoder is nil (EncoderEnv.Endpoint).
	Endpoint Endpoint
	// NoDense skips loading vectors (BM25-only serving, less memory).
	NoDense bool
	// BleveBM25 answers BM25 from the bleve index instead of the in-memory
	// postings (same analyzer, bleve's variant of BM25 — see bleveBackend;
	// much slower on large corpora).
	BleveBM25 bool
	// NoHead ignores WS/head: dense scores come from the raw embeddings even
	// when the workspace has a trained projection head.
	NoHead bool
	// VectorsOnly loads the documents and the stored vectors and nothing
	// else: no query encoder (so no embeddings endpoint is needed for an
	// index of a remote model), no lexical index, no head. It is for readers
	// of the stored vectors (the embeddings export); Search then fails in
	// every mode (retrieval.ErrNoDense, retrieval.ErrNoLexical). It
	// overrides NoDense.
	VectorsOnly bool
	// DenseEnv gives the generation's dense backend (DenseSpec) its secrets
	// and overrides; app.OpenIndex reads them from the environment.
	DenseEnv DenseEnv
	// Warm does the work of a generation's first searches when it is
	// loaded, for a server: verifying the vectors' and postings'
	// checksums and making the int8 copy of the vectors that passes for
	// several queries scan (0.4 s on 2 cores for Mathlib), in the
	// background after Open, before the switch in Reload. Without it the
	// first searches that need them do it (a cold search never makes the
	// int8 copy).
	Warm bool
}

// Generation is one loaded generation of an index: documents, vectors,
// lexical index and encoder that belong together. It is immutable; its
// vectors stay valid while it is pinned (Index.Pin).
type Generation struct {
	refs    atomic.Int64
	id, dir string
	man     Manifest
	table   *retrieval.Table
	dense   DenseStore // nil with NoDense
	post    *Postings
	formula *Postings // nil: a generation without formula.dk
	bleve   *bleveBackend
	enc     Encoder
	engine  *retrieval.Engine
	// tableFile, postFile and formulaFile are the mapped flat files
	// (table.dk, bm25.dk, formula.dk).
	tableFile, postFile, formulaFile *flat.File
}

// ID is the generation's folder name.
func (g *Generation) ID() string { return g.id }

// Dir is the generation's folder.
func (g *Generation) Dir() string { return g.dir }

// Manifest returns the generation's manifest.
func (g *Generation) Manifest() Manifest { return g.man }

// Table is the generation's corpus (documents by id, usage graph). It reads
// the generation's mapped files: use it only while the generation is
// pinned (what it returns is copied and may be kept).
func (g *Generation) Table() *retrieval.Table { return g.table }

// Vectors is the raw document vectors, row i = document i, valid while the
// generation is pinned: the mapped vectors.npy, or every vector a remote
// backend holds, read on the call. It fails with retrieval.ErrNoDense when
// the index was opened with NoDense.
func (g *Generation) Vectors(ctx context.Context) (*Store, error) {
	if g.dense == nil {
		return nil, retrieval.ErrNoDense
	}
	return g.dense.Vectors(ctx)
}

// Dense is the generation's dense backend as recorded in its manifest.
func (g *Generation) Dense() DenseSpec {
	return DenseSpec{Kind: g.man.Dense.denseKind(), Params: g.man.Dense.params()}
}

// EachDocument calls fn for every document of the generation, in row order
// (row i is Vectors' document i), texts included. It streams the
// generation's docs.parquet (checked against its sha256 first), so the texts are never held
// whole; d is valid only during the call. It stops at fn's first error or
// when ctx is done. The generation must stay pinned until it returns.
func (g *Generation) EachDocument(ctx context.Context, fn func(row int, d *Doc) error) error {
	if err := verifyFile(g.dir, &g.man, DocsName); err != nil {
		return err
	}
	row := 0
	err := workspace.EachRow(filepath.Join(g.dir, DocsName), func(d *Doc) error {
		if row%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(row, d); err != nil {
			return err
		}
		row++
		return nil
	})
	if err == nil && row != g.table.Len() {
		err = fmt.Errorf("%s: %w: docs.parquet has %d rows, the generation %d", g.dir, ErrStale, row, g.table.Len())
	}
	return err
}

// Mapped reports whether the vectors are memory-mapped (the in-process
// backend, not read onto the heap).
func (g *Generation) Mapped() bool {
	m, ok := g.dense.(interface{ Mapped() bool })
	return ok && m.Mapped()
}

// tryAcquire takes a reference unless the generation is already released
// for good.
func (g *Generation) tryAcquire() bool {
	for {
		n := g.refs.Load()
		if n <= 0 {
			return false
		}
		if g.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (g *Generation) release() {
	if g.refs.Add(-1) == 0 {
		g.close()
	}
}

func (g *Generation) close() error {
	var errs []error
	if g.bleve != nil {
		errs = append(errs, g.bleve.Close())
	}
	if g.dense != nil {
		errs = append(errs, g.dense.Close())
	}
	for _, f := range []*flat.File{g.tableFile, g.postFile, g.formulaFile} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// openGeneration opens one generation without decoding anything: the
// table and the postings are memory-mapped flat files whose section tables
// are read now and whose sections are verified (CRC32C) when first taken;
// the vectors are mapped and verified on the first dense search; the
// projection head projects the premise vectors on the first dense search.
// Open checks the size of every file it uses against the manifest and the
// small encoder state's sha256.
func openGeneration(ctx context.Context, wsDir, id string, opts *OpenOptions) (_ *Generation, err error) {
	dir := filepath.Join(wsDir, workspace.IndexDir, id)
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	g := &Generation{id: id, dir: dir, man: *m}
	defer func() {
		if err != nil {
			g.close()
		}
	}()
	if err := g.checkFiles(opts); err != nil {
		return nil, err
	}
	if g.tableFile, err = openFlat(dir, TableName, id); err != nil {
		return nil, err
	}
	if g.table, err = openTable(g.tableFile); err != nil {
		return nil, err
	}
	if g.table.Len() != m.Docs {
		return nil, fmt.Errorf("%s: %w: manifest says %d docs, %s has %d", dir, ErrStale, m.Docs, TableName, g.table.Len())
	}
	g.engine = &retrieval.Engine{Table: g.table}
	if !opts.NoDense || opts.VectorsOnly {
		if err := g.openDense(ctx, wsDir, opts); err != nil || opts.VectorsOnly {
			g.refs.Store(1)
			return g, err
		}
	}
	if err := g.openLexical(opts); err != nil {
		return nil, err
	}
	if err := g.openFormula(); err != nil {
		return nil, err
	}
	g.refs.Store(1)
	return g, nil
}

// checkFiles checks the files this Open uses: each listed in the manifest
// with its size (a truncated or replaced file is refused now), and the
// encoder's state (small) against its sha256. The flat files and the
// vectors are checked by CRC32C as they are read.
func (g *Generation) checkFiles(opts *OpenOptions) error {
	m := &g.man
	dense := !opts.NoDense || opts.VectorsOnly
	names := []string{TableName} // vectors.npy is the mmap backend's to check
	if !opts.BleveBM25 && !opts.VectorsOnly {
		names = append(names, PostingsName)
	}
	if m.FormulaAnalyzer != "" && !opts.VectorsOnly {
		names = append(names, FormulaName)
	}
	for _, n := range names {
		if err := checkSize(g.dir, m, n); err != nil {
			return err
		}
	}
	if !dense || opts.VectorsOnly {
		return nil
	}
	for _, n := range slices.Sorted(maps.Keys(m.Files)) {
		if !slices.Contains(generationFiles, n) && !isBleveFile(n) {
			if err := verifyFile(g.dir, m, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// openLexical opens the BM25 engine: the postings, or bleve when asked
// (and built).
func (g *Generation) openLexical(opts *OpenOptions) (err error) {
	if opts.BleveBM25 {
		if !slices.Contains(g.man.BM25Engines, BM25Bleve) {
			return fmt.Errorf("%s: %w", g.dir, ErrNoBleve)
		}
		if err := checkBleveFiles(g.dir, &g.man); err != nil {
			return err
		}
		if g.bleve, err = openBM25(filepath.Join(g.dir, BM25Name)); err != nil {
			return err
		}
		n, err := g.bleve.DocCount()
		if err != nil {
			return err
		}
		if int(n) != g.man.Docs {
			return fmt.Errorf("%s: %w: the bleve index has %d documents, the generation %d", g.dir, ErrStale, n, g.man.Docs)
		}
		g.engine.Lexical = g.bleve
		return nil
	}
	if g.postFile, err = openFlat(g.dir, PostingsName, g.id); err != nil {
		return err
	}
	if g.post, err = OpenPostings(g.postFile); err != nil {
		return err
	}
	if g.post.n != g.man.Docs {
		return fmt.Errorf("%s: %w: postings cover %d docs, the generation has %d", g.dir, ErrStale, g.post.n, g.man.Docs)
	}
	g.engine.Lexical = g.post
	return nil
}

// openFormula opens the formula postings of a generation that has them
// (one written before them, or by another analyzer, has no formula list).
func (g *Generation) openFormula() (err error) {
	if g.man.FormulaAnalyzer != FormulaAnalyzer {
		return nil
	}
	if g.formulaFile, err = openFlat(g.dir, FormulaName, g.id); err != nil {
		return err
	}
	if g.formula, err = OpenFormulaPostings(g.formulaFile); err != nil {
		return err
	}
	if g.formula.n != g.man.Docs {
		return fmt.Errorf("%s: %w: formula postings cover %d docs, the generation has %d", g.dir, ErrStale, g.formula.n, g.man.Docs)
	}
	g.engine.Formula = g.formula
	return nil
}

// openDense opens the dense backend the manifest names, with the
// workspace's head unless opts says otherwise, and the query encoder.
func (g *Generation) openDense(ctx context.Context, wsDir string, opts *OpenOptions) error {
	m := &g.man
	cfg, err := ParseDense(m.Dense.denseKind(), m.Dense.params(), opts.DenseEnv)
	if err != nil {
		return &workspace.FileError{Path: filepath.Join(g.dir, ManifestName), Row: -1, Err: err}
	}
	var h *head.Head
	if !opts.NoHead && !opts.VectorsOnly {
		if h, err = loadHead(wsDir, m); err != nil {
			return err
		}
	}
	g.dense, err = cfg.Open(ctx, &DenseOpen{Workspace: wsDir, Dir: g.dir, Manifest: m, Table: g.table, Head: h, VectorsOnly: opts.VectorsOnly})
	if err != nil || opts.VectorsOnly {
		return err
	}
	if g.enc, err = queryEncoder(ctx, g.dir, m, opts); err != nil {
		return err
	}
	g.engine.Dense, g.engine.Encoder = g.dense, g.enc
	return nil
}

// queryEncoder makes the generation's query encoder: the one given, checked
// against the manifest's spec, or the spec's registered factory's.
func queryEncoder(ctx context.Context, dir string, m *Manifest, opts *OpenOptions) (Encoder, error) {
	spec := m.EncoderSpec
	enc := opts.Encoder
	if enc == nil {
		var err error
		if enc, err = NewEncoder(ctx, spec, EncoderEnv{Dir: dir, Endpoint: opts.Endpoint}); err != nil {
			return nil, err
		}
	}
	if enc.Dim() != m.Dims {
		return nil, fmt.Errorf("%w: query encoder %s has dim %d, index has %d", ErrStale, enc.Name(), enc.Dim(), m.Dims)
	}
	if err := spec.Compatible(enc.Spec()); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStale, err)
	}
	return ForQueries(enc), nil
}

// Index is a loaded retrieval index: the workspace's current generation,
// swapped for a newer one by Reload. Its methods are safe for concurrent use
// by any number of goroutines until Close; a search runs entirely on the
// generation it started on, so a reader never pairs new documents with old
// vectors.
type Index struct {
	ws   string
	opts OpenOptions
	cur  atomic.Pointer[Generation]
	// mu serialises Reload and Close.
	mu     sync.Mutex
	closed bool
	// warming is the first generation's warm-up (OpenOptions.Warm).
	warming sync.WaitGroup
}

var (
	_ retrieval.Searcher = (*Index)(nil)
	_ retrieval.Corpus   = (*Index)(nil)
)

// Open loads the workspace's current index generation for serving,
// verifying every file it loads against the manifest (sizes and sha256:
// once per generation, not per query). When the workspace has a trained
// projection head (WS/head, from `driftkit train head`) that fits the index's
// embeddings, dense candidate scores go through it (see Index.Head). ctx
// bounds the opening, the query encoder's factory included (a remote
// model's endpoint may be probed). The caller must Close the index.
func Open(ctx context.Context, wsDir string, opts *OpenOptions) (*Index, error) {
	if opts == nil {
		opts = &OpenOptions{}
	}
	ix := &Index{ws: wsDir, opts: *opts}
	g, err := ix.openCurrent(ctx)
	if err != nil {
		return nil, err
	}
	ix.cur.Store(g)
	if opts.Warm && g.tryAcquire() {
		ix.warming.Go(func() {
			defer g.release()
			g.warm()
		})
	}
	return ix, nil
}

// warm does the generation's first searches' work (OpenOptions.Warm);
// what fails is reported by the searches, as without it.
func (g *Generation) warm() {
	if g.post != nil {
		g.post.lists()
	}
	if g.formula != nil {
		g.formula.lists()
	}
	if w, ok := g.dense.(interface{ warm() }); ok {
		w.warm()
	}
}

// openCurrent opens the generation CURRENT names. A build may switch
// CURRENT and remove the old generation while it is being opened (a build
// of an older driftkit, which takes no commit lock): then the new one is
// opened instead.
func (ix *Index) openCurrent(ctx context.Context) (*Generation, error) {
	// No commit (an index build, a head with its record) lands while the
	// files are opened, and one that a killed run left half done is finished
	// first: the generation and WS/head belong together.
	release, err := workspace.ReadSnapshot(ix.ws)
	if err != nil {
		return nil, err
	}
	defer release()
	dir := filepath.Join(ix.ws, workspace.IndexDir)
	for attempt := 0; ; attempt++ {
		id, err := currentGeneration(dir)
		if err != nil {
			return nil, err
		}
		g, err := openGeneration(ctx, ix.ws, id, &ix.opts)
		if err == nil {
			return g, nil
		}
		if attempt < 3 && errors.Is(err, fs.ErrNotExist) {
			if now, _ := currentGeneration(dir); now != id {
				continue
			}
		}
		return nil, err
	}
}

// acquire pins the current generation for one operation.
func (ix *Index) acquire() *Generation {
	for {
		g := ix.cur.Load()
		if g.tryAcquire() {
			return g
		}
		// Released between Load and tryAcquire: Reload has stored a newer
		// one (or the index is closed, and g stays released).
		if ix.cur.Load() == g {
			return nil
		}
	}
}

// Pin returns the current generation and keeps its files loaded until
// release is called (once). Use it to read vectors and documents that must
// belong together across several calls. It must not be called after Close.
func (ix *Index) Pin() (g *Generation, release func()) {
	g = ix.acquire()
	if g == nil {
		return ix.cur.Load(), func() {}
	}
	var once sync.Once
	return g, func() { once.Do(g.release) }
}

// Reload switches to the workspace's current generation if it is not the
// one loaded, and reports whether it did. Searches running on the old
// generation finish on it; its files are released after the last one. On
// error the loaded generation stays in use. ctx bounds the opening of the
// new generation (its query encoder's factory included).
func (ix *Index) Reload(ctx context.Context) (bool, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return false, errors.New("index: Reload after Close")
	}
	old := ix.cur.Load()
	id, err := currentGeneration(filepath.Join(ix.ws, workspace.IndexDir))
	if err != nil {
		return false, err
	}
	if id == old.id {
		return false, nil
	}
	g, err := ix.openCurrent(ctx)
	if err != nil {
		return false, err
	}
	if ix.opts.Warm {
		g.warm()
	}
	ix.cur.Store(g)
	old.release()
	return true, nil
}

// Close releases the index; searches still running finish first on their
// generation, and a warm-up still running (OpenOptions.Warm) before Close
// returns. Call it once; the Index must not be used afterwards.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	ix.cur.Load().release()
	ix.warming.Wait()
	return nil
}

// Search implements retrieval.Searcher on the current generation.
func (ix *Index) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	g := ix.acquire()
	if g == nil {
		return nil, errors.New("index: Search after Close")
	}
	defer g.release()
	return g.engine.Search(ctx, q)
}

// SearchMany implements retrieval.MultiSearcher: every query is answered
// by the same generation, the dense ones in one pass over the vectors.
func (ix *Index) SearchMany(ctx context.Context, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	g := ix.acquire()
	if g == nil {
		return nil, errors.New("index: Search after Close")
	}
	defer g.release()
	return g.engine.SearchMany(ctx, qs)
}

// A pinned Generation (Index.Pin) is a retrieval.MultiSearcher and a
// retrieval.Corpus over its own files only: a caller that searches and then
// looks the hits up gets both from one generation, whatever Reload does
// meanwhile. Valid until its release is called.
var (
	_ retrieval.MultiSearcher = (*Generation)(nil)
	_ retrieval.Corpus        = (*Generation)(nil)
)

// Search implements retrieval.Searcher on this generation.
func (g *Generation) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	return g.engine.Search(ctx, q)
}

// SearchMany implements retrieval.MultiSearcher on this generation.
func (g *Generation) SearchMany(ctx context.Context, qs []retrieval.Query) ([][]retrieval.Hit, error) {
	return g.engine.SearchMany(ctx, qs)
}

// Len is the number of documents (retrieval.Corpus).
func (g *Generation) Len() int { return g.table.Len() }

// Lookup returns what this generation knows about a declaration
// (retrieval.Corpus), strings and slices its own.
func (g *Generation) Lookup(name string) (retrieval.Entry, bool) { return g.table.Lookup(name) }

// UsedBy lists, sorted by name, the declarations whose statement uses
// premise in this generation (retrieval.Corpus), in a fresh slice.
func (g *Generation) UsedBy(premise string) []string { return g.table.UsedBy(premise) }

// Generation is the name of the loaded generation.
func (ix *Index) Generation() string { return ix.cur.Load().id }

// Manifest returns the loaded generation's manifest.
func (ix *Index) Manifest() Manifest { return ix.cur.Load().man }

// Encoder returns the query encoder (nil when opened with NoDense).
func (ix *Index) Encoder() Encoder { return ix.cur.Load().enc }

// Encoder is the generation's query encoder (the premise server embeds a
// caller's new premises with it, next to the generation's vectors).
func (g *Generation) Encoder() Encoder { return g.enc }

// Len is the number of documents (retrieval.Corpus).
func (ix *Index) Len() int { return ix.cur.Load().table.Len() }

// Lookup returns what the index knows about a declaration
// (retrieval.Corpus), strings and slices its own.
func (ix *Index) Lookup(name string) (e retrieval.Entry, ok bool) {
	ix.pinned(func(g *Generation) { e, ok = g.table.Lookup(name) })
	return e, ok
}

// pinned runs fn on the current generation, pinned: its mapped files stay
// mapped until fn returns, whatever Reload does meanwhile. After Close fn
// is not called.
func (ix *Index) pinned(fn func(g *Generation)) {
	if g := ix.acquire(); g != nil {
		defer g.release()
		fn(g)
	}
}

// UsedBy lists, sorted by name, the declarations whose statement uses
// premise (retrieval.Corpus; the usage graph), in a fresh slice.
func (ix *Index) UsedBy(premise string) (users []string) {
	ix.pinned(func(g *Generation) { users = g.table.UsedBy(premise) })
	return users
}

// ModuleMembers lists the theorems (non-premise declarations) of a module,
// for the hold-out-module protocol (eval.ModuleLister).
func (ix *Index) ModuleMembers(module string) []string {
	var out []string
	ix.pinned(func(g *Generation) { out = g.table.ModuleMembers(module, true) })
	return out
}

// UsageCount is how many declarations' statements use premise, not counting
// the declarations in exclude.
func (ix *Index) UsageCount(premise string, exclude []string) int {
	n := 0
	ix.pinned(func(g *Generation) { n = g.table.UsageCount(premise, exclude) })
	return n
}

// Head describes the projection head applied to dense candidate scores, or nil.
func (ix *Index) Head() *HeadInfo { return ix.cur.Load().Head() }

// Head describes the projection head this generation applies to dense
// candidate scores, or nil.
func (g *Generation) Head() *HeadInfo {
	if g.dense != nil {
		return g.dense.Head()
	}
	return nil
}

func sortUsage(u []workspace.Usage) {
	slices.SortFunc(u, func(a, b workspace.Usage) int { return strings.Compare(a.Premise, b.Premise) })
	for i := range u {
		slices.Sort(u[i].UsedBy)
	}
}
