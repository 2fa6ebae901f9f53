package proof

import (
	"strings"

	"github.com/driftkit/driftkit/internal/leantext"
)

// GoalOf turns a declaration's signature as written,
// "(a b : ℕ) {f : α → β} [Group G] (h : a < b) : f a = f b", into the proof
// state a proof of it starts from, as Meta.ppGoal prints it:
//
//	a b : ℕ
//	f : α → β
//	inst✝ : Group G
//	h : a < b
//	⊢ f a = f b
//
// A signature without a top-level colon is its own target.
func GoalOf(sig string) string {
	return renderGoal(goalParts(sig))
}

// goalParts splits a signature into the goal's hypotheses and target.
func goalParts(sig string) ([]string, string) {
	sig = strings.Join(strings.Fields(sig), " ")
	c := leantext.TopColon(sig)
	if c < 0 {
		return nil, sig
	}
	return binders(sig[:c]), strings.TrimSpace(sig[c+1:])
}

// renderGoal prints hypotheses and a target as Meta.ppGoal does.
func renderGoal(hyps []string, target string) string {
	var b strings.Builder
	for _, h := range hyps {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	b.WriteString("⊢ ")
	b.WriteString(target)
	return b.String()
}

// binders splits a binder list into hypotheses "names : type"; an
// anonymous instance binder [C] becomes "inst✝ : C", a bare name "x✝".
func binders(s string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range s {
		switch r {
		case '(', '{', '[', '⦃':
			if depth == 0 {
				start = i
			}
			depth++
		case ')', '}', ']', '⦄':
			depth--
			if depth == 0 && start >= 0 {
				open := s[start : start+len(string([]rune(s[start:])[0]))]
				inner := strings.TrimSpace(s[start+len(open) : i])
				out = append(out, hypothesis(inner, open == "["))
				start = -1
			}
		}
	}
	return out
}

func hypothesis(inner string, inst bool) string {
	c := leantext.TopColon(inner)
	if c < 0 {
		if inst {
			return "inst✝ : " + inner
		}
		return inner + "✝ : Sort _"
	}
	names, typ := strings.TrimSpace(inner[:c]), strings.TrimSpace(inner[c+1:])
	if ci := strings.Index(typ, ":="); ci >= 0 { // an optional argument's default
		typ = strings.TrimSpace(typ[:ci])
	}
	return names + " : " + typ
}
