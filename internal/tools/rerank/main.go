// Command rerank trains theorem search's second-stage model
// (retrieval/data/rerank-theorem.json): a linear scorer over
// retrieval.RerankFeatures of the fused top hits, labelled by whether a hit
// is a gold name, fitted by a listwise softmax loss (each query's gold
// candidates against its other candidates: the loss of a ranking, which is
// what the model does) or, with -loss logistic, by labelling each candidate
// on its own. Its queries are the library's own (devbench's mined items,
// JSON lines with id, query, gold and half); only items of the tune half are
// read, so the held-out module groups never reach the model, and -exclude
// skips the benchmark's own items. It reports the training and, with
// -valid, a validation set's MRR@10 and nDCG@10 before and after, by style.
//
//	go run ./internal/tools/devbench -src …/mathlib-v4.29.0/Mathlib -ws WS \
//	  -per-style 1000000 -out /tmp/mined.jsonl
//	go run ./internal/tools/typednames -ws WS -half tune -seed 11 -n 400 > /tmp/typed.jsonl
//	go run ./internal/tools/rerank -ws WS -train /tmp/mined.jsonl,/tmp/typed.jsonl \
//	  -exclude testdata/search/dev-mathlib-v4.29.0.jsonl \
//	  -valid testdata/search/dev-mathlib-v4.29.0.jsonl \
//	  -drop kind_theorem,kind_definition,kind_structure,kind_class,kind_instance \
//	  -out retrieval/data/rerank-theorem.json
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

type item struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Half  string   `json:"half"`
	Style string   `json:"style"`
}

// example is one query's candidates: features and labels, and how many
// gold names it has (nDCG's ideal).
type example struct {
	x     [][]float64
	y     []float64
	ngold int
	style string
}

func main() {
	ws := flag.String("ws", "", "workspace with an index")
	train := flag.String("train", "", "training items, comma-separated files (JSON lines: id, query, gold, half)")
	valid := flag.String("valid", "", "validation items (the tune half is read)")
	test := flag.String("test", "", "comma-separated test sets FILE[:HALF] (HALF tune, held-out, or all; default held-out), reported only")
	baseline := flag.String("baseline", "", "a model JSON to report beside the new one (features a prefix of today's: the rest weigh 0)")
	drop := flag.String("drop", "", "comma-separated features held at weight 0; several variants separated by ';' are each trained and reported (the i-th, i > 0, written to OUT.i.json)")
	model := flag.String("model", "", "evaluate these models (comma-separated JSON files) on -valid and -test instead of training one (no -train, no -out)")
	out := flag.String("out", "", "model JSON to write")
	depth := flag.Int("depth", 30, "fused hits rescored")
	l2 := flag.Float64("l2", 1e-3, "L2 penalty per example")
	exclude := flag.String("exclude", "", "a benchmark (JSON lines with id and query) whose items are never trained on: a training item with one of its ids or queries (case folded) is skipped")
	lossName := flag.String("loss", "softmax", "training loss: logistic (each candidate labelled on its own) or softmax (listwise: each query's gold candidates against its others)")
	flag.Parse()
	if *ws == "" || (*model == "") == (*train == "" || *out == "") {
		fmt.Fprintln(os.Stderr, "usage: rerank -ws WS -train FILE [-valid FILE] [-test FILE[:HALF],…] [-baseline MODEL] [-drop F,…] -out FILE | rerank -ws WS -model MODEL -test …")
		os.Exit(2)
	}
	o := options{ws: *ws, train: *train, valid: *valid, test: *test, baseline: *baseline, drop: *drop, model: *model, out: *out, depth: *depth, l2: *l2, loss: *lossName, exclude: *exclude}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "rerank:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	ws, train, valid, test, baseline, drop, model, out, loss, exclude string
	depth                                                             int
	l2                                                                float64
}

