package retrieval

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Theorem search's second stage: the fused top RerankModel.Depth hits are
// rescored by a linear model over cheap features of each hit (its rank in
// each signal's list and in the fusion, its kind, how much of its name the
// query covers) and reordered. The model is small data
// (data/rerank-theorem.json), trained by internal/tools/rerank on queries
// the library gives (module-docstring descriptions of declarations, the
// dev benchmark's tuning half), split by module group so that the held-out
// half's modules never reach it; fitted listwise (a softmax over each
// query's candidates), its bias then fitted alone so that a hit's score,
// the sigmoid of its logit, still reads as a probability. Weights those
// queries cannot teach are held at 0 (TestEmbeddedRerankModel).

// RerankFeatures names the features, in order; a model lists the names it
// was trained with, and a model whose list differs is refused.
var rerankFeatureNames = []string{
	"bm25", "dense", "name", "mention", "fused",
	"kind_theorem", "kind_definition", "kind_structure", "kind_class", "kind_instance", "kind_other",
	"name_cover", "query_cover", "name_tokens", "name_depth", "usage",
	"sym_cover", "sym_jaccard", "text_cover", "sig_cover", "formula",
}

// RerankFeatureNames returns the feature names, in order.
func RerankFeatureNames() []string { return slices.Clone(rerankFeatureNames) }

// RerankModel is a linear model over RerankFeatures: Score is a logit.
type RerankModel struct {
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// Depth is how many fused hits are rescored.
	Depth int `json:"depth"`
	// About says how the model was trained.
	About string `json:"about,omitempty"`
}

//go:embed data/rerank-theorem.json
var rerankTheoremJSON []byte

// theoremReranker is the embedded model (nil: none, or a bad file — which
// a test catches).
var theoremReranker = sync.OnceValue(func() *RerankModel {
	var m RerankModel
	if err := json.Unmarshal(rerankTheoremJSON, &m); err != nil || m.Check() != nil {
		return nil
	}
	return &m
})

// Check refuses a model whose features are not RerankFeatureNames.
func (m *RerankModel) Check() error {
	if !slices.Equal(m.Features, rerankFeatureNames) || len(m.Weights) != len(m.Features) || m.Depth <= 0 {
		return fmt.Errorf("rerank model: features %v (%d weights, depth %d), want %v", m.Features, len(m.Weights), m.Depth, rerankFeatureNames)
	}
	return nil
}

// RerankDocs is what the reranker reads of a hit besides its ranks:
// Table implements it. UsageShare is a name's log-normalised usage in
// [0, 1]; RerankText its formal statement and informal text (name and
// statement), "" for a name the table lacks.
type RerankDocs interface {
	UsageShare(name string) float64
	RerankText(name string) (signature, informal string)
}

// RerankFeatures computes each hit's features for a query: text is what
// the name signal reads (the query, LaTeX read as Lean's characters), extra
// the added words (symbol words, vocabulary). hits are in fused order.
// docs (nil: every such feature 0) gives each hit's usage, so that the
// model weighs popularity itself (the fused order already carries the soft
// usage prior, the per-signal ranks do not), and its texts: how much of the
// query's notation its statement writes (sym_cover, sym_jaccard: symbols
// as statementSymbols reads them, 0 for a query without any), and which
// share of the query's word tokens its informal text (text_cover) and its
// statement's identifiers (sig_cover) hold — per field what BM25 scores
// over the whole document; and its rank in the formula list (formula: the
// statements whose layout matches the formula the query writes).
func RerankFeatures(text, extra string, hits []Hit, docs RerankDocs) [][]float64 {
	q := queryTokens(text, extra)
	qw := queryTokens(text, "")
	qs := statementSymbols(text)
	out := make([][]float64, len(hits))
	for i, h := range hits {
		f := make([]float64, len(rerankFeatureNames))
		for j, sig := range []string{"bm25", "dense", "name", "mention"} {
			if r, ok := h.Signals[sig]; ok && r > 0 {
				f[j] = 1 / float64(r)
			}
		}
		f[4] = 1 / float64(i+1)
		if r, ok := h.Signals["formula"]; ok && r > 0 {
			f[20] = 1 / float64(r)
		}
		switch h.Kind {
		case "theorem":
			f[5] = 1
		case "definition", "abbrev", "opaque":
			f[6] = 1
		case "structure", "inductive":
			f[7] = 1
		case "class":
			f[8] = 1
		case "instance":
			f[9] = 1
		default:
			f[10] = 1
		}
		var nameToks, covered int
		seen := map[string]bool{}
		nameTokens(h.Name, func(tok string) {
			nameToks++
			seen[tok] = true
			if q[tok] {
				covered++
			}
		})
		qc := 0
		for tok := range q {
			if seen[tok] {
				qc++
			}
		}
		if nameToks > 0 {
			f[11] = float64(covered) / float64(nameToks)
		}
		if len(q) > 0 {
			f[12] = float64(qc) / float64(len(q))
		}
		f[13] = math.Log1p(float64(nameToks))
		f[14] = float64(strings.Count(h.Name, "."))
		if docs != nil {
			f[15] = docs.UsageShare(h.Name)
			sig, inf := docs.RerankText(h.Name)
			if len(qs) > 0 {
				ss := statementSymbols(sig)
				both := 0
				for r := range qs {
					if ss[r] {
						both++
					}
				}
				f[16] = float64(both) / float64(len(qs))
				f[17] = float64(both) / float64(len(qs)+len(ss)-both)
			}
			if len(qw) > 0 {
				f[18] = tokenShare(qw, inf)
				f[19] = tokenShare(qw, sig)
			}
		}
		out[i] = f
	}
	return out
}

