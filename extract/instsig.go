package extract

import (
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Constants' signatures for the instance namer. Lean's DeclNameGen visits
// the elaborated type: an application's explicit arguments and, of its
// implicit ones, those that are types or type families (not sorts), never
// instance arguments or proofs (winnowExpr). `R ⧸ I` is
// `HasQuotient.Quotient R (B := Ideal R) I` (…QuotientIdeal…), `swap α β`
// has the implicit type arguments `α × β` and `β × α` (…ProdSwap). A
// source reader knows only the written arguments; csigOf reads the
// constant's signature (its section variables, binders and result type,
// resolved where it is declared) so that the implicit ones can be filled
// by matching the binders' types against the arguments' types.

// csig is a constant's signature: its binders in order and its type.
type csig struct {
	bs  []bnd
	res *tnode // nil: not written
}

// coreSigs are the signatures of core Lean constants instance types use
// (Lean's own text; the library's sources do not have them).
var coreSigs = map[string]string{
	"Prod":                            "(α : Type u) (β : Type v) : Type (max u v)",
	"ULift":                           "(α : Type s) : Type (max s r)",
	"Sum":                             "(α : Type u) (β : Type v) : Type (max u v)",
	"PProd":                           "(α : Sort u) (β : Sort v) : Sort (max 1 u v)",
	"PSum":                            "(α : Sort u) (β : Sort v) : Sort (max 1 u v)",
	"Function.comp":                   "{α : Sort u} {β : Sort v} {δ : Sort w} (f : β → δ) (g : α → β) : α → δ",
	"HAdd.hAdd":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HAdd α β γ] : α → β → γ",
	"HSub.hSub":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HSub α β γ] : α → β → γ",
	"HMul.hMul":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HMul α β γ] : α → β → γ",
	"HDiv.hDiv":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HDiv α β γ] : α → β → γ",
	"HMod.hMod":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HMod α β γ] : α → β → γ",
	"HPow.hPow":                       "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HPow α β γ] : α → β → γ",
	"HSMul.hSMul":                     "{α : Type u} {β : Type v} {γ : outParam (Type w)} [self : HSMul α β γ] : α → β → γ",
	"Membership.mem":                  "{α : outParam (Type u)} {γ : Type v} [self : Membership α γ] : γ → α → Prop",
	"Eq":                              "{α : Sort u} : α → α → Prop",
	"Ne":                              "{α : Sort u} (a b : α) : Prop",
	"LE.le":                           "{α : Type u} [self : LE α] : α → α → Prop",
	"LT.lt":                           "{α : Type u} [self : LT α] : α → α → Prop",
	"GE.ge":                           "{α : Type u} [LE α] (a b : α) : Prop",
	"GT.gt":                           "{α : Type u} [LT α] (a b : α) : Prop",
	"Dvd.dvd":                         "{α : Type u} [self : Dvd α] : α → α → Prop",
	"Inv.inv":                         "{α : Type u} [self : Inv α] : α → α",
	"Neg.neg":                         "{α : Type u} [self : Neg α] : α → α",
	"OfNat.ofNat":                     "{α : Type u} (n : Nat) [self : OfNat α n] : α",
	"Subtype":                         "{α : Sort u} (p : α → Prop) : Sort (max 1 u)",
	"Fin":                             "(n : Nat) : Type",
	"Option":                          "(α : Type u) : Type u",
	"List":                            "(α : Type u) : Type u",
	"Array":                           "(α : Type u) : Type u",
	"Not":                             "(a : Prop) : Prop",
	"And":                             "(a b : Prop) : Prop",
	"Or":                              "(a b : Prop) : Prop",
	"Iff":                             "(a b : Prop) : Prop",
	"Exists":                          "{α : Sort u} (p : α → Prop) : Prop",
	"Sigma":                           "{α : Type u} (β : α → Type v) : Type (max u v)",
	"PSigma":                          "{α : Sort u} (β : α → Sort v) : Sort (max 1 u v)",
	"Decidable":                       "(p : Prop) : Type",
	"DecidablePred":                   "{α : Sort u} (r : α → Prop) : Sort (max 1 u)",
	"DecidableRel":                    "{α : Sort u} {β : Sort v} (r : α → β → Prop) : Sort (max 1 u v)",
	"DecidableEq":                     "(α : Sort u) : Sort (max 1 u)",
	"Inhabited":                       "(α : Sort u) : Sort (max 1 u)",
	"Nonempty":                        "(α : Sort u) : Prop",
	"Subsingleton":                    "(α : Sort u) : Prop",
	"Setoid":                          "(α : Sort u) : Sort (max 1 u)",
	"Quotient":                        "{α : Sort u} (s : Setoid α) : Sort u",
	"Quot":                            "{α : Sort u} (r : α → α → Prop) : Sort u",
	"Coe":                             "(α : Sort u) (β : Sort v) : Sort (max (max 1 u) v)",
	"CoeSort":                         "(α : Sort u) (β : outParam (Sort v)) : Sort (max (max 1 u) (v + 1))",
	"CoeFun":                          "(α : Sort u) (γ : outParam (α → Sort v)) : Sort (max (max 1 u) (v + 1))",
	"Top.top":                         "{α : Type u} [self : Top α] : α",
	"Bot.bot":                         "{α : Type u} [self : Bot α] : α",
	"Zero.zero":                       "{α : Type u} [self : Zero α] : α",
	"One.one":                         "{α : Type u} [self : One α] : α",
	"Singleton.singleton":             "{α : outParam (Type u)} {β : Type v} [self : Singleton α β] : α → β",
	"EmptyCollection.emptyCollection": "{α : Type u} [self : EmptyCollection α] : α",
}