func run(o options) error {
	ctx := context.Background()
	ix, closeIx, err := app.OpenIndexAt(ctx, o.ws, index.OpenOptions{}, "")
	if err != nil {
		return err
	}
	defer closeIx()
	w := retrieval.TheoremWeights()
	w.Rerank = false
	g, release := ix.Pin()
	defer release()
	t := g.Table()
	sets, err := testSets(ctx, ix, t, o, w)
	if err != nil {
		return err
	}
	var base *retrieval.RerankModel
	if o.baseline != "" {
		if base, err = loadBaseline(o.baseline); err != nil {
			return err
		}
	}
	if o.model != "" {
		for _, path := range strings.Split(o.model, ",") {
			m, err := loadBaseline(path)
			if err != nil {
				return err
			}
			fmt.Printf("-- model %s\n", path)
			report(sets, m, base)
		}
		return nil
	}
	skip, err := benchItems(o.exclude)
	if err != nil {
		return err
	}
	var tr []example
	for _, path := range strings.Split(o.train, ",") {
		exs, err := examples(ctx, ix, t, path, "tune", w, o.depth, skip)
		if err != nil {
			return err
		}
		tr = append(tr, exs...)
	}
	sets = append([]labelled{{"train", tr}}, sets...)
	for i, drop := range strings.Split(o.drop, ";") {
		m, err := fit(tr, drop, o)
		if err != nil {
			return err
		}
		fmt.Printf("-- features held at 0: %q\n", drop)
		report(sets, m, base)
		for i, n := range m.Features {
			fmt.Printf("  %-16s %+.3f\n", n, m.Weights[i])
		}
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			return err
		}
		out := o.out
		if i > 0 {
			out = strings.TrimSuffix(out, ".json") + fmt.Sprintf(".%d.json", i)
		}
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fit trains a model on tr with the features named in drop (comma-
// separated) held at weight 0.
func fit(tr []example, drop string, o options) (*retrieval.RerankModel, error) {
	names := retrieval.RerankFeatureNames()
	nf := len(names)
	mask := make([]bool, nf+1)
	for _, f := range strings.Split(drop, ",") {
		if f == "" {
			continue
		}
		i := slices.Index(names, f)
		if i < 0 {
			return nil, fmt.Errorf("-drop: no feature %q (have %v)", f, names)
		}
		mask[i] = true
	}
	theta := make([]float64, nf+1)
	theta[4] = 1 // start from the fused order
	lf := loss
	switch o.loss {
	case "logistic":
	case "softmax":
		lf = softmaxLoss
	default:
		return nil, fmt.Errorf("-loss %q: want logistic or softmax", o.loss)
	}
	final := adam(theta, mask, func(g, th []float64) float64 { return lf(th, tr, o.l2, g) }, 3000)
	if o.loss == "softmax" {
		// A listwise loss leaves the bias free (it cancels within a
		// query): the bias is fitted alone by the logistic loss, so
		// that a hit's score reads as a probability again.
		bmask := make([]bool, nf+1)
		for i := range nf {
			bmask[i] = true
		}
		adam(theta, bmask, func(g, th []float64) float64 { return loss(th, tr, 0, g) }, 1000)
	}
	fmt.Printf("loss %.5f\n", final)
	about := fmt.Sprintf("%s loss (full-batch Adam, 3000 steps, L2 %g) on %d queries of %s (tune half), fused top %d of the theorem profile (usage prior on)", o.loss, o.l2, len(tr), baseNames(o.train), o.depth)
	if o.exclude != "" {
		about += "; items of " + filepath.Base(o.exclude) + " excluded"
	}
	if drop != "" {
		about += "; held at 0: " + drop
	}
	m := &retrieval.RerankModel{Features: names, Weights: theta[:nf], Bias: theta[nf], Depth: o.depth, About: about}
	for i := range m.Weights {
		m.Weights[i] = math.Round(m.Weights[i]*1e4) / 1e4
	}
	m.Bias = math.Round(m.Bias*1e4) / 1e4
	return m, nil
}

// labelled is one evaluation set's examples.
type labelled struct {
	label string
	exs   []example
}

// testSets runs -valid's tune half and each -test set.
func testSets(ctx context.Context, ix retrieval.Searcher, t *retrieval.Table, o options, w retrieval.Weights) ([]labelled, error) {
	specs := []string{}
	if o.valid != "" {
		specs = append(specs, o.valid+":tune")
	}
	if o.test != "" {
		specs = append(specs, strings.Split(o.test, ",")...)
	}
	var out []labelled
	for _, spec := range specs {
		file, half, _ := strings.Cut(spec, ":")
		if half == "" {
			half = "held-out"
		}
		exs, err := examples(ctx, ix, t, file, half, w, o.depth, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, labelled{filepath.Base(file) + " " + half, exs})
	}
	return out, nil
}

// report prints MRR@10 and nDCG@10 of each set in fused order, reranked by
// m and, when given, by base.
func report(sets []labelled, m, base *retrieval.RerankModel) {
	for _, s := range sets {
		fmt.Printf("%s: %d queries, MRR@10 / nDCG@10 fused %.3f / %.3f → reranked %.3f / %.3f", s.label, len(s.exs), mrr(s.exs, nil), ndcg(s.exs, nil), mrr(s.exs, m), ndcg(s.exs, m))
		if base != nil {
			fmt.Printf(" (baseline model %.3f / %.3f)", mrr(s.exs, base), ndcg(s.exs, base))
		}
		fmt.Println()
		byStyle := map[string][]example{}
		for _, ex := range s.exs {
			byStyle[ex.style] = append(byStyle[ex.style], ex)
		}
		if len(byStyle) > 1 {
			fmt.Print("   nDCG@10 by style, fused → reranked:")
			for _, st := range slices.Sorted(maps.Keys(byStyle)) {
				fmt.Printf(" %s (%d) %.3f → %.3f", st, len(byStyle[st]), ndcg(byStyle[st], nil), ndcg(byStyle[st], m))
				if base != nil {
					fmt.Printf(" [%.3f]", ndcg(byStyle[st], base))
				}
				fmt.Print(";")
			}
			fmt.Println()
		}
	}
}

// loadBaseline reads a model trained on a prefix of today's features (an
// older model), the features it lacks weighing 0.
func loadBaseline(path string) (*retrieval.RerankModel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m retrieval.RerankModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	names := retrieval.RerankFeatureNames()
	if len(m.Features) > len(names) || !slices.Equal(m.Features, names[:len(m.Features)]) || len(m.Weights) != len(m.Features) {
		return nil, fmt.Errorf("%s: features %v are not a prefix of %v", path, m.Features, names)
	}
	m.Features = names
	m.Weights = append(m.Weights, make([]float64, len(names)-len(m.Weights))...)
	return &m, m.Check()
}

// adam minimises f (which writes its gradient into g) from theta, in place,
// keeping the masked coordinates where they are, and returns the last value.
func adam(theta []float64, mask []bool, f func(g, theta []float64) float64, steps int) float64 {
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	g := make([]float64, len(theta))
	m1 := make([]float64, len(theta))
	m2 := make([]float64, len(theta))
	v := 0.0
	for t := 1; t <= steps; t++ {
		v = f(g, theta)
		for i := range theta {
			if mask[i] {
				continue
			}
			m1[i] = b1*m1[i] + (1-b1)*g[i]
			m2[i] = b2*m2[i] + (1-b2)*g[i]*g[i]
			mh := m1[i] / (1 - math.Pow(b1, float64(t)))
			vh := m2[i] / (1 - math.Pow(b2, float64(t)))
			theta[i] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return v
}

// examples runs the query of each item of the half ("all": every item) and
// keeps its candidates.
func examples(ctx context.Context, s retrieval.Searcher, t *retrieval.Table, path, half string, w retrieval.Weights, depth int, skip func(item) bool) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, err
		}
		if (half == "all" || it.Half == half) && strings.TrimSpace(it.Query) != "" && (skip == nil || !skip(it)) {
			items = append(items, it)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]example, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4) // searches in flight
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = search(ctx, s, t, it, w, depth)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// search runs one item's query and labels its candidates.
func search(ctx context.Context, s retrieval.Searcher, t *retrieval.Table, it item, w retrieval.Weights, depth int) (example, error) {
	q := retrieval.Query{Text: it.Query, K: depth, Mode: retrieval.ModeBest, Profile: retrieval.ProfileTheorem,
		Filter: retrieval.Filter{AllKinds: true}, Weights: &w}
	hits, err := s.Search(ctx, q)
	if err != nil {
		return example{}, err
	}
	norm, extra := t.QueryView(it.Query, &w, nil)
	gold := map[string]bool{}
	for _, g := range it.Gold {
		gold[g] = true
	}
	ex := example{x: retrieval.RerankFeatures(norm, extra, hits, t), ngold: len(gold), style: it.Style}
	for _, h := range hits {
		y := 0.0
		if gold[h.Name] {
			y = 1
		}
		ex.y = append(ex.y, y)
	}
	return ex, nil
}

// baseNames is a comma-separated list of paths' base names.
func baseNames(paths string) string {
	var out []string
	for _, p := range strings.Split(paths, ",") {
		out = append(out, filepath.Base(p))
	}
	return strings.Join(out, " + ")
}

// benchItems reads a benchmark's ids and case-folded queries and returns
// whether an item is one of its items (nil for no file): devbench's mined
// items beyond its per-style sample are training data, its sample is not.
func benchItems(path string) (func(item) bool, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids, queries := map[string]bool{}, map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var it item
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		ids[it.ID] = true
		queries[strings.ToLower(it.Query)] = true
	}
	return func(it item) bool { return ids[it.ID] || queries[strings.ToLower(it.Query)] }, nil
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
	return meanL2(total, nq, theta, nf, l2, g)
}

// softmaxLoss is the mean listwise loss over queries, -log of the
// softmax's mass on the gold candidates, plus L2 on the weights (the bias
// gets no gradient: it cancels); g, when not nil, gets the gradient.
func softmaxLoss(theta []float64, exs []example, l2 float64, g []float64) float64 {
	nf := len(theta) - 1
	for i := range g {
		g[i] = 0
	}
	total, nq := 0.0, 0
	z := []float64{}
	for _, ex := range exs {
		pos := 0.0
		for _, y := range ex.y {
			pos += y
		}
		if pos == 0 {
			continue
		}
		nq++
		z = z[:0]
		zmax := math.Inf(-1)
		for _, x := range ex.x {
			v := 0.0
			for j := range nf {
				v += theta[j] * x[j]
			}
			z = append(z, v)
			zmax = max(zmax, v)
		}
		var all, gold float64
		for i, v := range z {
			e := math.Exp(v - zmax)
			all += e
			if ex.y[i] > 0 {
				gold += e
			}
		}
		total += -math.Log(gold/all + 1e-300)
		if g != nil {
			for i, x := range ex.x {
				e := math.Exp(z[i] - zmax)
				d := e / all
				if ex.y[i] > 0 {
					d -= e / gold
				}
				for j := range nf {
					g[j] += d * x[j]
				}
			}
		}
	}
	return meanL2(total, nq, theta, nf, l2, g)
}

// meanL2 turns a loss summed over nq queries into their mean plus L2 on
// the first nf weights (not the bias), the gradient g (when not nil) alike:
// the tail both losses share.
func meanL2(total float64, nq int, theta []float64, nf int, l2 float64, g []float64) float64 {
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

// order is an example's candidates in fused order (m nil) or reranked.
func order(ex example, m *retrieval.RerankModel) []int {
	ord := make([]int, len(ex.y))
	for i := range ord {
		ord[i] = i
	}
	if m == nil {
		return ord
	}
	sc := make([]float64, len(ex.y))
	for i, x := range ex.x {
		sc[i] = m.Score(x)
	}
	// stable insertion sort by score, best first
	for i := 1; i < len(ord); i++ {
		for j := i; j > 0 && sc[ord[j]] > sc[ord[j-1]]; j-- {
			ord[j], ord[j-1] = ord[j-1], ord[j]
		}
	}
	return ord
}

// ndcg is the mean binary nDCG@10 (retrieval.ScoreAt's) of the examples.
func ndcg(exs []example, m *retrieval.RerankModel) float64 {
	total := 0.0
	for _, ex := range exs {
		ranked := []string{}
		gold := map[string]bool{}
		for r, i := range order(ex, m) {
			ranked = append(ranked, fmt.Sprint(r))
			if ex.y[i] > 0 {
				gold[fmt.Sprint(r)] = true
			}
		}
		for g := len(gold); g < ex.ngold; g++ {
			gold[fmt.Sprint("missing", g)] = true
		}
		total += retrieval.ScoreAt(ranked, gold, 10).NDCG
	}
	return total / float64(max(len(exs), 1))
}

// mrr is the MRR@10 of the examples in fused order (m nil) or reranked.
func mrr(exs []example, m *retrieval.RerankModel) float64 {
	total := 0.0
	for _, ex := range exs {
		ord := order(ex, m)
		for r, i := range ord[:min(10, len(ord))] {
			if ex.y[i] > 0 {
				total += 1 / float64(r+1)
				break
			}
		}
	}
	return total / float64(max(len(exs), 1))
}
