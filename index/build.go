package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/internal/progress"
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
}

// BuildStats reports what Build did.
type BuildStats struct {
	Docs, PremiseDocs int
	Encoder           string
	Dims              int
	Phases            map[string]time.Duration
	bleveTime         time.Duration
}

// Build reads the workspace's declarations (and informal rows when present)
// and writes WS/index/. Every file is written atomically; the bleve index is
// built in a temporary folder and renamed into place. A concurrent Build on
// the same workspace (from any process) fails with dataset.ErrBusy.
func Build(ctx context.Context, ws *dataset.Workspace, opts BuildOptions) (*BuildStats, error) {
	dir := ws.Path(dataset.IndexDir)
	rel := func(n string) string { return filepath.ToSlash(filepath.Join(dataset.IndexDir, n)) }
	// Two builds on one workspace would interleave their renames in
	// commitStage (vectors of one, docs of the other): the second is refused.
	unlock, err := ws.TryLock("index")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, rel(ManifestName), rel(DocsName), rel(VectorsName), rel(UsageName), rel(PostingsName)); err != nil {
		return nil, err
	}
	st := &BuildStats{Phases: map[string]time.Duration{}}
	params := map[string]any{}
	run := ws.StartRun("index", params)
	phase := func(name string, t0 time.Time) {
		d := time.Since(t0)
		st.Phases[name] += d
		run.Phase(name, d)
	}

	t0 := time.Now()
	docs, err := dataset.LoadDocuments(ws)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no declarations to index", ws.Path(dataset.DeclarationsFile))
	}
	for _, n := range []string{dataset.DeclarationsFile, dataset.InformalFile} {
		if ws.Has(n) {
			if err := run.Input(n); err != nil {
				return nil, err
			}
		}
	}
	phase("load", t0)

	enc := opts.Encoder
	man := Manifest{Format: FormatVersion, ToolVersion: dataset.Version, BuiltAt: time.Now().UTC().Format(time.RFC3339),
		Rendering: dataset.RenderingVersion, Docs: len(docs), InformalSource: map[string]int{}, BM25Analyzer: IdentAnalyzer}
	texts := make([]string, len(docs))
	h := sha256.New()
	for i, d := range docs {
		texts[i] = d.Text
		h.Write([]byte(d.Name))
		h.Write([]byte{0})
		h.Write([]byte(d.Text))
		h.Write([]byte{0})
		man.InformalSource[d.InformalSource]++
		if dataset.IsPremiseKind(d.Kind) {
			man.PremiseDocs++
		}
	}
	man.CorpusSHA256 = hex.EncodeToString(h.Sum(nil))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Everything is written into a staging folder and moved into place only
	// when all files are complete: a failed or interrupted build leaves the
	// previous index untouched.
	stage, err := os.MkdirTemp(dir, ".build.tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	// The bleve index builds on its own goroutine while the vectors and the
	// postings are computed.
	bctx, bcancel := context.WithCancel(ctx)
	bleveDone := make(chan error, 1)
	go func() {
		t0 := time.Now()
		bar := progress.New("bm25 (bleve)", int64(len(docs)))
		err := buildBM25(bctx, filepath.Join(stage, BM25Name), docs, dataset.IsPremiseKind, bar.Add)
		bar.Finish()
		st.bleveTime = time.Since(t0)
		bleveDone <- err
	}()
	waitBleve := func() error {
		err := <-bleveDone
		bleveDone <- err
		return err
	}
	defer func() { bcancel(); waitBleve() }()
	var hashEnc *HashEncoder
	if enc == nil {
		t0 = time.Now()
		hashEnc = NewHashEncoder(opts.HashDim)
		hashEnc.Fit(texts)
		enc = hashEnc
		phase("fit_hash", t0)
	}
	man.Encoder, man.Dims = enc.Name(), enc.Dim()
	if hashEnc != nil {
		man.Encoder, man.EncoderFallback = EncoderHash, true
		run.Note("dense vectors from the built-in hash encoder (offline fallback, not a neural model)")
	}
	if oe, ok := enc.(*OpenAIEncoder); ok {
		man.Encoder, man.Model, man.BaseURL, man.MaxChars = EncoderOpenAI, oe.Model(), oe.BaseURL(), oe.MaxChars()
	}
	params["encoder"], params["dims"], params["rendering"] = man.Encoder, man.Dims, dataset.RenderingVersion

	// Dense vectors.
	t0 = time.Now()
	bs := opts.BatchSize
	if bs <= 0 {
		bs = 256
	}
	vecs := make([]float32, len(docs)*enc.Dim())
	bar := progress.New("encode "+enc.Name(), int64(len(docs)))
	if err := encodeAll(ctx, enc, texts, bs, vecs, bar); err != nil {
		bar.Finish()
		return nil, err
	}
	bar.Finish()
	phase("encode", t0)
	t0 = time.Now()
	if err := WriteNPY(filepath.Join(stage, VectorsName), vecs, len(docs), enc.Dim()); err != nil {
		return nil, err
	}
	vecs = nil
	if hashEnc != nil {
		if err := hashEnc.Save(filepath.Join(stage, HashStateName)); err != nil {
			return nil, err
		}
	}
	phase("write_vectors", t0)

	// BM25: in-memory postings for serving, then wait for bleve.
	t0 = time.Now()
	post, err := BuildPostings(ctx, texts)
	if err != nil {
		return nil, err
	}
	if err := post.Save(filepath.Join(stage, PostingsName)); err != nil {
		return nil, err
	}
	phase("bm25_postings", t0)
	t0 = time.Now()
	if err := waitBleve(); err != nil {
		return nil, fmt.Errorf("bleve index: %w", err)
	}
	phase("bm25_bleve_wait", t0)
	st.Phases["bm25_bleve_total"] = st.bleveTime

	// Docs and usage.
	t0 = time.Now()
	if err := dataset.WriteTable(filepath.Join(stage, DocsName), docs); err != nil {
		return nil, err
	}
	usage := BuildUsage(docs)
	if err := dataset.WriteTable(filepath.Join(stage, UsageName), usage); err != nil {
		return nil, err
	}
	phase("write_tables", t0)

	man.Head = headAtBuild(ws, &man)
	b, _ := json.MarshalIndent(man, "", "  ")
	if err := dataset.WriteFileAtomic(filepath.Join(stage, ManifestName), append(b, '\n')); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := commitStage(stage, dir, hashEnc != nil); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		name string
		rows int
	}{{ManifestName, 0}, {PostingsName, 0}, {DocsName, len(docs)}, {VectorsName, len(docs)}, {UsageName, len(usage)}} {
		if err := run.Output(rel(o.name), int64(o.rows)); err != nil {
			return nil, err
		}
	}
	run.Count("docs", int64(len(docs)))
	run.Count("premise_docs", int64(man.PremiseDocs))
	run.Count("usage_premises", int64(len(usage)))
	if err := run.Finish(); err != nil {
		return nil, err
	}
	st.Docs, st.PremiseDocs, st.Encoder, st.Dims = len(docs), man.PremiseDocs, man.Encoder, man.Dims
	return st, nil
}

