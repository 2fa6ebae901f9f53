package index

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/driftkit/driftkit/index/embcache"
	"github.com/driftkit/driftkit/workspace"
)

// BuildOptions configure Build.
type BuildOptions struct {
	// Encoder embeds documents; nil means the built-in hash encoder of HashDim
	// dimensions, fitted on the corpus.
	Encoder Encoder
	// HashDim is the hash encoder's dimension (default DefaultHashDim).
	HashDim int
	// BatchSize is the number of texts per Encode call (default 256).
	BatchSize int
	// Force replaces index files the workspace manifest does not know.
	Force bool
	// Bleve also builds the bleve BM25 index (bm25/), which only
	// `search --bm25-engine bleve` reads; the postings always exist.
	Bleve bool
	// NoCache embeds every document, neither reading nor writing the
	// embedding cache WS/embeddings/ (--no-cache). Encoders that run in
	// process (the hash encoder) never use it.
	NoCache bool
	// Cache tunes how the embedding cache writes (zero: the defaults).
	Cache embcache.Options
	// Warn receives problems that do not stop the build (a damaged cache
	// file, removed and embedded again); they are in the manifests either
	// way. nil drops them.
	Warn func(msg string)
	// Dense is the backend that keeps the vectors (--backend); nil is the
	// in-process one (DenseMmap: vectors.npy in the generation).
	Dense *DenseSpec
	// DenseEnv gives the backend its secrets (app reads the environment).
	DenseEnv DenseEnv
	// rendering overrides the rendering version recorded in the encoder
	// spec (tests of the cache key).
	rendering string
}

// BuildStats reports what Build did.
type BuildStats struct {
	Docs, PremiseDocs int
	Encoder           string
	// Fallback is the encoder's EncoderSpec.Fallback: an offline stand-in
	// for a neural model, which every output labels as such.
	Fallback bool
	Dims     int
	// Generation is the name of the generation written.
	Generation string
	// Dense is the backend that holds the vectors, as the manifest records it.
	Dense *DenseSpec
	// Cache is what the build did with the embedding cache.
	Cache  *CacheReport
	Phases map[string]time.Duration
}

// Build reads the workspace's declarations (and informal rows when present)
// and writes a new generation of WS/index/: every file is written into a
// staging folder, and one workspace.Txn renames the folder into place, switches
// CURRENT to it (switchGeneration) and records the run in the workspace
// manifest, so a reader sees either the old generation or the new one, never
// a mix, and a crash at any point is finished or undone by the next run;
// older generations are removed afterwards. A failed or interrupted build
// leaves the previous index untouched. A concurrent Build (or another stage
// that writes the index or the tables it reads) on the same workspace, from
// any process, fails with workspace.ErrBusy.
//
// The steps: load the documents (load), choose the encoder and dense
// backend and name the generation after the corpus (prepare), then in the
// staging folder write the serving files (BM25, documents, usage graph) in
// the background while the vectors are computed (vectors), wait for them
// (serving), record the checksums and the manifest (checksums), and commit.
func Build(ctx context.Context, ws *workspace.Workspace, opts BuildOptions) (*BuildStats, error) {
	// Two builds on one workspace would race for CURRENT and remove each
	// other's generations: the second is refused. Lock also finishes a
	// commit a killed run left and removes dead runs' staging folders.
	unlock, err := ws.Lock("index")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, indexRel(CurrentName)); err != nil {
		return nil, err
	}
	b := &build{ws: ws, opts: opts, st: &BuildStats{Phases: map[string]time.Duration{}}, params: map[string]any{}}
	b.run = ws.StartRun("index", b.params)
	if err := b.load(); err != nil {
		return nil, err
	}
	if err := b.prepare(ctx); err != nil {
		return nil, err
	}
	// The generation is built in a staging folder beside the index
	// (index/.<gen>.tmp-…) that the commit renames to index/<gen>.
	tx := ws.Begin("index")
	defer tx.Abort()
	stage, err := tx.TempDir(indexRel(b.man.Generation))
	if err != nil {
		return nil, err
	}
	// The serving files are written while the vectors are computed.
	b.man.BM25Engines = []string{BM25Postings}
	if opts.Bleve {
		b.man.BM25Engines = append(b.man.BM25Engines, BM25Bleve)
	}
	serving := startServing(ctx, stage, b.man.Generation, b.docs, b.texts, b.notations, b.proofUses, opts.Bleve)
	defer serving.stop()
	files, err := b.vectors(ctx, stage, serving)
	if err != nil {
		return nil, err
	}
	usageRows, err := b.serving(serving)
	if err != nil {
		return nil, err
	}
	if err := b.checksums(stage, files); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.commit(ctx, tx, usageRows); err != nil {
		return nil, err
	}
	return b.st, nil
}

