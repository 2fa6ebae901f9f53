package extract

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/workspace"
)

func strp(s string) *string { return &s }

// fullName returns the declared name in namespace ns, handling _root_.
func fullName(ns, name string) string {
	if strings.HasPrefix(name, "_root_.") {
		return name[len("_root_."):]
	}
	return joinNs(ns, name)
}

func parentNs(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

func lastComponent(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// decl turns a parsed declaration into rows: the declaration itself and the
// declarations Lean generates from it. The steps are what Lean does with a
// declaration, in its order: the row the generated ones copy (declRow), the
// name (declName numbers anonymous instances), the references of the
// signature, the body and the section variables (references), the
// to_additive twins, then the generated declarations (a structure's
// constructor, parent projections and fields, an inductive's constructors,
// the `where` auxiliaries, and what ext, mk_iff and simps ask for). Rows are
// appended in that order; resolution and the tables depend on it.
func (p *fileParser) decl(d *declSyntax, c Command) {
	if d.keyword == "example" {
		return
	}
	ctx := p.context()
	base := p.declRow(d)
	if d.keyword == "alias" {
		p.aliases(d, base, ctx)
		return
	}
	name, ok := p.declName(d)
	if !ok {
		return
	}
	full := fullName(p.ns, name)
	row := base
	row.Name = full
	row.Signature = p.f.span(d.sigStart, d.sigEnd)
	resNs := parentNs(full)
	if strings.HasPrefix(name, "_root_.") {
		resNs = p.ns
	}
	pd := &pdecl{row: row, ctx: ctx, resNs: resNs, protected: d.has("protected"), inst: p.pendingInst}
	p.pendingInst = nil
	if d.colonIdx >= 0 {
		pd.resultHead = p.f.resultHead(d.colonIdx, d.sigEnd)
	}
	g := &generated{p: p, f: p.f, d: d, base: base, ctx: ctx, full: full, sig: row.Signature, pd: pd,
		self:       []ref{{name: "_root_." + full}},
		binEnd:     d.sigEnd,
		structural: d.keyword == "structure" || d.keyword == "class" || strings.HasSuffix(d.keyword, "inductive"),
	}
	if d.colonIdx >= 0 {
		g.binEnd = d.colonIdx
	}
	g.references()
	p.res.decls = append(p.res.decls, pd)
	p.toAdditive(d, pd)
	switch {
	case d.keyword == "structure" || d.keyword == "class":
		g.structure()
	case strings.HasSuffix(d.keyword, "inductive"):
		g.inductive()
	}
	g.auxiliaries()
	g.fromAttributes()
	if g.structural || d.keyword == "def" || d.keyword == "abbrev" {
		g.derived()
	}
}

// derived generates the instances of a `deriving C₁, C₂` clause, named as
// Lean names them. Lean elaborates `structure A.B` (and `def A.f`) as
// `namespace A … end A` (expandDeclNamespace?), so the clause runs in the
// declaration's own namespace:
//   - a structure or inductive: the class's deriving handler elaborates an
//     anonymous `instance : C (T …)` there, so both instance-name rules give
//     inst ++ C ++ T's last component (Mathlib.Tactic.AtomM.Recurse.instReprConfig);
//   - a definition (delta deriving, Term.processDefDeriving): since Lean 4.23
//     (lean4#9800) the instance type C … (f …) is named by the instance-name
//     generator in the current namespace: the row carries deltaInstSrc and
//     nameInstances names it with the anonymous instances (notation,
//     implicit type arguments, namespace seeding, _1 for a name in use:
//     Ideal.instModuleQuotientCotangent; arguments Lean fills in by
//     unification, EquivLike (Gal p) ?E ?F, are not read; the name until
//     then, and in ParseFile, is deltaInstName's); before, f's name with "inst"
//     before its last component and C's last component after it
//     (Polynomial.instGalGroup), for a class written as a name only.
func (g *generated) derived() {
	f, d := g.f, g.d
	j := d.valEnd
	if !g.structural {
		j = f.derivingClause(d)
	}
	if j < 0 || j >= len(f.toks) || !f.is(j, "deriving") || f.is(j+1, "instance") {
		return
	}
	ns := parentNs(g.full)
	last := lastComponent(g.full)
	var loc *locals
	for _, it := range f.derivingItems(j+1, f.derivingEnd(j)) {
		cls := f.text(it[0])
		if f.toks[it[0]].Kind != TokIdent || termKeywords[cls] {
			continue
		}
		var name string
		switch {
		case g.structural:
			if it[1] != it[0]+1 {
				continue // handlers take a class name
			}
			name = "inst" + capitalize(lastComponent(cls)) + capitalize(last)
			if lastComponent(cls) == "ToExpr" && g.p.src.InstanceNames == InstanceNamesV48 && hasLevelParams(f.tokSeq(d.sigStart, j), func(i int) bool { return f.toks[d.sigStart+i].Flags&FlagLineStart != 0 }) {
				// the handler's [ToLevel.{u}] binders (Deriving/ToExpr.lean)
				name += "OfToLevel"
			}
		case g.p.src.deltaDerivingOld:
			if it[1] != it[0]+1 {
				continue // Lean < 4.23: `deriving` takes class names only
			}
			name = "inst" + last + lastComponent(cls)
		default:
			if loc == nil {
				loc = g.paramLocals()
			}
			name = f.deltaInstName(it[0], it[1], last, loc)
		}
		name = fullName(ns, name)
		x := g.gen(name, workspace.KindInstance, f.span(it[0], it[1])+" "+g.full, f.toks[it[0]].Line, f.toks[it[1]-1].Line, nil,
			append([]ref{{name: cls}}, g.self...), false)
		x.row.Code = f.span(j, it[1])
		if !g.structural && !g.p.src.deltaDerivingOld && g.p.src.InstanceNames == InstanceNamesV48 {
			x.inst = g.deltaInstSrc(it[0], it[1], ns)
		}
	}
}

// derivingClause returns the index of a definition's `deriving` (at the
// start of a line, outside brackets), or -1.
func (f *file) derivingClause(d *declSyntax) int {
	depth := 0
	for k := d.valStart; k < d.end && k < len(f.toks); k++ {
		if dd := f.depthDelta(k); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(k, "deriving") && f.toks[k].Flags&FlagLineStart != 0 {
			return k
		}
	}
	if d.end < len(f.toks) && f.is(d.end, "deriving") {
		return d.end // the reader splits commands at a line-initial `deriving`
	}
	return -1
}

// derivingEnd is the end of the deriving clause at j (a command of its own
// to the reader): the first token at the start of a line, outside brackets,
// after one that is not a comma.
func (f *file) derivingEnd(j int) int {
	depth := 0
	for k := j + 1; k < len(f.toks); k++ {
		if depth == 0 && f.toks[k].Flags&FlagLineStart != 0 && !f.is(k-1, ",") {
			return k
		}
		depth = max(depth+f.depthDelta(k), 0)
	}
	return len(f.toks)
}

// derivingItems splits the classes of a deriving clause [k, end) at its
// top-level commas; a class written as a ∀ (`[DecidableEq α] → DecidableEq _`)
// is read after its last top-level arrow.
func (f *file) derivingItems(k, end int) [][2]int {
	var out [][2]int
	if end > len(f.toks) {
		end = len(f.toks)
	}
	start, depth := k, 0
	flush := func(e int) {
		s := start
		for m := start; m < e; m++ {
			if dd := f.depthDelta(m); dd != 0 {
				depth += dd
			} else if depth == 0 && f.is(m, "→") {
				s = m + 1
			}
		}
		depth = 0
		if s < e {
			out = append(out, [2]int{s, e})
		}
	}
	for m := k; m < end; m++ {
		if dd := f.depthDelta(m); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(m, ",") {
			flush(m)
			start = m + 1
			depth = 0
		}
	}
	flush(end)
	return out
}

// deltaInstSrc is the instance type of a definition's `deriving C args`
// (tokens [i, e)) for the anonymous-instance namer (nameInstances), which
// names it as Lean ≥ 4.23 does: Term.processDefDeriving names the closure
// ∀ xs, C args (f xs) with NameGen.mkBaseNameWithSuffix "inst" in the
// namespace ns, xs the lambdas of f's value (its parameters, the section
// variables it includes among them). Lean puts f xs in the first explicit
// argument that is a hole (mkInst): the signature is `: C args` with f for
// the first `_`, or after the arguments when no `_` is written. Every x is
// bound by the closure and occurs in f xs, so f's arguments name nothing
// and no ∀ adds an "Of…": f is written without arguments, and its
// parameters are given to the namer as section variables (locals with
// types, for the notation, coercions and implicit type arguments of the
// class's arguments), not as binders — instance parameters only as
// [SetLike σ R] facts.
func (g *generated) deltaInstSrc(i, e int, ns string) *instSrc {
	f, p := g.f, g.p
	src := p.captureInstance(g.d)
	src.ns = ns
	for _, b := range f.parseBinders(g.d.sigStart, g.binEnd) {
		if b.kind == '[' {
			if b.tyEnd-b.typeStart < 50 && lastComponent(b.head) == "SetLike" {
				src.setLikes = append(src.setLikes, f.tokSeq(b.typeStart, b.tyEnd))
			}
			continue
		}
		for _, n := range b.names {
			src.vars[n] = b.head
			delete(src.varTys, n)
			if b.tyEnd > b.typeStart && b.tyEnd-b.typeStart < 200 {
				src.varTys[n] = f.tokSeq(b.typeStart, b.tyEnd)
			}
		}
	}
	// section variables only the class's arguments mention
	for _, v := range p.vars {
		if _, ok := src.vars[v.name]; ok || v.name == "" {
			continue
		}
		for m := i; m < e; m++ {
			if f.text(m) == v.name {
				src.vars[v.name] = v.head
				if v.tyEnd > v.tyStart && v.tyEnd-v.tyStart < 200 {
					src.varTys[v.name] = f.tokSeq(v.tyStart, v.tyEnd)
				}
				break
			}
		}
	}
	sig := tokSeq{text: []string{":"}, kinds: []TokKind{TokSymbol}, space: []bool{true}}
	put := func(s string, k TokKind, space bool) {
		sig.text, sig.kinds, sig.space = append(sig.text, s), append(sig.kinds, k), append(sig.space, space)
	}
	hole := false
	for m := i; m < e; m++ {
		if f.is(m, "_") && !hole {
			put(g.full, TokIdent, true)
			hole = true
			continue
		}
		put(f.text(m), f.toks[m].Kind, f.toks[m].Flags&FlagSpaceBefore != 0)
	}
	if !hole {
		put(g.full, TokIdent, true)
	}
	src.sig, src.colon, src.applied = sig, 0, g.full
	return src
}

// deltaInstName approximates Lean's name (≥ 4.23) for the instance a
// definition's `deriving C args` makes: inst ++ C ++ the constants of args
// in order (locals skipped, each once) with `_` standing for the definition,
// which comes last when no `_` is written. It is the row's name until
// nameInstances names the instance type (deltaInstSrc), and the name where
// anonymous instances are not named so (ParseFile).
func (f *file) deltaInstName(i, e int, def string, loc *locals) string {
	var b strings.Builder
	b.WriteString("inst")
	seen := map[string]bool{}
	put := func(s string) {
		if !seen[s] {
			seen[s] = true
			b.WriteString(capitalize(s))
		}
	}
	put(lastComponent(f.text(i)))
	hole := false
	for m := i + 1; m < e; m++ {
		s := f.text(m)
		switch {
		case s == "_":
			put(def)
			hole = true
		case f.toks[m].Kind != TokIdent || termKeywords[s]:
		default:
			if _, ok := loc.get(s); !ok {
				put(lastComponent(s))
			}
		}
	}
	if !hole {
		put(def)
	}
	return b.String()
}

// declRow is the row every row of the declaration starts from: where it is,
// its keyword, docstring, code (from the keyword's modifiers on, without the
// docstring), modifiers and attributes.
func (p *fileParser) declRow(d *declSyntax) workspace.Declaration {
	f := p.f
	codeStart := d.start
	for codeStart < d.kwIdx && f.toks[codeStart].Kind == TokDoc {
		codeStart++
	}
	base := workspace.Declaration{
		Library: p.src.Library, Revision: p.src.Revision, Keyword: d.keyword, Kind: kindOfKeyword[d.keyword],
		Module: p.module, Path: p.path, LineStart: f.toks[d.start].Line, LineEnd: f.toks[d.end-1].Line,
		Namespace: p.ns, Docstring: d.doc, Code: f.span(codeStart, d.end),
		Modifiers: d.mods,
	}
	for _, a := range d.attrs {
		base.Attributes = append(base.Attributes, a.name)
	}
	base.Visibility = workspace.VisibilityPublic
	if p.private(d) {
		base.Visibility = workspace.VisibilityPrivate
	}
	kind := base.Kind
	if d.keyword == "alias" {
		kind = workspace.KindDefinition // the def rule, until fixups know the target's kind
	}
	base.Exposed = p.exposed(d, kind)
	return base
}

// private is whether Lean gives d a private name: Lean.Elab.applyVisibility
// mangles the name unless Visibility.isInferredPublic holds, which outside
// the module system is "not written private" and in a module file is
// "written public, or inside a public section and not written private"
// (src/Lean/Elab/DeclModifiers.lean; the exporting flag follows the scope's
// isPublic).
func (p *fileParser) private(d *declSyntax) bool {
	if d.has("private") {
		return true
	}
	return p.res.mod.IsModule && !p.vis.public && !d.has("public")
}

// exposed is whether a row of kind made from d has its body in the public
// scope (Declaration.Exposed): every row of a non-module file; in a module
// file, exposedKind with the def rule — @[expose], or an @[expose] section
// unless @[no_expose]. An alias gets the def rule here and its kind once
// its target is known (fixups).
func (p *fileParser) exposed(d *declSyntax, kind string) bool {
	if !p.res.mod.IsModule {
		return true
	}
	expose, noExpose := false, false
	for _, a := range d.attrs {
		expose = expose || a.name == "expose"
		noExpose = noExpose || a.name == "no_expose"
	}
	return exposedKind(kind, expose || p.vis.expose && !noExpose)
}

// exposedKind is a module-file row's Exposed by its kind: theorems and
// opaques never expose their bodies, a definition does when def (the
// @[expose] rule) holds, abbrevs, instances, structures, classes,
// inductives, their constructors and projections and axioms always.
func exposedKind(kind string, def bool) bool {
	switch kind {
	case workspace.KindTheorem, workspace.KindOpaque:
		return false
	case workspace.KindDefinition:
		return def
	}
	return true
}

// declName is the declared name; an anonymous instance gets a name unique
// in the file, which nameInstances replaces with Lean's (made unique in the
// environment with _1, _2, … as Lean does). False:
// a nameless declaration that is not an instance has no row.
func (p *fileParser) declName(d *declSyntax) (string, bool) {
	name := d.name
	if name != "" {
		return name, true
	}
	if d.keyword != "instance" {
		return "", false
	}
	name = p.f.instanceName(d)
	if p.src.InstanceNames == InstanceNamesV48 {
		p.pendingInst = p.captureInstance(d)
	} else {
		// the name is made unique run-wide by nameInstances
		p.pendingInst = &instSrc{v47: name, ns: p.ns, path: p.path}
	}
	if p.instNames == nil {
		p.instNames = map[string]int{}
	}
	key := joinNs(p.ns, name)
	if n := p.instNames[key]; n > 0 {
		name = fmt.Sprintf("%s_%d", name, n)
	}
	p.instNames[key]++
	return name, true
}

// generated holds what one declaration's steps share: the declaration, its
// row, its full name and the references to itself that every generated
// declaration carries.
type generated struct {
	p          *fileParser
	f          *file
	d          *declSyntax
	base       workspace.Declaration // the row generated declarations copy
	ctx        *scopeCtx
	full       string // the declaration's full name
	sig        string // its signature
	pd         *pdecl // its row
	self       []ref  // a reference to it
	binEnd     int    // where its binders end (its colon, or the signature's end)
	structural bool   // structure, class or inductive
}

// references records the declaration's references: its signature's (and
// for a structure or inductive its fields' and parents'), its body's, and
// the section variables it includes. Locals shadow constants: universes,
// section variables, then the declaration's binders.
func (g *generated) references() {
	p, f, d, pd := g.p, g.f, g.d, g.pd
	loc := p.baseLocals()
	own := map[string]bool{}
	for _, b := range f.parseBinders(d.sigStart, g.binEnd) {
		for _, n := range b.names {
			loc.add(n, b.head)
			own[n] = true
		}
		if b.kind == '[' && b.head != "" {
			pd.instHeads = append(pd.instHeads, b.head)
		}
		if b.kind == '(' {
			ty := f.text(b.typeStart)
			sort := b.typeStart >= b.tyEnd || strings.HasPrefix(ty, "Type") || strings.HasPrefix(ty, "Sort")
			for range b.names {
				pd.paramSorts = append(pd.paramSorts, sort)
			}
		}
	}
	if g.structural {
		if d.ctorName != "" {
			loc.add(d.ctorName, "") // `mk ::` names the constructor, not a reference
		}
		for _, fl := range d.fields {
			loc.add(fl.name, "")
			// binders of the fields themselves (eq_of_mem ⦃x⦄ (hx : s x))
			for _, b := range f.parseBinders(fl.sigStart, fl.sigEnd) {
				for _, n := range b.names {
					if !own[n] {
						loc.add(n, b.head)
					}
				}
			}
		}
		loc.binderEnd = d.valEnd
		pd.sigRefs = f.collectRefs(d.sigStart, d.valEnd, loc, nil)
		for _, e := range d.extends {
			if h := f.typeHead(e[0], e[1]); h != "" {
				pd.extends = append(pd.extends, h)
			}
		}
	} else {
		loc.binderEnd = g.binEnd
		pd.sigRefs = f.collectRefs(d.sigStart, d.sigEnd, loc, nil)
	}
	loc.binderEnd = -1
	sigUsed := append([]bool(nil), loc.used...)
	if !g.structural {
		pd.bodyRefs = auxRefs(f.collectRefs(d.valStart, d.valEnd, loc, nil), d.aux, g.full)
	}
	// Lean before 4.10 included variables mentioned in theorem proofs; it
	// always did for definitions.
	used := sigUsed
	if p.oldRules || pd.row.Kind != workspace.KindTheorem {
		used = loc.used
	}
	for n := range own {
		for idx, v := range p.vars {
			if v.name == n && !sigUsed[idx] {
				used[idx] = false
			}
		}
	}
	pd.varRefs, pd.condVars = p.includedVars(used, pd)
}

// gen appends a declaration Lean generates from this one: the base row
// under another name, kind, signature and lines, without attributes.
func (g *generated) gen(name, kind, sig string, ls, le int32, doc *string, refs []ref, prot bool) *pdecl {
	r := g.base
	r.Name = name
	r.Kind = kind
	r.Signature = sig
	r.LineStart, r.LineEnd = ls, le
	r.Docstring = doc
	r.GeneratedFrom = strp(g.full)
	r.Attributes = nil
	r.Exposed = g.p.exposed(g.d, kind)
	n := &pdecl{row: r, ctx: g.ctx, resNs: parentNs(name), protected: prot, sigRefs: refs, instHeads: g.pd.instHeads}
	g.p.res.decls = append(g.p.res.decls, n)
	return n
}

// withSelf is refs after a copy of the reference to the declaration.
func (g *generated) withSelf(refs []ref) []ref {
	return append(append([]ref(nil), g.self...), refs...)
}

// paramLocals are the structure's or inductive's parameters as locals.
func (g *generated) paramLocals() *locals {
	loc := g.p.baseLocals()
	for _, b := range g.f.parseBinders(g.d.sigStart, g.binEnd) {
		for _, n := range b.names {
			loc.add(n, b.head)
		}
	}
	return loc
}

// structure generates a structure's or class's constructor, the
// projections to its parents, and its fields' projections.
func (g *generated) structure() {
	f, d, pd := g.f, g.d, g.pd
	ctor := "mk"
	if d.ctorName != "" {
		ctor = d.ctorName
	}
	c := g.gen(g.full+"."+ctor, workspace.KindConstructor, f.span(d.valStart, d.valEnd), g.base.LineStart, g.base.LineEnd, nil,
		append(append([]ref(nil), pd.sigRefs...), g.self...), false)
	c.varRefs, c.condVars = pd.varRefs, append([]condVar(nil), pd.condVars...)
	c.markPrivate(d.ctorPriv)
	params := map[string]bool{}
	for _, b := range f.parseBinders(d.sigStart, g.binEnd) {
		for _, n := range b.names {
			params[n] = true
		}
	}
	for _, e := range d.extends {
		h := f.typeHead(e[0], e[1])
		if h == "" || params[h] {
			// A parent whose head is a parameter is notation (`extends
			// A ≃ B`): Lean names its projection after the notation's
			// constant (toEquiv), which this reader cannot know without
			// elaborating; no row beats a wrong name.
			continue
		}
		pg := g.gen(g.full+".to"+lastComponent(h), workspace.KindProjection, f.span(e[0], e[1]), f.toks[e[0]].Line, f.toks[e[1]-1].Line, nil,
			g.withSelf(f.collectRefs(e[0], e[1], g.p.baseLocals(), nil)), false)
		pg.row.Code = f.span(e[0], e[1])
	}
	for _, fl := range d.fields {
		floc := g.paramLocals()
		for _, o := range d.fields {
			floc.add(o.name, "")
		}
		// the field's own binders: eq_of_mem ⦃x⦄ (hx : s x) : …
		for _, b := range f.parseBinders(fl.sigStart, fl.sigEnd) {
			for _, n := range b.names {
				floc.add(n, b.head)
			}
		}
		floc.binderEnd = fl.sigEnd
		refs := g.withSelf(f.collectRefs(fl.sigStart, fl.sigEnd, floc, nil))
		p := g.gen(g.full+"."+fl.name, workspace.KindProjection, f.span(fl.sigStart, fl.sigEnd), fl.lineStart, fl.lineEnd, fl.doc, refs, fl.protected)
		p.row.Code = f.span(fl.nameIdx, fl.valEnd) // the field's own text, not the whole structure
		p.markPrivate(fl.private)
		p.resultHead = f.resultHead(fl.sigStart, fl.sigEnd)
		p.propField = f.isPropType(fl.sigStart, fl.sigEnd)
		if d.keyword == "class" {
			p.instHeads = append(append([]string(nil), pd.instHeads...), "_root_."+g.full)
		}
	}
}

// inductive generates an inductive type's constructors.
func (g *generated) inductive() {
	f, pd := g.f, g.pd
	for _, ct := range g.d.ctors {
		cloc := g.paramLocals()
		cloc.binderEnd = ct.sigEnd
		refs := g.withSelf(f.collectRefs(ct.sigStart, ct.sigEnd, cloc, nil))
		c := g.gen(g.full+"."+ct.name, workspace.KindConstructor, f.span(ct.sigStart, ct.sigEnd), ct.lineStart, ct.lineEnd, ct.doc, refs, ct.protected)
		c.row.Code = f.span(ct.nameIdx, ct.sigEnd)
		c.varRefs, c.condVars = pd.varRefs, append([]condVar(nil), pd.condVars...)
		c.markPrivate(ct.private)
	}
}

// markPrivate makes a generated row private when its own syntax is
// written `private` (`private mk ::`, a `private` field, `| private c`):
// Lean's expandCtor, expandFields and the inductive view call
// applyVisibility with the constructor's or field's own modifiers
// (src/Lean/Elab/Structure.lean; inductiveSyntaxToView), so the name is
// mangled even when the type is public. Only the written modifier is
// modelled; otherwise the row keeps the type's visibility.
func (n *pdecl) markPrivate(written bool) {
	if written {
		n.row.Visibility = workspace.VisibilityPrivate
	}
}

// auxiliaries generates the `where` auxiliary definitions (full.go).
func (g *generated) auxiliaries() {
	f, d := g.f, g.d
	for _, a := range d.aux {
		aloc := g.p.baseLocals()
		for _, b := range f.parseBinders(a.sigStart, a.sigEnd) {
			for _, n := range b.names {
				aloc.add(n, b.head)
			}
		}
		aloc.binderEnd = a.sigEnd
		refs := f.collectRefs(a.sigStart, a.sigEnd, aloc, nil)
		aloc.binderEnd = -1
		x := g.gen(g.full+"."+a.name, workspace.KindDefinition, f.span(a.sigStart, a.sigEnd), a.lineStart, a.lineEnd, a.doc, refs, false)
		x.bodyRefs = auxRefs(f.collectRefs(a.valStart, a.valEnd, aloc, nil), d.aux, g.full)
		x.row.Code = f.span(a.nameIdx, a.valEnd)
		x.resNs = g.pd.resNs
	}
}

// fromAttributes generates what attributes ask for: @[ext] on a structure
// (ext, ext_iff), @[mk_iff] (the _iff theorem, or the name it is given);
// @[simps] only marks the declaration, its lemmas are generated at
// resolution, when the result type's fields are known.
func (g *generated) fromAttributes() {
	f, d, pd := g.f, g.d, g.pd
	for _, a := range d.attrs {
		switch a.name {
		case "ext":
			if d.keyword == "structure" || d.keyword == "class" {
				for _, suffix := range []string{"ext", "ext_iff"} {
					x := g.gen(g.full+"."+suffix, workspace.KindTheorem, g.sig, g.base.LineStart, g.base.LineEnd, nil, g.self, false)
					x.row.Attributes = []string{"ext"}
					x.varRefs, x.condVars = pd.varRefs, append([]condVar(nil), pd.condVars...)
				}
			}
		case "mk_iff":
			if g.structural {
				name := joinNs(parentNs(g.full), lowerFirst(lastComponent(g.full))+"_iff")
				if id := f.attrIdent(a); id != "" {
					name = joinNs(parentNs(g.full), id)
				}
				x := g.gen(name, workspace.KindTheorem, g.sig, g.base.LineStart, g.base.LineEnd, nil, g.withSelf(pd.sigRefs), false)
				x.varRefs, x.condVars = pd.varRefs, append([]condVar(nil), pd.condVars...)
			}
		case "simps", "simps!":
			pd.simps = true
			for j := a.start + 1; j < a.end; j++ {
				if f.is(j, "(") {
					j = f.matchBracket(j)
					continue
				}
				if f.toks[j].Kind == TokIdent {
					pd.simpsArgs = append(pd.simpsArgs, f.text(j))
				}
			}
		}
	}
}

// attrIdent returns the first identifier argument of an attribute entry.
func (f *file) attrIdent(a attrSyntax) string {
	for j := a.start + 1; j < a.end; j++ {
		if f.is(j, "(") {
			j = f.matchBracket(j)
			continue
		}
		if f.toks[j].Kind == TokIdent {
			return f.text(j)
		}
	}
	return ""
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

// auxRefs points references to where-auxiliaries (go) at their full names.
func auxRefs(refs []ref, aux []auxSyntax, full string) []ref {
	if len(aux) == 0 {
		return refs
	}
	for i, r := range refs {
		if r.recv != "" || r.sym {
			continue
		}
		head, _ := firstComponent(r.name)
		for _, a := range aux {
			if a.name == head {
				refs[i].name = "_root_." + full + "." + r.name
				break
			}
		}
	}
	return refs
}

// includedVars returns the references of the section variables a
// declaration includes: those it mentions, those their types mention, the
// `include`d ones, and instance binders whose variables are all included.
// Under Lean < 4.10 rules an unmentioned instance binder is included only if
// elaboration uses it, which is decided at resolution (cond).
func (p *fileParser) includedVars(used []bool, pd *pdecl) (refs []ref, cond []condVar) {
	if len(p.vars) == 0 {
		return nil, nil
	}
	inc := make([]bool, len(p.vars))
	copy(inc, used)
	for _, n := range p.incl {
		for i, v := range p.vars {
			if v.name == n {
				inc[i] = true
			}
		}
	}
	omitted := func(v *varBinder) bool {
		for _, o := range p.omit {
			if o == v.name && v.name != "" || v.kind == '[' && o == "["+v.head {
				return true
			}
		}
		return false
	}
	isCond := make([]bool, len(p.vars))
	for changed := true; changed; {
		changed = false
		for i, v := range p.vars {
			if !inc[i] || isCond[i] {
				continue
			}
			for _, m := range v.mentions {
				if !inc[m] {
					inc[m] = true
					changed = true
				}
			}
		}
		for i, v := range p.vars {
			if inc[i] || v.kind != '[' || omitted(v) {
				continue
			}
			all := true
			for _, m := range v.mentions {
				if !inc[m] {
					all = false
					break
				}
			}
			if all || !p.oldRules && p.funLikeOf(v, inc) {
				inc[i] = true
				isCond[i] = p.oldRules
				changed = true
			}
		}
	}
	// an instance of an outParam class (FunLike (α →+* β) α β) has its
	// section variables too: the instance namer matches its type
	// (fillOutParams)
	sigVars := !p.oldRules && pd.row.Kind != workspace.KindTheorem &&
		(pd.row.Kind != workspace.KindInstance || outParamClass[lastComponent(pd.resultHead)])
	var vs strings.Builder
	seen := map[*varBinder]bool{}
	for i, v := range p.vars {
		if !inc[i] || seen[v] {
			continue
		}
		seen[v] = true
		if sigVars {
			p.writeVarBinder(&vs, v)
		}
		if v.kind == '[' && v.head != "" && !isCond[i] {
			pd.instHeads = append(pd.instHeads, v.head)
		}
		// variables declared together share their refs slice
		if i > 0 && len(v.refs) > 0 && len(p.vars[i-1].refs) > 0 && &p.vars[i-1].refs[0] == &v.refs[0] && inc[i-1] {
			continue
		}
		if isCond[i] {
			cond = append(cond, condVar{head: v.head, refs: v.refs})
			continue
		}
		refs = append(refs, v.refs...)
	}
	pd.varSig = vs.String()
	return refs, cond
}

// funLikeOf reports whether v is an instance variable of an outParam
// class (FunLike F R S, outParamClass) about an included variable F: a
// term f : F applied (f a) elaborates through it, which makes Lean
// include it and the types it fixes — `class IsLocalHom (f : F)` after
// `variable {R S F : Type*} [Monoid R] [Monoid S] [FunLike F R S]` is
// IsLocalHom {R S F} [Monoid R] [Monoid S] [FunLike F R S] (f : F), though
// its text mentions neither R nor S (map_nonunit : IsUnit (f a) → IsUnit a).
func (p *fileParser) funLikeOf(v *varBinder, inc []bool) bool {
	if v.kind != '[' || !outParamClass[lastComponent(v.head)] || v.tyEnd <= v.tyStart+1 {
		return false
	}
	arg := p.f.text(v.tyStart + 1)
	for i := len(p.vars) - 1; i >= 0; i-- {
		if u := p.vars[i]; u.name == arg && u != v {
			return inc[i]
		}
	}
	return false
}

// writeVarBinder writes a section variable as a binder of the declarations
// that include it ({R : Type*}, [CommRing R]): the instance namer reads
// constants' signatures with them (varSig).
func (p *fileParser) writeVarBinder(b *strings.Builder, v *varBinder) {
	open, close := "(", ")"
	switch v.kind {
	case '{':
		open, close = "{", "}"
	case '[':
		open, close = "[", "]"
	}
	b.WriteString(open)
	if v.name != "" {
		b.WriteString(v.name)
		if v.tyEnd > v.tyStart {
			b.WriteString(" : ")
		}
	}
	b.WriteString(p.f.span(v.tyStart, v.tyEnd))
	b.WriteString(close)
	b.WriteByte(' ')
}

// aliases creates the rows of `alias`.
func (p *fileParser) aliases(d *declSyntax, base workspace.Declaration, ctx *scopeCtx) {
	f := p.f
	if d.aliasOf < 0 {
		return
	}
	target := f.text(d.aliasOf)
	for i, n := range d.aliasNames {
		if n == "_" || n == "" {
			continue
		}
		r := base
		r.Name = fullName(p.ns, n)
		r.Signature = f.span(d.sigStart, d.end)
		part := 0
		if d.aliasIff {
			part = i + 1
		}
		pd := &pdecl{row: r, ctx: ctx, resNs: p.ns, aliasTarget: target, aliasPart: part,
			sigRefs: []ref{{name: target}}}
		p.res.decls = append(p.res.decls, pd)
	}
}

// instanceName approximates Lean's name for an anonymous instance: "inst"
// followed by the capitalised constants of its type.
func (f *file) instanceName(d *declSyntax) string {
	var b strings.Builder
	b.WriteString("inst")
	locals := map[string]bool{}
	binEnd := d.sigEnd
	if d.colonIdx >= 0 {
		binEnd = d.colonIdx
	}
	for _, g := range f.parseBinders(d.sigStart, binEnd) {
		for _, n := range g.names {
			locals[n] = true
		}
	}
	start := d.sigStart
	if d.colonIdx >= 0 {
		start = d.colonIdx + 1
	}
	seen := map[string]bool{}
	for j := start; j < d.sigEnd; j++ {
		t := f.toks[j]
		var s string
		switch {
		case t.Kind == TokIdent:
			s = f.text(j)
			if locals[s] || termKeywords[s] || len(s) == 1 && !unicode.IsUpper(rune(s[0])) {
				continue
			}
			s = lastComponent(s)
		case f.is(j, "→"):
			s = "ForAll"
		case f.is(j, "∘"):
			s = "Comp" // Function.comp
		case f.is(j, "×"):
			s = "Prod"
		case f.is(j, "⊕"):
			s = "Sum"
		case f.is(j, "ℕ"):
			s = "Nat"
		case f.is(j, "ℤ"):
			s = "Int"
		case f.is(j, "ℚ"):
			s = "Rat"
		case f.is(j, "ℝ"):
			s = "Real"
		case f.is(j, "ℂ"):
			s = "Complex"
		default:
			continue
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		r, size := utf8.DecodeRuneInString(s)
		b.WriteString(string(unicode.ToUpper(r)) + s[size:])
	}
	return b.String()
}

// toAdditive creates the to_additive twin of a declaration, if it has one.
func (p *fileParser) toAdditive(d *declSyntax, pd *pdecl) *pdecl {
	var twins []*pdecl
	for _, a := range d.attrs {
		if a.name != "to_additive" && a.name != "to_dual" {
			continue
		}
		explicit, ok := p.f.twinSpec(a)
		if !ok {
			if explicit, ok := p.f.twinExisting(a); ok {
				// a translation to a declaration written elsewhere: no row,
				// but twins under this name's namespace follow it
				p.res.attrCmds = append(p.res.attrCmds, &attrCmd{ctx: pd.ctx, attr: a.name, name: explicit,
					names: []string{"_root_." + pd.row.Name}, existing: true})
			}
			continue
		}
		name := p.opts.naming().twinName(a.name, explicit, pd.row.Name)
		if name == pd.row.Name && pd.inst != nil {
			// an anonymous instance's twin is named with it (renameDecl):
			// its placeholder may not translate (instTopΑ) where Lean's
			// name does (OrderDual.instTopOfBot → instBotOfTop)
			name += "." + a.name
		}
		if tw := makeTwin(pd, name); tw != nil {
			tw.twinAttr, tw.twinExplicit, tw.sigAttr = a.name, explicit, a.name
			for j := a.start; j < a.end; j++ {
				tw.dontTranslate = tw.dontTranslate || p.f.is(j, "dont_translate")
			}
			p.res.decls = append(p.res.decls, tw)
			twins = append(twins, tw)
		}
	}
	if len(twins) == 0 {
		return nil
	}
	// the section variables' types, for the translation of the twins'
	// signature texts (a 1 compared with a variable of a type variable)
	for _, v := range p.vars {
		if v.name != "" {
			if pd.varTypes == nil {
				pd.varTypes = map[string]string{}
			}
			ty := p.f.tokSeq(v.tyStart, v.tyEnd).text
			pd.varTypes[v.name] = resultHead(ty)
			if h := typeHead(ty); h != "" {
				if pd.varHeads == nil {
					pd.varHeads = map[string]string{}
				}
				pd.varHeads[v.name] = h
			}
			if el := elemHead(ty); el != "" {
				if pd.varElems == nil {
					pd.varElems = map[string]string{}
				}
				pd.varElems[v.name] = el
			}
		}
	}
	return twins[0]
}

// twinSpec reads a to_additive/to_dual attribute: the explicit target name
// ("" to guess it) and false for `existing`/`self` (no new declaration)
// and `none` (a translation named like an auxiliary declaration).
func (f *file) twinSpec(a attrSyntax) (string, bool) {
	for j := a.start + 1; j < a.end; j++ {
		if f.is(j, "(") {
			j = f.matchBracket(j)
			continue
		}
		if f.toks[j].Kind == TokIdent {
			s := f.text(j)
			switch s {
			case "existing", "self", "none":
				return "", false
			case "to_additive", "to_dual", "reorder":
				continue
			}
			return s, true
		}
		if f.toks[j].Kind == TokString || f.toks[j].Kind == TokDoc {
			break
		}
	}
	return "", true
}

// twinExisting reads `[to_additive existing Name]`: the explicit name
// ("" to guess it) and whether the attribute says `existing`.
func (f *file) twinExisting(a attrSyntax) (string, bool) {
	existing := false
	for j := a.start + 1; j < a.end; j++ {
		if f.is(j, "(") {
			j = f.matchBracket(j)
			continue
		}
		if f.toks[j].Kind == TokString || f.toks[j].Kind == TokDoc {
			break
		}
		if f.toks[j].Kind != TokIdent {
			continue
		}
		switch s := f.text(j); s {
		case "existing":
			existing = true
		case "to_additive", "to_dual", "reorder", "self", "none":
		default:
			if existing {
				return s, true
			}
		}
	}
	return "", existing
}

// twinName is the name of the to_additive/to_dual twin of src: the explicit
// name replaces as many trailing components as it has, else the last
// component is translated word by word; namespaces are translated too.
func (n *Naming) twinName(attr, explicit, src string) string {
	guess, nsTr := n.GuessAdditive, n.translateNamespace
	if attr == "to_dual" {
		guess, nsTr = n.GuessDual, n.GuessDual
	}
	pre := parentNs(src)
	parts := []string{}
	if pre != "" {
		parts = strings.Split(pre, ".")
	}
	for i := range parts {
		parts[i] = nsTr(parts[i])
	}
	if explicit == "" {
		return joinNs(strings.Join(parts, "."), guess(lastComponent(src)))
	}
	if strings.HasPrefix(explicit, "_root_.") {
		return explicit[len("_root_."):]
	}
	depth := strings.Count(explicit, ".") + 1
	keep := max(len(parts)-(depth-1), 0)
	return joinNs(strings.Join(parts[:keep], "."), explicit)
}

// makeTwin returns the generated twin of pd named name (nil if the name does
// not change).
func makeTwin(pd *pdecl, name string) *pdecl {
	if name == pd.row.Name || name == "" {
		return nil
	}
	r := pd.row
	r.Name = name
	r.GeneratedFrom = strp(pd.row.Name)
	pd.twinned = true
	return &pdecl{row: r, ctx: pd.ctx, resNs: parentNs(name), protected: pd.protected, varRefs: pd.varRefs,
		sigRefs: pd.sigRefs, bodyRefs: pd.bodyRefs, twinOf: pd, condVars: append([]condVar(nil), pd.condVars...),
		instHeads: pd.instHeads, resultHead: pd.resultHead}
}

// dualWords translates order-theoretic words to their duals, approximating
// Mathlib's to_dual name guessing for the common words (Naming.Dual's
// default; read-only).
var dualWords = map[string]string{
	"bot": "top", "top": "bot", "inf": "sup", "sup": "inf", "iInf": "iSup", "iSup": "iInf", "sInf": "sSup",
	"sSup": "sInf", "min": "max", "max": "min", "Iio": "Ioi", "Ioi": "Iio", "Iic": "Ici", "Ici": "Iic",
	"Ico": "Ioc", "Ioc": "Ico", "lowerBounds": "upperBounds", "upperBounds": "lowerBounds", "bddBelow": "bddAbove",
	"bddAbove": "bddBelow", "isLUB": "isGLB", "isGLB": "isLUB", "isLeast": "isGreatest", "isGreatest": "isLeast",
	"succ": "pred", "pred": "succ", "atBot": "atTop", "atTop": "atBot", "lower": "upper", "upper": "lower",
	"minimal": "maximal", "maximal": "minimal", "isMin": "isMax", "isMax": "isMin", "isBot": "isTop", "isTop": "isBot",
	"left": "right", "right": "left", "monotone": "antitone", "antitone": "monotone", "withBot": "withTop", "withTop": "withBot",
	"sInfHom": "sSupHom", "sSupHom": "sInfHom", "infHom": "supHom", "supHom": "infHom", "lt": "gt", "gt": "lt",
	"le": "ge", "ge": "le", "below": "above", "above": "below", "orderBot": "orderTop", "orderTop": "orderBot",
}

// additiveWords translates multiplicative words to additive ones, following
// Mathlib's to_additive name guessing for the common words (Naming.Additive's
// default; read-only).
var additiveWords = map[string]string{
	"mul": "add", "one": "zero", "inv": "neg", "div": "sub", "prod": "sum", "pow": "nsmul", "zpow": "zsmul",
	"npow": "nsmul", "smul": "vadd", "monoid": "addMonoid", "group": "addGroup", "semigroup": "addSemigroup",
	"units": "addUnits", "unit": "addUnit", "finprod": "finsum", "commute": "addCommute", "semiconj": "addSemiconj",
	"opposite": "addOpposite", "torsion": "addTorsion", "submonoid": "addSubmonoid", "subgroup": "addSubgroup",
	"mulIndicator": "indicator", "mulSupport": "support", "mulSingle": "single", "lmul": "ladd",
	"oneLE": "nonneg", "oneLT": "pos", "leOne": "nonpos", "ltOne": "neg", "mulAction": "addAction",
	"magma": "addMagma", "mulOpposite": "addOpposite", "conj": "addConj", "prime": "prime", "muls": "adds",
	"multipliable": "summable", "tprod": "tsum", "hasProd": "hasSum", "mulLECancellable": "addLECancellable",
	"divs": "subs", "sMul": "vAdd", "hSMul": "hVAdd", "sMulWithZero": "sMulWithZero", "ones": "zeros", "invs": "negs", "mulEquiv": "addEquiv", "mulHom": "addHom",
	"monoidHom": "addMonoidHom", "orderOf": "addOrderOf", "exponent": "exponent", "zmultiples": "zmultiples",
	"zpowers": "zmultiples", "powers": "multiples", "coset": "coset", "period": "period", "quotient": "quotient",
	"mabs": "abs",
}

// orderAbbreviations are to_additive's fixes of translated word pairs
// (mabs_of_lt_one → abs_of_lt_zero → abs_of_neg); Naming.Abbreviations'
// default, read-only.
var orderAbbreviations = [][3]string{
	{"zero", "le", "nonneg"}, {"zero", "lt", "pos"}, {"le", "zero", "nonpos"}, {"lt", "zero", "neg"},
}

// fixAbbreviations applies n.Abbreviations to the words of a name.
func (n *Naming) fixAbbreviations(s string) string {
	if len(n.Abbreviations) == 0 || !strings.Contains(s, "_") {
		return s
	}
	words := strings.Split(s, "_")
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			done := false
			for _, ab := range n.Abbreviations {
				if words[i] == ab[0] && words[i+1] == ab[1] {
					out = append(out, ab[2])
					i++
					done = true
					break
				}
			}
			if done {
				continue
			}
		}
		out = append(out, words[i])
	}
	return strings.Join(out, "_")
}

// translateWords splits a name into words at '_' and lower→upper case
// changes and translates each word with dict, keeping its capitalisation.
func translateWords(s string, dict map[string]string) string {
	if strings.Contains(s, "_") {
		parts := strings.Split(s, "_")
		for i, p := range parts {
			parts[i] = translateWords(p, dict)
		}
		return strings.Join(parts, "_")
	}
	if t, ok := dict[s]; ok && s != "" {
		return t
	}
	if r, size := utf8.DecodeRuneInString(s); unicode.IsUpper(r) {
		if t, ok := dict[string(unicode.ToLower(r))+s[size:]]; ok {
			r2, size2 := utf8.DecodeRuneInString(t)
			return string(unicode.ToUpper(r2)) + t[size2:]
		}
	}
	var words []string
	start := 0
	rs := []rune(s)
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || rs[i] == '_' || (unicode.IsUpper(rs[i]) && !unicode.IsUpper(rs[i-1])) {
			words = append(words, string(rs[start:i]))
			if i < len(rs) && rs[i] == '_' {
				words = append(words, "_")
				start = i + 1
			} else {
				start = i
			}
		}
	}
	var b strings.Builder
	for _, w := range words {
		if w == "_" {
			b.WriteString("_")
			continue
		}
		if t, ok := dict[w]; ok && w != "" && !unicode.IsUpper([]rune(w)[0]) {
			b.WriteString(t)
			continue
		}
		lw := w
		upper := false
		if r, size := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			upper = true
			lw = string(unicode.ToLower(r)) + w[size:]
		}
		if t, ok := dict[lw]; ok {
			if upper {
				r, size := utf8.DecodeRuneInString(t)
				t = string(unicode.ToUpper(r)) + t[size:]
			}
			b.WriteString(t)
			continue
		}
		if t, ok := dict[w]; ok { // Iio, Ici: dictionary keys with capitals
			b.WriteString(t)
			continue
		}
		b.WriteString(w)
	}
	return b.String()
}

