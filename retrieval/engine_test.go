package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nameMatch is a toy lexical backend: a document scores the number of the
// query's sub-tokens found among its name's sub-tokens. Enough to feed the
// signals deterministic candidate and neighbour lists.
type nameMatch struct{ t *Table }

func (b nameMatch) SearchLexical(_ context.Context, text string, batch *Batch) ([][]Scored, error) {
	q := map[string]bool{}
	Words(text, func(w string, _, _ int) { SubTokens(w, func(s string) { q[s] = true }) })
	tops := batch.NewTops()
	for doc := range b.t.Len() {
		top := Top(tops, batch.Class, doc)
		if top == nil {
			continue
		}
		n := 0
		seen := map[string]bool{}
		SubTokens(b.t.Name(doc), func(s string) {
			if q[s] && !seen[s] {
				seen[s] = true
				n++
			}
		})
		if n > 0 {
			top.Add(doc, float32(n))
		}
	}
	return SortedAll(tops), nil
}

// letters is a toy dense backend and encoder: 26 letter counts.
type letters struct{ t *Table }

func (letters) Dim() int { return 26 }
func (l letters) vec(s string) []float32 {
	v := make([]float32, 26)
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			v[r-'a']++
		}
	}
	return v
}
func (l letters) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = l.vec(t)
	}
	return out, nil
}
func (l letters) SearchDense(_ context.Context, q []float32, batch *Batch) ([][]Scored, error) {
	tops := batch.NewTops()
	for doc := range l.t.Len() {
		if top := Top(tops, batch.Class, doc); top != nil {
			var s float32
			for i, x := range l.vec(l.t.Name(doc)) {
				s += x * q[i]
			}
			top.Add(doc, s)
		}
	}
	return SortedAll(tops), nil
}

// TestSignals runs testdata/signals.txt: each signal, the fusion and the
// filters on small corpora, with the lists a query's hits came from.
func TestSignals(t *testing.T) {
	var e *Engine
	runDataDriven(t, "testdata/signals.txt", func(t *testing.T, c *ddCase) string {
		switch c.Cmd {
		case "corpus":
			tb := corpusFrom(t, c.Input)
			e = &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: letters{tb}, Encoder: letters{tb}}
			return fmt.Sprintf("%d documents", tb.Len())
		case "search":
			q := Query{Text: c.Input, Mode: Mode(c.Arg("mode", "best")), Profile: Profile(c.Arg("profile", ""))}
			q.K, _ = strconv.Atoi(c.Arg("k", "10"))
			if w, ok := c.Args["w"]; ok {
				q.Weights = parseWeights(t, w)
			}
			if x := c.Arg("exclude", ""); x != "" {
				q.Filter.Exclude = strings.Split(x, ",")
			}
			if x := c.Arg("kinds", ""); x != "" {
				q.Filter.Kinds = strings.Split(x, ",")
			}
			q.Filter.Library = c.Arg("library", "")
			_, q.Filter.AllKinds = c.Args["allkinds"]
			if _, ok := c.Args["vocab"]; ok {
				q.Vocabulary = everyday(t)
			}
			hits, err := e.Search(context.Background(), q)
			if err != nil {
				return "error: " + err.Error()
			}
			var b strings.Builder
			for _, h := range hits {
				var sig []string
				for k, v := range h.Signals {
					sig = append(sig, fmt.Sprintf("%s=%d", k, v))
				}
				slices.Sort(sig)
				fmt.Fprintf(&b, "%d %s %s\n", h.Rank, h.Name, strings.Join(sig, " "))
			}
			if len(hits) == 0 {
				return "(no hits)"
			}
			return b.String()
		}
		t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
		return ""
	})
}

// parseWeights reads "concept:1,concept_top:2,expand_lexical:true" (the
// JSON names of Weights); fields not given are zero, so one signal can be
// tested alone.
func parseWeights(t *testing.T, s string) *Weights {
	m := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, ":")
		if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			m[k] = b
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("weight %q", kv)
		}
		m[k] = f
	}
	b, _ := json.Marshal(m)
	var w Weights
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if w.RRFK == 0 {
		w.RRFK = 10
	}
	if w.Depth == 0 {
		w.Depth = 20
	}
	return &w
}
