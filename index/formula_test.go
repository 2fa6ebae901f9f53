package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// formulaCorpus is a few statements, the first two of the same layout.
var formulaCorpus = []string{
	"{p m n : ℕ} (pp : p.Prime) : p ∣ m * n ↔ p ∣ m ∨ p ∣ n",
	"{a b c : α} [Prime a] : a ∣ b * c ↔ a ∣ b ∨ a ∣ c",
	"(a b : α) : |a + b| ≤ |a| + |b|",
	"(s t : Set α) : (s ∪ t)ᶜ = sᶜ ∩ tᶜ",
	"(x : G) : x⁻¹ * x = 1",
	"{x y : ℝ} (hx : 0 < x) : Real.log (x * y) = Real.log x + Real.log y",
	": Type*",
}

// formulaRanks is what a query ranks: the documents in score order.
func formulaRanks(t *testing.T, p *Postings, q string) []int {
	t.Helper()
	b := &retrieval.Batch{Requests: []retrieval.Request{{Select: retrieval.Selection{}, K: 10}}, Class: slices.Repeat([]uint8{1}, p.n)}
	res, err := p.SearchLexical(context.Background(), q, b)
	if err != nil {
		t.Fatal(err)
	}
	return retrieval.DocsOf(res[0])
}

func TestFormulaPostingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	p, err := BuildFormulaPostings(ctx, formulaCorpus, 0)
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string][]int{
		"`p ∣ a * b → p ∣ a ∨ p ∣ b`":     {0, 1},
		"$(A \\cup B)^c = A^c \\cap B^c$": {3},
		"`|x + y| ≤ |x| + |y|`":           {2},
		"the inverse of x times x is one": nil, // no formula: nothing
	}
	for q, want := range queries {
		got := formulaRanks(t, p, q)
		if len(got) > len(want) {
			got = got[:len(want)]
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: first documents %v, want %v", q, got, want)
		}
	}
	dir := t.TempDir()
	if err := p.save(filepath.Join(dir, FormulaName), "gen-x"); err != nil {
		t.Fatal(err)
	}
	f, err := openFlat(dir, FormulaName, "gen-x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := OpenFormulaPostings(f)
	if err != nil {
		t.Fatal(err)
	}
	if q.n != p.n || q.terms.Len() != p.terms.Len() {
		t.Fatalf("read back %d docs, %d grams; wrote %d, %d", q.n, q.terms.Len(), p.n, p.terms.Len())
	}
	for text := range queries {
		var a, b []string
		p.Score(text, func(d int, s float32) { a = append(a, formulaCorpus[d]) })
		q.Score(text, func(d int, s float32) { b = append(b, formulaCorpus[d]) })
		if !slices.Equal(a, b) {
			t.Errorf("%s: scored %q read back, %q built", text, b, a)
		}
	}
}

// A gram found in more than maxDF statements is dropped (its postings and
// its term); the others keep theirs.
func TestFormulaPostingsPruned(t *testing.T) {
	ctx := context.Background()
	all, err := BuildFormulaPostings(ctx, formulaCorpus, 0)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := formulaTokens(ctx, formulaCorpus)
	if err != nil {
		t.Fatal(err)
	}
	pruned := postingsFromTokens(ct, formulaAnalyzer{}, 1)
	docs, _, _ := all.lists()
	pdocs, _, _ := pruned.lists()
	kept := 0
	for id := range all.terms.Len() {
		g := all.terms.At(id)
		df := all.off[id+1] - all.off[id]
		pid := pruned.term(g)
		if (df > 1) != (pid < 0) {
			t.Errorf("gram %q in %d documents: kept %t", g, df, pid >= 0)
		}
		if pid >= 0 {
			kept++
			if !slices.Equal(docs[all.off[id]:all.off[id+1]], pdocs[pruned.off[pid]:pruned.off[pid+1]]) {
				t.Errorf("gram %q: postings changed by pruning", g)
			}
		}
	}
	if kept == 0 || kept == all.terms.Len() || pruned.terms.Len() != kept {
		t.Errorf("%d of %d grams kept, the pruned postings have %d", kept, all.terms.Len(), pruned.terms.Len())
	}
}

// A damaged formula.dk is refused naming the file, as bm25.dk is.
func TestFormulaPostingsDamaged(t *testing.T) {
	p, err := BuildFormulaPostings(context.Background(), formulaCorpus, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, FormulaName)
	if err := p.save(path, "gen-x"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[len(b)-len(b)/4] ^= 0x40 // in the postings
	os.WriteFile(path, b, 0o644)
	var q *Postings
	f, err := openFlat(dir, FormulaName, "gen-x")
	if err == nil {
		defer f.Close()
		if q, err = OpenFormulaPostings(f); err == nil {
			_, _, err = q.lists()
		}
	}
	var fe *workspace.FileError
	if !errors.Is(err, ErrStale) || !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), "CRC32C") {
		t.Fatalf("damaged formula.dk: %v, want ErrStale naming the file and its checksum", err)
	}
	if q != nil {
		if _, err := q.SearchLexical(context.Background(), "`a ∣ b * c`", &retrieval.Batch{Requests: []retrieval.Request{{K: 3}}, Class: slices.Repeat([]uint8{1}, q.n)}); err == nil {
			t.Error("a search of damaged formula postings succeeded")
		}
	}
}
