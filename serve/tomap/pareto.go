package tomap

import "math"

// Vector is a candidate's rubric scores: faithful, provable, lean-friendly,
// each in [0, 1].
type Vector [3]float64

// Sum is the parent-selection key.
func (v Vector) Sum() float64 { return v[0] + v[1] + v[2] }

// Min is the gate key: a candidate passes the gate ε when Min ≥ ε.
func (v Vector) Min() float64 { return math.Min(v[0], math.Min(v[1], v[2])) }

// Dominates reports whether a Pareto-dominates b: at least as good on every
// dimension and strictly better on one. Equal vectors dominate neither way.
func Dominates(a, b Vector) bool {
	better := false
	for i := range a {
		if a[i] < b[i] {
			return false
		}
		if a[i] > b[i] {
			better = true
		}
	}
	return better
}

// Candidate is one decomposition in the pool with its rubric.
type Candidate struct {
	// Seq is the admission order within a problem (0 for the first seed):
	// the last tie-breaker of every ordering below.
	Seq           int           `json:"seq"`
	Origin        string        `json:"origin"` // "seed<k>" or "round<r>"
	Parent        int           `json:"parent"` // Seq of the parent; -1 for seeds
	Decomposition Decomposition `json:"decomposition"`
	Hash          string        `json:"hash"`
	Rubric        Rubric        `json:"rubric"`
	// JudgeFailed: the judge gave no usable answer even after a repair; the
	// candidate carries the zero vector, so any judged candidate beats it.
	JudgeFailed bool   `json:"judge_failed,omitempty"`
	JudgeError  string `json:"judge_error,omitempty"`
}

// sumEps absorbs float rounding when sums of equal multisets of scores are
// compared (0.1+0.2+0.3 vs 0.3+0.2+0.1).
const sumEps = 1e-9

// Better orders candidates for parent selection, for the final commit and
// (reversed) for eviction: higher sum first; on equal sums the higher
// minimum (the more balanced candidate); on equal sums and minimums the
// newer candidate (higher Seq), so that a revision that ties its parent
// replaces it and the search keeps moving instead of rewriting the same
// parent again.
func Better(a, b *Candidate) bool {
	sa, sb := a.Rubric.Scores.Sum(), b.Rubric.Scores.Sum()
	if math.Abs(sa-sb) > sumEps {
		return sa > sb
	}
	ma, mb := a.Rubric.Scores.Min(), b.Rubric.Scores.Min()
	if ma != mb {
		return ma > mb
	}
	return a.Seq > b.Seq
}

// Frontier returns the members of pool no other member dominates, in pool
// order. Candidates with equal vectors are all on the frontier.
func Frontier(pool []*Candidate) []*Candidate {
	var out []*Candidate
	for _, c := range pool {
		dominated := false
		for _, o := range pool {
			if o != c && Dominates(o.Rubric.Scores, c.Rubric.Scores) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, c)
		}
	}
	return out
}

// Best returns the Better-first member of cs (nil if empty). Applied to the
// frontier it is the parent of the next round and the candidate committed
// when the rounds run out.
func Best(cs []*Candidate) *Candidate {
	var best *Candidate
	for _, c := range cs {
		if best == nil || Better(c, best) {
			best = c
		}
	}
	return best
}

// Admit adds c to pool and returns the new pool: c is discarded if a member
// dominates it; members c dominates are discarded; then, while the pool
// exceeds k, the worst member by Better (lowest sum, then lowest minimum,
// then oldest) is evicted — c included. admitted says whether c is in the
// returned pool; evicted lists the members that left (not c).
//
// Because dominated candidates never stay, the pool is always its own
// frontier.
func Admit(pool []*Candidate, c *Candidate, k int) (out []*Candidate, admitted bool, evicted []*Candidate) {
	for _, o := range pool {
		if Dominates(o.Rubric.Scores, c.Rubric.Scores) {
			return pool, false, nil
		}
	}
	out = make([]*Candidate, 0, len(pool)+1)
	for _, o := range pool {
		if Dominates(c.Rubric.Scores, o.Rubric.Scores) {
			evicted = append(evicted, o)
		} else {
			out = append(out, o)
		}
	}
	out = append(out, c)
	admitted = true
	for len(out) > max(k, 1) {
		worst := 0
		for i := range out {
			if Better(out[worst], out[i]) {
				worst = i
			}
		}
		if out[worst] == c {
			admitted = false
		} else {
			evicted = append(evicted, out[worst])
		}
		out = append(out[:worst], out[worst+1:]...)
	}
	return out, admitted, evicted
}

// Gate returns the frontier member to commit early: the Better-first of the
// judged members whose minimum score is at least eps; nil if none.
func Gate(pool []*Candidate, eps float64) *Candidate {
	var pass []*Candidate
	for _, c := range Frontier(pool) {
		if !c.JudgeFailed && c.Rubric.Scores.Min() >= eps {
			pass = append(pass, c)
		}
	}
	return Best(pass)
}
