package proof

import (
	"cmp"
	"math"
	"slices"

	"github.com/driftkit/driftkit/retrieval"
)

// Weights are the ranker's: each list's weight in the fusion
// score(d) = Σ_list w_list / (RRFK + rank_list(d)) and the lists' shapes.
type Weights struct {
	Lexical float64 `json:"lexical"`
	Consts  float64 `json:"consts"`
	Votes   float64 `json:"votes"`
	Prior   float64 `json:"prior"`
	// New weighs the lists of the caller's new premises (lexical overlap
	// and encoder similarity with the goal); by default the lexical
	// list's weight (the evaluation has no new premises to tune it on).
	New  float64 `json:"new"`
	RRFK float64 `json:"rrf_k"`
	// Depth is how many documents each list contributes.
	Depth int `json:"depth"`
	// VoteDocs is how many similar declarations of each kind (lexical,
	// constants) vote for their proof dependencies, a vote weighing
	// 1/(rank+VoteDecay).
	VoteDocs  int     `json:"vote_docs"`
	VoteDecay float64 `json:"vote_decay"`
	// MaxDF: a constant used by more statements than this does not pull
	// in its users (Eq, Nat: everything uses them); it still counts itself.
	MaxDF int `json:"max_df"`
	// ConstBeta divides a neighbour's constant score by
	// (1+its statement dependencies)^ConstBeta: a lemma about exactly the
	// goal's constants beats one that mentions them among many.
	ConstBeta float64 `json:"const_beta"`
}

// DefaultWeights are the tuned defaults (tuned on the tune half of
// Mathlib's modules; see `driftkit eval proof` and the README).
func DefaultWeights() Weights {
	return Weights{Lexical: 1.5, Consts: 1, Votes: 1.5, Prior: 0.3, New: 1.5, RRFK: 10, Depth: 200,
		VoteDocs: 30, VoteDecay: 3, MaxDF: 4000, ConstBeta: 0.5}
}

// NewPremise is a declaration the caller has and the graph does not (the
// user's file, an unindexed import): its name, its declaration as Lean
// prints it, and its encoder similarity to the goal (NaN: none).
type NewPremise struct {
	Name  string
	Decl  string
	Dense float64
}

// Query is one goal to rank premises for.
type Query struct {
	// Goal is the proof state as Meta.ppGoal prints it.
	Goal string
	// Constants are names the goal's elaborated terms use, when the caller
	// knows them (a goal printed with pp.fullNames names them in Goal
	// already); they join the constants read from Goal.
	Constants []string
	K         int
	// Similar names declarations ranked by lexical similarity to the goal,
	// best first, over every kind (the index's BM25).
	Similar []string
	// Candidate says which declarations may be returned (nil: all).
	Candidate func(id int32) bool
	// Exclude lists declarations that are never returned, never vote and
	// are not counted by the prior (a held-out theorem and what follows it
	// in its module).
	Exclude []int32
	New     []NewPremise
	Weights *Weights // nil: DefaultWeights
}

// Hit is one ranked premise. New marks one of the query's new premises.
type Hit struct {
	Name    string         `json:"name"`
	Score   float64        `json:"score"`
	New     bool           `json:"new,omitempty"`
	Signals map[string]int `json:"signals,omitempty"`
}

// ranking is one query's state: which documents may appear, and the
// lists made so far. Indexed declarations are keys ≥ 0 (their ids), new
// premises keys -1, -2, … .
type ranking struct {
	g        *Graph
	q        *Query
	w        Weights
	excluded map[int32]bool
	shadowed map[int32]bool // indexed names the new premises redefine
	consts   []int32
}

func (r *ranking) ok(id int32) bool {
	if id < 0 { // a new premise
		return true
	}
	if r.excluded[id] || r.shadowed[id] {
		return false
	}
	return r.q.Candidate == nil || r.q.Candidate(id)
}

