package index_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/embcache"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

// TestHelperCacheBuild is not a test: TestCacheSIGKILLResume runs the test
// binary with this test selected and the environment set, as a process it
// can kill -9. It builds the index with one cache shard per batch.
func TestHelperCacheBuild(t *testing.T) {
	if os.Getenv("DRIFTKIT_CACHE_HELPER") != "1" {
		t.Skip("helper process for TestCacheSIGKILLResume")
	}
	ctx := context.Background()
	enc, err := index.NewOpenAIEncoder(ctx, llmEmbedder(t, os.Getenv("DRIFTKIT_BASE_URL"), 10*time.Second, 2),
		index.OpenAIConfig{Model: "bge-m3", BatchSize: 8, Concurrency: 2, Dim: 12})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	ws := &workspace.Workspace{Dir: os.Getenv("DRIFTKIT_WS")}
	if _, err := index.Build(ctx, ws, index.BuildOptions{Encoder: enc, BatchSize: 8, Cache: embcache.Options{FlushRows: 1}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// storedTexts opens the cache (the killed process's lock is gone) and
// returns which texts it holds.
func storedTexts(t *testing.T, ws *workspace.Workspace, texts []string) map[string]bool {
	t.Helper()
	dir := ws.Path(index.EmbeddingsDir)
	specs, err := embcache.Specs(dir)
	if err != nil || len(specs) > 1 {
		t.Fatalf("spec folders %v, %v", specs, err)
	}
	out := map[string]bool{}
	if len(specs) == 0 {
		return out
	}
	c, err := embcache.Open(dir, embcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tab, err := c.Table(embcache.Spec{Key: specs[0]})
	if err != nil {
		t.Fatal(err)
	}
	if p := tab.Problems(); len(p) > 0 {
		t.Fatalf("a killed build left damaged cache files: %v", p)
	}
	for _, tx := range texts {
		if tab.Has(embcache.KeyOf(tx)) {
			out[tx] = true
		}
	}
	return out
}

// TestCacheSIGKILLResume kills index builds with SIGKILL after a random
// number of cache shards, several times, then lets one finish: no run sends
// a text the cache held when it started, what a killed run paid for but did
// not keep is at most the batches it had in flight, the run that finishes
// sends exactly the texts the cache still lacked, and its vectors equal a
// fresh build's.
func TestCacheSIGKILLResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	srv := fakeopenai.New(fakeopenai.Options{EmbedDim: 12, Latency: 20 * time.Millisecond})
	defer srv.Close()
	ws := libWS(t, 400)
	texts := docTexts(t, ws)
	slices.Sort(texts)
	shards := func() int {
		m, _ := filepath.Glob(ws.Path(index.EmbeddingsDir, "*", "*"+embcache.KeysSuffix))
		return len(m)
	}
	// run starts a build; with killAt > 0 it kills it once the cache has
	// that many shards. It reports whether the build finished.
	run := func(killAt int) bool {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCacheBuild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DRIFTKIT_CACHE_HELPER=1", "DRIFTKIT_WS="+ws.Dir, "DRIFTKIT_BASE_URL="+srv.BaseURL())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if killAt > 0 {
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("build failed: %v\n%s", err, out.String())
					}
					return true
				case <-tick.C:
				}
				if shards() >= killAt {
					cmd.Process.Signal(syscall.SIGKILL)
					<-done
					return false
				}
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("final build: %v\n%s", err, out.String())
		}
		return true
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 16))
	stored := map[string]bool{}
	kills := 0
	for range 4 {
		before := counts(srv, texts)
		finished := run(shards() + 2 + rng.IntN(8))
		asked := askedSince(t, srv, before, texts)
		now := storedTexts(t, ws, texts)
		for _, tx := range asked {
			if stored[tx] {
				t.Errorf("%q was sent again although the cache held it", tx)
			}
		}
		kept := 0
		for tx := range now {
			if !stored[tx] {
				kept++
				if !slices.Contains(asked, tx) {
					t.Errorf("%q is cached but was never sent", tx)
				}
			}
		}
		if finished {
			t.Logf("run %d finished before the kill", kills)
			break
		}
		kills++
		// In flight when killed: 2 batches sent, 2 answered and queued,
		// 1 being written.
		if lost := len(asked) - kept; lost > 5*8 {
			t.Errorf("killed run %d sent %d texts and kept %d: it lost %d, more than its batches in flight", kills, len(asked), kept, lost)
		}
		t.Logf("killed run %d: sent %d texts, kept %d", kills, len(asked), kept)
		stored = now
	}
	if kills < 2 || len(stored) == 0 || len(stored) == len(texts) {
		t.Fatalf("%d kills, %d of %d texts cached before the final run: the test proves nothing", kills, len(stored), len(texts))
	}
	before := counts(srv, texts)
	run(0)
	var want []string
	for _, tx := range texts {
		if !stored[tx] {
			want = append(want, tx)
		}
	}
	if got := askedSince(t, srv, before, texts); !slices.Equal(got, want) {
		t.Fatalf("the final run sent %d texts, want the %d the cache lacked: extra %d, missing %d", len(got), len(want), len(minusS(got, want)), len(minusS(want, got)))
	}
	m, err := index.ReadManifest(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.EmbeddingCache; c.Hits != len(stored) || c.Misses != len(want) {
		t.Errorf("final manifest: %+v", c)
	}
	enc, err := index.NewOpenAIEncoder(context.Background(), llmEmbedder(t, srv.BaseURL(), 10*time.Second, 2),
		index.OpenAIConfig{Model: "bge-m3", BatchSize: 8, Concurrency: 2, Dim: 12})
	if err != nil {
		t.Fatal(err)
	}
	cached := currentVectors(t, ws)
	sameBits(t, "vectors after the kills", cached, freshVectors(t, ws, enc))
}
