package tomap

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/driftkit/driftkit/llm"
)

// problemData is what the problem-level templates read.
type problemData struct {
	Theorem, Proof, FormalStatement string
}

func (s *session) problemData() problemData {
	return problemData{Theorem: s.p.Theorem, Proof: s.p.Proof, FormalStatement: s.p.FormalStatement}
}

// Attempts records the rejected answers of one conversation.
type Attempts struct {
	Count    int      `json:"count"`
	Rejected []string `json:"rejected,omitempty"` // why each rejected answer was rejected
}

func (a *Attempts) reject(err error) { a.Rejected = append(a.Rejected, clip(err.Error(), 1000)) }

// askDecomposition runs a Decomposer or Rewriter conversation: each answer
// that is not a valid decomposition is answered, in the same conversation,
// with what is wrong (the DAG problems, or the format problem), up to
// 1+DecomposeRetries answers. ok is false when none was valid; err is for
// failed calls only.
func (s *session) askDecomposition(ctx context.Context, role Role, step string, msgs []llm.Message, seed int) (d Decomposition, at Attempts, ok bool, err error) {
	pr := s.r.prompts
	for a := 1; a <= 1+s.r.cfg.DecomposeRetries; a++ {
		at.Count = a
		content, err := s.chat(ctx, role, s.r.cfg.Agents.Decomposer, fmt.Sprintf("%s/a%d", step, a), msgs, seed)
		if err != nil {
			return d, at, false, err
		}
		d, perr := ParseDecomposition(content)
		if perr == nil {
			return d, at, true, nil
		}
		at.reject(perr)
		var fb string
		if errors.Is(perr, ErrBadAnswer) {
			fb = pr.render("repair", map[string]string{"Problem": perr.Error(), "Schema": DecompositionSchema})
		} else {
			fb = pr.render("dag", map[string]any{"Problems": problems(perr)})
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: content}, llm.Message{Role: "user", Content: fb})
	}
	return Decomposition{}, at, false, nil
}

// decompose asks the Decomposer for seed decomposition k.
func (s *session) decompose(ctx context.Context, k int) (Decomposition, Attempts, bool, error) {
	pr := s.r.prompts
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleDecomposer)}, {Role: "user", Content: pr.render("decompose", s.problemData())}}
	return s.askDecomposition(ctx, RoleDecomposer, "decompose/seed"+strconv.Itoa(k), msgs, k)
}

// judge scores c with the rubric judges: a strict JSON answer, repaired once.
// A judge that fails twice leaves c with the zero vector and JudgeFailed.
func (s *session) judge(ctx context.Context, c *Candidate) (Attempts, error) {
	pr := s.r.prompts
	data := struct {
		problemData
		Candidate string
	}{s.problemData(), c.Decomposition.JSON()}
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleJudge)}, {Role: "user", Content: pr.render("judge", data)}}
	var at Attempts
	for a := 1; a <= 2; a++ {
		at.Count = a
		content, err := s.chat(ctx, RoleJudge, s.r.cfg.Agents.Judge, fmt.Sprintf("judge/%s/a%d", c.Hash, a), msgs, 0)
		if err != nil {
			return at, err
		}
		r, perr := ParseRubric(content)
		if perr == nil {
			c.Rubric = r
			return at, nil
		}
		at.reject(perr)
		msgs = append(msgs, llm.Message{Role: "assistant", Content: content},
			llm.Message{Role: "user", Content: pr.render("repair", map[string]string{"Problem": perr.Error(), "Schema": RubricSchema})})
	}
	c.JudgeFailed = true
	c.JudgeError = at.Rejected[len(at.Rejected)-1]
	c.Rubric = Rubric{}
	return at, nil
}

// Round is what one evolution round did.
type Round struct {
	Round  int `json:"round"`
	Parent int `json:"parent"`
	// Child is the Seq of the revision (-1 when there was none).
	Child int `json:"child"`
	// Outcome: admitted, dominated (discarded on arrival), evicted (did not
	// fit in the pool), duplicate (same as an earlier candidate),
	// rewrite_failed (no valid decomposition after the retries).
	Outcome  string   `json:"outcome"`
	Evicted  []int    `json:"evicted,omitempty"`
	Pool     []int    `json:"pool"`
	Attempts Attempts `json:"attempts"`
}

// Evolution is the trace of one ToMap (or ProofFlow) decomposition phase.
type Evolution struct {
	Seeds      []Attempts   `json:"seeds"`
	Candidates []*Candidate `json:"candidates"`
	Rounds     []Round      `json:"rounds,omitempty"`
	// Committed is the Seq of the decomposition handed to the executor
	// (-1: none was valid). CommittedBy: "gate" (a frontier candidate
	// reached the gate), "rounds" (the rounds ran out: the best frontier
	// candidate), "single" (ProofFlow: the one decomposition).
	Committed   int    `json:"committed"`
	CommittedBy string `json:"committed_by,omitempty"`
	RoundsUsed  int    `json:"rounds_used"`
	Pool        []int  `json:"pool"`
}

func seqs(cs []*Candidate) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Seq
	}
	return out
}

