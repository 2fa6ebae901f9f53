package index

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/driftkit/driftkit/index/embcache"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
	"golang.org/x/sync/errgroup"
)

// EmbeddingsDir is the workspace folder of the embedding cache (package
// embcache): vectors keyed by EncoderSpec.Key and the sha256 of each
// document's text, so that a rebuild embeds only texts it has not seen.
const EmbeddingsDir = "embeddings"

// Embedding cache modes, as the manifests record them.
const (
	// CacheOn: vectors were looked up in WS/embeddings/ and the ones
	// embedded were added to it.
	CacheOn = "on"
	// CacheOff: the cache was neither read nor written (--no-cache).
	CacheOff = "off"
	// CacheBypass: the encoder runs in process (the hash encoder):
	// recomputing is cheaper than reading vectors back, and a fitted
	// encoder's vectors depend on the whole corpus, not on one text.
	CacheBypass = "bypass"
)

// CacheReport is what a build did with the embedding cache; the index
// manifest (embedding_cache) and BuildStats carry it, and the workspace
// manifest's entry counts cache_hits, cache_misses, embedded and
// embedding_requests.
type CacheReport struct {
	Mode   string `json:"mode"`
	Reason string `json:"reason,omitempty"`
	// Spec is EncoderSpec.Key of the build's encoder: its cache folder is
	// WS/embeddings/<spec> (in every mode, so that `cache prune
	// --other-specs` knows which folder the index uses).
	Spec string `json:"spec,omitempty"`
	Docs int    `json:"docs"`
	// Hits counts documents whose vector came from the cache, Misses those
	// embedded by this build; Embedded the texts given to the encoder
	// (documents' texts differ: each names its declaration).
	Hits     int `json:"hits"`
	Misses   int `json:"misses"`
	Embedded int `json:"embedded"`
	// Requests is the number of embeddings requests the encoder sent during
	// the build (not counting the llm client's retries, nor the probe an
	// OpenAI encoder sends when it is made); -1 when the encoder does not
	// count them.
	Requests int64 `json:"requests"`
	// ShardsWritten counts cache shards written (appended as batches came
	// back, and by compaction); Entries the texts stored for the spec after
	// the build; Bytes their disk size.
	ShardsWritten int   `json:"shards_written,omitempty"`
	Entries       int   `json:"entries,omitempty"`
	Bytes         int64 `json:"bytes,omitempty"`
	// Problems names damaged cache files found (each was removed, and the
	// texts it held embedded again: never used).
	Problems []string `json:"problems,omitempty"`
	// LookupSeconds is the time spent hashing texts, reading key tables
	// and reading and checking the cached vectors.
	LookupSeconds float64 `json:"lookup_seconds,omitempty"`
}

// RequestCounter is an encoder that counts the requests it sends (the
// OpenAI encoder), for the manifests.
type RequestCounter interface {
	Requests() int64
}

// Concurrent is an encoder that serves several Encode calls at once well;
// Build keeps Concurrency() batches in flight.
type Concurrent interface {
	Concurrency() int
}

// cachePolicy decides whether a build uses the embedding cache.
func cachePolicy(enc Encoder, noCache bool) (mode, reason string) {
	_, row := enc.(RowEncoder)
	_, fit := enc.(Fitter)
	switch {
	case row || fit:
		return CacheBypass, fmt.Sprintf("the %s encoder runs in process: recomputing its vectors is cheaper than reading them back (and a fitted encoder's vectors depend on the whole corpus)", enc.Spec().Kind)
	case noCache:
		return CacheOff, "disabled (--no-cache)"
	}
	return CacheOn, ""
}

// textKeys hashes every text on all cores.
func textKeys(texts []string) []embcache.Key {
	keys := make([]embcache.Key, len(texts))
	parallelRows(context.Background(), len(texts), func(i int) { keys[i] = sha256.Sum256([]byte(texts[i])) }, nil)
	return keys
}

