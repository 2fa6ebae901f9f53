package train

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// BenchMetrics are dense-retrieval metrics on a benchmark at one cutoff,
// macro-averaged as index.EvalRetrieval does (F1 is the mean per-query F1).
type BenchMetrics struct {
	K  int     `json:"k"`
	P  float64 `json:"precision"`
	R  float64 `json:"recall"`
	F1 float64 `json:"f1"`
}

// BenchReport compares dense retrieval on a benchmark with the raw encoder
// embeddings and through a head.
type BenchReport struct {
	Bench   string         `json:"bench"`
	Queries int            `json:"queries"`
	Raw     []BenchMetrics `json:"raw"`
	Head    []BenchMetrics `json:"head,omitempty"`
	RawMRR  float64        `json:"raw_mrr"`
	HeadMRR float64        `json:"head_mrr,omitempty"`
}

// EvalBench ranks the premise candidates of the workspace index for each
// benchmark item's informal statement by dense cosine, with the raw
// embeddings and (when h is not nil) through the head, excluding the item's
// own declaration, and scores the top k against the gold premises.
func EvalBench(ctx context.Context, ws *dataset.Workspace, ix *index.Index, h *head.Head, bench string, ks []int) (*BenchReport, error) {
	items, err := index.ReadBenchFile(bench)
	if err != nil {
		return nil, err
	}
	enc := ix.Encoder()
	if enc == nil {
		return nil, fmt.Errorf("index opened without dense vectors")
	}
	vecs, rows, dim, err := index.ReadNPY(ws.Path(dataset.IndexDir, index.VectorsName))
	if err != nil {
		return nil, err
	}
	if rows != len(ix.Docs) {
		return nil, fmt.Errorf("vectors.npy has %d rows for %d documents: %w", rows, len(ix.Docs), index.ErrStale)
	}
	var names []string
	var docs []float32
	for r, d := range ix.Docs {
		if dataset.IsPremiseKind(d.Kind) {
			names = append(names, d.Name)
			docs = append(docs, vecs[r*dim:(r+1)*dim]...)
		}
	}
	normaliseRows(docs, dim)
	var texts []string
	var golds [][]string
	var selves []string
	for _, it := range items {
		var gold []string
		for _, g := range it.Gold {
			if g != it.FullName && !slices.Contains(gold, g) {
				gold = append(gold, g)
			}
		}
		if len(gold) == 0 {
			continue
		}
		texts = append(texts, it.InformalStmt)
		golds = append(golds, gold)
		selves = append(selves, it.FullName)
	}
	qv, err := enc.Encode(ctx, texts)
	if err != nil {
		return nil, err
	}
	flat := make([]float32, 0, len(qv)*dim)
	for _, v := range qv {
		flat = append(flat, v...)
	}
	normaliseRows(flat, dim)
	rep := &BenchReport{Bench: bench, Queries: len(texts)}
	maxK := slices.Max(ks)
	score := func(qs, ds []float32, d int) ([]BenchMetrics, float64) {
		out := make([]BenchMetrics, len(ks))
		for i, k := range ks {
			out[i].K = k
		}
		var mrr float64
		n := len(names)
		row := make([]float32, n)
		for q := range texts {
			blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: n, Cols: d, Stride: d, Data: ds},
				blas32.Vector{N: d, Inc: 1, Data: qs[q*d : (q+1)*d]}, 0, blas32.Vector{N: n, Inc: 1, Data: row})
			top := topK(row, maxK+1)
			var ranked []string
			for _, t := range top {
				if names[t] != selves[q] {
					ranked = append(ranked, names[t])
				}
			}
			for i, r := range ranked {
				if slices.Contains(golds[q], r) {
					mrr += 1 / float64(i+1)
					break
				}
			}
			for i, k := range ks {
				hit := 0
				for _, r := range ranked[:min(k, len(ranked))] {
					if slices.Contains(golds[q], r) {
						hit++
					}
				}
				p, r := float64(hit)/float64(k), float64(hit)/float64(len(golds[q]))
				out[i].P += p
				out[i].R += r
				if hit > 0 {
					out[i].F1 += 2 * p * r / (p + r)
				}
			}
		}
		nq := float64(max(len(texts), 1))
		for i := range out {
			out[i].P /= nq
			out[i].R /= nq
			out[i].F1 /= nq
		}
		return out, mrr / nq
	}
	rep.Raw, rep.RawMRR = score(flat, docs, dim)
	if h != nil {
		if h.Config.InDim != dim {
			return nil, fmt.Errorf("%w: head takes %d dimensions, index has %d", head.ErrMismatch, h.Config.InDim, dim)
		}
		hd, err := h.ProjectDocuments(docs, len(names))
		if err != nil {
			return nil, err
		}
		hq, err := h.ProjectQueries(flat, len(texts))
		if err != nil {
			return nil, err
		}
		rep.Head, rep.HeadMRR = score(hq, hd, h.Dim())
	}
	return rep, nil
}

// WriteTable prints the report (percentages).
func (r *BenchReport) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "bench %s: %d queries, dense retrieval over premise candidates\n", r.Bench, r.Queries)
	fmt.Fprintf(w, "%6s  %8s %8s %8s", "k", "P(raw)", "R(raw)", "F1(raw)")
	if r.Head != nil {
		fmt.Fprintf(w, "  %8s %8s %8s", "P(head)", "R(head)", "F1(head)")
	}
	fmt.Fprintln(w)
	for i, m := range r.Raw {
		fmt.Fprintf(w, "%6d  %8.2f %8.2f %8.2f", m.K, 100*m.P, 100*m.R, 100*m.F1)
		if r.Head != nil {
			h := r.Head[i]
			fmt.Fprintf(w, "  %8.2f %8.2f %8.2f", 100*h.P, 100*h.R, 100*h.F1)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "MRR raw %.4f", r.RawMRR)
	if r.Head != nil {
		fmt.Fprintf(w, ", head %.4f", r.HeadMRR)
	}
	fmt.Fprintln(w)
}