// sigDecls are the rows whose signatures the namer may read (not theorems
// or instances: they do not occur in instance types).
func sigDecl(d *pdecl) bool {
	switch d.row.Kind {
	case workspace.KindTheorem, workspace.KindInstance:
		return false
	}
	return true
}

// csigOf returns the signature of the constant full (nil: unknown).
func (n *instNamer) csigOf(full string) *csig {
	if s, ok := n.sigs.get(full); ok {
		return s
	}
	var s *csig
	if d := n.decls[full]; d != nil {
		s = n.declSig(d)
	} else if text, ok := coreSigs[full]; ok {
		s = n.parseSig(lexSeq(text), "", nil, false, nil, "")
	}
	return n.sigs.put(full, s)
}

// declSig reads a row's signature: its section variables' binders, then
// its own. A projection has its structure's parameters as implicit
// binders (a binder written with the field, `Quotient (A) : …`, makes one
// explicit) and the structure (instance-implicit for a class) before its
// own binders.
func (n *instNamer) declSig(d *pdecl) *csig {
	if d.twinOf != nil && d.twinAttr != "" {
		if s := n.twinSig(d); s != nil {
			return s
		}
	}
	opened := openedNamespaces(d.ctx.opens)
	if d.row.Kind == workspace.KindProjection && d.row.GeneratedFrom != nil {
		parent := n.decls[*d.row.GeneratedFrom]
		if parent == nil || parent.row.Kind == workspace.KindProjection {
			return nil // (csigOf recurses only from a field to its structure)
		}
		ps := n.csigOf(parent.row.Name)
		if ps == nil {
			return nil
		}
		// the structure's parameters are locals of the field's type
		// (functor : 𝒰.I₀ ⥤ Scheme: 𝒰.I₀ is field notation on 𝒰)
		var params []string
		for _, b := range ps.bs {
			if b.name != "" {
				params = append(params, b.name)
			}
		}
		own := n.parseSig(lexSeq(d.row.Signature), d.resNs, opened, true, params, d.row.Name)
		out := &csig{res: own.res}
		var self []*tnode
		for _, b := range ps.bs {
			if b.kind != "[" {
				b.kind = "{"
			}
			out.bs = append(out.bs, b)
			if b.name != "" && b.kind != "[" {
				self = append(self, &tnode{op: 'v', name: b.name})
			}
		}
		for _, b := range own.bs {
			if b.ty == nil {
				for k := range out.bs {
					if out.bs[k].name == b.name {
						out.bs[k].kind = "("
					}
				}
			}
		}
		kind := "("
		if parent.row.Kind == "class" || parent.row.Keyword == "class" {
			kind = "["
		}
		var sty *tnode = &tnode{op: 'c', name: parent.row.Name, res: true}
		if len(self) > 0 {
			sty = &tnode{op: 'a', fn: sty, args: self}
		}
		out.bs = append(out.bs, bnd{name: "self", ty: sty, kind: kind})
		for _, b := range own.bs {
			if b.ty != nil {
				out.bs = append(out.bs, b)
			}
		}
		return out
	}
	if d.row.Kind == workspace.KindConstructor && d.row.GeneratedFrom != nil {
		return n.ctorSig(d)
	}
	text := d.row.Signature
	if d.varSig != "" {
		text = d.varSig + text
	}
	return n.parseSig(lexSeq(text), d.resNs, opened, false, nil, d.row.Name)
}

