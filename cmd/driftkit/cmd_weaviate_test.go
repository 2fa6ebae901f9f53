package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/index/weaviate"
	"github.com/driftkit/driftkit/internal/testkit/lockedbuf"
	"github.com/driftkit/driftkit/internal/testkit/weaviatetest"
	"github.com/driftkit/driftkit/workspace"
)

// wvCluster is the package's 3-node Weaviate cluster (TestMain stops it).
var wvCluster weaviatetest.Shared

// mustRun runs driftkit and fails the test unless it exits 0; it returns
// stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("driftkit %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// A workspace moved to Weaviate (`driftkit index --backend weaviate` on an
// existing workspace, with a trained head) answers every reader exactly as
// the in-process backend does: eval retrieval per item in every mode,
// search, the DRIFT context, mine, and every search endpoint of serve.
func TestWeaviateWorkspaceLikeInProcess(t *testing.T) {
	c := wvCluster.Get(t)
	base := t.TempDir()
	a := pipelineWS(t, base)
	b := filepath.Join(base, "wv")
	copyTree(t, a, b)
	mustRun(t, "index", "--ws", b, "--dim", "32", "--backend", "weaviate", "--weaviate", c.URLs(), "--quiet")
	m, err := index.ReadManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dense == nil || m.Dense.Kind != weaviate.Kind || m.Dense.Params[weaviate.ParamIndex] != weaviate.IndexFlat || m.Head == nil {
		t.Fatalf("manifest: dense %+v, head %+v", m.Dense, m.Head)
	}
	if _, ok := m.Files[index.VectorsName]; ok {
		t.Fatal("a Weaviate generation keeps vectors.npy")
	}
	likeInProcess(t, base, a, b)
	// The export reads every vector back from the cluster.
	out := mustRun(t, "export", "embeddings", "--ws", b)
	if !strings.Contains(out, fmt.Sprintf(`: %d rows × 32 dims`, m.Docs)) {
		t.Errorf("export embeddings: %s", out)
	}
	headAfterBuild(t, c, b)
}

// headAfterBuild: a head trained on a Weaviate workspace (from the raw
// vectors read back from the cluster) is not in its collection: searches
// say to index again (or --no-head) instead of ranking without it; the
// rebuild pushes it, and the collection of the generation before the
// replaced one is deleted.
func headAfterBuild(t *testing.T, c *weaviatetest.Cluster, ws string) {
	first := collections(t, c, ws)
	mustRun(t, "train", "head", "--ws", ws, "--out-dim", "4", "--epochs", "1", "--force")
	var errb bytes.Buffer
	if code := run([]string{"search", "--ws", ws, "prime"}, io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), "driftkit index --backend weaviate") {
		t.Fatalf("search with a head the collection lacks: exit %d\n%s", code, errb.String())
	}
	mustRun(t, "search", "--ws", ws, "--no-head", "prime")
	mustRun(t, "index", "--ws", ws, "--dim", "32", "--backend", "weaviate", "--weaviate", c.URLs(), "--quiet")
	mustRun(t, "search", "--ws", ws, "prime")
	mustRun(t, "index", "--ws", ws, "--dim", "32", "--backend", "weaviate", "--weaviate", c.URLs(), "--quiet")
	now := collections(t, c, ws)
	if len(first) != 1 || len(now) != 2 || slices.Contains(now, first[0]) {
		t.Errorf("collections of the workspace: %v before, %v after two builds (want the current one and the one it replaced)", first, now)
	}
}

