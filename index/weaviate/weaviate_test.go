package weaviate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/weaviate"
	"github.com/driftkit/driftkit/internal/testkit/weaviatetest"
	"github.com/driftkit/driftkit/retrieval"
)

var cluster weaviatetest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	cluster.Close()
	os.Exit(code)
}

var kinds = []string{"theorem", "definition", "structure", "instance", "class", "theorem", "abbrev"}

// corpus makes n documents over two libraries with random unit vectors;
// every 50th repeats the vector of the one before (exact ties, which every
// backend breaks by document id).
func corpus(n, dim int, seed uint64) ([]index.Doc, *index.Store) {
	r := rand.New(rand.NewPCG(seed, 7))
	docs := make([]index.Doc, n)
	vecs := make([]float32, n*dim)
	for i := range docs {
		lib := "mathlib"
		if i%3 == 0 {
			lib = "con-nf"
		}
		docs[i] = index.Doc{Name: fmt.Sprintf("Doc.n%d", i), Kind: kinds[i%len(kinds)], Library: lib, Module: fmt.Sprintf("M%d", i%10)}
		v := vecs[i*dim : (i+1)*dim]
		if i%50 == 49 {
			copy(v, vecs[(i-1)*dim:i*dim])
			continue
		}
		var norm float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] = float32(float64(v[j]) / math.Sqrt(norm))
		}
	}
	return docs, index.NewStore(vecs, n, dim)
}

func table(docs []index.Doc) *retrieval.Table {
	e := make([]retrieval.Entry, len(docs))
	for i, d := range docs {
		e[i] = retrieval.Entry{Name: d.Name, Kind: d.Kind, Library: d.Library, Module: d.Module}
	}
	return retrieval.NewTable(e, nil)
}