// ctorSig is a structure constructor's signature, as Lean makes it: the
// structure's parameters implicit (instance-implicit ones kept), then
// one explicit binder per field (its projection's type), and the
// structure applied to its parameters (Opposite.op {α} (unop : α) :
// Opposite α). nil for an inductive type's constructor (its row's
// signature is its own text) or a structure whose fields are not known.
func (n *instNamer) ctorSig(d *pdecl) *csig {
	parent := n.decls[*d.row.GeneratedFrom]
	if parent == nil || parent.row.Kind != workspace.KindStructure && parent.row.Kind != workspace.KindClass {
		return nil
	}
	ps := n.csigOf(parent.row.Name)
	projs := n.fields[parent.row.Name]
	if ps == nil || len(projs) == 0 {
		return nil
	}
	out := &csig{}
	var params []*tnode
	for _, b := range ps.bs {
		if b.kind != "[" {
			b.kind = "{"
			if b.name != "" {
				params = append(params, &tnode{op: 'v', name: b.name})
			}
		}
		out.bs = append(out.bs, b)
	}
	for _, proj := range projs {
		fs := n.csigOf(proj)
		if fs == nil || fs.res == nil {
			return nil
		}
		// the projection's own binders come after its structure
		var own []bnd
		for i, b := range fs.bs {
			if b.name == "self" {
				own = fs.bs[i+1:]
			}
		}
		out.bs = append(out.bs, bnd{name: lastComponent(proj), ty: pis(own, fs.res), kind: "("})
	}
	out.res = &tnode{op: 'c', name: parent.row.Name, res: true}
	if len(params) > 0 {
		out.res = &tnode{op: 'a', fn: out.res, args: params}
	}
	return out
}

// twinSig is a to_additive/to_dual twin's signature: its source's, each
// constant that has a twin of that attribute replaced by it, as the
// attribute translates the type (AddCommGrpCat.uliftFunctor is a functor
// of AddCommGrpCat, not of CommGrpCat: its source's text names CommGrpCat).
func (n *instNamer) twinSig(d *pdecl) *csig {
	src := n.csigOf(d.twinOf.row.Name)
	if src == nil {
		return nil
	}
	m := n.translations[d.twinAttr]
	out := &csig{res: translateConsts(src.res, m)}
	for _, b := range src.bs {
		b.ty = translateConsts(b.ty, m)
		out.bs = append(out.bs, b)
	}
	return out
}

// translateConsts copies t with its resolved constants renamed by m.
func translateConsts(t *tnode, m map[string]string) *tnode {
	if t == nil {
		return nil
	}
	c := *t
	if c.op == 'c' && c.res {
		if to, ok := m[c.name]; ok {
			c.name = to
		}
	}
	tr := func(x *tnode) *tnode { return translateConsts(x, m) }
	c.mapChildren(tr)
	c.asc = tr(t.asc)
	c.recvTerm = tr(t.recvTerm)
	return &c
}

// mapChildren replaces c's function, domain, body and arguments (a copy
// of another node's) by f of each: the part of a term walk that copying
// maps share (translateConsts, subst).
func (c *tnode) mapChildren(f func(*tnode) *tnode) {
	c.fn, c.dom, c.body = f(c.fn), f(c.dom), f(c.body)
	if len(c.args) > 0 {
		args := make([]*tnode, len(c.args))
		for i, a := range c.args {
			args[i] = f(a)
		}
		c.args = args
	}
}