// indexRel is a path under WS/index/ as the workspace names its files.
func indexRel(n ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{workspace.IndexDir}, n...)...))
}

// build is one Build's state, shared by its steps.
type build struct {
	ws     *workspace.Workspace
	opts   BuildOptions
	st     *BuildStats
	params map[string]any // the run's parameters in the workspace manifest
	run    *workspace.RunRecorder
	docs   []Doc
	texts  []string // the documents' texts, in order
	// notations are the workspace's notation table (none without one).
	notations []workspace.Notation
	// proofUses counts the proofs using each declaration (ProofUses).
	proofUses map[string]int32
	enc       Encoder
	dense     *denseBuild
	man       Manifest
	crep      *CacheReport
}

// phase records the time since t0 as the named phase, in the stats and in
// the workspace manifest.
func (b *build) phase(name string, t0 time.Time) {
	d := time.Since(t0)
	b.st.Phases[name] += d
	b.run.Phase(name, d)
}

// load reads the documents (declarations with their informal text) and
// the notation table (when the workspace has one), and records the tables
// they come from as the run's inputs. An empty corpus is
// an error: an index of nothing answers every query with nothing.
func (b *build) load() error {
	t0 := time.Now()
	// The proof-use counts and the notation table are read while the
	// documents are (each is a pass over a Parquet file; the build waits
	// for all three, #29).
	var g errgroup.Group
	g.Go(func() (err error) {
		b.proofUses, err = workspace.ProofUses(b.ws)
		return err
	})
	if b.ws.Has(workspace.NotationsFile) {
		g.Go(func() (err error) {
			b.notations, err = workspace.ReadTable[workspace.Notation](b.ws.Path(workspace.NotationsFile))
			return err
		})
	}
	docs, err := workspace.LoadDocuments(b.ws)
	if gerr := g.Wait(); err == nil {
		err = gerr
	}
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		return fmt.Errorf("%s: no declarations to index", b.ws.Path(workspace.DeclarationsFile))
	}
	for _, n := range []string{workspace.DeclarationsFile, workspace.InformalFile, workspace.NotationsFile} {
		if b.ws.Has(n) {
			if err := b.run.Input(n); err != nil {
				return err
			}
		}
	}
	b.docs = docs
	b.phase("load", t0)
	return nil
}

// prepare chooses the encoder (the hash encoder unless one is given) and
// the dense backend, starts the manifest with the corpus's counts and hash,
// and asks the backend for the generation's name (a backend may reuse one
// whose corpus and encoder are the same).
func (b *build) prepare(ctx context.Context) error {
	b.enc = b.opts.Encoder
	if b.enc == nil {
		enc, err := NewEncoder(ctx, EncoderSpec{Kind: EncoderHash, Dims: cmp.Or(b.opts.HashDim, DefaultHashDim)}, EncoderEnv{})
		if err != nil {
			return err
		}
		b.enc = enc
	}
	if err := checkHeadFits(b.ws, b.enc); err != nil {
		return err
	}
	dense, err := openDenseForBuild(b.ws, &b.opts)
	if err != nil {
		return err
	}
	b.dense = dense
	b.man = Manifest{Format: FormatVersion, ToolVersion: workspace.Version, BuiltAt: time.Now().UTC().Format(time.RFC3339),
		Rendering: workspace.RenderingVersion, Docs: len(b.docs), InformalSource: map[string]int{}, BM25Analyzer: IdentAnalyzer, Files: map[string]FileSum{}}
	b.texts = make([]string, len(b.docs))
	h := sha256.New()
	var buf []byte // name, 0, text, 0: one write per document, no copy of each string
	for i, d := range b.docs {
		b.texts[i] = d.Text
		buf = append(append(append(append(buf[:0], d.Name...), 0), d.Text...), 0)
		h.Write(buf)
		b.man.InformalSource[d.InformalSource]++
		if workspace.IsPremiseKind(d.Kind) {
			b.man.PremiseDocs++
		}
	}
	b.man.CorpusSHA256 = hex.EncodeToString(h.Sum(nil))
	gen, err := b.dense.generation(ctx, &b.man, b.enc.Spec())
	if err != nil {
		return err
	}
	b.man.Generation = gen
	return nil
}

