package proof

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/driftkit/driftkit/retrieval"
)

// The inductive evaluation: premise selection measured on the library
// itself. For a theorem of a held-out module the query is its statement
// as a goal (GoalOf), the gold answers are its proof dependencies, and
// everything the theorem could not have seen is hidden: the theorem
// itself and its module's declarations from its line on are neither
// returned nor vote nor counted by the prior, and only declarations its
// module imports (transitively, modules.parquet) and Lean does not make
// private to their module (workspace.Declaration.IsPrivate), or that precede it in its module, are candidates — what Lean's premise selector would be allowed to return.

// EvalRow is what the evaluation reads of a declarations.parquet row.
type EvalRow struct {
	Row
	Signature string `parquet:"signature"`
}

// Item is one evaluation query.
type Item struct {
	Name   string
	Module string
	// Statement is the signature; Goal the proof state made of it.
	Statement, Goal string
	// Constants are the statement's dependencies: the full names the goal
	// names when Lean prints it with pp.fullNames (the premise selector's
	// setting).
	Constants []string
	Gold      []string
	Exclude   []int32
	// ExcludeNames are Exclude's names (for the index's own filter).
	ExcludeNames []string
	// Candidate says whether a declaration is importable at the theorem.
	Candidate func(id int32) bool
	// New are the declarations of the theorem's module before it when
	// they are sent as new premises (ItemOptions.LocalAsNew), as Lean's
	// premise selector sends its file's declarations.
	New []NewPremise
}

// ItemOptions choose the items.
type ItemOptions struct {
	// InHalf says whether a module belongs to the evaluated half.
	InHalf func(module string) bool
	// Max caps the items (0: all); the items kept are the first by
	// SHA-1 of their names, so a cap is a fixed sample.
	Max int
	// LocalAsNew sends the declarations of the theorem's module before it
	// as new premises ("kind name signature", the last MaxLocalNew) instead
	// of indexed candidates: what Lean's client does with its own file.
	LocalAsNew bool
}

// Items makes the evaluation queries: theorems of the chosen modules with
// at least one importable proof dependency.
func Items(g *Graph, rows []EvalRow, o ItemOptions) []Item {
	type cand struct {
		key uint64
		row int
	}
	var picks []cand
	for i := range rows {
		r := &rows[i].Row
		if r.Kind != "theorem" || !o.InHalf(r.Module) {
			continue
		}
		if id, ok := g.ids[r.Name]; !ok || len(g.proof.of(id)) == 0 {
			continue
		}
		h := sha1.Sum([]byte(r.Name))
		picks = append(picks, cand{binary.BigEndian.Uint64(h[:8]), i})
	}
	slices.SortFunc(picks, func(a, b cand) int { return cmp.Compare(a.key, b.key) })
	imp := &importable{g: g, memo: map[int32][]bool{}}
	var decls []string
	if o.LocalAsNew {
		decls = make([]string, g.Len())
		for i := range rows {
			if id, ok := g.ids[rows[i].Name]; ok && decls[id] == "" {
				decls[id] = declText(&rows[i])
			}
		}
	}
	byModule := make([][]int32, len(g.modules))
	for id, m := range g.module {
		byModule[m] = append(byModule[m], int32(id))
	}
	var out []Item
	for _, p := range picks {
		if o.Max > 0 && len(out) == o.Max {
			break
		}
		if it, ok := makeItem(g, &rows[p.row], imp, byModule, decls); ok {
			out = append(out, it)
		}
	}
	return out
}

// MaxLocalNew is how many of a file's declarations Lean's client sends as
// new premises at most (premiseSelection.maxUnindexedPremises; it keeps
// the last ones).
const MaxLocalNew = 2048

// declText prints a declaration as the client's new premise decl: its
// kind, name and signature.
func declText(r *EvalRow) string {
	kw := r.Kind
	if kw == "definition" {
		kw = "def"
	}
	return kw + " " + r.Name + " " + r.Signature
}

func makeItem(g *Graph, row *EvalRow, imp *importable, byModule [][]int32, decls []string) (Item, bool) {
	self := g.ids[row.Name]
	mod, line := g.module[self], g.line[self]
	seen := imp.closure(mod)
	it := Item{Name: row.Name, Module: row.Module, Statement: row.Signature, Goal: GoalOf(row.Signature),
		Constants: row.StatementDeps}
	for _, id := range byModule[mod] {
		if g.line[id] >= line {
			it.Exclude = append(it.Exclude, id)
			it.ExcludeNames = append(it.ExcludeNames, g.names[id])
		}
	}
	local := decls == nil
	if !local {
		for _, id := range byModule[mod] {
			if g.line[id] < line {
				it.New = append(it.New, NewPremise{Name: g.names[id], Decl: decls[id], Dense: math.NaN()})
			}
		}
		it.New = it.New[max(0, len(it.New)-MaxLocalNew):]
	}
	it.Candidate = func(id int32) bool {
		m := g.module[id]
		if m == mod {
			return local && g.line[id] < line
		}
		return seen[m] && !g.private[id]
	}
	for _, d := range g.proof.of(self) {
		if it.Candidate(d) || (!local && g.module[d] == mod && g.line[d] < line) {
			it.Gold = append(it.Gold, g.names[d])
		}
	}
	return it, len(it.Gold) > 0
}

// importable computes, once per module, the modules it imports
// transitively.
type importable struct {
	g    *Graph
	memo map[int32][]bool
}

func (im *importable) closure(mod int32) []bool {
	if c, ok := im.memo[mod]; ok {
		return c
	}
	seen := im.g.ImportClosure([]int{int(mod)})
	im.memo[mod] = seen
	return seen
}

// A Ranker answers one item: names, best first.
type Ranker func(ctx context.Context, it *Item, k int) ([]string, error)

// Score is one ranker's macro-averaged metrics over the items.
type Score struct {
	Ranker string  `json:"ranker"`
	Items  int     `json:"items"`
	R10    float64 `json:"recall_at_10"`
	R32    float64 `json:"recall_at_32"`
	NDCG10 float64 `json:"ndcg_at_10"`
}

// Evaluate runs a ranker over the items.
func Evaluate(ctx context.Context, name string, items []Item, rank Ranker) (Score, error) {
	s := Score{Ranker: name}
	for i := range items {
		it := &items[i]
		got, err := rank(ctx, it, 32)
		if err != nil {
			return s, fmt.Errorf("%s: %w", it.Name, err)
		}
		gold := map[string]bool{}
		for _, n := range it.Gold {
			gold[n] = true
		}
		m10, m32 := retrieval.ScoreAt(got, gold, 10), retrieval.ScoreAt(got, gold, 32)
		s.R10 += m10.R
		s.R32 += m32.R
		s.NDCG10 += m10.NDCG
		s.Items++
	}
	if s.Items > 0 {
		n := float64(s.Items)
		s.R10, s.R32, s.NDCG10 = s.R10/n, s.R32/n, s.NDCG10/n
	}
	return s, nil
}

// WriteScores prints scores as a table (percentages).
func WriteScores(w io.Writer, scores []Score) {
	fmt.Fprintf(w, "%-28s %6s %7s %7s %8s\n", "ranker", "items", "R@10", "R@32", "nDCG@10")
	for _, s := range scores {
		fmt.Fprintf(w, "%-28s %6d %7.2f %7.2f %8.2f\n", s.Ranker, s.Items, 100*s.R10, 100*s.R32, 100*s.NDCG10)
	}
}
