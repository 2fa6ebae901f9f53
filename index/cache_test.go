package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/embcache"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

// libDecls is a library of n definitions with distinct signatures.
func libDecls(n int) []workspace.Declaration {
	out := make([]workspace.Declaration, n)
	for i := range out {
		out[i] = workspace.Declaration{Library: "lib", Name: fmt.Sprintf("Lib.decl_%03d", i), Kind: "definition",
			Module: fmt.Sprintf("Lib.M%d", i%7), Signature: fmt.Sprintf("(n : Nat) : n + %d = %d + n", i, i)}
	}
	return out
}

func writeDecls(t testing.TB, ws *workspace.Workspace, ds []workspace.Declaration) {
	t.Helper()
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), ds); err != nil {
		t.Fatal(err)
	}
}

func libWS(t testing.TB, n int) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeDecls(t, ws, libDecls(n))
	return ws
}

// docTexts is what the next build embeds.
func docTexts(t testing.TB, ws *workspace.Workspace) []string {
	t.Helper()
	docs, err := workspace.LoadDocuments(ws)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Text
	}
	return out
}

// cacheEnc is an OpenAI encoder over srv sending batches of 8 texts, two
// at a time.
func cacheEnc(t *testing.T, srv *fakeopenai.Server, model string) *index.OpenAIEncoder {
	t.Helper()
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 5*time.Second, 2),
		index.OpenAIConfig{Model: model, BatchSize: 8, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func build(t testing.TB, ws *workspace.Workspace, o index.BuildOptions) *index.BuildStats {
	t.Helper()
	if o.BatchSize == 0 {
		o.BatchSize = 8
	}
	st, err := index.Build(context.Background(), ws, o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func currentVectors(t testing.TB, ws *workspace.Workspace) []float32 {
	t.Helper()
	dir, err := index.CurrentDir(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	v, _, _, err := index.ReadNPY(filepath.Join(dir, index.VectorsName))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sameBits(t testing.TB, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: value %d is %v, a fresh build has %v", what, i, got[i], want[i])
		}
	}
}

// freshVectors builds the index again without the cache and returns its
// vectors (all texts embedded anew).
func freshVectors(t testing.TB, ws *workspace.Workspace, enc index.Encoder) []float32 {
	t.Helper()
	st := build(t, ws, index.BuildOptions{Encoder: enc, NoCache: true})
	if st.Cache.Mode != index.CacheOff || st.Cache.Hits != 0 {
		t.Fatalf("--no-cache build: %+v", st.Cache)
	}
	return currentVectors(t, ws)
}

// counts snapshots how often the server was sent each text.
func counts(srv *fakeopenai.Server, texts []string) map[string]int {
	m := make(map[string]int, len(texts))
	for _, tx := range texts {
		m[tx] = srv.EmbedCount(tx)
	}
	return m
}

// askedSince lists the texts sent since the snapshot, failing on a text
// sent twice.
func askedSince(t testing.TB, srv *fakeopenai.Server, before map[string]int, texts []string) []string {
	t.Helper()
	var out []string
	for _, tx := range texts {
		switch d := srv.EmbedCount(tx) - before[tx]; {
		case d == 1:
			out = append(out, tx)
		case d > 1:
			t.Errorf("%q sent %d times in one build", tx, d)
		}
	}
	slices.Sort(out)
	return out
}

func minusS(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// Two builds over two versions of a library: the second sends exactly the
// texts the first did not have, its vectors equal a fresh build's bit for
// bit, and both manifests say so.
func TestCacheReusesUnchangedTexts(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
	defer srv.Close()
	ws := libWS(t, 120)
	enc := cacheEnc(t, srv, "bge-m3")
	texts1 := docTexts(t, ws)
	before := counts(srv, texts1)
	st := build(t, ws, index.BuildOptions{Encoder: enc})
	if c := st.Cache; c.Mode != index.CacheOn || c.Hits != 0 || c.Misses != 120 || c.Embedded != 120 || c.Requests != 15 || c.Entries != 120 {
		t.Fatalf("first build: %+v", c)
	}
	if got := askedSince(t, srv, before, texts1); len(got) != 120 {
		t.Fatalf("first build sent %d texts", len(got))
	}

	// Version 2: 7 signatures change, 5 declarations go, 9 come.
	ds := libDecls(129)
	for _, i := range []int{3, 17, 40, 41, 77, 90, 118} {
		ds[i].Signature += " ∧ True"
	}
	ds = slices.Delete(ds, 60, 65)
	writeDecls(t, ws, ds)
	texts2 := docTexts(t, ws)
	want := minusS(texts2, texts1)
	if len(want) != 16 {
		t.Fatalf("fixture: %d new texts, want 16", len(want))
	}
	before = counts(srv, texts2)
	req0 := srv.EmbedStats().Requests
	st = build(t, ws, index.BuildOptions{Encoder: enc})
	if got := askedSince(t, srv, before, texts2); !slices.Equal(got, want) {
		t.Fatalf("second build sent %d texts, want the %d new ones: extra %q, missing %q", len(got), len(want), minusS(got, want), minusS(want, got))
	}
	c := st.Cache
	if c.Hits != len(texts2)-16 || c.Misses != 16 || c.Embedded != 16 || c.Requests != 2 || c.Entries != 136 || len(c.Problems) != 0 {
		t.Fatalf("second build: %+v", c)
	}
	if sent := srv.EmbedStats().Requests - req0; sent != c.Requests {
		t.Errorf("the server got %d requests, the build counted %d", sent, c.Requests)
	}
	m, err := index.ReadManifest(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.EmbeddingCache == nil || m.EmbeddingCache.Hits != c.Hits || m.EmbeddingCache.Spec != m.EncoderSpec.Key() {
		t.Errorf("index manifest: %+v", m.EmbeddingCache)
	}
	wm, _ := ws.ReadManifest()
	rc := wm.LastRun("index").RowCounts
	if rc["cache_hits"] != int64(c.Hits) || rc["cache_misses"] != 16 || rc["embedding_requests"] != 2 || rc["embedded"] != 16 {
		t.Errorf("workspace manifest counts %v", rc)
	}
	cached := currentVectors(t, ws)
	sameBits(t, "vectors of the cached build", cached, freshVectors(t, ws, enc))
}

// A change of anything that decides the vectors — model, dims, truncation,
// rendering version — reuses nothing; going back reuses everything.
func TestCacheSpecChangeReusesNothing(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
	defer srv.Close()
	srv16 := fakeopenai.New(fakeopenai.Options{EmbedDim: 16})
	defer srv16.Close()
	base := func(t *testing.T) index.BuildOptions { return index.BuildOptions{Encoder: cacheEnc(t, srv, "bge-m3")} }
	tests := []struct {
		name string
		srv  *fakeopenai.Server
		opts func(t *testing.T) index.BuildOptions
	}{
		{"model", srv, func(t *testing.T) index.BuildOptions { return index.BuildOptions{Encoder: cacheEnc(t, srv, "e5")} }},
		{"dims", srv16, func(t *testing.T) index.BuildOptions {
			return index.BuildOptions{Encoder: cacheEnc(t, srv16, "bge-m3")}
		}},
		{"truncation", srv, func(t *testing.T) index.BuildOptions {
			enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 5*time.Second, 2),
				index.OpenAIConfig{Model: "bge-m3", BatchSize: 8, Concurrency: 2, MaxChars: 7999})
			if err != nil {
				t.Fatal(err)
			}
			return index.BuildOptions{Encoder: enc}
		}},
		{"rendering version", srv, func(t *testing.T) index.BuildOptions {
			o := base(t)
			index.SetRenderingForTest(&o, "doc-test")
			return o
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := libWS(t, 40)
			texts := docTexts(t, ws)
			build(t, ws, base(t))
			before := counts(tc.srv, texts)
			st := build(t, ws, tc.opts(t))
			if c := st.Cache; c.Hits != 0 || c.Misses != 40 {
				t.Fatalf("after a %s change: %+v", tc.name, c)
			}
			if got := askedSince(t, tc.srv, before, texts); len(got) != 40 {
				t.Fatalf("after a %s change %d texts were sent, want all 40", tc.name, len(got))
			}
			// Both specs are kept: either build again sends nothing.
			for _, o := range []index.BuildOptions{base(t), tc.opts(t)} {
				if st := build(t, ws, o); st.Cache.Hits != 40 || st.Cache.Requests != 0 {
					t.Fatalf("rebuild: %+v", st.Cache)
				}
			}
			specs, _ := embcache.Specs(ws.Path(index.EmbeddingsDir))
			if len(specs) != 2 {
				t.Fatalf("%d spec folders, want 2", len(specs))
			}
		})
	}
}

// A damaged cache file is reported naming it, removed and rebuilt: the
// texts it held are sent again, the others are not, and the vectors equal
// a fresh build's.
func TestCacheDamagedFileRebuilt(t *testing.T) {
	for _, part := range []string{embcache.VecSuffix, embcache.KeysSuffix} {
		t.Run(strings.TrimPrefix(part, "."), func(t *testing.T) {
			srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
			defer srv.Close()
			ws := libWS(t, 64)
			enc := cacheEnc(t, srv, "bge-m3")
			texts := docTexts(t, ws)
			build(t, ws, index.BuildOptions{Encoder: enc, Cache: embcache.Options{FlushRows: 16, FlushEvery: -1}})
			m, _ := index.ReadManifest(ws.Dir)
			tables, _ := filepath.Glob(ws.Path(index.EmbeddingsDir, m.EmbeddingCache.Spec, "*"+embcache.KeysSuffix))
			if len(tables) != 4 {
				t.Fatalf("%d shards, want 4 of 16 rows", len(tables))
			}
			slices.Sort(tables)
			var kt struct{ Keys []string }
			b, _ := os.ReadFile(tables[1])
			json.Unmarshal(b, &kt)
			var inShard []string
			for _, tx := range texts {
				if slices.Contains(kt.Keys, embcache.KeyOf(tx).String()) {
					inShard = append(inShard, tx)
				}
			}
			slices.Sort(inShard)
			if len(inShard) != 16 {
				t.Fatalf("%d texts in the shard", len(inShard))
			}
			bad := strings.TrimSuffix(tables[1], embcache.KeysSuffix) + part
			f, _ := os.OpenFile(bad, os.O_RDWR, 0)
			fi, _ := f.Stat()
			one := []byte{0}
			f.ReadAt(one, fi.Size()-40)
			one[0] ^= 1
			f.WriteAt(one, fi.Size()-40)
			f.Close()

			var warnings []string
			before := counts(srv, texts)
			st := build(t, ws, index.BuildOptions{Encoder: enc, Warn: func(s string) { warnings = append(warnings, s) }})
			if got := askedSince(t, srv, before, texts); !slices.Equal(got, inShard) {
				t.Fatalf("sent %d texts, want the damaged shard's 16", len(got))
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], bad) || len(st.Cache.Problems) != 1 || !strings.Contains(st.Cache.Problems[0], bad) {
				t.Fatalf("warnings %q, problems %q: want one naming %s", warnings, st.Cache.Problems, bad)
			}
			if st.Cache.Hits != 48 || st.Cache.Misses != 16 {
				t.Fatalf("%+v", st.Cache)
			}
			wm, _ := ws.ReadManifest()
			if notes := strings.Join(wm.LastRun("index").Notes, "\n"); !strings.Contains(notes, bad) {
				t.Errorf("workspace manifest notes do not name the damaged file: %s", notes)
			}
			if _, err := os.Stat(bad); !os.IsNotExist(err) {
				t.Errorf("damaged file left: %v", err)
			}
			sameBits(t, "vectors after the rebuild", currentVectors(t, ws), freshVectors(t, ws, enc))
			// The next build finds everything again.
			if st := build(t, ws, index.BuildOptions{Encoder: enc}); st.Cache.Hits != 64 || len(st.Cache.Problems) != 0 {
				t.Fatalf("%+v", st.Cache)
			}
		})
	}
}

// The hash encoder bypasses the cache, and says so; --no-cache neither reads
// nor writes it.
func TestCacheBypassAndOff(t *testing.T) {
	ws := libWS(t, 20)
	st := build(t, ws, index.BuildOptions{HashDim: 32})
	if st.Cache.Mode != index.CacheBypass || !strings.Contains(st.Cache.Reason, "hash") || st.Cache.Hits != 0 {
		t.Fatalf("hash build: %+v", st.Cache)
	}
	if ws.Has(index.EmbeddingsDir) {
		t.Error("the hash encoder wrote an embedding cache")
	}
	m, _ := index.ReadManifest(ws.Dir)
	wm, _ := ws.ReadManifest()
	if m.EmbeddingCache.Mode != index.CacheBypass || !strings.Contains(strings.Join(wm.LastRun("index").Notes, "\n"), "embedding cache bypassed") {
		t.Errorf("manifests do not say the cache was bypassed: %+v, %q", m.EmbeddingCache, wm.LastRun("index").Notes)
	}

	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
	defer srv.Close()
	enc := cacheEnc(t, srv, "bge-m3")
	st = build(t, ws, index.BuildOptions{Encoder: enc, NoCache: true})
	if st.Cache.Mode != index.CacheOff || st.Cache.Embedded != 20 || st.Cache.Requests != 3 || ws.Has(index.EmbeddingsDir) {
		t.Fatalf("--no-cache: %+v; cache folder %v", st.Cache, ws.Has(index.EmbeddingsDir))
	}
	if st := build(t, ws, index.BuildOptions{Encoder: enc}); st.Cache.Hits != 0 || st.Cache.Misses != 20 {
		t.Fatalf("after --no-cache the cache had something: %+v", st.Cache)
	}
}

// A build stopped by a failing endpoint keeps the batches that came back;
// the next one sends only the rest.
func TestCacheKeepsBatchesOfAFailedBuild(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if fail.Load() && r.Seq >= 6 { // the probe and 5 batches answer
			return fakeopenai.BadRequest
		}
		return fakeopenai.OK
	}})
	defer srv.Close()
	ws := libWS(t, 100)
	texts := docTexts(t, ws)
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 5*time.Second, -1),
		index.OpenAIConfig{Model: "bge-m3", BatchSize: 8, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = index.Build(context.Background(), ws, index.BuildOptions{Encoder: enc, BatchSize: 8, Cache: embcache.Options{FlushRows: 1000}})
	if err == nil {
		t.Fatal("the build did not fail")
	}
	answered := counts(srv, texts)
	n := 0
	for _, c := range answered {
		n += c
	}
	if n != 48 { // 6 batches sent, the sixth refused
		t.Fatalf("%d texts sent before the failure", n)
	}
	fail.Store(false)
	st := build(t, ws, index.BuildOptions{Encoder: enc})
	if st.Cache.Hits != 40 || st.Cache.Misses != 60 {
		t.Fatalf("rerun: %+v", st.Cache)
	}
	for _, tx := range texts {
		if srv.EmbedCount(tx) != 1 && !(srv.EmbedCount(tx) == 2 && answered[tx] == 1) {
			t.Fatalf("%q sent %d times", tx, srv.EmbedCount(tx))
		}
	}
	twice := 0
	for _, tx := range texts {
		if srv.EmbedCount(tx) == 2 {
			twice++
		}
	}
	if twice != 8 { // only the refused batch is sent again
		t.Fatalf("%d texts sent twice, want the refused batch's 8", twice)
	}
}