// isPropType guesses whether the type in [i, end) is a proposition: it is a
// ∀ or mentions a relation.
func (f *file) isPropType(i, end int) bool {
	for j := i; j < end; j++ {
		if f.toks[j].Kind != TokSymbol {
			continue
		}
		switch f.text(j) {
		case "∀", "=", "∈", "≤", "<", "↔", "⊆", "∉", "≠", "∃", "¬", "∧", "∨":
			return true
		}
	}
	return false
}

// simpsLemmas creates the lemmas @[simps] generates for d: one per data
// field of its result structure (name_field), or per explicit projection.
func simpsLemmas(t *Table, d *pdecl, fields map[string][]*pdecl) []*pdecl {
	var projs []string
	var projNames []string
	if len(d.simpsArgs) > 0 {
		projs = d.simpsArgs
	} else {
		typ := d.resultType
		switch {
		case typ == "Prod":
			projs = []string{"fst", "snd"}
		case typ == "":
			return nil
		case strings.HasSuffix(typ, "Hom") || strings.HasSuffix(typ, "Embedding") || strings.HasSuffix(typ, "Iso"):
			projs = []string{"apply"}
		case strings.HasSuffix(typ, "Equiv") || typ == "Equiv.Perm":
			projs = []string{"apply", "symm_apply"}
		default:
			var walk func(s string, depth int)
			walk = func(s string, depth int) {
				e := t.names[s]
				if e == nil || depth > 3 {
					return
				}
				parentProj := map[string]bool{}
				for _, p := range e.parents {
					parentProj[s+".to"+lastComponent(p)] = true
				}
				for _, fd := range fields[s] {
					if parentProj[fd.row.Name] {
						continue
					}
					if fd.propField {
						continue
					}
					if slices.Contains(projs, lastComponent(fd.row.Name)) {
						continue // a field two parents share (Subsemiring: Submonoid's and AddSubmonoid's carrier): one projection
					}
					projs = append(projs, lastComponent(fd.row.Name))
					projNames = append(projNames, fd.row.Name)
				}
				for _, p := range e.parents {
					walk(p, depth+1)
				}
			}
			walk(typ, 0)
		}
	}
	var out []*pdecl
	for i, p := range projs {
		r := d.row
		r.Name = d.row.Name + "_" + p
		r.Kind = workspace.KindTheorem
		r.GeneratedFrom = strp(d.row.Name)
		r.Attributes = []string{"simp"}
		r.Docstring = nil
		deps := append(append([]string(nil), d.row.StatementDeps...), d.row.Name)
		if i < len(projNames) {
			deps = append(deps, projNames[i])
		}
		r.StatementDeps = deps
		r.ProofDeps = []string{d.row.Name}
		out = append(out, &pdecl{row: r, ctx: d.ctx, resNs: d.resNs})
	}
	return out
}