// embedDocuments returns the vectors of texts (row-major), from the cache of
// the workspace where it holds them and from enc otherwise, adding what enc
// returned to the cache as batches complete (so that an interrupted build
// keeps them). spec is the encoder's spec with Rendering set.
func embedDocuments(ctx context.Context, ws *workspace.Workspace, enc Encoder, spec EncoderSpec, texts []string, opts BuildOptions) ([]float32, *CacheReport, error) {
	dim := enc.Dim()
	vecs := make([]float32, len(texts)*dim)
	rep := &CacheReport{Docs: len(texts), Requests: -1, Spec: spec.Key()}
	rep.Mode, rep.Reason = cachePolicy(enc, opts.NoCache)
	rc, counts := enc.(RequestCounter)
	var req0 int64
	if counts {
		req0 = rc.Requests()
	}
	done := func() {
		if counts {
			rep.Requests = rc.Requests() - req0
		}
	}
	bs := opts.BatchSize
	if bs <= 0 {
		bs = 256
	}
	par := 1
	if c, ok := enc.(Concurrent); ok {
		par = max(1, c.Concurrency())
	}
	if rep.Mode != CacheOn {
		rep.Misses, rep.Embedded = len(texts), len(texts)
		bar := progress.Start(ctx, "encode "+enc.Name(), int64(len(texts)))
		err := encodeAll(ctx, enc, texts, bs, par, vecs, bar)
		bar.Finish()
		done()
		return vecs, rep, err
	}

	t0 := time.Now()
	keys := textKeys(texts)
	c, err := embcache.Open(ws.Path(EmbeddingsDir), opts.Cache)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	sj, _ := json.Marshal(spec)
	tab, err := c.Table(embcache.Spec{Key: rep.Spec, Dims: dim, Encoder: sj})
	if err != nil {
		return nil, nil, err
	}
	rows := make([]int, len(keys))
	for i := range rows {
		rows[i] = i
	}
	missed, err := tab.Fill(ctx, keys, rows, vecs)
	if err != nil {
		return nil, nil, err
	}
	warned := 0
	warn := func() {
		for _, p := range tab.Problems()[warned:] {
			rep.Problems = append(rep.Problems, p.Error())
			if opts.Warn != nil {
				opts.Warn(fmt.Sprintf("embedding cache: %v (removed; its texts are embedded again)", p))
			}
		}
		warned = len(tab.Problems())
	}
	warn()
	todo := missed // document indices, since rows[i] == i
	rep.LookupSeconds = time.Since(t0).Seconds()

	var mu sync.Mutex // sink is called from one goroutine; the lock documents it
	sink := func(idx []int, out [][]float32) error {
		mu.Lock()
		defer mu.Unlock()
		ks := make([]embcache.Key, len(idx))
		flat := make([]float32, len(idx)*dim)
		for j, i := range idx {
			ks[j] = keys[i]
			copy(flat[j*dim:], out[j])
		}
		return tab.Add(ks, flat)
	}
	bar := progress.Start(ctx, "encode "+enc.Name()+" (cache misses)", int64(len(todo)))
	encErr := encodeRows(ctx, enc, texts, todo, bs, par, vecs, bar, sink)
	bar.Finish()
	// What came back is kept even when the build stops here.
	flushErr := tab.Flush()
	done()
	rep.Embedded = len(todo)
	rep.ShardsWritten = tab.Written()
	if encErr != nil {
		if flushErr != nil {
			return nil, rep, fmt.Errorf("%w (and the embedding cache could not keep the vectors that came back: %v)", encErr, flushErr)
		}
		return nil, rep, encErr
	}
	if flushErr != nil {
		return nil, rep, flushErr
	}
	if _, err := tab.Compact(); err != nil && opts.Warn != nil {
		opts.Warn(fmt.Sprintf("embedding cache: compaction failed (the cache stays usable): %v", err))
	}
	warn()
	rep.ShardsWritten, rep.Entries, rep.Bytes = tab.Written(), tab.Len(), tab.Bytes()
	rep.Misses = len(todo)
	rep.Hits = len(texts) - rep.Misses
	return vecs, rep, nil
}

// encodeAll fills vecs (row-major) with the vectors of every text: from all
// cores for an in-process RowEncoder, else by batches (encodeRows).
func encodeAll(ctx context.Context, enc Encoder, texts []string, bs, par int, vecs []float32, bar *progress.Bar) error {
	dim := enc.Dim()
	if te, ok := enc.(tokenEncoder); ok {
		return parallelRows(ctx, len(texts), func(i int) {
			te.encodeTokens(te.ct, i, vecs[i*dim:(i+1)*dim])
		}, bar)
	}
	if re, ok := enc.(RowEncoder); ok {
		return parallelRows(ctx, len(texts), func(i int) {
			re.EncodeOne(texts[i], vecs[i*dim:(i+1)*dim])
		}, bar)
	}
	idx := make([]int, len(texts))
	for i := range idx {
		idx[i] = i
	}
	return encodeRows(ctx, enc, texts, idx, bs, par, vecs, bar, nil)
}

// tokenEncoder is the hash encoder embedding the build's tokenized corpus
// (tokenizeCorpus): the same vectors as EncodeOne of the texts, without
// tokenizing them again.
type tokenEncoder struct {
	*HashEncoder
	ct *corpusTokens
}

// encodeRows embeds texts[idx[…]] in batches of bs, keeping par batches in
// flight, and copies each vector into its row of vecs. sink, when not nil,
// gets every batch as it completes (from one goroutine, in completion
// order); an error from it stops the work.
func encodeRows(ctx context.Context, enc Encoder, texts []string, idx []int, bs, par int, vecs []float32, bar *progress.Bar,
	sink func(idx []int, out [][]float32) error) error {
	dim := enc.Dim()
	if len(idx) == 0 {
		return nil
	}
	type result struct {
		s, e int
		out  [][]float32
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(cctx)
	g.SetLimit(par)
	results := make(chan result, par)
	waitErr := make(chan error, 1)
	go func() {
		for s := 0; s < len(idx) && gctx.Err() == nil; s += bs {
			e := min(s+bs, len(idx))
			g.Go(func() error {
				in := make([]string, e-s)
				for i := range in {
					in[i] = texts[idx[s+i]]
				}
				out, err := enc.Encode(gctx, in)
				if err != nil {
					return fmt.Errorf("encode %d documents from document %d: %w", e-s, idx[s], err)
				}
				if len(out) != e-s {
					return fmt.Errorf("encoder %s returned %d vectors for %d texts", enc.Name(), len(out), e-s)
				}
				for _, v := range out {
					if len(v) != dim {
						return fmt.Errorf("encoder %s returned a vector of %d dims, want %d", enc.Name(), len(v), dim)
					}
				}
				// Never dropped for a cancellation: the loop below reads
				// every result until the channel closes, and a paid-for
				// batch goes to the sink.
				results <- result{s, e, out}
				return nil
			})
		}
		waitErr <- g.Wait()
		close(results)
	}()
	var sinkErr error
	for r := range results {
		for j, v := range r.out {
			copy(vecs[idx[r.s+j]*dim:], v)
		}
		if sink != nil && sinkErr == nil {
			if sinkErr = sink(idx[r.s:r.e], r.out); sinkErr != nil {
				cancel()
			}
		}
		bar.Add(r.e - r.s)
	}
	err := <-waitErr
	if sinkErr != nil {
		return sinkErr
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}
