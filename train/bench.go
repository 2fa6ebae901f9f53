package train

import (
	"context"
	"fmt"
	"io"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

// BenchMetrics are dense-retrieval metrics on a benchmark at one cutoff,
// macro-averaged as eval.Retrieval does (F1 is the mean per-query F1).
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

// EvalBench scores dense retrieval of the premise candidates of the
// workspace index on a benchmark (leave-one-out: each item's own declaration
// excluded), with the raw embeddings and, when h is not nil, through the
// head — both by eval.Retrieval, the code that scores every searcher. ix
// must be opened without the workspace's head (index.OpenOptions.NoHead).
func EvalBench(ctx context.Context, ws *workspace.Workspace, ix *index.Index, h *head.Head, bench string, ks []int) (*BenchReport, error) {
	items, err := eval.ReadBenchFile(bench)
	if err != nil {
		return nil, err
	}
	if ix.Encoder() == nil {
		return nil, fmt.Errorf("index opened without dense vectors")
	}
	if ix.Head() != nil {
		return nil, fmt.Errorf("EvalBench needs the index opened without its head (raw embeddings)")
	}
	o := eval.Options{Ks: ks, Mode: retrieval.ModeDense, Progress: func(int) {}}
	metrics := func(r *eval.Report) []BenchMetrics {
		out := make([]BenchMetrics, len(r.AtK))
		for i, m := range r.AtK {
			out[i] = BenchMetrics{K: m.K, P: m.P, R: m.R, F1: m.F1}
		}
		return out
	}
	raw, err := eval.Retrieval(ctx, ix, ix, items, o)
	if err != nil {
		return nil, err
	}
	rep := &BenchReport{Bench: bench, Queries: raw.Queries, Raw: metrics(raw), RawMRR: raw.MRR}
	if h != nil {
		s, release, err := ix.WithHead(ctx, h)
		if err != nil {
			return nil, err
		}
		defer release()
		hr, err := eval.Retrieval(ctx, s, ix, items, o)
		if err != nil {
			return nil, err
		}
		rep.Head, rep.HeadMRR = metrics(hr), hr.MRR
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
