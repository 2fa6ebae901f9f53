package proof

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The step protocol: a harder inductive evaluation than the statement's.
// A proof is split into its top-level tactic steps, and each step's
// premise group — the proof dependencies its own text names — is one
// query, asked with the goal as it stands at that step: the theorem's
// hypotheses, the hypotheses the earlier steps introduced (`have h : T`),
// and the target (the step's own proposition for `have`/`suffices`, the
// one a `show` set, else the theorem's). Recall is averaged over the
// groups, so a lemma a late step needs counts as much as the whole first
// step's. The goal is an approximation of Lean's (intro, rw and cases
// change a target this does not follow), read from the source alone.

// Step is one top-level step of a proof.
type Step struct {
	// Text is the step as written (continuation lines included).
	Text string
	// Hyp is the hypothesis "h : T" the step adds to the later goals.
	Hyp string
	// Target is the proposition the step's own proof proves ("": the
	// current target).
	Target string
	// SetsTarget is the target of the later steps (`show T`, `suffices h : T`).
	SetsTarget string
	// Proof is the part of Text its premises are read from (a have's
	// statement is the goal, not the proof).
	Proof string
}

// ProofOf returns the proof of a declaration's code: what follows the
// signature's ":=" (ok false: the code does not contain the signature
// followed by ":=", e.g. equations or `where`).
func ProofOf(code, sig string) (string, bool) {
	i := strings.Index(code, sig)
	if i < 0 || sig == "" {
		return "", false
	}
	rest := strings.TrimLeft(code[i+len(sig):], " \t\n")
	if !strings.HasPrefix(rest, ":=") {
		return "", false
	}
	return strings.TrimSpace(rest[2:]), true
}

// Steps splits a proof into its top-level steps: a term proof is one step;
// a `by` block is split at the lines starting at the block's column.
func Steps(proof string) []Step {
	body, ok := strings.CutPrefix(proof, "by")
	if !ok || (body != "" && !unicode.IsSpace(rune(body[0]))) {
		return []Step{{Text: proof, Proof: proof}}
	}
	var texts []string
	lines := strings.Split(body, "\n")
	if first := stripComment(lines[0]); strings.TrimSpace(first) != "" {
		texts = append(texts, strings.TrimSpace(first))
	}
	base := -1
	for _, l := range lines[1:] {
		l = stripComment(l)
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		switch {
		case base < 0 || ind == base:
			base = ind
			texts = append(texts, strings.TrimSpace(l))
		case ind < base: // the block ended (termination_by, where, …)
			return classify(texts)
		case len(texts) > 0:
			texts[len(texts)-1] += "\n" + l
		}
	}
	return classify(texts)
}

func stripComment(l string) string {
	if i := strings.Index(l, "--"); i >= 0 {
		return l[:i]
	}
	return l
}

func classify(texts []string) []Step {
	out := make([]Step, 0, len(texts))
	for _, t := range texts {
		out = append(out, classifyStep(t))
	}
	return out
}

// classifyStep reads what a step states: have/replace/obtain with a type,
// suffices, show.
func classifyStep(t string) Step {
	s := Step{Text: t, Proof: t}
	kw, rest := firstWord(t)
	switch kw {
	case "have", "haveI", "replace", "obtain", "rcases":
		name, typ, proof, ok := splitHave(rest)
		if !ok {
			return s
		}
		if name == "" || strings.ContainsAny(name, "⟨(|") {
			name = "this"
		}
		s.Hyp, s.Target, s.Proof = name+" : "+typ, typ, proof
	case "suffices":
		name, typ, proof, ok := splitHave(rest)
		if !ok {
			return s
		}
		if name == "" {
			name = "this"
		}
		s.Hyp, s.SetsTarget, s.Proof = name+" : "+typ, typ, proof
	case "show":
		typ, proof, _ := strings.Cut(rest, " from ")
		if p, q, ok := strings.Cut(typ, " by "); ok && proof == "" {
			typ, proof = p, q
		}
		s.SetsTarget, s.Target, s.Proof = oneLine(typ), oneLine(typ), proof
	}
	return s
}