// collections lists the cluster's collections of workspace ws.
func collections(t *testing.T, c *weaviatetest.Cluster, ws string) []string {
	abs, _ := filepath.Abs(ws)
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/schema", c.Nodes[0].HTTP))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s struct {
		Classes []struct{ Class, Description string }
	}
	json.NewDecoder(resp.Body).Decode(&s)
	var out []string
	for _, k := range s.Classes {
		if strings.Contains(k.Description, `:`+abs+`"`) {
			out = append(out, k.Class)
		}
	}
	slices.Sort(out)
	return out
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serveAlike serves both workspaces from one server and asks every search
// endpoint of each: the answers are the same but for the workspace's name.
func serveAlike(t *testing.T, a, b string) {
	var out, errOut lockedbuf.Buffer
	base := startServe(t, &out, &errOut, "--ws", "mm="+a, "--ws", "wv="+b)
	q := "prime divides a product"
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/search?k=15&q=" + url.QueryEscape(q), ""},
		{"GET", "/api/search?k=15&mode=dense&all_kinds=true&q=" + url.QueryEscape(q), ""},
		{"GET", "/api/search?k=10&library=driftlib&exclude=Driftlib.Nat.Prime&q=" + url.QueryEscape(q), ""},
		{"POST", "/api/search", `{"query": "` + q + `", "k": 12, "profile": "theorem"}`},
		{"POST", "/api/drift/context", `{"statement": "` + q + `"}`},
		{"POST", "/search", `{"query": ["` + q + `"], "num_results": 8}`},
		{"GET", "/api/decl/Driftlib.Nat.Prime", ""},
	} {
		var got [2]string
		for i, ws := range []string{"mm", "wv"} {
			u := base + r.path
			if strings.Contains(u, "?") {
				u += "&ws=" + ws
			} else {
				u += "?ws=" + ws
			}
			req, _ := http.NewRequest(r.method, u, strings.NewReader(r.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", r.method, u, resp.StatusCode, body)
			}
			got[i] = normalise(string(body), ws)
		}
		if got[0] != got[1] {
			t.Errorf("%s %s: the Weaviate workspace answers\n%s\nthe in-process one\n%s", r.method, r.path, got[1], got[0])
		}
	}
}

var (
	generationRE = regexp.MustCompile(`gen-\d{8}T\d{6}Z-[0-9a-f]{6}`)
	timings      = regexp.MustCompile(`[0-9.]+ ms`)
)

// normalise blanks what differs between two workspaces by design: the
// name (links of the second workspace carry ?ws=), the generation, and
// timings.
func normalise(body, ws string) string {
	body = strings.ReplaceAll(body, `"workspace":"`+ws+`"`, `"workspace":"WS"`)
	body = strings.NewReplacer("?ws="+ws+"&", "?", "?ws="+ws+`"`, `"`, "&ws="+ws, "").Replace(body)
	body = generationRE.ReplaceAllString(body, "GEN")
	return regexp.MustCompile(`"([a-z_]*(ms|seconds))":[0-9.e+-]+`).ReplaceAllString(body, `"$1":0`)
}

// A kill -9 of `driftkit index --backend weaviate` during the import
// leaves the old generation current and serving; the rerun imports only
// the rows the collection lacks, under the same generation, and switches.
func TestWeaviateIndexKilledDuringImport(t *testing.T) {
	c := wvCluster.Get(t)
	ws := syntheticWS(t, 30000)
	mustRun(t, "index", "--ws", ws, "--dim", "384", "--quiet")
	old, _ := os.ReadFile(filepath.Join(ws, workspace.IndexDir, index.CurrentName))
	args := []string{"index", "--ws", ws, "--dim", "384", "--backend", "weaviate", "--weaviate", c.URLs()}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DRIFTKIT_RUN_MAIN=1")
	var errb lockedbuf.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once the collection holds some rows but not all.
	coll, n := "", int64(0)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the import never started:\n%s", errb.String())
		}
		coll, n = importing(t, c, ws)
		if n > 0 {
			break
		}
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if n >= 30000 {
		t.Fatalf("the import finished (%d rows) before it could be killed: make the corpus larger", n)
	}
	_, n = importing(t, c, ws)
	t.Logf("killed with %d of 30000 rows in %s", n, coll)
	now, _ := os.ReadFile(filepath.Join(ws, workspace.IndexDir, index.CurrentName))
	if !bytes.Equal(old, now) {
		t.Fatalf("CURRENT moved to %s after the kill", now)
	}
	mustRun(t, "search", "--ws", ws, "--mode", "dense", "synthetic statement 7")
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, errOut.String())
	}
	if !regexp.MustCompile(`already holds \d+ of 30000 rows`).MatchString(errOut.String()) {
		t.Errorf("the rerun did not resume the collection:\n%s", errOut.String())
	}
	m, err := index.ReadManifest(ws)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dense.Params[weaviate.ParamCollection] != coll {
		t.Errorf("the rerun switched to collection %s, the killed run imported into %s", m.Dense.Params[weaviate.ParamCollection], coll)
	}
	mustRun(t, "search", "--ws", ws, "--mode", "dense", "synthetic statement 7")
}