// Rank ranks premises for q: at most q.K hits, best first.
func (g *Graph) Rank(q *Query) []Hit {
	r := &ranking{g: g, q: q, w: DefaultWeights(), excluded: map[int32]bool{}, shadowed: map[int32]bool{}}
	if q.Weights != nil {
		r.w = *q.Weights
	}
	for _, id := range q.Exclude {
		r.excluded[id] = true
	}
	for _, p := range q.New {
		if id, ok := g.ids[p.Name]; ok {
			r.shadowed[id] = true
		}
	}
	r.consts = g.constants(q.Goal, q.Constants)
	similar := r.similar()
	constAll := r.constNeighbours()
	lists := []list{
		{"lexical", r.w.Lexical, filterOK(r, similar, r.w.Depth)},
		{"consts", r.w.Consts, filterOK(r, constAll, r.w.Depth)},
		{"votes", r.w.Votes, r.votes(similar, constAll)},
		{"prior", r.w.Prior, r.prior()},
	}
	if len(q.New) > 0 {
		lex, dense := r.newLists()
		lists = append(lists, list{"new_lexical", r.w.New, lex}, list{"new_dense", r.w.New, dense})
	}
	return r.fuse(lists, q.K)
}

// list is one ranked list of the fusion (keys as in ranking).
type list struct {
	signal string
	weight float64
	keys   []int32
}

// similar resolves the lexical list to ids, without excluded ones.
func (r *ranking) similar() []int32 {
	out := make([]int32, 0, len(r.q.Similar))
	for _, n := range r.q.Similar {
		if id, ok := r.g.ids[n]; ok && !r.excluded[id] {
			out = append(out, id)
		}
	}
	return out
}

func filterOK(r *ranking, ids []int32, n int) []int32 {
	out := make([]int32, 0, min(len(ids), n))
	for _, id := range ids {
		if len(out) == n {
			break
		}
		if r.ok(id) {
			out = append(out, id)
		}
	}
	return out
}

