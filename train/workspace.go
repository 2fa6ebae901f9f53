package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// WorkspaceOptions configure TrainWorkspace.
type WorkspaceOptions struct {
	Options
	// AllKinds trains on every index document, not only premise candidates.
	AllKinds bool
	// EncodeBatch is the number of queries per Encode call (default 256).
	EncodeBatch int
	Force       bool
}

// WorkspaceResult is what TrainWorkspace did.
type WorkspaceResult struct {
	*Result
	Head                *head.Head
	Dir                 string
	Train, Valid        int
	DroppedNoPositive   int
	Docs                int
	EncodeSeconds       float64
	Encoder             string
	EncoderFallback     bool
	MissingNames        int
	PairsWithoutNegs    int
	QueriesPerSecEncode float64
}

// EncoderID names the embeddings an index holds, for the head's config and
// the check that a head fits an index: "<encoder>[:<model>]:<dims>".
func EncoderID(m *index.Manifest) string { return head.EncoderID(m.Encoder, m.Model, m.Dims) }

// TrainWorkspace trains a head on the workspace's pairs.parquet over the
// frozen embeddings of its index (documents from index/vectors.npy, queries
// through ix's encoder) and writes WS/head/ and the index manifest's record of
// it, as one commit (a workspace.Txn: head/ is replaced as a whole, and the
// index names the new head exactly when the new head is in place). ix must be
// the workspace's index, opened with dense vectors; open it after taking the
// stage's lock (ws.Lock("train head"), which this function takes again) so no
// index build replaces it meanwhile.
func TrainWorkspace(ctx context.Context, ws *workspace.Workspace, ix *index.Index, opts WorkspaceOptions) (*WorkspaceResult, error) {
	opts.fill()
	unlock, err := ws.Lock("train head")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if opts.EncodeBatch <= 0 {
		opts.EncodeBatch = 256
	}
	if err := ws.GuardOutputs(opts.Force, headRel(head.ConfigFile), headRel(head.QueryWeightsFile), headRel(head.DocumentWeightsFile), headRel(head.LogFile)); err != nil {
		return nil, err
	}
	if !ws.Has(workspace.PairsFile) {
		return nil, ws.Missing(workspace.PairsFile, "pairs")
	}
	// One generation for documents, vectors and encoder, even if the index
	// is rebuilt meanwhile.
	g, release := ix.Pin()
	defer release()
	enc := ix.Encoder()
	if enc == nil {
		return nil, fmt.Errorf("index opened without dense vectors: the head needs them")
	}
	vecs, err := g.Vectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("the head needs the index's dense vectors: %w", err)
	}
	man := g.Manifest()
	res := &WorkspaceResult{Dir: ws.Path(workspace.HeadDir), Encoder: EncoderID(&man), EncoderFallback: man.EncoderFallback}
	params := opts.params(res.Encoder)
	run := ws.StartRun("train head", params)
	if err := recordInputs(run, g.Dir(), &man); err != nil {
		return nil, err
	}

	t0 := time.Now()
	if vecs.Dim() != enc.Dim() {
		return nil, fmt.Errorf("%s: %d-dimensional vectors and a %d-dimensional encoder: %w", g.Dir(), vecs.Dim(), enc.Dim(), index.ErrStale)
	}
	d, docIdx := candidateVectors(g.Table(), vecs, opts.AllKinds)
	res.Docs = d.NumDocs
	pairs, err := workspace.ReadTable[workspace.Pair](ws.Path(workspace.PairsFile))
	if err != nil {
		return nil, err
	}
	exs, texts, splits := examples(pairs, docIdx, res)
	run.Phase("load", time.Since(t0))
	t0 = time.Now()
	if err := encodeQueries(ctx, enc, texts, exs, opts.EncodeBatch); err != nil {
		return nil, err
	}
	res.EncodeSeconds = time.Since(t0).Seconds()
	run.Phase("encode_queries", time.Since(t0))
	for i, ex := range exs {
		switch splits[i] {
		case workspace.SplitTrain:
			d.Train = append(d.Train, ex)
		case workspace.SplitValid:
			d.Valid = append(d.Valid, ex)
		}
	}
	res.Train, res.Valid = len(d.Train), len(d.Valid)

	// Train, logging as we go.
	var logBuf bytes.Buffer
	t0 = time.Now()
	r, err := Train(ctx, d, opts.Options, func(e LogEntry) {
		b, _ := json.Marshal(e)
		logBuf.Write(append(b, '\n'))
	})
	if err != nil {
		return nil, err
	}
	run.Phase("train", time.Since(t0))
	res.Result = r
	h, err := head.New(headConfig(d.InDim, opts, res, &man, params), r.Q, r.D)
	if err != nil {
		return nil, err
	}
	if err := commitHead(ws, run, h, logBuf.Bytes(), opts, res, &man); err != nil {
		return nil, err
	}
	res.Head = h
	return res, nil
}

