// Command rerank trains theorem search's second-stage model
// (retrieval/data/rerank-theorem.json): a logistic regression over
// retrieval.RerankFeatures of the fused top hits, labelled by whether a hit
// is a gold name. Its queries are the library's own (devbench's mined items,
// JSON lines with query, gold and half); only items of the tune half are
// read, so the held-out module groups never reach the model. It reports the
// training and, with -valid, a validation set's MRR@10 before and after.
//
//	go run ./internal/tools/rerank -ws /work/ws/mathlib-v4.29.0 \
//	  -train /tmp/rerank-train.jsonl -valid testdata/search/dev-mathlib-v4.29.0.jsonl \
//	  -out retrieval/data/rerank-theorem.json
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

type item struct {
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Half  string   `json:"half"`
}

// example is one query's candidates: features and labels.
type example struct {
	x [][]float64
	y []float64
}

func main() {
	ws := flag.String("ws", "", "workspace with an index")
	train := flag.String("train", "", "training items (JSON lines: query, gold, half)")
	valid := flag.String("valid", "", "validation items (the tune half is read)")
	out := flag.String("out", "", "model JSON to write")
	depth := flag.Int("depth", 30, "fused hits rescored")
	l2 := flag.Float64("l2", 1e-3, "L2 penalty per example")
	flag.Parse()
	if *ws == "" || *train == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: rerank -ws WS -train FILE [-valid FILE] -out FILE")
		os.Exit(2)
	}
	if err := run(*ws, *train, *valid, *out, *depth, *l2); err != nil {
		fmt.Fprintln(os.Stderr, "rerank:", err)
		os.Exit(1)
	}
}

func run(ws, train, valid, out string, depth int, l2 float64) error {
	ctx := context.Background()
	ix, closeIx, err := app.OpenIndexAt(ctx, ws, index.OpenOptions{}, "")
	if err != nil {
		return err
	}
	defer closeIx()
	w := retrieval.TheoremWeights()
	w.Rerank = false
	g, release := ix.Pin()
	defer release()
	t := g.Table()
	tr, err := examples(ctx, ix, t, train, w, depth)
	if err != nil {
		return err
	}
	var va []example
	if valid != "" {
		if va, err = examples(ctx, ix, t, valid, w, depth); err != nil {
			return err
		}
	}
	nf := len(retrieval.RerankFeatureNames())
	theta := make([]float64, nf+1)
	theta[4] = 1 // start from the fused order
	final := adam(theta, func(g, th []float64) float64 { return loss(th, tr, l2, g) }, 3000)
	fmt.Printf("loss %.5f\n", final)
	m := retrieval.RerankModel{Features: retrieval.RerankFeatureNames(), Weights: theta[:nf], Bias: theta[nf], Depth: depth,
		About: fmt.Sprintf("logistic regression (full-batch Adam, 3000 steps, L2 %g) on %d queries of %s (tune half), fused top %d of the theorem profile", l2, len(tr), filepath.Base(train), depth)}
	for i := range m.Weights {
		m.Weights[i] = math.Round(m.Weights[i]*1e4) / 1e4
	}
	m.Bias = math.Round(m.Bias*1e4) / 1e4
	fmt.Printf("train: %d queries, MRR@10 fused %.3f → reranked %.3f\n", len(tr), mrr(tr, nil), mrr(tr, &m))
	if va != nil {
		fmt.Printf("valid: %d queries, MRR@10 fused %.3f → reranked %.3f\n", len(va), mrr(va, nil), mrr(va, &m))
	}
	for i, n := range m.Features {
		fmt.Printf("  %-16s %+.3f\n", n, m.Weights[i])
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// adam minimises f (which writes its gradient into g) from theta, in place,
// and returns the last value.
func adam(theta []float64, f func(g, theta []float64) float64, steps int) float64 {
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	g := make([]float64, len(theta))
	m1 := make([]float64, len(theta))
	m2 := make([]float64, len(theta))
	v := 0.0
	for t := 1; t <= steps; t++ {
		v = f(g, theta)
		for i := range theta {
			m1[i] = b1*m1[i] + (1-b1)*g[i]
			m2[i] = b2*m2[i] + (1-b2)*g[i]*g[i]
			mh := m1[i] / (1 - math.Pow(b1, float64(t)))
			vh := m2[i] / (1 - math.Pow(b2, float64(t)))
			theta[i] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return v
}

// examples runs each tune-half item's query and keeps its candidates.
func examples(ctx context.Context, s retrieval.Searcher, t *retrieval.Table, path string, w retrieval.Weights, depth int) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []example
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, err
		}
		if it.Half != "tune" || strings.TrimSpace(it.Query) == "" {
			continue
		}
		q := retrieval.Query{Text: it.Query, K: depth, Mode: retrieval.ModeBest, Profile: retrieval.ProfileTheorem,
			Filter: retrieval.Filter{AllKinds: true}, Weights: &w}
		hits, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		norm, extra := t.QueryView(it.Query, &w, nil)
		gold := map[string]bool{}
		for _, g := range it.Gold {
			gold[g] = true
		}
		ex := example{x: retrieval.RerankFeatures(norm, extra, hits)}
		for _, h := range hits {
			y := 0.0
			if gold[h.Name] {
				y = 1
			}
			ex.y = append(ex.y, y)
		}
		out = append(out, ex)
	}
	return out, sc.Err()
}

// loss is the mean logistic loss over queries (each query's candidates
// weigh 1 in all) plus L2 on the weights; g, when not nil, gets the
// gradient. Queries without a gold candidate teach nothing and are skipped.
func loss(theta []float64, exs []example, l2 float64, g []float64) float64 {
	nf := len(theta) - 1
	for i := range g {
		g[i] = 0
	}
	total, nq := 0.0, 0
	for _, ex := range exs {
		pos := 0.0
		for _, y := range ex.y {
			pos += y
		}
		if pos == 0 {
			continue
		}
		nq++
		wq := 1 / float64(len(ex.y))
		for i, x := range ex.x {
			z := theta[nf]
			for j := range nf {
				z += theta[j] * x[j]
			}
			p := 1 / (1 + math.Exp(-z))
			y := ex.y[i]
			total += -wq * (y*math.Log(p+1e-12) + (1-y)*math.Log(1-p+1e-12))
			if g != nil {
				d := wq * (p - y)
				for j := range nf {
					g[j] += d * x[j]
				}
				g[nf] += d
			}
		}
	}
	n := float64(max(nq, 1))
	total /= n
	for j := range nf {
		total += l2 * theta[j] * theta[j]
	}
	if g != nil {
		for j := range g {
			g[j] /= n
		}
		for j := range nf {
			g[j] += 2 * l2 * theta[j]
		}
	}
	return total
}

// mrr is the MRR@10 of the examples in fused order (m nil) or reranked.
func mrr(exs []example, m *retrieval.RerankModel) float64 {
	total := 0.0
	for _, ex := range exs {
		order := make([]int, len(ex.y))
		for i := range order {
			order[i] = i
		}
		if m != nil {
			sc := make([]float64, len(ex.y))
			for i, x := range ex.x {
				sc[i] = m.Score(x)
			}
			// stable insertion sort by score, best first
			for i := 1; i < len(order); i++ {
				for j := i; j > 0 && sc[order[j]] > sc[order[j-1]]; j-- {
					order[j], order[j-1] = order[j-1], order[j]
				}
			}
		}
		for r, i := range order[:min(10, len(order))] {
			if ex.y[i] > 0 {
				total += 1 / float64(r+1)
				break
			}
		}
	}
	return total / float64(max(len(exs), 1))
}