func TestPruneCache(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12})
	defer srv.Close()
	ws := libWS(t, 50)
	enc := cacheEnc(t, srv, "bge-m3")
	build(t, ws, index.BuildOptions{Encoder: enc})
	build(t, ws, index.BuildOptions{Encoder: cacheEnc(t, srv, "e5")})
	ds := libDecls(50)
	for i := range 10 {
		ds[i].Signature += " ∧ True"
	}
	writeDecls(t, ws, ds)
	build(t, ws, index.BuildOptions{Encoder: enc})
	st, err := index.CacheStats(ws, true)
	if err != nil || len(st) != 2 {
		t.Fatalf("stats %+v %v", st, err)
	}
	for _, s := range st {
		if s.Current && (s.Entries != 60 || s.Used != 50) || !s.Current && (s.Entries != 50 || s.Used != 40) {
			t.Errorf("stats %+v", s)
		}
	}
	dry, err := index.PruneCache(context.Background(), ws, index.PruneOptions{DryRun: true})
	if err != nil || len(dry.Specs) != 2 {
		t.Fatal(err)
	}
	st2, _ := index.CacheStats(ws, false)
	if st2[0].Entries+st2[1].Entries != 110 {
		t.Fatal("the dry run removed entries")
	}
	rep, err := index.PruneCache(context.Background(), ws, index.PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Specs {
		if s.EntriesAfter != map[int]int{60: 50, 50: 40}[s.EntriesBefore] {
			t.Errorf("pruned %+v", s)
		}
	}
	wm, _ := ws.ReadManifest()
	if r := wm.LastRun("cache prune"); r == nil || r.RowCounts["entries_before"] != 110 || r.RowCounts["entries_after"] != 90 {
		t.Errorf("workspace manifest: %+v", r)
	}
	if st := build(t, ws, index.BuildOptions{Encoder: enc}); st.Cache.Hits != 50 || st.Cache.Requests != 0 {
		t.Fatalf("after prune: %+v", st.Cache)
	}
	_, err = index.PruneCache(context.Background(), ws, index.PruneOptions{OtherSpecs: true})
	if err != nil {
		t.Fatal(err)
	}
	if specs, _ := embcache.Specs(ws.Path(index.EmbeddingsDir)); len(specs) != 1 {
		t.Fatalf("%d spec folders after --other-specs", len(specs))
	}
	if st := build(t, ws, index.BuildOptions{Encoder: enc}); st.Cache.Hits != 50 {
		t.Fatalf("the current spec was pruned: %+v", st.Cache)
	}
	// A prune beside a build is refused.
	c, err := embcache.Open(ws.Path(index.EmbeddingsDir), embcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := index.PruneCache(context.Background(), ws, index.PruneOptions{}); !errors.Is(err, workspace.ErrBusy) {
		t.Fatalf("prune while the cache is written: %v", err)
	}
}

// An interrupted build (Ctrl-C: its context cancelled) keeps the batches
// that came back before the interruption.
func TestCacheKeepsBatchesOfAnInterruptedBuild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if r.Seq == 6 { // the probe and 5 batches were answered
			cancel()
			return fakeopenai.Slow
		}
		return fakeopenai.OK
	}})
	defer srv.Close()
	ws := libWS(t, 100)
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 5*time.Second, -1),
		index.OpenAIConfig{Model: "bge-m3", BatchSize: 8, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, ws, index.BuildOptions{Encoder: enc, BatchSize: 8, Cache: embcache.Options{FlushRows: 1000}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build: %v", err)
	}
	if stored := storedTexts(t, ws, docTexts(t, ws)); len(stored) != 40 {
		t.Fatalf("%d texts kept, want the 5 answered batches' 40", len(stored))
	}
	if st := build(t, ws, index.BuildOptions{Encoder: enc}); st.Cache.Hits != 40 || st.Cache.Misses != 60 {
		t.Fatalf("rerun: %+v", st.Cache)
	}
}