// encodeAll fills vecs (row-major) by calling enc on batches of texts.
func encodeAll(ctx context.Context, enc Encoder, texts []string, bs int, vecs []float32, bar *progress.Bar) error {
	dim := enc.Dim()
	if he, ok := enc.(*HashEncoder); ok {
		// In-process: no batching overhead, split across cores.
		return parallelRows(ctx, len(texts), func(i int) {
			he.EncodeOne(texts[i], vecs[i*dim:(i+1)*dim])
		}, bar)
	}
	for s := 0; s < len(texts); s += bs {
		e := min(s+bs, len(texts))
		out, err := enc.Encode(ctx, texts[s:e])
		if err != nil {
			return fmt.Errorf("encode documents %d–%d: %w", s, e-1, err)
		}
		if len(out) != e-s {
			return fmt.Errorf("encoder %s returned %d vectors for %d texts", enc.Name(), len(out), e-s)
		}
		for i, v := range out {
			if len(v) != dim {
				return fmt.Errorf("encoder %s returned a vector of %d dims, want %d", enc.Name(), len(v), dim)
			}
			copy(vecs[(s+i)*dim:], v)
		}
		bar.Add(e - s)
	}
	return nil
}

// commitStage moves the staged files into dir. The manifest goes last, so a
// reader that sees the new manifest sees the new files. The old bleve folder
// is moved aside and removed.
func commitStage(stage, dir string, hash bool) error {
	old := filepath.Join(stage, "old-bm25")
	if _, err := os.Stat(filepath.Join(dir, BM25Name)); err == nil {
		if err := os.Rename(filepath.Join(dir, BM25Name), old); err != nil {
			return err
		}
	}
	names := []string{BM25Name, PostingsName, VectorsName, DocsName, UsageName}
	if hash {
		names = append(names, HashStateName)
	} else {
		os.Remove(filepath.Join(dir, HashStateName))
	}
	for _, n := range append(names, ManifestName) {
		if err := os.Rename(filepath.Join(stage, n), filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}
