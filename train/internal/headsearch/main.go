// Command headsearch evaluates index search (any mode, including the fused
// "best") with a workspace's trained head applied, the way index will apply
// it once it loads heads itself: document vectors projected through the
// head's document matrix, queries through its query matrix. It builds a
// scratch copy of WS/index (symlinks, plus projected vectors.npy and a
// manifest with the head's dimension) and runs index.EvalRetrieval there.
//
//	go run ./train/internal/headsearch --ws WS --bench FILE [--mode best]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/train/head"
)

func main() {
	wsDir := flag.String("ws", "", "workspace with index/ and head/")
	bench := flag.String("bench", "", "benchmark JSONL")
	mode := flag.String("mode", "best", "search mode")
	headDir := flag.String("head", "", "head folder (default WS/head)")
	rawNeighbours := flag.Bool("raw-neighbours", true, "score non-candidate documents (the neighbours that vote in mode best) with the raw embeddings, the head only for premise candidates")
	mix := flag.Float64("mix", -1, "override the head's residual mix λ (negative: the head's own)")
	denseW := flag.Float64("dense-weight", -1, "override the dense list's weight in mode best (negative: index default)")
	flag.Parse()
	progress.Quiet = true
	if err := run(*wsDir, *bench, *mode, *headDir, *rawNeighbours, *mix, *denseW); err != nil {
		fmt.Fprintln(os.Stderr, "headsearch:", err)
		os.Exit(1)
	}
}

func run(wsDir, bench, mode, headDir string, rawNeighbours bool, mix, denseW float64) error {
	ctx := context.Background()
	if headDir == "" {
		headDir = filepath.Join(wsDir, dataset.HeadDir)
	}
	h, err := head.Load(headDir)
	if err != nil {
		return err
	}
	if mix >= 0 {
		h.Config.Mix = mix
	}
	if rawNeighbours && h.Config.Mix == 0 {
		// The raw part of the query vector carries the neighbour ranking; a
		// tiny λ leaves candidate scores to the head.
		h.Config.Mix = 1e-4
	}
	ix0, err := index.Open(wsDir, nil)
	if err != nil {
		return err
	}
	enc := ix0.Encoder()
	man := ix0.Manifest
	ix0Docs := ix0.Docs
	ix0.Close()
	if err := h.Fits(head.EncoderID(man.Encoder, man.Model, man.Dims)); err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	src := filepath.Join(wsDir, dataset.IndexDir)
	tmp, err := os.MkdirTemp("", "headsearch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dst := filepath.Join(tmp, dataset.IndexDir)
	os.MkdirAll(dst, 0o755)
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == index.VectorsName || e.Name() == index.ManifestName {
			continue
		}
		abs, _ := filepath.Abs(filepath.Join(src, e.Name()))
		if err := os.Symlink(abs, filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	vecs, rows, _, err := index.ReadNPY(filepath.Join(src, index.VectorsName))
	if err != nil {
		return err
	}
	proj, err := h.ProjectDocuments(vecs, rows)
	if err != nil {
		return err
	}
	if rawNeighbours {
		// Non-candidates get [x̂, 0]: their score against a query is
		// √λ·cos(raw), so their order (all that neighbour voting uses) is the
		// raw encoder's.
		in, d := h.Config.InDim, h.Dim()
		for r, doc := range ix0Docs {
			if dataset.IsPremiseKind(doc.Kind) {
				continue
			}
			row := proj[r*d : (r+1)*d]
			clear(row)
			copy(row, head.Normalise(append([]float32(nil), vecs[r*in:(r+1)*in]...)))
		}
	}
	if err := index.WriteNPY(filepath.Join(dst, index.VectorsName), proj, rows, h.Dim()); err != nil {
		return err
	}
	man.Dims = h.Dim()
	b, _ := json.MarshalIndent(man, "", "  ")
	if err := os.WriteFile(filepath.Join(dst, index.ManifestName), b, 0o644); err != nil {
		return err
	}
	ix, err := index.Open(tmp, &index.OpenOptions{Encoder: h.QueryEncoder(enc)})
	if err != nil {
		return err
	}
	defer ix.Close()
	items, err := index.ReadBenchFile(bench)
	if err != nil {
		return err
	}
	m, err := index.ParseMode(mode)
	if err != nil {
		return err
	}
	var w *index.Weights
	if denseW >= 0 {
		dw := index.DefaultWeights
		dw.Dense = denseW
		w = &dw
	}
	rep, err := index.EvalRetrieval(ctx, ix, items, index.EvalOptions{Mode: m, BenchLabel: bench, Weights: w})
	if err != nil {
		return err
	}
	fmt.Printf("with head %s (%s → %d, mix %.4f, raw neighbours %v):\n", h.ID(), h.Config.Encoder, h.Config.OutDim, h.Config.Mix, rawNeighbours)
	rep.WriteTable(os.Stdout)
	return nil
}