// tokenShare is the share of the tokens q that text's name tokens hold.
// It keeps no set of text's tokens (long statements, 30 hits a query):
// only the few of q found, in a slice.
func tokenShare(q map[string]bool, text string) float64 {
	var found []string
	Words(text, func(w string, _, _ int) {
		SubTokens(w, func(t string) {
			if t = nameToken(t); q[t] && !slices.Contains(found, t) {
				found = append(found, t)
			}
		})
	})
	return float64(len(found)) / float64(len(q))
}

// statementSymbols is the notation of a text: its non-ASCII symbols (∣, ≤,
// ⁻¹'s two characters, ℝ, ∑; not Greek letters, which are variables, nor
// brackets, quotes and dashes) and the ASCII operators + * / ^ < > = |
// (not '-', which hyphenates words).
func statementSymbols(s string) map[rune]bool {
	var out map[rune]bool
	for _, r := range s {
		var sym bool
		switch {
		case r < 128:
			sym = strings.ContainsRune("+*/^<>=|", r)
		case r >= 0x370 && r <= 0x3ff, unicode.IsMark(r), unicode.IsSpace(r):
		case unicode.In(r, unicode.Pd, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf):
		default:
			sym = !unicode.IsLetter(r) || r >= 0x2100 // ℝ ℕ ℂ are letterlike symbols
		}
		if sym {
			if out == nil {
				out = map[rune]bool{}
			}
			out[r] = true
		}
	}
	return out
}

// queryTokens are the normalised name tokens of a query's words (stopwords
// dropped) and of extra, as NameMatch reads them.
func queryTokens(text, extra string) map[string]bool {
	q := map[string]bool{}
	Words(strings.ToLower(text), func(w string, _, _ int) {
		if !queryStopwords[w] {
			nameTokens(w, func(tok string) { q[tok] = true })
		}
	})
	nameTokens(extra, func(tok string) { q[tok] = true })
	return q
}

// Score is the model's logit for one feature vector.
func (m *RerankModel) Score(f []float64) float64 {
	s := m.Bias
	for i, w := range m.Weights {
		s += w * f[i]
	}
	return s
}

// Rerank reorders the first Depth hits by the model's score (ties keep the
// fused order), renumbers ranks, records each hit's fused rank as the
// "fused" signal and returns the first k.
func (m *RerankModel) Rerank(text, extra string, hits []Hit, docs RerankDocs, k int) []Hit {
	n := min(len(hits), m.Depth)
	head := hits[:n]
	feats := RerankFeatures(text, extra, head, docs)
	type scored struct {
		h     Hit
		score float64
		pos   int
	}
	s := make([]scored, n)
	for i := range head {
		s[i] = scored{head[i], m.Score(feats[i]), i}
	}
	slices.SortStableFunc(s, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.pos - b.pos
	})
	out := make([]Hit, 0, min(k, len(hits)))
	for i := 0; i < len(hits) && len(out) < k; i++ {
		var h Hit
		if i < n {
			h = s[i].h
			h.Score = round6(1 / (1 + math.Exp(-s[i].score)))
			if h.Signals == nil {
				h.Signals = map[string]int{}
			}
			h.Signals["fused"] = s[i].pos + 1
		} else {
			h = hits[i]
			h.Score = 0
		}
		h.Rank = i + 1
		out = append(out, h)
	}
	return out
}

// RerankText implements RerankDocs: a declaration's formal statement and
// its informal name and statement ("" for a name not in the table or
// damaged entry columns). The strings are views of the table's columns,
// valid while the caller holds the table's generation.
func (t *Table) RerankText(name string) (signature, informal string) {
	doc, ok := t.docOf(name)
	if !ok || t.group(GroupEntries) != nil {
		return "", ""
	}
	c := &t.c
	return c.Signature.At(doc), c.InformalName.At(doc) + " " + c.InformalStatement.At(doc)
}
