package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/dataset/mine/minetest"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/train/head"
)

func TestTrainWorkspace(t *testing.T) {
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
		t.Fatal(err)
	}
	ws, _ := dataset.Open(dir)
	ctx := context.Background()
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := TrainWorkspace(ctx, ws, ix, WorkspaceOptions{}); err == nil || !strings.Contains(err.Error(), "driftkit mine") {
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
	h, err := head.Load(ws.Path(dataset.HeadDir))
	if err != nil {
		t.Fatal(err)
	}
	if h.Config.InDim != 64 || h.Config.OutDim != 16 || h.Config.Encoder != "hash:64" || !h.Config.EncoderFallback || h.ID() != res.Head.ID() {
		t.Fatalf("saved config %+v", h.Config)
	}
	log, err := os.ReadFile(filepath.Join(ws.Path(dataset.HeadDir), head.LogFile))
	if err != nil || strings.Count(string(log), "\n") != len(res.Log) {
		t.Fatalf("log.jsonl: %d lines for %d entries (%v)", strings.Count(string(log), "\n"), len(res.Log), err)
	}
	m, _ := ws.ReadManifest()
	if r := m.LastRun("train head"); r == nil || len(r.Outputs) != 4 {
		t.Fatalf("manifest entry %+v", r)
	}
	// The head is protected against silent replacement once edited.
	os.WriteFile(filepath.Join(ws.Path(dataset.HeadDir), head.LogFile), []byte("x\n"), 0o644)
	if _, err := TrainWorkspace(ctx, ws, ix, WorkspaceOptions{Options: Options{OutDim: 16, BatchSize: 8, Epochs: 1}}); !errors.Is(err, dataset.ErrForeignOutput) {
		t.Fatalf("edited head: err = %v", err)
	}
}