// constants resolves the identifiers of goal (and the extra names) to
// declarations, once each, in order.
func (g *Graph) constants(goal string, extra []string) []int32 {
	var out []int32
	add := func(w string) {
		if id, ok := g.ids[w]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	retrieval.Words(goal, func(w string, _, _ int) { add(w) })
	for _, n := range extra {
		add(n)
	}
	return out
}

// idf is a constant's inverse document frequency among statements.
func (g *Graph) idf(c int32) float64 {
	df := len(g.users.of(c))
	return math.Log(float64(len(g.names)+1) / float64(df+1))
}

// constNeighbours ranks the goal's constants and the declarations whose
// statements share them: Σ idf of the shared constants over
// (1+statement deps)^ConstBeta; a constant itself scores twice its idf.
// Declarations that may not be returned but have a proof stay in the list
// (they vote); the fusion filters them.
func (r *ranking) constNeighbours() []int32 {
	score := map[int32]float64{}
	for _, c := range r.consts {
		idf := r.g.idf(c)
		if r.ok(c) {
			score[c] += 2 * idf
		}
		users := r.g.users.of(c)
		if len(users) > r.w.MaxDF {
			continue
		}
		for _, u := range users {
			if r.ok(u) || (!r.excluded[u] && len(r.g.proof.of(u)) > 0) {
				score[u] += idf
			}
		}
	}
	for u := range score {
		if !slices.Contains(r.consts, u) {
			score[u] /= math.Pow(1+float64(len(r.g.stmt.of(u))), r.w.ConstBeta)
		}
	}
	// New premises join as the declarations they are: their constants are
	// the names their declarations write.
	for i, p := range r.q.New {
		var shared float64
		var n int
		for _, c := range r.g.constants(p.Decl, nil) {
			n++
			if slices.Contains(r.consts, c) {
				shared += r.g.idf(c)
			}
		}
		if shared > 0 {
			score[int32(-(i + 1))] = shared / math.Pow(1+float64(n), r.w.ConstBeta)
		}
	}
	return topKeys(score, 2*r.w.Depth)
}

// votes lets the first VoteDocs declarations of the lexical and constant
// lists vote for their proof dependencies, 1/(rank+VoteDecay) each.
func (r *ranking) votes(similar, consts []int32) []int32 {
	score := map[int32]float64{}
	for _, voters := range [][]int32{similar, consts} {
		for rank, v := range voters[:min(len(voters), r.w.VoteDocs)] {
			if v < 0 { // a new premise: no proof known
				continue
			}
			vw := 1 / (float64(rank) + r.w.VoteDecay)
			for _, d := range r.g.proof.of(v) {
				if r.ok(d) {
					score[d] += vw
				}
			}
		}
	}
	return topKeys(score, r.w.Depth)
}

// prior ranks candidates by how many proofs use them, not counting the
// excluded declarations' proofs.
func (r *ranking) prior() []int32 {
	less := map[int32]int32{}
	for e := range r.excluded {
		for _, d := range r.g.proof.of(e) {
			less[d]++
		}
	}
	var out []int32
	for _, id := range r.g.byUses {
		if len(out) == 2*r.w.Depth || r.g.proofUses[id] == 0 {
			break
		}
		if r.ok(id) && r.g.proofUses[id] > less[id] {
			out = append(out, id)
		}
	}
	slices.SortStableFunc(out, func(a, b int32) int {
		return cmp.Compare(r.g.proofUses[b]-less[b], r.g.proofUses[a]-less[a])
	})
	return out[:min(len(out), r.w.Depth)]
}

// newLists ranks the new premises by the goal's words and constants they
// share (each word weighing its rarity among the new premises) and by
// their encoder similarity.
func (r *ranking) newLists() (lex, dense []int32) {
	goalWords := map[string]bool{}
	retrieval.Words(r.q.Goal, func(w string, _, _ int) { retrieval.SubTokens(w, func(t string) { goalWords[t] = true }) })
	docWords := make([]map[string]bool, len(r.q.New))
	df := map[string]int{}
	for i, p := range r.q.New {
		docWords[i] = map[string]bool{}
		retrieval.Words(p.Decl+" "+p.Name, func(w string, _, _ int) {
			retrieval.SubTokens(w, func(t string) {
				if goalWords[t] && !docWords[i][t] {
					docWords[i][t] = true
					df[t]++
				}
			})
		})
	}
	lexScore, denseScore := map[int32]float64{}, map[int32]float64{}
	for i, p := range r.q.New {
		key := int32(-(i + 1))
		for t := range docWords[i] {
			lexScore[key] += 1 / math.Log(2+float64(df[t]))
		}
		if !math.IsNaN(p.Dense) {
			denseScore[key] = p.Dense
		}
	}
	return topKeys(lexScore, r.w.Depth), topKeys(denseScore, r.w.Depth)
}

// fuse combines the lists by weighted reciprocal-rank fusion.
func (r *ranking) fuse(lists []list, k int) []Hit {
	score := map[int32]float64{}
	sig := map[int32]map[string]int{}
	for _, l := range lists {
		if l.weight == 0 {
			continue
		}
		for rank, key := range l.keys {
			score[key] += l.weight / (r.w.RRFK + float64(rank+1))
			if sig[key] == nil {
				sig[key] = map[string]int{}
			}
			sig[key][l.signal] = rank + 1
		}
	}
	keys := topKeys(score, k)
	out := make([]Hit, len(keys))
	for i, key := range keys {
		h := Hit{Score: math.Round(score[key]*1e6) / 1e6, Signals: sig[key]}
		if key < 0 {
			h.Name, h.New = r.q.New[-key-1].Name, true
		} else {
			h.Name = r.g.names[key]
		}
		out[i] = h
	}
	return out
}

// topKeys returns the n best-scoring keys, ties by key.
func topKeys(m map[int32]float64, n int) []int32 {
	keys := make([]int32, 0, len(m))
	for k, s := range m {
		if s > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b int32) int {
		if m[a] != m[b] {
			return cmp.Compare(m[b], m[a])
		}
		return cmp.Compare(a, b)
	})
	return keys[:min(len(keys), n)]
}

// Cosine is the cosine similarity of two vectors (0 when one is zero): a
// new premise's Dense from its and the goal's encoder vectors.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