// parseSig parses binders and a type (after a top-level colon; a
// projection's signature without one is its type), resolving constants in
// namespace ns with opened open.
// A declaration's own name (self) is not in scope in its header: Lean
// adds the constant after elaborating it (Quiver.Hom.op's type `op Y ⟶
// op X` is about Opposite.op, not about itself).
func (n *instNamer) parseSig(ts tokSeq, ns string, opened []string, proj bool, outer []string, self string) *csig {
	end, colon, depth := len(ts.text), -1, 0
	for i, t := range ts.text {
		switch t {
		case "(", "[", "{", "⦃", "⟨":
			depth++
		case ")", "]", "}", "⦄", "⟩":
			depth--
		}
		if depth != 0 {
			continue
		}
		if t == ":" && colon < 0 {
			colon = i
		}
		if t == "extends" || t == "where" || t == ":=" || t == "|" {
			end = i
			break
		}
	}
	if colon < 0 && proj && (end == 0 || ts.text[0] != "(" && ts.text[0] != "{" && ts.text[0] != "[") {
		colon = -2 // the whole text is the type
	}
	locals := map[string]bool{}
	for _, o := range outer {
		locals[o] = true
	}
	budget := 5000
	visNs := func(s string) bool { return ns == s || strings.HasPrefix(ns, s+".") || containsStr(opened, s) }
	bend := end
	if colon >= 0 {
		bend = colon
	} else if colon == -2 {
		bend = 0
	}
	var bs []bnd
	for range 2 { // again, with every binder's name known
		p := &tparser{s: ts, end: bend, locals: locals, nots: n.nots, visNs: visNs, budget: &budget}
		bs = p.binderList(map[string]bool{})
		for _, b := range bs {
			if b.name != "" {
				locals[b.name] = true
			}
		}
	}
	s := &csig{bs: bs}
	if colon != -1 {
		from := colon + 1
		if colon == -2 {
			from = 0
		}
		p := &tparser{s: ts, pos: from, end: end, locals: locals, nots: n.nots, visNs: visNs, budget: &budget}
		s.res = p.expr()
	}
	r := func(t *tnode) { n.resolveConsts(t, ns, opened, locals, self) }
	for i := range s.bs {
		r(s.bs[i].ty)
	}
	r(s.res)
	return s
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// resolveConsts resolves a signature's constants where it is declared.
func (n *instNamer) resolveConsts(t *tnode, ns string, opened []string, locals map[string]bool, self string) {
	if t == nil {
		return
	}
	if t.op == 'c' && !t.res && t.recv == "" && t.scope != nil {
		var sopened []string
		for _, o := range t.scope.opens {
			sopened = append(sopened, o.name)
		}
		if full, ok := n.resolveExcept(t.name, t.scope.ns, sopened, self); ok {
			t.name, t.res = full, true
		}
	}
	if t.op == 'c' && !t.res && t.recv == "" {
		if full, ok := n.resolveExcept(t.name, ns, opened, self); ok {
			t.name, t.res = full, true
		} else if autoBound(t.name) {
			t.op = 'v' // an auto-bound implicit
		}
	}
	n.resolveConsts(t.fn, ns, opened, locals, self)
	n.resolveConsts(t.dom, ns, opened, locals, self)
	n.resolveConsts(t.body, ns, opened, locals, self)
	n.resolveConsts(t.asc, ns, opened, locals, self)
	for _, a := range t.args {
		n.resolveConsts(a, ns, opened, locals, self)
	}
}

// resolveIn finds the constant id names in namespace ns with opened open.
func (n *instNamer) resolveIn(id, ns string, opened []string) (string, bool) {
	return n.resolveExcept(id, ns, opened, "")
}

// resolveExcept is resolveIn where the constant self is not declared yet.
func (n *instNamer) resolveExcept(id, ns string, opened []string, self string) (string, bool) {
	id = strings.TrimPrefix(id, "_root_.")
	for s := ns; ; s = parentNs(s) {
		if full := joinNs(s, id); full != self {
			if _, ok := n.names[full]; ok {
				return full, true
			}
			if _, ok := coreSigs[full]; ok {
				return full, true
			}
		}
		if s == "" {
			break
		}
	}
	for _, o := range opened {
		if full := joinNs(o, id); full != self {
			if _, ok := n.names[full]; ok {
				return full, true
			}
		}
	}
	return "", false
}

// stripParam drops outParam/semiOutParam/optParam around a binder's type.
func stripParam(t *tnode) *tnode {
	for t != nil && t.op == 'a' && t.fn.op == 'c' && len(t.args) >= 1 {
		switch lastComponent(t.fn.name) {
		case "outParam", "semiOutParam", "optParam", "autoParam":
			t = t.args[0]
			continue
		}
		break
	}
	return t
}

// typeFormer reports whether a binder's type is a sort or a family of
// sorts (α → Type): Lean's namer visits such implicit arguments.
func typeFormer(t *tnode) bool {
	t = stripParam(t)
	for t != nil && t.op == 'p' {
		t = t.body
	}
	return t != nil && t.op == 's'
}

// subst replaces the locals of m in t (a copy; t is not changed).
func subst(t *tnode, m map[string]*tnode) *tnode {
	if t == nil || len(m) == 0 {
		return t
	}
	if t.op == 'v' {
		if v, ok := m[t.name]; ok && v != nil {
			return v
		}
		return t
	}
	c := *t
	if c.op == 'c' && c.recv != "" {
		// x.f with x replaced: the receiver is the term put in
		if v, ok := m[c.recv]; ok && v != nil {
			if v.op == 'v' {
				c.recv = v.name
			} else {
				c.recv, c.recvTerm = "", v
			}
		}
	}
	c.mapChildren(func(x *tnode) *tnode { return subst(x, m) })
	return &c
}

// sigArgs matches an application's written arguments with a signature:
// vals are the binders' arguments (explicit ones written, implicit ones
// found by matching binder types against the arguments' types; nil where
// unknown), m the binders' names → their arguments, extra the arguments
// past the binders and doms their types (the result's arrows). A
// receiver of generalized field notation (x.f, recv) goes to the first
// explicit binder whose type is in f's namespace.
func (g *nameGen) sigArgs(sig *csig, name string, args []*tnode, recv bool, want *tnode, depth int) (vals []*tnode, m map[string]*tnode, extra, doms []*tnode, rest []bnd) {
	bs := sig.bs
	vals = make([]*tnode, len(bs))
	var recvArg *tnode
	if recv && len(args) > 0 {
		recvArg, args = args[0], args[1:]
		ns := parentNs(name)
		placed := false
		for i, b := range bs {
			if b.kind == "(" {
				if h, _ := appHead(stripParam(b.ty)); h != nil && h.op == 'c' && h.name == ns {
					vals[i], placed = recvArg, true
					break
				}
			}
		}
		if !placed {
			args = append([]*tnode{recvArg}, args...)
		}
	}
	ai := 0
	for i, b := range bs {
		if b.kind == "(" && vals[i] == nil && ai < len(args) {
			vals[i] = args[ai]
			ai++
		}
	}
	extra = args[ai:]
	// a constant given no argument is a function of its explicit binders
	// (abs has type α → α, not α: CauSeq α abs fills CauSeq's α with α,
	// not α → α). Only then: a signature may have explicit binders
	// elaboration would not (section variables Lean does not include), so
	// an application is taken to fill them all. Not a projection: in its
	// structure's fields' types a sibling field is written unapplied
	// (ShortComplex.f : X₁ ⟶ X₂ means S.X₁ ⟶ S.X₂).
	// Nor a definition delta deriving stands for applied (f for f xs).
	if d := g.n.decls[name]; len(args) == 0 && recvArg == nil && name != g.src.applied && (d == nil || d.row.Kind != workspace.KindProjection) {
		for _, b := range bs {
			if b.kind == "(" {
				rest = append(rest, b)
			}
		}
	}
	vars := map[string]bool{}
	m = map[string]*tnode{}
	for i, b := range bs {
		if b.name != "" {
			vars[b.name] = true
			if vals[i] != nil {
				m[b.name] = vals[i]
			}
		}
	}
	for i, b := range bs {
		if b.kind == "(" && vals[i] != nil {
			g.unify(b.ty, g.typeOf(vals[i], depth+1), vars, m)
		}
	}
	for r := explicitPi(sig.res, vars); len(doms) < len(extra) && r != nil && r.op == 'p'; r = explicitPi(r.body, vars) {
		doms = append(doms, r.dom)
	}
	for k, d := range doms {
		g.unify(d, g.typeOf(extra[k], depth+1), vars, m)
	}
	// a binder fixed by unification has a type that may fix others: X = F
	// in Epi {C} {X Y : C} (f : X ⟶ Y) gives C = the type of F
	var implicitTys []bnd // in order: unification keeps the first binding
	for _, b := range bs {
		if b.kind != "(" && b.kind != "[" && b.name != "" && b.ty != nil {
			implicitTys = append(implicitTys, b)
		}
	}
	for r := stripParam(sig.res); r != nil && r.op == 'p'; r = stripParam(r.body) {
		if (r.bkind == "{" || r.bkind == "⦃") && r.name != "" {
			implicitTys = append(implicitTys, bnd{name: r.name, ty: r.dom})
		}
	}
	for range 2 {
		for _, b := range implicitTys {
			if v := m[b.name]; v != nil && depth < 2 {
				g.unify(b.ty, g.typeOf(v, depth+1), vars, m)
			}
		}
	}
	g.fillOutParams(bs, vars, m)
	if want != nil {
		r := sig.res
		for range extra {
			if r = explicitPi(r, vars); r != nil && r.op == 'p' {
				r = r.body
			}
		}
		g.unify(pis(rest, explicitPi(r, vars)), want, vars, m)
	}
	for i, b := range bs {
		if vals[i] == nil && b.name != "" {
			vals[i] = m[b.name]
		}
	}
	return vals, m, extra, doms, rest
}

// winnowSig is winnowExpr's application case with the head's signature:
// the explicit arguments that are not proofs, and the implicit ones that
// are types or type families but not sorts.
func (g *nameGen) winnowSig(t *tnode, name string, sig *csig, expected *tnode) *wnode {
	want := t.asc
	if want == nil {
		want = expected
	}
	vals, m, extra, doms, _ := g.sigArgs(sig, name, g.recvArgs(t.fn, t.args), t.fn.recv != "" || t.fn.recvTerm != nil, want, 0)
	w := wmk(&wnode{op: 'c', name: name})
	for i, b := range sig.bs {
		switch b.kind {
		case "(":
			if vals[i] == nil || g.propType(subst(b.ty, m)) {
				continue
			}
			// a binder without a written type (auto-bound `(R M)`) is a
			// type as far as Lean's namer sees it: its coercion to a
			// type (↥S) is named
			ty := subst(stripParam(b.ty), m)
			w = g.app(w, g.winnowAt(vals[i], ty == nil || ty.op == 's', ty))
		case "[":
		default:
			if !typeFormer(b.ty) {
				continue
			}
			switch v := vals[i]; {
			case v == nil:
				w = g.app(w, wAny)
			case v.op != 's':
				// a term where a type is expected is coerced (R := ↥K₀
				// from algebraMap K₀ L₀ : ↥K₀ →+* ↥L₀)
				ty := stripParam(b.ty)
				w = g.app(w, g.winnowAt(v, ty != nil && ty.op == 's', nil))
			}
		}
	}
	for k, a := range extra {
		var ty *tnode
		if k < len(doms) {
			ty = subst(stripParam(doms[k]), m)
		}
		if g.propType(ty) {
			continue
		}
		w = g.app(w, g.winnowAt(a, ty != nil && ty.op == 's', ty))
	}
	return w
}

// typeOf infers a term's type from ascriptions, the locals' types and
// constants' signatures (nil: unknown).
func (g *nameGen) typeOf(t *tnode, depth int) *tnode {
	if t == nil || depth > 6 {
		return nil
	}
	// memoised per term: a term's type is asked for by every application
	// around it (exponential in the nesting otherwise)
	if ty, ok := g.types[t]; ok {
		return ty
	}
	// resolving a field on a term asks for the term's type afresh (depth
	// 0): the nesting bounds it as a whole
	if g.nesting > 24 {
		return nil
	}
	g.nesting++
	ty := g.typeOf1(t, depth)
	g.nesting--
	if g.types == nil {
		g.types = map[*tnode]*tnode{}
	}
	g.types[t] = ty
	return ty
}

func (g *nameGen) typeOf1(t *tnode, depth int) *tnode {
	if t.asc != nil {
		return t.asc
	}
	switch t.op {
	case 'v':
		return g.ltypeT[t.name]
	case 'o':
		return &tnode{op: 's', name: "Type"}
	case 'l':
		// fun i => I i (⨅ i, I i is iInf fun i => I i): a function into
		// its body's type, which fills iInf's α (its domain is not known)
		if b := g.typeOf(t.body, depth+1); b != nil {
			return &tnode{op: 'p', dom: &tnode{op: 'x'}, body: b}
		}
		return nil
	case 'c', 'a':
		h, args := appHead(t)
		if h == nil {
			return nil
		}
		if h.op == 'v' {
			ty := g.ltypeT[h.name]
			for range args {
				if ty = stripParam(ty); ty == nil || ty.op != 'p' {
					return nil
				}
				ty = ty.body
			}
			return ty
		}
		if h.op != 'c' {
			return nil
		}
		name, ok := g.resolve(h)
		if !ok {
			return nil
		}
		sig := g.n.csigOf(name)
		if sig == nil || sig.res == nil {
			return nil
		}
		_, m, extra, _, rest := g.sigArgs(sig, name, g.recvArgs(h, args), h.recv != "" || h.recvTerm != nil, nil, depth)
		r := sig.res
		for range extra {
			if r = explicitPi(r, nil); r == nil || r.op != 'p' {
				return nil
			}
			r = r.body
		}
		// a function of the explicit binders no argument filled (abs
		// unapplied: α → α)
		return subst(pis(rest, explicitPi(r, nil)), m)
	}
	return nil
}

// unify matches a binder's type p (its binders vars) against an
// argument's type a, recording the binders it fixes in m.
func (g *nameGen) unify(p, a *tnode, vars map[string]bool, m map[string]*tnode) {
	p, a = stripParam(p), stripParam(a)
	if p == nil || a == nil {
		return
	}
	switch p.op {
	case 'v':
		if vars[p.name] && m[p.name] == nil {
			m[p.name] = a
		}
	case 'a':
		if a.op != 'a' || p.fn.op != 'c' || a.fn.op != 'c' {
			g.unifyUnfolded(p, a, vars, m)
			return
		}
		hp, ok1 := g.resolve(p.fn)
		ha, ok2 := g.resolve(a.fn)
		if !ok1 || !ok2 || hp != ha {
			g.unifyUnfolded(p, a, vars, m)
			return
		}
		if len(p.args) != len(a.args) {
			g.unifyExplicit(hp, p.args, a.args, vars, m)
			return
		}
		for i := range p.args {
			g.unify(p.args[i], a.args[i], vars, m)
		}
	case 'p':
		if a.op == 'p' {
			g.unify(p.dom, a.dom, vars, m)
			g.unify(p.body, a.body, vars, m)
		}
	}
}

// unifyExplicit unifies two applications of the constant head, one
// given all its parameters that are not instances (a projection's
// structure type: NatTrans C D F G) and one its explicit ones (NatTrans F
// G, as written).
func (g *nameGen) unifyExplicit(head string, ps, as []*tnode, vars map[string]bool, m map[string]*tnode) {
	full, part := ps, as
	if len(as) > len(ps) {
		full, part = as, ps
	}
	sig := g.n.csigOf(head)
	if sig == nil {
		return
	}
	var explicit []int
	k := 0
	for _, b := range sig.bs {
		if b.kind == "[" || b.name == "" {
			continue
		}
		if b.kind == "(" {
			explicit = append(explicit, k)
		}
		k++
	}
	if k != len(full) || len(explicit) != len(part) {
		return
	}
	for i, e := range explicit {
		if len(as) > len(ps) {
			g.unify(part[i], full[e], vars, m)
		} else {
			g.unify(full[e], part[i], vars, m)
		}
	}
}

// unifyUnfolded unifies p with a's abbreviation unfolded, as Lean's
// defeq check unfolds it (CompHausLike P against CompHaus fixes P := fun _
// ↦ True), or a morphism type through its objects' Hom field (NatTrans F
// G against F ⟶ G).
func (g *nameGen) unifyUnfolded(p, a *tnode, vars map[string]bool, m map[string]*tnode) {
	if g.unfolds > 3 {
		return
	}
	u := g.unfoldAbbrev(a)
	if u == nil {
		u = g.unfoldHom(a)
	}
	if u != nil {
		g.unfolds++
		g.unify(p, u, vars, m)
		g.unfolds--
	}
}

// propType reports whether a type is a proposition (its head's signature
// ends in Prop): an argument of that type is a proof, which Lean's namer
// does not visit.
func (g *nameGen) propType(t *tnode) bool {
	for t != nil && t.op == 'p' {
		t = t.body
	}
	name, args, ok := g.headConst(t)
	if !ok {
		return false
	}
	sig := g.n.csigOf(name)
	if sig == nil {
		return false
	}
	explicit := 0
	for _, b := range sig.bs {
		if b.kind == "(" {
			explicit++
		}
	}
	r := explicitPi(sig.res, nil)
	for k := len(args) - explicit; k > 0 && r != nil && r.op == 'p'; k-- {
		r = explicitPi(r.body, nil)
	}
	return r != nil && r.op == 's' && r.name == "Prop"
}

// implicitTypes reports whether a signature has implicit binders that are
// types (a constant written alone, ⊤, still has those arguments).
func (s *csig) implicitTypes() bool {
	for _, b := range s.bs {
		if b.kind != "(" && b.kind != "[" && typeFormer(b.ty) {
			return true
		}
	}
	return false
}

// explicitPi skips the implicit and instance ∀s of a type (a field's
// ∀ {X Y Z : obj}, (X ⟶ Y) → …: an application's arguments fill its
// explicit ones), adding their names to vars (unification fills them).
func explicitPi(t *tnode, vars map[string]bool) *tnode {
	for t = stripParam(t); t != nil && t.op == 'p' && (t.bkind == "{" || t.bkind == "[" || t.bkind == "⦃"); t = stripParam(t.body) {
		if vars != nil && t.name != "" {
			vars[t.name] = true
		}
	}
	return t
}

// outParamClass are the classes whose parameters after the first are
// outParams of it: FunLike F α β (DFunLike's α and β are outParams),
// EquivLike E α β.
var outParamClass = map[string]bool{"FunLike": true, "DFunLike": true, "EquivLike": true}

// fillOutParams fills a signature's binders that only an outParam class's
// instance fixes: IsLocalHom {R S F} [Monoid R] [Monoid S] [FunLike F R S]
// (f : F) applied to `residue R : R →+* ResidueField R` has F =
// `RingHom R (ResidueField R)`, and Lean's instance synthesis finds
// RingHom.instFunLike : FunLike (α →+* β) α β, so R = R and S =
// `ResidueField R` — winnowExpr visits them in binder order, before F
// (instIsLocalHomResidueFieldRingHomResidue, not …RingHomResidueField…).
// The instance is the run's instance of the class whose first argument
// has F's head (the first such, in file order).
func (g *nameGen) fillOutParams(bs []bnd, vars map[string]bool, m map[string]*tnode) {
	for _, b := range bs {
		if b.kind != "[" {
			continue
		}
		h, args := appHead(stripParam(b.ty))
		if h == nil || h.op != 'c' || len(args) < 2 || !outParamClass[lastComponent(h.name)] {
			continue
		}
		f := args[0]
		if f.op != 'v' || m[f.name] == nil {
			continue
		}
		open := false
		for _, a := range args[1:] {
			if a.op == 'v' && vars[a.name] && m[a.name] == nil {
				open = true
			}
		}
		if !open {
			continue
		}
		ft := stripParam(m[f.name])
		fh, _ := appHead(ft)
		if fh == nil || fh.op != 'c' {
			continue
		}
		head, ok := g.resolve(fh)
		if !ok {
			continue
		}
		cls := lastComponent(h.name)
		for _, s := range g.n.outInstances(cls + " " + head) {
			_, iargs := appHead(stripParam(s.res))
			if len(iargs) != len(args) {
				continue
			}
			ivars, im := map[string]bool{}, map[string]*tnode{}
			for _, ib := range s.bs {
				if ib.name != "" {
					ivars[ib.name] = true
				}
			}
			g.unify(iargs[0], ft, ivars, im)
			for k := 1; k < len(args); k++ {
				g.unify(args[k], subst(iargs[k], im), vars, m)
			}
			break
		}
	}
}

// outInstances are the signatures of the run's instances of an outParam
// class (outParamClass) about a type headed by a constant, keyed "class
// head" (both resolved; the class by last component).
func (n *instNamer) outInstances(key string) []*csig {
	n.outOnce.Do(func() {
		n.outIdx = map[string][]*csig{}
		for cls, ds := range n.outInsts {
			for _, d := range ds {
				s := n.declSig(d)
				if s == nil {
					continue
				}
				h, args := appHead(stripParam(s.res))
				if h == nil || h.op != 'c' || len(args) < 2 {
					continue
				}
				ah, _ := appHead(stripParam(args[0]))
				if ah == nil || ah.op != 'c' {
					continue
				}
				if ah.res { // (resolved where the instance is declared)
					k := cls + " " + ah.name
					n.outIdx[k] = append(n.outIdx[k], s)
				}
			}
		}
	})
	return n.outIdx[key]
}