// evolveConfig is the part of Config the evolution reads.
type evolveConfig struct {
	Rounds, Pool, Seeds int
	Gate                float64
	Judge               bool // false: ProofFlow, one unjudged decomposition
}

// evolve runs the decomposition phase: Seeds seed decompositions, scored by
// the judges; then up to Rounds rounds of reflective rewriting of the
// frontier's best member, each revision scored and admitted to the pool
// (Admit: dominated discarded, at most Pool members); the gate commits as
// soon as a frontier member has every score ≥ Gate, otherwise the best
// frontier member is committed when the rounds run out. With Judge false it
// is ProofFlow's: the first seed, unjudged, committed as is.
func (s *session) evolve(ctx context.Context, ec evolveConfig) (*Evolution, *Candidate, error) {
	ev := &Evolution{Committed: -1}
	var pool []*Candidate
	seen := map[string]*Candidate{}
	newCand := func(d Decomposition, origin string, parent int) *Candidate {
		c := &Candidate{Seq: len(ev.Candidates), Origin: origin, Parent: parent, Decomposition: d, Hash: d.Hash()}
		ev.Candidates = append(ev.Candidates, c)
		seen[c.Hash] = c
		return c
	}
	for k := 0; k < max(ec.Seeds, 1); k++ {
		d, at, ok, err := s.decompose(ctx, k)
		ev.Seeds = append(ev.Seeds, at)
		if err != nil {
			return ev, nil, err
		}
		if !ok {
			continue
		}
		if !ec.Judge {
			c := newCand(d, "seed"+strconv.Itoa(k), -1)
			ev.Committed, ev.CommittedBy, ev.Pool = c.Seq, "single", []int{c.Seq}
			return ev, c, nil
		}
		if _, dup := seen[d.Hash()]; dup {
			continue
		}
		c := newCand(d, "seed"+strconv.Itoa(k), -1)
		if _, err := s.judge(ctx, c); err != nil {
			return ev, nil, err
		}
		pool, _, _ = Admit(pool, c, ec.Pool)
	}
	ev.Pool = seqs(pool)
	if len(pool) == 0 {
		return ev, nil, nil
	}
	if g := Gate(pool, ec.Gate); g != nil {
		ev.Committed, ev.CommittedBy = g.Seq, "gate"
		return ev, g, nil
	}
	tried := map[int]int{} // parent Seq → revisions that did not get in
	pr := s.r.prompts
	for r := 1; r <= ec.Rounds; r++ {
		ev.RoundsUsed = r
		parent := Best(Frontier(pool))
		rd := Round{Round: r, Parent: parent.Seq, Child: -1}
		sc := parent.Rubric.Scores
		data := struct {
			problemData
			Candidate                                                string
			Faithful, Provable, LeanFriendly                         string
			FaithfulCritique, ProvableCritique, LeanFriendlyCritique string
			Tried                                                    int
		}{s.problemData(), parent.Decomposition.JSON(),
			fmtScore(sc[0]), fmtScore(sc[1]), fmtScore(sc[2]),
			critique(parent, 0), critique(parent, 1), critique(parent, 2), tried[parent.Seq]}
		msgs := []llm.Message{{Role: "system", Content: pr.System(RoleRewriter)}, {Role: "user", Content: pr.render("rewrite", data)}}
		d, at, ok, err := s.askDecomposition(ctx, RoleRewriter, "rewrite/round"+strconv.Itoa(r), msgs, r)
		rd.Attempts = at
		if err != nil {
			return ev, nil, err
		}
		switch {
		case !ok:
			rd.Outcome = "rewrite_failed"
			tried[parent.Seq]++
		case seen[d.Hash()] != nil:
			rd.Outcome = "duplicate"
			rd.Child = seen[d.Hash()].Seq
			tried[parent.Seq]++
		default:
			c := newCand(d, "round"+strconv.Itoa(r), parent.Seq)
			rd.Child = c.Seq
			if _, err := s.judge(ctx, c); err != nil {
				return ev, nil, err
			}
			var admitted bool
			var evicted []*Candidate
			dominated := false
			for _, o := range pool {
				if Dominates(o.Rubric.Scores, c.Rubric.Scores) {
					dominated = true
				}
			}
			pool, admitted, evicted = Admit(pool, c, ec.Pool)
			rd.Evicted = seqs(evicted)
			switch {
			case admitted:
				rd.Outcome = "admitted"
			case dominated:
				rd.Outcome = "dominated"
			default:
				rd.Outcome = "evicted"
			}
			if !admitted {
				tried[parent.Seq]++
			}
		}
		rd.Pool = seqs(pool)
		ev.Rounds = append(ev.Rounds, rd)
		ev.Pool = rd.Pool
		if g := Gate(pool, ec.Gate); g != nil {
			ev.Committed, ev.CommittedBy = g.Seq, "gate"
			return ev, g, nil
		}
	}
	best := Best(Frontier(pool))
	ev.Committed, ev.CommittedBy = best.Seq, "rounds"
	return ev, best, nil
}

func fmtScore(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func critique(c *Candidate, i int) string {
	if c.JudgeFailed {
		return "(the judge gave no usable verdict)"
	}
	if c.Rubric.Critiques[i] == "" {
		return "(no critique)"
	}
	return c.Rubric.Critiques[i]
}
