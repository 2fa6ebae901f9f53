package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

func fixture(t *testing.T, pairs bool) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 3, pairs); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

func TestFlagEmbedding(t *testing.T) {
	ws := fixture(t, true)
	st, err := FlagEmbedding(context.Background(), ws, FlagOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pairs, _ := workspace.ReadTable[workspace.Pair](ws.Path(workspace.PairsFile))
	var wantTrain, wantValid int
	for _, p := range pairs {
		if p.Split == workspace.SplitTrain {
			wantTrain++
		} else {
			wantValid++
		}
	}
	if st.Train != wantTrain || st.Valid != wantValid || st.Skipped != 0 {
		t.Fatalf("stats %+v, want %d train %d valid", st, wantTrain, wantValid)
	}
	docs, _ := workspace.LoadDocuments(ws)
	text := map[string]string{}
	premiseTexts := map[string]bool{}
	for _, d := range docs {
		text[d.Name] = d.Text
		if workspace.IsPremiseKind(d.Kind) {
			premiseTexts[d.Text] = true
		}
	}
	dir := ws.Path(workspace.ExportDir, FlagDir)
	train := readJSONL[map[string]any](t, filepath.Join(dir, FlagTrainFile))
	if len(train) != wantTrain {
		t.Fatalf("train.jsonl has %d lines, want %d", len(train), wantTrain)
	}
	byID := map[string]workspace.Pair{}
	for _, p := range pairs {
		byID[p.QueryID] = p
	}
	for _, ex := range train {
		for _, k := range []string{"query", "pos", "neg", "prompt", "type"} {
			if _, ok := ex[k]; !ok {
				t.Fatalf("line lacks %q: %v", k, ex)
			}
		}
		if _, ok := ex["pos_scores"]; ok {
			t.Fatalf("pos_scores written without scores: %v", ex)
		}
		p := byID[ex["query_id"].(string)]
		pos := ex["pos"].([]any)
		neg := ex["neg"].([]any)
		if len(neg) == 0 {
			t.Fatalf("%s: empty neg", p.QueryID)
		}
		if ex["query"] != p.Query {
			t.Fatalf("%s: query %q", p.QueryID, ex["query"])
		}
		// Passages are the index's rendering of the named declarations.
		for i, n := range p.Positives {
			if pos[i] != text[n] {
				t.Fatalf("%s: pos[%d] = %q, index renders %q", p.QueryID, i, pos[i], text[n])
			}
		}
		for _, x := range slices.Concat(pos, neg) {
			if !premiseTexts[x.(string)] {
				t.Fatalf("%s: passage not in corpus.jsonl: %q", p.QueryID, x)
			}
		}
		for _, x := range neg {
			if slices.Contains(pos, x) {
				t.Fatalf("%s: a positive is also a negative", p.QueryID)
			}
		}
		// Each negative keeps the label mine gave it.
		srcs, _ := ex["neg_sources"].([]any)
		if len(srcs) != len(neg) {
			t.Fatalf("%s: %d neg_sources for %d negatives", p.QueryID, len(srcs), len(neg))
		}
		for i, n := range p.Negatives {
			if i < len(neg) && neg[i] == text[n] && srcs[i] != p.NegativeSources[i] {
				t.Errorf("%s: neg[%d] labelled %v, pairs.parquet says %q", p.QueryID, i, srcs[i], p.NegativeSources[i])
			}
		}
	}
	corpus := readJSONL[CorpusLine](t, filepath.Join(dir, FlagCorpusFile))
	if len(corpus) != len(premiseTexts) || st.Corpus != len(corpus) {
		t.Fatalf("corpus has %d lines, %d premise documents", len(corpus), len(premiseTexts))
	}
	fi, err := os.Stat(filepath.Join(dir, FlagScriptFile))
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("finetune.sh not executable: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, FlagTestFile)); !os.IsNotExist(err) {
		t.Errorf("test.jsonl written without test pairs")
	}
	// A second run replaces the export (the manifest knows it).
	if _, err := FlagEmbedding(context.Background(), ws, FlagOptions{}); err != nil {
		t.Fatalf("second run: %v", err)
	}
	// A hand-edited output is refused without Force.
	os.WriteFile(filepath.Join(dir, FlagTrainFile), []byte("{}\n"), 0o644)
	if _, err := FlagEmbedding(context.Background(), ws, FlagOptions{}); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("edited output: err = %v", err)
	}
	if _, err := FlagEmbedding(context.Background(), ws, FlagOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
}

func TestFlagEmbeddingFillsNegatives(t *testing.T) {
	ws := fixture(t, true)
	pairs, _ := workspace.ReadTable[workspace.Pair](ws.Path(workspace.PairsFile))
	for i := range pairs {
		first := pairs[i].Negatives[0]
		pairs[i].Negatives, pairs[i].NegativeSources = nil, nil
		if i == 1 {
			// a row of an older driftkit: a negative without a label
			pairs[i].Negatives = []string{first}
		}
		if i == 0 {
			pairs[i].Positives = []string{"No.Such.Declaration"}
		}
		if i == 1 {
			pairs[i].Split = workspace.SplitTest
		}
	}
	workspace.WriteTable(ws.Path(workspace.PairsFile), pairs)
	st, err := FlagEmbedding(context.Background(), ws, FlagOptions{MinNegatives: 5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 || st.Test != 1 || st.Filled != len(pairs)-1 || st.MissingDocs != 1 {
		t.Fatalf("stats %+v", st)
	}
	train := readJSONL[FlagExample](t, filepath.Join(ws.Path(workspace.ExportDir, FlagDir), FlagTrainFile))
	test := readJSONL[FlagExample](t, filepath.Join(ws.Path(workspace.ExportDir, FlagDir), FlagTestFile))
	valid := readJSONL[FlagExample](t, filepath.Join(ws.Path(workspace.ExportDir, FlagDir), FlagValidFile))
	random := 0
	for _, ex := range slices.Concat(train, test, valid) {
		want := slices.Repeat([]string{dataset.NegativeRandom}, 5)
		if ex.QueryID == pairs[1].QueryID {
			want[0] = "unknown"
		}
		if !slices.Equal(ex.NegSources, want) {
			t.Errorf("%s: neg_sources %q, want %q", ex.QueryID, ex.NegSources, want)
		}
		random += len(ex.Neg) - slices.Index(want, dataset.NegativeRandom)
	}
	if st.RandomNegatives != random {
		t.Errorf("%d random negatives counted, %d written", st.RandomNegatives, random)
	}
	for _, ex := range train {
		if len(ex.Neg) != 5 {
			t.Fatalf("%s: %d negatives after filling, want 5", ex.QueryID, len(ex.Neg))
		}
		for _, n := range ex.Neg {
			if slices.Contains(ex.Pos, n) {
				t.Fatalf("%s: filled a positive as negative", ex.QueryID)
			}
		}
	}
	// Deterministic: the same seed gives the same file.
	a, _ := os.ReadFile(filepath.Join(ws.Path(workspace.ExportDir, FlagDir), FlagTrainFile))
	if _, err := FlagEmbedding(context.Background(), ws, FlagOptions{MinNegatives: 5, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(ws.Path(workspace.ExportDir, FlagDir), FlagTrainFile))
	if string(a) != string(b) {
		t.Fatal("same seed, different train.jsonl")
	}
}

func TestFlagEmbeddingNoPairs(t *testing.T) {
	ws := fixture(t, false)
	var missing *workspace.MissingError
	if _, err := FlagEmbedding(context.Background(), ws, FlagOptions{}); !errors.As(err, &missing) || missing.Path != ws.Path(workspace.PairsFile) {
		t.Fatalf("err = %v", err)
	}
	if ws.Has(workspace.ExportDir, FlagDir, FlagTrainFile) {
		t.Fatal("partial export left behind")
	}
}

var versionRE = regexp.MustCompile(`driftkit version \| [^|]+\|`)

func TestHuggingFace(t *testing.T) {
	ws := fixture(t, true)
	if _, err := HuggingFace(context.Background(), ws, HFOptions{}); !errors.Is(err, ErrLicense) {
		t.Fatalf("no licence: err = %v", err)
	}
	st, err := HuggingFace(context.Background(), ws, HFOptions{License: "Apache-2.0", ShardRows: 40})
	if err != nil {
		t.Fatal(err)
	}
	dir := ws.Path(workspace.ExportDir, HFDir)
	card, err := os.ReadFile(filepath.Join(dir, HFCardFile))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "hf_card.golden", versionRE.ReplaceAllString(string(card), "driftkit version | VERSION |"))
	decls, _ := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	shards, _ := filepath.Glob(filepath.Join(dir, HFDataDir, "declarations", "train-*.parquet"))
	want := (len(decls) + 39) / 40
	if len(shards) != want || st.Shards["declarations"] != want {
		t.Fatalf("%d declaration shards (%v), want %d", len(shards), st.Shards, want)
	}
	var total int
	for _, s := range shards {
		rows, err := workspace.ReadTable[workspace.Declaration](s)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 40 {
			t.Fatalf("%s: %d rows", s, len(rows))
		}
		total += len(rows)
	}
	if total != len(decls) {
		t.Fatalf("shards hold %d rows, table %d", total, len(decls))
	}
	for _, n := range []string{"pairs/train-00000-of-00002.parquet", "pairs/validation-00000-of-00001.parquet", "informal/train-00000-of-00003.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, HFDataDir, n)); err != nil {
			t.Errorf("missing shard %s", n)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(ws.Path(workspace.ExportDir), ".hf*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary folders left: %v", leftovers)
	}
	// Re-export with other sharding replaces the folder, leaving no stale shards.
	if _, err := HuggingFace(context.Background(), ws, HFOptions{License: "mit"}); err != nil {
		t.Fatal(err)
	}
	shards, _ = filepath.Glob(filepath.Join(dir, HFDataDir, "declarations", "*.parquet"))
	if len(shards) != 1 {
		t.Fatalf("stale shards after re-export: %v", shards)
	}
}