// importing returns the collection of ws on the cluster and its object
// count ("", 0 when none).
func importing(t *testing.T, c *weaviatetest.Cluster, ws string) (string, int64) {
	cs := collections(t, c, ws)
	if len(cs) == 0 {
		return "", 0
	}
	q := fmt.Sprintf(`{"query": "{Aggregate{%s{meta{count}}}}"}`, cs[0])
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/graphql", c.Nodes[0].HTTP), "application/json", strings.NewReader(q))
	if err != nil {
		return cs[0], 0
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct{ Count int64 }
			}
		}
	}
	json.NewDecoder(resp.Body).Decode(&r)
	if a := r.Data.Aggregate[cs[0]]; len(a) > 0 {
		return cs[0], a[0].Meta.Count
	}
	return cs[0], 0
}

// syntheticWS is a workspace of n made-up declarations (enough that an
// import takes a while).
func syntheticWS(t *testing.T, n int) string {
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("group ring field prime order subgroup module ideal norm limit sum product set map")
	decls := make([]workspace.Declaration, n)
	kinds := []string{"theorem", "definition", "structure", "instance"}
	for i := range decls {
		w := func(k int) string { return words[(i/(k+1)+k*7)%len(words)] }
		decls[i] = workspace.Declaration{Library: "syn", Name: fmt.Sprintf("Syn.%s_%s_%d", w(0), w(1), i), Kind: kinds[i%len(kinds)],
			Module: fmt.Sprintf("Syn.M%d", i%50), Signature: fmt.Sprintf(": %s %s %s statement %d", w(2), w(3), w(4), i%97)}
	}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A cluster that does not answer is an error naming its URL (exit 1),
// never a fallback: the build leaves the index as it was, and a search
// of a Weaviate-backed workspace fails rather than answering from BM25
// alone.
func TestWeaviateDownIsAnError(t *testing.T) {
	c := wvCluster.Get(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	base := t.TempDir()
	ws := pipelineWS(t, base)
	old, _ := os.ReadFile(filepath.Join(ws, workspace.IndexDir, index.CurrentName))
	var errb bytes.Buffer
	if code := run([]string{"index", "--ws", ws, "--dim", "32", "--backend", "weaviate", "--weaviate", dead}, io.Discard, &errb); code != 1 || !strings.Contains(errb.String(), dead) {
		t.Fatalf("index against a dead cluster: exit %d, want 1 naming %s:\n%s", code, dead, errb.String())
	}
	now, _ := os.ReadFile(filepath.Join(ws, workspace.IndexDir, index.CurrentName))
	if !bytes.Equal(old, now) {
		t.Fatal("CURRENT moved")
	}
	mustRun(t, "index", "--ws", ws, "--dim", "32", "--backend", "weaviate", "--weaviate", c.URLs(), "--quiet")
	t.Setenv("WEAVIATE_URL", dead)
	for _, args := range [][]string{{"search", "--ws", ws, "prime"}, {"eval", "retrieval", "--ws", ws, "--bench", filepath.Join("..", "..", "testdata", "bench.jsonl")}} {
		errb.Reset()
		var out bytes.Buffer
		if code := run(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), dead) {
			t.Errorf("%v with the cluster down: exit %d, want 1 naming %s:\n%s%s", args, code, dead, out.String(), errb.String())
		}
	}
	// BM25 alone needs no vectors: it still answers.
	mustRun(t, "search", "--ws", ws, "--mode", "bm25", "prime")
}