// headRel is a file of the head's folder, relative to the workspace.
func headRel(n string) string { return filepath.ToSlash(filepath.Join(workspace.HeadDir, n)) }

// params are the run's recorded parameters (also kept in the head's config).
func (opts *WorkspaceOptions) params(encoder string) map[string]any {
	return map[string]any{"out_dim": opts.OutDim, "tied": opts.Tied, "temperature": opts.Temperature, "lr": opts.LearnRate,
		"batch_size": opts.BatchSize, "group_size": opts.GroupSize, "epochs": opts.Epochs, "patience": opts.Patience,
		"eval_every": opts.EvalEvery, "k": opts.K, "valid_max": opts.ValidMax, "seed": opts.Seed, "all_kinds": opts.AllKinds,
		"encoder": encoder}
}

// recordInputs records what the head is trained from: the pairs, the
// generation's manifest and, for the in-process backend, its vectors.
func recordInputs(run *workspace.RunRecorder, genDir string, man *index.Manifest) error {
	inputs := []string{workspace.PairsFile, filepath.Join(genDir, index.ManifestName)}
	if _, ok := man.Files[index.VectorsName]; ok { // the in-process backend's vectors
		inputs = append(inputs, filepath.Join(genDir, index.VectorsName))
	}
	for _, n := range inputs {
		if err := run.Input(n); err != nil {
			return err
		}
	}
	return nil
}

// candidateVectors copies the index's raw vectors of the candidates (every
// document with allKinds) into d.Docs; docIdx maps a name to its row there.
func candidateVectors(table *retrieval.Table, vecs *index.Store, allKinds bool) (d *Data, docIdx map[string]int32) {
	d = &Data{InDim: vecs.Dim()}
	docIdx = map[string]int32{}
	for r := range table.Len() {
		if !allKinds && !table.Premise(r) {
			continue
		}
		docIdx[table.Name(r)] = int32(d.NumDocs)
		d.Docs = append(d.Docs, vecs.Vector(r)...)
		d.NumDocs++
	}
	return d, docIdx
}

// examples turns the pairs into examples over docIdx's rows (their queries
// not yet encoded), counting in res the names the index lacks and the pairs
// dropped; texts and splits are each example's query and split.
func examples(pairs []workspace.Pair, docIdx map[string]int32, res *WorkspaceResult) (exs []Example, texts, splits []string) {
	rows := func(names []string) []int32 {
		var out []int32
		for _, n := range names {
			if i, ok := docIdx[n]; ok {
				out = append(out, i)
			} else {
				res.MissingNames++
			}
		}
		return out
	}
	for _, p := range pairs {
		ex := Example{ID: p.QueryID, Pos: rows(p.Positives), Neg: rows(p.Negatives)}
		if len(ex.Pos) == 0 {
			res.DroppedNoPositive++
			continue
		}
		if len(ex.Neg) == 0 {
			res.PairsWithoutNegs++
		}
		exs = append(exs, ex)
		texts = append(texts, p.Query)
		splits = append(splits, p.Split)
	}
	return exs, texts, splits
}