// randomHead is a head over dim dimensions with random weights.
func randomHead(t *testing.T, dim int) *head.Head {
	r := rand.New(rand.NewPCG(3, 3))
	out := 16
	q, d := make([]float32, dim*out), make([]float32, dim*out)
	for i := range q {
		q[i], d[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	h, err := head.New(head.Config{InDim: dim, OutDim: out, Encoder: fmt.Sprintf("hash:%d", dim), Mix: 0.3, QuerySHA256: "q", DocumentSHA256: "d"}, q, d)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// backends builds the same documents into a Weaviate collection and into
// the in-process backend (vectors.npy), both with h, and opens both.
func backends(t *testing.T, c *weaviatetest.Cluster, docs []index.Doc, vecs *index.Store, h *head.Head, params map[string]string) (remote, local index.DenseStore) {
	t.Helper()
	ctx := context.Background()
	gen := fmt.Sprintf("gen-test-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	p := map[string]string{weaviate.ParamURL: c.URLs()}
	for k, v := range params {
		p[k] = v
	}
	man := &index.Manifest{Generation: gen, Docs: len(docs), Dims: vecs.Dim(), Files: map[string]index.FileSum{}}
	ws := t.TempDir()
	open := func(kind string, p map[string]string) index.DenseStore {
		cfg, err := index.ParseDense(kind, p, index.DenseEnv{})
		if err != nil {
			t.Fatal(err)
		}
		stage := t.TempDir()
		cr, err := cfg.Create(ctx, &index.DenseBuild{Workspace: ws, Generation: gen, Stage: stage, Key: "key-" + gen, Vectors: vecs, Docs: docs, Head: h, Manifest: man})
		if err != nil {
			t.Fatalf("%s: Create: %v", kind, err)
		}
		for _, f := range cr.Files {
			b, _ := os.ReadFile(filepath.Join(stage, f))
			s := sha256.Sum256(b)
			man.Files[f] = index.FileSum{Size: int64(len(b)), SHA256: hex.EncodeToString(s[:])}
		}
		params := cfg.Params()
		for k, v := range cr.Params {
			if params == nil {
				params = map[string]string{}
			}
			params[k] = v
		}
		cfg, err = index.ParseDense(kind, params, index.DenseEnv{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := cfg.Open(ctx, &index.DenseOpen{Workspace: ws, Dir: stage, Manifest: man, Table: table(docs), Head: h})
		if err != nil {
			t.Fatalf("%s: Open: %v", kind, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(weaviate.Kind, p), open(index.DenseMmap, nil)
}

// batches are the request shapes the engine sends (candidates and
// neighbours) and harder ones: one library, exclusions, overlapping
// selections (a document goes to the first that selects it), a kind
// nothing has, K beyond the selection.
func batches(tb *retrieval.Table, docs []index.Doc, ex []string) []*retrieval.Batch {
	premise := []string{"definition", "structure", "instance", "class", "abbrev"}
	shapes := [][]retrieval.Request{
		{{Select: retrieval.Selection{Kinds: premise}, K: 40}, {Select: retrieval.Selection{Kinds: []string{"theorem"}}, K: 7}},
		{{Select: retrieval.Selection{Kinds: premise, Library: "con-nf", Exclude: ex}, K: 25}, {Select: retrieval.Selection{Kinds: []string{"theorem"}, Library: "con-nf", Exclude: ex}, K: 5}},
		{{Select: retrieval.Selection{}, K: 30}},
		{{Select: retrieval.Selection{Kinds: []string{"theorem", "definition"}, Library: "mathlib"}, K: 15}, {Select: retrieval.Selection{Exclude: ex[:1]}, K: 15}},
		{{Select: retrieval.Selection{Kinds: []string{"nosuchkind"}}, K: 5}, {Select: retrieval.Selection{Kinds: []string{}}, K: 5}, {Select: retrieval.Selection{Kinds: []string{"class"}, Library: "con-nf"}, K: 10000}},
	}
	var out []*retrieval.Batch
	for _, s := range shapes {
		out = append(out, tb.Compile(s))
	}
	return out
}

// best names q's nearest documents, some of each library: the exclusions
// of the batches must remove documents that would rank.
func best(s index.DenseStore, q []float32, tb *retrieval.Table, docs []index.Doc) []string {
	res, err := s.SearchDense(context.Background(), q, tb.Compile([]retrieval.Request{{Select: retrieval.Selection{}, K: 12}}))
	if err != nil {
		panic(err)
	}
	var out []string
	for i, d := range retrieval.DocsOf(res[0]) {
		if i%2 == 0 {
			out = append(out, docs[d].Name)
		}
	}
	return out
}

func queries(n, dim int) [][]float32 {
	_, s := corpus(n, dim, 99)
	out := make([][]float32, n)
	for i := range out {
		out[i] = s.Vector(i)
	}
	return out
}

// sameLists compares two backends' answers: the same documents in the same
// order with the same scores, bit for bit (the Weaviate backend rescores
// the candidates it fetches with the in-process dot product).
func sameLists(got, want [][]retrieval.Scored) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d lists, want %d", len(got), len(want))
	}
	for i := range want {
		gd, wd := retrieval.DocsOf(got[i]), retrieval.DocsOf(want[i])
		if !slices.Equal(gd, wd) {
			return fmt.Errorf("list %d: documents %v, want %v", i, gd, wd)
		}
		for j := range want[i] {
			if got[i][j].Score != want[i][j].Score {
				return fmt.Errorf("list %d rank %d: score %v, want %v", i, j, got[i][j].Score, want[i][j].Score)
			}
		}
	}
	return nil
}

// With the flat index, Weaviate returns the in-process backend's lists for
// every request shape, raw and through the projection head: filters pushed
// down select exactly the documents the compiled classes do.
func TestFlatAgreesWithInProcess(t *testing.T) {
	c := cluster.Get(t)
	docs, vecs := corpus(3000, 48, 1)
	tb := table(docs)
	for _, withHead := range []bool{false, true} {
		t.Run(fmt.Sprintf("head=%t", withHead), func(t *testing.T) {
			var h *head.Head
			if withHead {
				h = randomHead(t, vecs.Dim())
			}
			remote, local := backends(t, c, docs, vecs, h, nil)
			if (remote.Head() != nil) != withHead || (local.Head() != nil) != withHead {
				t.Fatalf("Head() = %v, %v", remote.Head(), local.Head())
			}
			for qi, q := range queries(40, vecs.Dim()) {
				for bi, b := range batches(tb, docs, best(local, q, tb, docs)) {
					got, err := remote.SearchDense(context.Background(), q, b)
					if err != nil {
						t.Fatal(err)
					}
					want, _ := local.SearchDense(context.Background(), q, b)
					if err := sameLists(got, want); err != nil {
						t.Fatalf("query %d, batch %d: %v", qi, bi, err)
					}
				}
			}
			// The raw vectors come back bit for bit.
			v, err := remote.Vectors(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for r := range vecs.Rows() {
				if !slices.Equal(v.Vector(r), vecs.Vector(r)) {
					t.Fatalf("row %d read back differs", r)
				}
			}
		})
	}
}

// Killing one node (SIGKILL) while searches run costs none of them: the
// replicas on the other nodes answer. A generation imported while the node
// is down succeeds (quorum), and the node, restarted under its name,
// rejoins and catches up with it.
func TestNodeLossAndRejoin(t *testing.T) {
	c := cluster.Get(t)
	docs, vecs := corpus(2000, 32, 2)
	tb := table(docs)
	remote, local := backends(t, c, docs, vecs, nil, nil)
	qs := queries(50, vecs.Dim())
	bs := batches(tb, docs, best(local, qs[0], tb, docs))
	var searches, errs atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	halt := func() { once.Do(func() { close(stop); wg.Wait() }) }
	defer halt()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q, b := qs[i%len(qs)], bs[i%len(bs)]
				got, err := remote.SearchDense(context.Background(), q, b)
				if err == nil {
					want, _ := local.SearchDense(context.Background(), q, b)
					err = sameLists(got, want)
				}
				searches.Add(1)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	// Synchronise on what happened, not on time: searches are flowing
	// before the kill; after it, some ran before the cluster noticed the
	// node gone (requests routed to it fail over) and some after (the
	// survivors answer for its replicas).
	waitFor(t, "searches before the kill", func() bool { return searches.Load() >= 20 })
	killed := 2
	t0 := time.Now()
	if err := c.Kill(killed); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			c.Restart(killed)
		}
	}()
	before := searches.Load()
	waitFor(t, "the survivors to see the node down", func() bool { return seenDown(c, 0, killed) && seenDown(c, 1, killed) })
	detected, noticed := searches.Load(), time.Since(t0)
	waitFor(t, "searches after the loss was noticed", func() bool { return searches.Load() >= detected+40 })
	during := searches.Load() - before
	halt()
	if errs.Load() > 0 {
		t.Fatalf("%d of %d searches failed with a node down; first: %v", errs.Load(), searches.Load(), firstErr.Load())
	}
	t.Logf("node %d killed; %d searches until the survivors noticed (%v), %d after", killed, detected-before, noticed.Round(time.Millisecond), searches.Load()-detected)
	t.Logf("%d searches, %d with node %d down, 0 errors", searches.Load(), during, killed)

	// Import a new generation while the node is down (quorum writes), then
	// bring the node back.
	docs2, vecs2 := corpus(1500, 32, 5)
	remote2, _ := backends(t, c, docs2, vecs2, nil, map[string]string{weaviate.ParamWrite: "quorum"})
	collection := remote2.(interface{ Collection() string }).Collection()
	restarted = true
	if err := c.Restart(killed); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(context.Background(), 3); err != nil {
		t.Fatalf("%v\n%s", err, c.LogTail(killed))
	}
	rejoined := time.Since(t0)
	// The restarted node's own replicas of the new collection come to hold
	// every object (asynchronous replication copies what it missed): a
	// sample of rows, read from that node alone.
	rows := []int{0, 1, 2, 777, len(docs2) - 1}
	for r := 3; r < len(docs2); r += 97 {
		rows = append(rows, r)
	}
	deadline := time.Now().Add(4 * time.Minute)
	for first := true; ; first = false {
		missing, err := missingOnNode(c, killed, collection, rows)
		if first {
			t.Logf("node %d back: it lacks %d of %d sampled objects (%v)", killed, missing, len(rows), err)
		}
		if err == nil && missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %d still lacks %d of %d sampled objects imported while it was down (%v)\n%s", killed, missing, len(rows), err, c.LogTail(killed))
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("node %d rejoined after %v and caught up (%d sampled objects on the node itself) after %v", killed, rejoined.Round(time.Second), len(rows), time.Since(t0).Round(time.Second))
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline (a loaded machine is slow, never wrong).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// seenDown reports whether node i of c answers and calls node j anything
// but HEALTHY (or no longer lists it).
func seenDown(c *weaviatetest.Cluster, i, j int) bool {
	// Bounded, so that waitFor's deadline holds even if node i stalls.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := c.Statuses(ctx, i)
	if err != nil {
		return false
	}
	for _, s := range st {
		if s.Name == c.Nodes[j].Name {
			return s.Status != "HEALTHY"
		}
	}
	return true
}

// probe reads a node's replica with a bound: a node that stalls is an
// error the caller's deadline handles, not a hang.
var probe = &http.Client{Timeout: 30 * time.Second}

// missingOnNode counts the rows whose object node i does not hold itself
// (GET /v1/objects with node_name reads that node's replica).
func missingOnNode(c *weaviatetest.Cluster, i int, collection string, rows []int) (int, error) {
	missing := 0
	for _, r := range rows {
		u := fmt.Sprintf("http://127.0.0.1:%d/v1/objects/%s/%s?node_name=%s", c.Nodes[i].HTTP, collection, weaviate.ObjectUUID(collection, r), c.Nodes[i].Name)
		resp, err := probe.Get(u)
		if err != nil {
			return len(rows), err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusNotFound:
			missing++
		default:
			return len(rows), fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
		}
	}
	return missing, nil
}

// HNSW is approximate: its recall@10 against the exact lists is measured
// (BenchmarkHNSWRecall reports it on a larger corpus), and must be high.
func TestHNSWRecall(t *testing.T) {
	c := cluster.Get(t)
	docs, vecs := corpus(4000, 32, 3)
	tb := table(docs)
	remote, local := backends(t, c, docs, vecs, nil, map[string]string{weaviate.ParamIndex: weaviate.IndexHNSW, weaviate.ParamEF: "64"})
	b := tb.Compile([]retrieval.Request{{Select: retrieval.Selection{}, K: 10}})
	hit, total := 0, 0
	for _, q := range queries(100, vecs.Dim()) {
		got, err := remote.SearchDense(context.Background(), q, b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := local.SearchDense(context.Background(), q, b)
		w := retrieval.DocsOf(want[0])
		for _, d := range retrieval.DocsOf(got[0]) {
			if slices.Contains(w, d) {
				hit++
			}
		}
		total += len(w)
	}
	recall := float64(hit) / float64(total)
	t.Logf("HNSW (ef 64) recall@10 against exact: %.3f", recall)
	if recall < 0.9 {
		t.Fatalf("recall@10 %.3f", recall)
	}
}

// A cluster that does not answer is an error naming every URL tried, never
// an empty result.
func TestClusterDownNamesURLs(t *testing.T) {
	urls := "http://127.0.0.1:1?grpc=2,http://127.0.0.1:3?grpc=4"
	cfg, err := index.ParseDense(weaviate.Kind, map[string]string{weaviate.ParamURL: urls, weaviate.ParamCollection: "Driftkit_gen_x"}, index.DenseEnv{})
	if err != nil {
		t.Fatal(err)
	}
	docs, vecs := corpus(10, 8, 1)
	_, err = cfg.Open(context.Background(), &index.DenseOpen{Manifest: &index.Manifest{Generation: "gen-x", Docs: 10, Dims: 8}, Table: table(docs)})
	if !errors.Is(err, weaviate.ErrUnavailable) || !strings.Contains(err.Error(), "http://127.0.0.1:1") || !strings.Contains(err.Error(), "http://127.0.0.1:3") {
		t.Fatalf("Open = %v, want ErrUnavailable naming both URLs", err)
	}
	_, err = cfg.Create(context.Background(), &index.DenseBuild{Workspace: t.TempDir(), Generation: "gen-x", Stage: t.TempDir(), Vectors: vecs, Docs: docs, Manifest: &index.Manifest{}})
	if !errors.Is(err, weaviate.ErrUnavailable) || !strings.Contains(err.Error(), "http://127.0.0.1:1") {
		t.Fatalf("Create = %v, want ErrUnavailable naming the URLs", err)
	}
}

// A cluster that goes away under an open generation fails its searches
// with an error naming the URLs tried; no search answers empty.
func TestClusterGoneFailsSearches(t *testing.T) {
	c := cluster.Get(t)
	docs, vecs := corpus(500, 16, 4)
	tb := table(docs)
	remote, _ := backends(t, c, docs, vecs, nil, nil)
	httpP, err := weaviatetest.NewProxy(fmt.Sprintf("127.0.0.1:%d", c.Nodes[0].HTTP))
	if err != nil {
		t.Fatal(err)
	}
	grpcP, err := weaviatetest.NewProxy(fmt.Sprintf("127.0.0.1:%d", c.Nodes[0].GRPC))
	if err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("http://%s?grpc=%d", httpP.Addr(), grpcP.Port())
	cfg, err := index.ParseDense(weaviate.Kind, map[string]string{weaviate.ParamURL: u, weaviate.ParamCollection: remote.(interface{ Collection() string }).Collection()}, index.DenseEnv{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfg.Open(context.Background(), &index.DenseOpen{Manifest: &index.Manifest{Generation: generationOf(t, remote), Docs: len(docs), Dims: vecs.Dim()}, Table: tb})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := tb.Compile([]retrieval.Request{{Select: retrieval.Selection{}, K: 5}})
	q := queries(1, vecs.Dim())[0]
	if res, err := s.SearchDense(context.Background(), q, b); err != nil || len(res[0]) != 5 {
		t.Fatalf("through the proxy: %v, %v", res, err)
	}
	httpP.Close()
	grpcP.Close()
	res, err := s.SearchDense(context.Background(), q, b)
	if !errors.Is(err, weaviate.ErrUnavailable) || !strings.Contains(err.Error(), "http://"+httpP.Addr()) {
		t.Fatalf("with the cluster gone: %v, %v; want ErrUnavailable naming %s", res, err, httpP.Addr())
	}
}

// generationOf is the generation a test store was built for.
func generationOf(t *testing.T, s index.DenseStore) string {
	name := s.(interface{ Collection() string }).Collection()
	return "gen-" + strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(name, "Driftkit_gen_"), "_", "-"), "")
}

func TestParseConfig(t *testing.T) {
	for _, c := range []struct {
		params map[string]string
		ok     bool
	}{
		{map[string]string{"url": "http://a:8080"}, true},
		{map[string]string{"url": "http://a:8080?grpc=50052,https://b:443?grpc=b:50051", "shards": "6", "replication": "2", "index": "hnsw", "ef": "100"}, true},
		{map[string]string{}, false},
		{map[string]string{"url": "a:8080"}, false},
		{map[string]string{"url": "http://a:8080/v1"}, false},
		{map[string]string{"url": "http://a:8080?grcp=1"}, false},
		{map[string]string{"url": "http://u:p@a:8080"}, false},
		{map[string]string{"url": "http://a:8080", "shards": "0"}, false},
		{map[string]string{"url": "http://a:8080", "index": "ivf"}, false},
		{map[string]string{"url": "http://a:8080", "api_key": "x"}, false},
	} {
		_, err := index.ParseDense(weaviate.Kind, c.params, index.DenseEnv{})
		if (err == nil) != c.ok || err != nil && !errors.Is(err, index.ErrDenseParam) {
			t.Errorf("%v: %v", c.params, err)
		}
	}
	// WEAVIATE_URL replaces the recorded addresses; the key is never a
	// parameter.
	vars := map[string]string{"WEAVIATE_URL": "http://other:9", "WEAVIATE_API_KEY": "secret"}
	env := index.DenseEnv{Getenv: func(k string) string { return vars[k] }}
	cfg, err := index.ParseDense(weaviate.Kind, map[string]string{"url": "http://a:8080"}, env)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range cfg.Params() {
		if strings.Contains(v, "secret") {
			t.Fatalf("param %s carries the key", k)
		}
	}
	if cfg.Params()["url"] != "http://a:8080" {
		t.Fatalf("recorded url %q", cfg.Params()["url"])
	}
}

// A rerun trusts the rows a killed build left in the collection only after
// verifying them: a collection whose objects were changed since (a row's
// vector replaced, an object added) is refused before the generation could
// be committed, and the error says what is wrong.
func TestRerunVerifiesRowsAlreadyThere(t *testing.T) {
	c := cluster.Get(t)
	docs, vecs := corpus(600, 16, 6)
	for _, tc := range []struct {
		name, want string
		tamper     func(collection string) *pb.BatchObject
	}{
		{"vector", "row 0: the stored vector differs", func(collection string) *pb.BatchObject {
			v := slices.Clone(vecs.Vector(0))
			for i := range v {
				v[i] = -v[i]
			}
			return object(collection, 0, docs[0], v)
		}},
		{"stray", "601 objects, the generation has 600 rows", func(collection string) *pb.BatchObject {
			return object(collection, 5000, docs[1], vecs.Vector(1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen := fmt.Sprintf("gen-rerun-%s-%d", tc.name, time.Now().UnixNano())
			cfg, err := index.ParseDense(weaviate.Kind, map[string]string{weaviate.ParamURL: c.URLs()}, index.DenseEnv{})
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			b := &index.DenseBuild{Workspace: t.TempDir(), Generation: gen, Stage: t.TempDir(), Key: "key", Vectors: vecs, Docs: docs,
				Manifest: &index.Manifest{Generation: gen, Docs: len(docs), Dims: vecs.Dim()}, Env: index.DenseEnv{Warn: func(s string) { warned = append(warned, s) }}}
			cr, err := cfg.Create(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			collection := cr.Params[weaviate.ParamCollection]
			upsert(t, c, tc.tamper(collection))
			_, err = cfg.Create(context.Background(), b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("rerun over a changed collection: %v, want an error saying %q", err, tc.want)
			}
			if len(warned) != 1 || !strings.Contains(warned[0], "already holds") {
				t.Fatalf("the rerun did not take the rows already there: %q", warned)
			}
		})
	}
}

// object is row's object in a collection, as the import writes it.
func object(collection string, row int, d index.Doc, v []float32) *pb.BatchObject {
	props, _ := structpb.NewStruct(map[string]any{"row": row, "name": d.Name, "kind": d.Kind, "library": d.Library, "module": d.Module})
	return &pb.BatchObject{Uuid: weaviate.ObjectUUID(collection, row), Collection: collection, Properties: &pb.BatchObject_Properties{NonRefProperties: props},
		Vectors: []*pb.Vectors{{Name: "raw", VectorBytes: weaviate.F32Bytes(v), Type: pb.Vectors_VECTOR_TYPE_SINGLE_FP32}}}
}

// upsert writes objects to every replica, behind driftkit's back.
func upsert(t *testing.T, c *weaviatetest.Cluster, objs ...*pb.BatchObject) {
	t.Helper()
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", c.Nodes[0].GRPC), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A shard is read-only for a moment while it applies a collection
	// update (Weaviate v1.35.2 adapters/repos/db/shard.go
	// UpdateVectorIndexConfigs marks it so until the vector index took the
	// new config): the build's last step turns on asynchronous replication,
	// so a write right after it may be refused that way and is retried.
	// A write at consistency ALL is also refused while a replica is
	// briefly unreachable ("broadcast: cannot reach enough replicas", seen
	// in a CI run on a loaded 2-core machine); the objects have fixed ids,
	// so sending them again writes them once, as the build's own import
	// (sendBatch) does. The deadline only costs time when the write never
	// succeeds; a loaded 2-core machine (load 10 in CI) stretches both
	// states to seconds.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		reply, err := pb.NewWeaviateClient(conn).BatchObjects(context.Background(),
			&pb.BatchObjectsRequest{Objects: objs, ConsistencyLevel: pb.ConsistencyLevel_CONSISTENCY_LEVEL_ALL.Enum()})
		if err == nil && len(reply.GetErrors()) == 0 {
			return
		}
		msg := fmt.Sprint(reply.GetErrors())
		transient := strings.Contains(msg, "read-only") || strings.Contains(msg, "cannot reach enough replicas")
		if err != nil || time.Now().After(deadline) || !transient {
			t.Fatalf("upsert: %v %v", err, reply.GetErrors())
		}
	}
}

// A read the build checks its import with is tried again while no node can
// answer it (a replica briefly unreachable for a read at consistency ALL),
// and only then: a missing collection or another refusal ends it at once,
// and a cluster that stays unavailable ends it after the import's attempts.
func TestSettleRetriesOnlyUnavailable(t *testing.T) {
	defer weaviate.SetSettleWait(time.Millisecond)()
	unreachable := fmt.Errorf("%w: cannot reach enough replicas", weaviate.ErrUnavailable)
	for _, tc := range []struct {
		name  string
		fail  []error // the answers before success (nil: succeeds)
		calls int
		err   error
	}{
		{"settles", []error{unreachable, unreachable}, 3, nil},
		{"stays unavailable", slices.Repeat([]error{unreachable}, 100), weaviate.PushAttempts, weaviate.ErrUnavailable},
		{"missing collection", []error{fmt.Errorf("%w: %w", weaviate.ErrNotFound, unreachable)}, 1, weaviate.ErrNotFound},
		{"other refusal", []error{errors.New("bad request")}, 1, errors.New("bad request")},
	} {
		calls := 0
		err := weaviate.Settle(context.Background(), func() error {
			calls++
			if calls <= len(tc.fail) {
				return tc.fail[calls-1]
			}
			return nil
		})
		if calls != tc.calls || (err == nil) != (tc.err == nil) || err != nil && !errors.Is(err, tc.err) && err.Error() != tc.err.Error() {
			t.Errorf("%s: %d calls, err %v; want %d calls, err %v", tc.name, calls, err, tc.calls, tc.err)
		}
	}
}
