package train

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

func TestTrainWorkspace(t *testing.T) {
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.Open(dir)
	ctx := context.Background()
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var missing *workspace.MissingError
	if _, err := TrainWorkspace(ctx, ws, ix, WorkspaceOptions{}); !errors.As(err, &missing) || missing.Path != ws.Path(workspace.PairsFile) {
		t.Fatalf("no pairs: err = %v", err)
	}
	if _, err := mine.Mine(ctx, ws, mine.Options{Ranker: mine.IndexRanker{Searcher: ix}, ValidFrac: 0.3, RangeHi: 30}); err != nil {
		t.Fatal(err)
	}
	res, err := TrainWorkspace(ctx, ws, ix, WorkspaceOptions{Options: Options{OutDim: 16, BatchSize: 8, Epochs: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Train == 0 || res.Valid == 0 || res.Docs != 61 || res.Encoder != "hash:64" || !res.EncoderFallback {
		t.Fatalf("result %+v", res)
	}
	h, err := head.Load(ws.Path(workspace.HeadDir))
	if err != nil {
		t.Fatal(err)
	}
	if h.Config.InDim != 64 || h.Config.OutDim != 16 || h.Config.Encoder != "hash:64" || !h.Config.EncoderFallback || h.ID() != res.Head.ID() {
		t.Fatalf("saved config %+v", h.Config)
	}
	log, err := os.ReadFile(filepath.Join(ws.Path(workspace.HeadDir), head.LogFile))
	if err != nil || strings.Count(string(log), "\n") != len(res.Log) {
		t.Fatalf("log.jsonl: %d lines for %d entries (%v)", strings.Count(string(log), "\n"), len(res.Log), err)
	}
	m, _ := ws.ReadManifest()
	// the head's four files and the index manifest that names it, in one entry
	if r := m.LastRun("train head"); r == nil || len(r.Outputs) != 5 || !strings.HasPrefix(r.Outputs[4].Path, "index/gen-") || !strings.HasSuffix(r.Outputs[4].Path, "/manifest.json") || r.Commit == "" {
		t.Fatalf("manifest entry %+v", r)
	}
	if im, err := index.ReadManifest(ws.Dir); err != nil || im.Head == nil || im.Head.ID != res.Head.ID() {
		t.Fatalf("index manifest does not name the new head: %+v, %v", im, err)
	}
	// The head is protected against silent replacement once edited.
	os.WriteFile(filepath.Join(ws.Path(workspace.HeadDir), head.LogFile), []byte("x\n"), 0o644)
	if _, err := TrainWorkspace(ctx, ws, ix, WorkspaceOptions{Options: Options{OutDim: 16, BatchSize: 8, Epochs: 1}}); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("edited head: err = %v", err)
	}
}

func TestEvalBench(t *testing.T) {
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 1, false); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.Open(dir)
	ctx := context.Background()
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	bench := filepath.Join(t.TempDir(), "bench.jsonl")
	os.WriteFile(bench, []byte(`{"informal_stmt": "The order of an element divides the cardinality of the group.", "mathlib_dependencies": ["Group", "orderOf"], "full_name": "orderOf_dvd_card"}
{"informal_stmt": "no gold here", "mathlib_dependencies": [], "full_name": "x"}
{"informal_stmt": "A maximal ideal is prime.", "mathlib_dependencies": ["Ideal.IsMaximal", "Ideal.IsPrime", "Ideal"], "full_name": "y"}
`), 0o644)
	// An identity head must reproduce the raw ranking exactly.
	id := make([]float32, 32*32)
	for i := 0; i < 32; i++ {
		id[i*32+i] = 1
	}
	h, _ := head.New(head.Config{InDim: 32, OutDim: 32, Tied: true}, id, nil)
	rep, err := EvalBench(ctx, ws, ix, h, bench, []int{1, 5, 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 2 || len(rep.Raw) != 3 || len(rep.Head) != 3 {
		t.Fatalf("report %+v", rep)
	}
	for i := range rep.Raw {
		if math.Abs(rep.Raw[i].F1-rep.Head[i].F1) > 1e-9 || math.Abs(rep.RawMRR-rep.HeadMRR) > 1e-9 {
			t.Fatalf("identity head changed metrics: %+v vs %+v", rep.Raw[i], rep.Head[i])
		}
	}
	// With 20 of 25 candidates returned, recall must be high; P@20 ≤ gold/20.
	if rep.Raw[2].R < 0.5 || rep.Raw[2].P > 3.0/20+1e-9 {
		t.Fatalf("metrics at 20: %+v", rep.Raw[2])
	}
	var b strings.Builder
	rep.WriteTable(&b)
	if !strings.Contains(b.String(), "F1(head)") {
		t.Fatalf("table:\n%s", b.String())
	}
}