// encodeQueries sets each example's Query to texts' embedding, batch texts
// per Encode call, showing progress.
func encodeQueries(ctx context.Context, enc index.Encoder, texts []string, exs []Example, batch int) error {
	bar := progress.Start(ctx, "encode queries", int64(len(texts)))
	defer bar.Finish()
	for s := 0; s < len(texts); s += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := min(s+batch, len(texts))
		vs, err := enc.Encode(ctx, texts[s:e])
		if err != nil {
			return fmt.Errorf("encode queries: %w", err)
		}
		for i, v := range vs {
			exs[s+i].Query = v
		}
		bar.Add(e - s)
	}
	return nil
}

// headConfig is the trained head's config: its shape, the encoder it fits
// and the record of its training.
func headConfig(inDim int, opts WorkspaceOptions, res *WorkspaceResult, man *index.Manifest, params map[string]any) head.Config {
	r := res.Result
	return head.Config{InDim: inDim, OutDim: opts.OutDim, Tied: opts.Tied, Encoder: res.Encoder, EncoderFallback: man.EncoderFallback,
		Temperature: opts.Temperature, Mix: r.Mix, Training: map[string]any{
			"mix_valid_recall": r.MixTried,
			"pairs_train":      res.Train, "pairs_valid": res.Valid, "documents": res.Docs, "epochs_run": lastEpoch(r),
			"best_epoch": r.BestEpoch, "best_step": r.BestStep, "stop": r.StopReason, "k": opts.K,
			"valid_recall_raw": r.BaselineRecall, "valid_recall_initial": r.InitialRecall, "valid_recall_best": r.BestRecall,
			"valid_mrr_raw": r.BaselineMRR, "seconds": r.Seconds, "params": params, "index_corpus_sha256": man.CorpusSHA256}}
}

// commitHead writes head/ (weights, config, training log) and the index
// manifest's record of it as one commit of the run.
func commitHead(ws *workspace.Workspace, run *workspace.RunRecorder, h *head.Head, log []byte, opts WorkspaceOptions, res *WorkspaceResult, man *index.Manifest) error {
	tx := ws.Begin("train head")
	defer tx.Abort()
	dir, err := tx.TempDir(workspace.HeadDir)
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(dir, head.LogFile), log); err != nil {
		return err
	}
	if err := h.Save(dir); err != nil {
		return err
	}
	outs := []string{head.QueryWeightsFile, head.ConfigFile, head.LogFile}
	if !opts.Tied {
		outs = append(outs, head.DocumentWeightsFile)
	}
	for _, n := range outs {
		tx.Output(headRel(n), 0)
	}
	// the index part last: it names the head just written
	if _, err := index.StageHeadRecord(tx, ws, h); err != nil {
		return fmt.Errorf("recording the head in the index manifest: %w", err)
	}
	r := res.Result
	run.Count("train", int64(res.Train))
	run.Count("valid", int64(res.Valid))
	run.Count("documents", int64(res.Docs))
	run.Count("dropped_no_positive", int64(res.DroppedNoPositive))
	run.Count("steps", int64(r.Steps))
	run.Note(fmt.Sprintf("head %s: valid R@%d %.4f raw → %.4f with the head (best epoch %d, %s); residual mix %.2f: %.4f",
		h.ID(), opts.K, r.BaselineRecall, r.BestRecall, r.BestEpoch, r.StopReason, r.Mix, r.MixRecall))
	if man.EncoderFallback {
		run.Note(fmt.Sprintf("trained on the offline %s encoder (fallback), not a semantic model", man.Encoder))
	}
	return tx.Commit(run)
}

func lastEpoch(r *Result) int {
	if len(r.Log) == 0 {
		return 0
	}
	return r.Log[len(r.Log)-1].Epoch
}