// vectors fits the encoder on the corpus when it learns from it, records
// its spec (a fallback encoder is labelled so), embeds the documents
// through the embedding cache, and has the dense backend keep the vectors
// with the trained head's. It returns the generation's files it wrote.
func (b *build) vectors(ctx context.Context, stage string, s *servingBuild) ([]string, error) {
	enc, man, run := b.enc, &b.man, b.run
	embedder := enc
	var ct *corpusTokens
	if h, ok := enc.(*HashEncoder); ok {
		// One tokenizing pass for the fit, the vectors and the postings.
		t0 := time.Now()
		a, err := identAnalyzer()
		if err != nil {
			return nil, err
		}
		if ct, err = tokenizeCorpus(ctx, a, b.texts, true); err != nil {
			return nil, err
		}
		s.tokens <- ct
		h.fitTokens(ct)
		embedder = tokenEncoder{h, ct}
		b.phase("fit_"+enc.Spec().Kind, t0)
	} else {
		s.tokens <- nil
		if f, ok := enc.(Fitter); ok {
			t0 := time.Now()
			f.Fit(b.texts)
			b.phase("fit_"+enc.Spec().Kind, t0)
		}
	}
	spec := enc.Spec()
	spec.Rendering = cmp.Or(b.opts.rendering, workspace.RenderingVersion)
	man.EncoderSpec, man.Encoder, man.EncoderFallback = spec, spec.Kind, spec.Fallback
	man.Model, man.BaseURL, man.Dims, man.MaxChars = spec.Model, spec.BaseURL, enc.Dim(), spec.MaxChars
	if spec.Fallback {
		run.Note(fmt.Sprintf("dense vectors from the built-in %s encoder (offline fallback, not a neural model)", spec.Kind))
	}
	b.params["encoder"], b.params["dims"], b.params["rendering"], b.params["encoder_key"] = man.Encoder, man.Dims, workspace.RenderingVersion, spec.Key()

	// Dense vectors, from the embedding cache where it has them.
	t0 := time.Now()
	vecs, crep, err := embedDocuments(ctx, b.ws, embedder, spec, b.texts, b.opts)
	if err != nil {
		return nil, err
	}
	if ct != nil {
		ct.release() // the postings keep only their pairs
	}
	b.crep = crep
	man.EmbeddingCache = crep
	b.params["cache"] = crep.Mode
	recordCache(run, crep)
	b.phase("encode", t0)
	if crep.LookupSeconds > 0 {
		b.st.Phases["cache_lookup"] = time.Duration(crep.LookupSeconds * float64(time.Second))
		run.Phase("cache_lookup", b.st.Phases["cache_lookup"])
	}
	t0 = time.Now()
	if err := checkFinite(vecs, enc.Dim()); err != nil {
		return nil, fmt.Errorf("encoder %s: %w", enc.Name(), err)
	}
	headW, headI := headAtBuild(b.ws, man)
	man.Head = headI
	files, err := b.dense.create(ctx, &DenseBuild{Generation: man.Generation, Stage: stage, Vectors: NewStore(vecs, len(b.docs), enc.Dim()), Docs: b.docs, Head: headW, Manifest: man})
	if err != nil {
		return nil, err
	}
	if s, ok := enc.(StateSaver); ok {
		names, err := s.SaveState(stage)
		if err != nil {
			return nil, err
		}
		files = append(files, names...)
	}
	b.phase(b.dense.phase(), t0)
	return files, nil
}

// serving waits for the serving files written in the background and
// records their phases; it returns the usage graph's rows.
func (b *build) serving(s *servingBuild) (int, error) {
	t0 := time.Now()
	if err := s.wait(); err != nil {
		return 0, err
	}
	b.phase("serving_wait", t0)
	b.man.Notations = s.notations
	b.man.FormulaAnalyzer, b.man.FormulaGrams = FormulaAnalyzer, s.formulaGrams
	for k, d := range s.phases {
		b.st.Phases[k] = d
		b.run.Phase(k, d)
	}
	return s.usage, nil
}

// checksums records every file's size and sums in the manifest and writes
// it into the generation: Open checks the files against it.
func (b *build) checksums(stage string, files []string) error {
	t0 := time.Now()
	bleveFiles, err := treeFiles(stage, BM25Name)
	if err != nil {
		return err
	}
	files = append(files, bleveFiles...)
	if err := sumFiles(stage, append(files, TableName, PostingsName, FormulaName, DocsName, UsageName), b.man.Files); err != nil {
		return err
	}
	js, _ := json.MarshalIndent(b.man, "", "  ")
	if err := workspace.WriteFileAtomic(filepath.Join(stage, ManifestName), append(js, '\n')); err != nil {
		return err
	}
	b.phase("checksums", t0)
	return nil
}

