package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/bruteforce"
	"github.com/driftkit/driftkit/workspace"
)

// The registry makes a backend one package plus one registration: the
// test-only backend of internal/testkit/bruteforce (its own vector file,
// a loop over the documents), registered by this test binary's import of
// it, is chosen by `driftkit index --backend brute` on an existing
// workspace, recorded in the manifest, opened by every command through
// app.OpenIndex, and answers every reader and serve endpoint as the
// in-process backend does — the same checks a Weaviate workspace passes.
func TestThirdBackendWorkspaceLikeInProcess(t *testing.T) {
	base := t.TempDir()
	a := pipelineWS(t, base)
	b := filepath.Join(base, "brute")
	copyTree(t, a, b)
	mustRun(t, "index", "--ws", b, "--dim", "32", "--backend", bruteforce.Kind, "--quiet")
	m, err := index.ReadManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dense == nil || m.Dense.Kind != bruteforce.Kind || m.Head == nil {
		t.Fatalf("manifest: dense %+v, head %+v", m.Dense, m.Head)
	}
	if _, ok := m.Files[bruteforce.File]; !ok {
		t.Fatalf("the generation lacks %s: %v", bruteforce.File, m.Files)
	}
	if _, ok := m.Files[index.VectorsName]; ok {
		t.Fatal("a brute generation keeps vectors.npy")
	}
	calls := bruteforce.Calls()
	likeInProcess(t, base, a, b)
	if bruteforce.Calls() == calls {
		t.Fatal("the brute backend was never asked")
	}
}

// likeInProcess checks that workspace b, the same corpus and head as a but
// another dense backend, answers like a (in process) everywhere: eval
// retrieval per item in every mode, search, the DRIFT context, mine, and
// every search endpoint of serve.
func likeInProcess(t *testing.T, base, a, b string) {
	t.Helper()
	m, err := index.ReadManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	kind := m.Dense.Kind
	bench := filepath.Join("..", "..", "testdata", "bench.jsonl")
	for _, mode := range []string{"dense", "bm25", "hybrid", "best"} {
		var per [2]string
		for i, ws := range []string{a, b} {
			per[i] = filepath.Join(base, fmt.Sprintf("%s-%d.jsonl", mode, i))
			mustRun(t, "eval", "retrieval", "--ws", ws, "--bench", bench, "--mode", mode, "--per-item", per[i])
		}
		x, _ := os.ReadFile(per[0])
		y, _ := os.ReadFile(per[1])
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("eval retrieval --mode %s: per-item results differ between the in-process backend and the %s backend", mode, kind)
		}
	}
	query := "If p is a prime number dividing the product of two natural numbers, then p divides one of them."
	for _, args := range [][]string{
		{"search", "--json", "--k", "20", query},
		{"search", "--json", "--all-kinds", "--mode", "dense", query},
		{"search", "--json", "--no-head", "--mode", "dense", "--k", "30", "gcd of consecutive numbers"},
		{"drift", "--context-only", query},
	} {
		withWS := func(ws string) []string { return append([]string{args[0], "--ws", ws}, args[1:]...) }
		x := timings.ReplaceAllString(mustRun(t, withWS(a)...), "TIME ms")
		y := timings.ReplaceAllString(mustRun(t, withWS(b)...), "TIME ms")
		if x != y {
			t.Errorf("%v: the %s workspace answers\n%s\nthe in-process one\n%s", args, kind, y, x)
		}
	}
	// mine reads the raw vectors' rankings; the pairs come out the same.
	for _, ws := range []string{a, b} {
		mustRun(t, "mine", "--ws", ws, "--valid-frac", "0.3", "--negatives", "4", "--force")
	}
	pa, _ := workspace.ReadTable[workspace.Pair](filepath.Join(a, workspace.PairsFile))
	pb, _ := workspace.ReadTable[workspace.Pair](filepath.Join(b, workspace.PairsFile))
	if ja, jb := mustJSON(t, pa), mustJSON(t, pb); len(pa) == 0 || ja != jb {
		t.Errorf("mine: %d pairs from the in-process backend, %d from the %s backend, or they differ", len(pa), len(pb), kind)
	}
	serveAlike(t, a, b)
}