// splitHave splits "h (x : α) : T := proof" (or "h : T by tac" for
// suffices) into the name, T and the proof.
func splitHave(rest string) (name, typ, proof string, ok bool) {
	c := topColon(rest)
	if c < 0 {
		return "", "", "", false
	}
	name = strings.TrimSpace(rest[:c])
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	}
	after := rest[c+1:]
	if a := topAssign(after); a >= 0 {
		typ, proof = after[:a], after[a+2:]
	} else if b := strings.Index(after, " by"); b >= 0 {
		typ, proof = after[:b], after[b+3:]
	} else if f := strings.Index(after, " from "); f >= 0 {
		typ, proof = after[:f], after[f+6:]
	} else {
		typ = after
	}
	typ = oneLine(typ)
	return name, typ, proof, typ != ""
}

// topColon is the first ':' outside brackets that does not start ":=".
func topColon(s string) int {
	return topScan(s, func(i int) bool { return s[i] == ':' && !strings.HasPrefix(s[i:], ":=") })
}

// topAssign is the first ":=" outside brackets.
func topAssign(s string) int {
	return topScan(s, func(i int) bool { return strings.HasPrefix(s[i:], ":=") })
}

func topScan(s string, at func(i int) bool) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '{', '[', '⦃', '⟨':
			depth++
		case ')', '}', ']', '⦄', '⟩':
			depth--
		default:
			if depth == 0 && at(i) {
				return i
			}
		}
	}
	return -1
}

func firstWord(t string) (string, string) {
	i := strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == ':' })
	if i < 0 {
		return t, ""
	}
	return t[:i], t[i:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// idents calls fn with each identifier of s ('.'-joined, primes kept;
// leading and trailing dots trimmed).
func idents(s string, fn func(string)) {
	isID := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '\'' || r == '!' || r == '?' || (r >= '₀' && r <= '₉')
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isID(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !isID(r2) {
				break
			}
			j += n2
		}
		if w := strings.Trim(s[i:j], "."); w != "" {
			fn(w)
		}
		i = j
	}
}

// lastComponent is a name's last '.'-component.
func lastComponent(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}

// named returns the names of deps that text names: an identifier whose
// last component is a dependency's last component (`mul_comm`,
// `Nat.mul_comm`, dot notation `h.trans`, `(f x).eq_iff`), in deps' order.
func named(text string, deps []string) []string {
	want := map[string]bool{}
	idents(text, func(w string) { want[lastComponent(w)] = true })
	var out []string
	for _, d := range deps {
		if want[lastComponent(d)] {
			out = append(out, d)
		}
	}
	return out
}

// StepItems makes the step protocol's queries from the statement
// protocol's items: one per step of a theorem's proof whose text names one
// of the item's gold (importable) proof dependencies, with the same
// hidden declarations and candidates. code returns a theorem's code (""
// unknown: no steps).
func StepItems(g *Graph, items []Item, code func(name string) string) []Item {
	var out []Item
	for _, it := range items {
		proof, ok := ProofOf(code(it.Name), it.Statement)
		if !ok {
			continue
		}
		self, _ := g.ID(it.Name)
		var deps []string
		for _, d := range g.ProofDeps(self) {
			deps = append(deps, g.Name(d))
		}
		hyps, target := goalParts(it.Statement)
		var added []string // the steps' hypotheses so far
		for i, st := range Steps(proof) {
			h, t := slices.Concat(hyps, added), target
			if st.Target != "" {
				t = st.Target
			}
			if st.SetsTarget != "" && st.Target == "" { // suffices: its proof uses h for the old target
				h = append(h, st.Hyp)
			}
			if group := named(st.Proof, it.Gold); len(group) > 0 {
				step := it
				step.Name = fmt.Sprintf("%s#%d", it.Name, i+1)
				step.Statement, step.Goal, step.Gold = t, renderGoal(h, t), group
				// pp.fullNames names the constants of the goal's new parts too.
				step.Constants = slices.Clone(it.Constants)
				for _, c := range named(strings.Join(added, "\n")+"\n"+t, deps) {
					if !slices.Contains(step.Constants, c) {
						step.Constants = append(step.Constants, c)
					}
				}
				out = append(out, step)
			}
			if st.Hyp != "" && st.SetsTarget == "" {
				added = append(added, st.Hyp)
			}
			if st.SetsTarget != "" {
				target = st.SetsTarget
			}
		}
	}
	return out
}
