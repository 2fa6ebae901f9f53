package extract

import (
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// derivingCommand makes the instances of a standalone
// `deriving instance C₁ args, C₂ for T₁, T₂ xs` command (one per class and
// target), named as Lean ≥ 4.23 names them. Lean's elabDeriving
// (src/Lean/Elab/Deriving/Basic.lean) delta-derives when a target is a
// definition or a term (`SplittingField f`) and otherwise runs the class's
// deriving handler; both end in the instance-name generator applied to
// `C args (T xs)` in the namespace where the command is written —
// processDefDeriving calls NameGen.mkBaseNameWithSuffix on the instance's
// type, a handler elaborates an anonymous `instance : C (T …)` there — so
// which of the two applies does not change the name and need not be known
// here. Each row carries the instance type (derivedSrc) and
// nameInstances names it with the anonymous instances: in namespace
// Polynomial.SplittingField, `deriving instance Algebra R for
// SplittingField f` is Polynomial.SplittingField.instAlgebra (the
// namespace prefix that is a declaration names nothing; R and f are
// locals), a name MathlibTest refers to.
//
// Under older rules the name depended on the kind of the target (a
// definition's was T's name with "inst" before its last component and C
// after it, a handler's the generator's), which the reader cannot know
// before resolution: no rows are made, as before.
func (p *fileParser) derivingCommand(c Command, k int) {
	if p.src.InstanceNames != InstanceNamesV48 || p.src.deltaDerivingOld {
		return
	}
	f := p.f
	end := c.End
	if end > k && f.is(end-1, "in") && f.toks[end-1].Kind == TokIdent {
		end--
	}
	forIdx := f.topLevel(k+2, end, "for")
	if forIdx < 0 {
		return
	}
	classes := f.derivingItems(k+2, forIdx)
	targets := f.derivingItems(forIdx+1, end)
	ctx := p.context()
	for _, t := range targets {
		if f.toks[t[0]].Kind != TokIdent || termKeywords[f.text(t[0])] {
			continue
		}
		for _, it := range classes {
			it[0] = f.skipExpose(it[0], it[1])
			if it[0] >= it[1] || f.toks[it[0]].Kind != TokIdent || termKeywords[f.text(it[0])] {
				continue
			}
			p.derivedByCommand(c, end, it, f.itemBinders(k+2, forIdx, it[0]), t, ctx)
		}
	}
}

// derivedByCommand appends the row of one class item it and one target t
// of a `deriving instance` command.
func (p *fileParser) derivedByCommand(c Command, end int, it [2]int, binders [][2]int, t [2]int, ctx *scopeCtx) {
	f := p.f
	loc := p.baseLocals()
	head := f.text(t[0])
	sig := derivedSig(f.tokSeq(it[0], it[1]), f.tokSeq(t[0], t[1]))
	if len(binders) > 0 {
		sig = f.forallPrefix(binders, sig)
	}
	row := workspace.Declaration{
		Library: p.src.Library, Revision: p.src.Revision, Keyword: "deriving instance", Kind: workspace.KindInstance,
		Module: p.module, Path: p.path, LineStart: f.toks[c.Start].Line, LineEnd: f.toks[end-1].Line,
		Namespace: p.ns, Code: f.span(c.Start, end), Signature: sig.render()[2:],
		Visibility: workspace.VisibilityPublic, Exposed: true,
		Name: fullName(p.ns, f.deltaInstName(it[0], it[1], lastComponent(head), loc)),
	}
	refs := f.collectRefs(it[0], it[1], loc, nil)
	refs = f.collectRefs(t[0], t[1], loc, refs)
	pd := &pdecl{row: row, ctx: ctx, resNs: p.ns, sigRefs: refs}
	pd.inst = p.instSrcOf(sig, 0)
	if lastComponent(f.text(it[0])) == "ToExpr" && it[1] == it[0]+1 && t[1] == t[0]+1 {
		pd.inst.toLevel = head
	}
	p.res.decls = append(p.res.decls, pd)
}

// derivedSig is the instance type `: C args (T xs)` a deriving command
// asks for: the target replaces the class item's first `_`, or comes
// after its arguments (Lean's mkInst tries the class's explicit
// parameters that are still holes), parenthesised when it is applied.
func derivedSig(cls, target tokSeq) tokSeq {
	sig := tokSeq{text: []string{":"}, kinds: []TokKind{TokSymbol}, space: []bool{true}}
	put := func(s string, k TokKind, space bool) {
		sig.text, sig.kinds, sig.space = append(sig.text, s), append(sig.kinds, k), append(sig.space, space)
	}
	putTarget := func() {
		if len(target.text) > 1 {
			put("(", TokSymbol, true)
		}
		for i, s := range target.text {
			put(s, target.kinds[i], target.space[i] && i > 0 || i == 0 && len(target.text) == 1)
		}
		if len(target.text) > 1 {
			put(")", TokSymbol, false)
		}
	}
	hole := false
	for i, s := range cls.text {
		if s == "_" && !hole {
			putTarget()
			hole = true
			continue
		}
		put(s, cls.kinds[i], cls.space[i] || i == 0)
	}
	if !hole {
		putTarget()
	}
	return sig
}

// render writes the tokens with a space where the source had one.
func (s tokSeq) render() string {
	var b strings.Builder
	for i, t := range s.text {
		if i > 0 && s.space[i] {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// topLevel is the index of the first token word in [i, end) outside
// brackets, or -1.
func (f *file) topLevel(i, end int, word string) int {
	depth := 0
	for m := i; m < end; m++ {
		if dd := f.depthDelta(m); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(m, word) {
			return m
		}
	}
	return -1
}

// skipExpose skips a class item's `@[expose]` (Lean 4.22's derivingClass).
func (f *file) skipExpose(i, end int) int {
	if i < end && f.is(i, "@[") {
		if cl := f.matchBracket(i); cl > i && cl < end {
			return cl + 1
		}
	}
	return i
}

// itemBinders returns the hypotheses written before a class item's last
// top-level arrow (derivingItems reads the item after it): `[DiscreteTopology
// A] → CompactSpace _` (Mathlib's PontryaginDual) has [DiscreteTopology A].
// Lean's processDefDeriving elaborates the item, opens its ∀ with
// forallTelescope and closes the instance over what the value uses, so a
// hypothesis the type does not mention is a binder the namer names "Of…":
// PontryaginDual.instCompactSpaceOfDiscreteTopology. [k, end) is the
// command's class list, it the index of the item's class.
func (f *file) itemBinders(k, end, it int) [][2]int {
	start := k
	depth := 0
	for m := k; m < it; m++ {
		if dd := f.depthDelta(m); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(m, ",") {
			start = m + 1
		}
	}
	var out [][2]int
	s := start
	depth = 0
	for m := start; m < it; m++ {
		if dd := f.depthDelta(m); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(m, "→") {
			if s < m {
				out = append(out, [2]int{s, m})
			}
			s = m + 1
		}
	}
	return out
}

// forallPrefix writes sig (`: C (T)`) as `: ∀ binders, C (T)`: a bracketed
// hypothesis (`[C a]`, `(x : α)`, `{x}`) as written, another (`P →`) as
// `(_ : P)`.
func (f *file) forallPrefix(binders [][2]int, sig tokSeq) tokSeq {
	out := tokSeq{text: []string{":", "∀"}, kinds: []TokKind{TokSymbol, TokSymbol}, space: []bool{true, true}}
	put := func(s string, k TokKind, space bool) {
		out.text, out.kinds, out.space = append(out.text, s), append(out.kinds, k), append(out.space, space)
	}
	for _, b := range binders {
		seg := f.tokSeq(b[0], b[1])
		bracketed := (f.is(b[0], "[") || f.is(b[0], "(") || f.is(b[0], "{") || f.is(b[0], "⦃")) && f.matchBracket(b[0]) == b[1]-1
		if !bracketed {
			put("(", TokSymbol, true)
			put("_", TokSymbol, false)
			put(":", TokSymbol, true)
		}
		for i, s := range seg.text {
			put(s, seg.kinds[i], seg.space[i] || i == 0 && bracketed)
		}
		if !bracketed {
			put(")", TokSymbol, false)
		}
	}
	put(",", TokSymbol, false)
	for i := 1; i < len(sig.text); i++ { // after sig's ":"
		put(sig.text[i], sig.kinds[i], sig.space[i])
	}
	return out
}