// commit makes the generation current and removes the older ones in one
// transaction with the run's record, retires the old generations' dense
// data after it, and fills in the stats.
func (b *build) commit(ctx context.Context, tx *workspace.Txn, usageRows int) error {
	gen, run := b.man.Generation, b.run
	// The pointer is staged after the generation, so the commit renames it
	// after the folder; the older generations go in the same commit.
	if err := switchGeneration(tx, gen); err != nil {
		return err
	}
	old, err := removeOldGenerations(tx, b.ws.Path(workspace.IndexDir), gen)
	if err != nil {
		return err
	}
	tx.Output(indexRel(CurrentName), 0)
	for _, o := range []struct {
		name string
		rows int
	}{{ManifestName, 0}, {DocsName, len(b.docs)}, {UsageName, usageRows}} {
		tx.Output(indexRel(gen, o.name), int64(o.rows))
	}
	run.Count("docs", int64(len(b.docs)))
	run.Count("premise_docs", int64(b.man.PremiseDocs))
	run.Count("usage_premises", int64(usageRows))
	run.Count("notation_symbols", int64(b.man.Notations))
	run.Note("generation " + gen)
	if err := tx.Commit(run); err != nil {
		return err
	}
	b.dense.retire(ctx, gen, old)
	st := b.st
	st.Dense = b.man.Dense
	st.Docs, st.PremiseDocs, st.Encoder, st.Fallback, st.Dims, st.Generation, st.Cache = len(b.docs), b.man.PremiseDocs, b.man.Encoder, b.man.EncoderFallback, b.man.Dims, gen, b.crep
	return nil
}

// sumFiles records the size, sha256 and CRC32C of files, one goroutine
// per file.
func sumFiles(dir string, names []string, into map[string]FileSum) error {
	sums := make([]FileSum, len(names))
	var g errgroup.Group
	for i, n := range names {
		g.Go(func() (err error) {
			sums[i], err = sumFile(filepath.Join(dir, n))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, n := range names {
		into[n] = sums[i]
	}
	return nil
}

// newGenerationID names a new generation: the build time (so that names sort
// by age) and a random suffix (two builds within a second differ).
func newGenerationID() string {
	var r [3]byte
	rand.Read(r[:])
	return generationPrefix + time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(r[:])
}

// switchGeneration stages, in tx, CURRENT pointing at gen: the commit makes
// gen the current generation with one atomic rename of CURRENT, after it has
// put the generation folder in place. Readers that opened the previous
// generation keep it (Index.Reload moves them on).
func switchGeneration(tx *workspace.Txn, gen string) error {
	return tx.WriteFile(workspace.IndexDir+"/"+CurrentName, []byte(gen+"\n"))
}

// removeOldGenerations stages, in tx, the removal of every generation but
// keep and of the files of the layout before generations: the commit that
// switches CURRENT deletes them (or, rolled back, keeps them all). A process
// still reading an old generation keeps working: its vectors are mapped and
// its bleve segments open, and Linux frees unlinked files only when the last
// user closes them. It returns the generations removed with their dense
// backends (whose data outside the folder Build retires after the commit).
func removeOldGenerations(tx *workspace.Txn, dir, keep string) ([]oldGeneration, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var old []oldGeneration
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, generationPrefix) && n != keep {
			if err := tx.Remove(workspace.IndexDir + "/" + n); err != nil {
				return nil, err
			}
			og := oldGeneration{id: n}
			if m, err := readManifest(filepath.Join(dir, n)); err == nil {
				og.dense = m.Dense
			}
			old = append(old, og)
		}
	}
	for _, n := range []string{ManifestName, DocsName, VectorsName, BM25Name, UsageName, HashStateName, PostingsName} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			if err := tx.Remove(workspace.IndexDir + "/" + n); err != nil {
				return nil, err
			}
		}
	}
	return old, nil
}

// checkFinite refuses vectors with NaN or infinite values (a broken
// encoder): they would rank as garbage without any error.
func checkFinite(vecs []float32, dim int) error {
	for i, x := range vecs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: non-finite value in the vector of document %d", ErrEmbedding, i/dim)
		}
	}
	return nil
}

// recordCache puts the embedding cache's counts into the workspace
// manifest's entry.
func recordCache(run *workspace.RunRecorder, r *CacheReport) {
	run.Count("cache_hits", int64(r.Hits))
	run.Count("cache_misses", int64(r.Misses))
	run.Count("embedded", int64(r.Embedded))
	if r.Requests >= 0 {
		run.Count("embedding_requests", r.Requests)
	}
	switch r.Mode {
	case CacheBypass:
		run.Note("embedding cache bypassed: " + r.Reason)
	case CacheOff:
		run.Note("embedding cache " + r.Reason)
	}
	for _, p := range r.Problems {
		run.Note("embedding cache: damaged file removed and its texts embedded again: " + p)
	}
}
