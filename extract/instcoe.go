package extract

import "strings"

// Coercions to a type through the run's CoeSort instances. Where Lean
// expects a type and is given a term X of a bundled structure (X :
// ModuleCat R, X : CompHaus), it inserts ↥X, which elaboration unfolds to
// the instance's function applied (Lean's expandCoe): ModuleCat.carrier X
// for `instance : CoeSort (ModuleCat R) (Type v) := ⟨ModuleCat.carrier⟩`,
// X.toTop for CompHausLike's ⟨fun X => X.toTop⟩ — itself a term of a
// bundled structure (TopCat), coerced again: TopCat.carrier X.toTop. The
// name generator then names what the coercion became (Mathlib's
// instExtremallyDisconnectedCarrierToTopTrueOfProjective).

// coeSortFn is one CoeSort instance: the type it coerces (pat, over the
// instance's binders vars) and its function.
type coeSortFn struct {
	vars map[string]bool
	pat  *tnode
	fn   *tnode
}

// abbrevDef is an abbreviation's value over its binders' names.
type abbrevDef struct {
	params []string
	val    *tnode
}

// coeSorts returns the run's CoeSort coercions of a type whose head is
// the constant head (resolved).
func (n *instNamer) coeSorts(head string) []coeSortFn {
	n.coeOnce.Do(func() {
		n.coeIdx = map[string][]coeSortFn{}
		for _, d := range n.coeInsts {
			s := n.declSig(d)
			if s == nil {
				continue
			}
			h, args := appHead(stripParam(s.res))
			if h == nil || h.op != 'c' || len(args) != 2 {
				continue
			}
			ah, _ := appHead(stripParam(args[0]))
			if ah == nil || ah.op != 'c' || !ah.res {
				continue
			}
			vars := map[string]bool{}
			for _, b := range s.bs {
				if b.name != "" {
					vars[b.name] = true
				}
			}
			fn := n.coeFunction(d, vars)
			if fn == nil {
				continue
			}
			n.coeIdx[ah.name] = append(n.coeIdx[ah.name], coeSortFn{vars: vars, pat: args[0], fn: fn})
		}
	})
	return n.coeIdx[head]
}

// coeFunction reads a CoeSort instance's function from its code: `:= ⟨f⟩`,
// `:= { coe := f }` or `where coe xs := e` (fun xs => e); nil otherwise.
func (n *instNamer) coeFunction(d *pdecl, vars map[string]bool) *tnode {
	ts := lexSeq(d.row.Code)
	p := &tparser{s: ts, end: len(ts.text), nots: n.nots}
	depth, start, end := 0, -1, len(ts.text)
	var params []string
	for i := 0; i < len(ts.text) && start < 0; i++ {
		switch t := ts.text[i]; t {
		case "(", "[", "{", "⦃":
			depth++
		case ")", "]", "}", "⦄":
			depth--
		case ":=":
			if depth != 0 || i+1 >= len(ts.text) {
				continue
			}
			switch ts.text[i+1] {
			case "⟨":
				start, end = i+2, p.closeOf(i+1)
			case "{":
				for k := i + 2; k+1 < p.closeOf(i+1); k++ {
					if ts.text[k] == "coe" && ts.text[k+1] == ":=" {
						start, end = k+2, p.closeOf(i+1)
						break
					}
				}
			}
			if start < 0 {
				return nil
			}
		case "where":
			if depth != 0 {
				continue
			}
			for k := i + 1; k < len(ts.text); k++ {
				if ts.text[k] != "coe" {
					continue
				}
				for j := k + 1; j < len(ts.text); j++ {
					if ts.text[j] == ":=" {
						start = j + 1
						break
					}
					if ts.kinds[j] != TokIdent {
						return nil // a typed binder: not read
					}
					params = append(params, ts.text[j])
				}
				break
			}
			if start < 0 {
				return nil
			}
		}
	}
	if start < 0 || start >= end || len(params) > 1 {
		return nil
	}
	locals := map[string]bool{}
	for v := range vars {
		locals[v] = true
	}
	for _, x := range params {
		locals[x] = true
	}
	fn := n.exprIn(d, ts, start, end, locals, "")
	if fn == nil {
		return nil
	}
	if len(params) == 1 {
		fn = &tnode{op: 'l', name: params[0], body: fn}
	}
	return fn
}

// exprIn parses ts[from:end] of d's code as a term where d is declared
// (its namespace, its opens as declSig reads them, their scoped
// notations) and resolves its constants, self excepted; nil if it is
// none.
func (n *instNamer) exprIn(d *pdecl, ts tokSeq, from, end int, locals map[string]bool, self string) *tnode {
	opened := openedNamespaces(d.ctx.opens)
	visNs := func(s string) bool {
		return d.resNs == s || strings.HasPrefix(d.resNs, s+".") || containsStr(opened, s)
	}
	budget := 2000
	p := &tparser{s: ts, pos: from, end: end, locals: locals, nots: n.nots, visNs: visNs, budget: &budget}
	t := p.expr()
	if t == nil || t.op == 'x' {
		return nil
	}
	n.resolveConsts(t, d.resNs, opened, locals, self)
	return t
}

// abbrevValue is an abbreviation's value (abbrev CompHaus := CompHausLike
// fun _ ↦ True), nil for other constants.
func (n *instNamer) abbrevValue(full string) *abbrevDef {
	if a, ok := n.abbrevs.get(full); ok {
		return a
	}
	var a *abbrevDef
	if d := n.decls[full]; d != nil && d.row.Kind == "abbrev" {
		a = n.readAbbrev(d)
	}
	return n.abbrevs.put(full, a)
}

func (n *instNamer) readAbbrev(d *pdecl) *abbrevDef {
	s := n.csigOf(d.row.Name)
	if s == nil {
		return nil
	}
	a := &abbrevDef{}
	locals := map[string]bool{}
	for _, b := range s.bs {
		if b.name != "" {
			a.params = append(a.params, b.name)
			locals[b.name] = true
		}
	}
	ts := lexSeq(d.row.Code)
	if i := topToken(ts.text, ":="); i >= 0 {
		if a.val = n.exprIn(d, ts, i+1, len(ts.text), locals, d.row.Name); a.val == nil {
			return nil
		}
		return a
	}
	return nil
}

// unfoldAbbrev is t with its head abbreviation unfolded (CompHaus is
// CompHausLike fun _ ↦ True), nil if its head is none or is not given
// all its parameters.
func (g *nameGen) unfoldAbbrev(t *tnode) *tnode {
	name, args, ok := g.headConst(stripParam(t))
	if !ok {
		return nil
	}
	a := g.n.abbrevValue(name)
	if a == nil || len(args) > len(a.params) {
		return nil
	}
	// explicit and implicit parameters alike: only a fully applied
	// abbreviation without parameters, or one written with all of them,
	// is unfolded
	if len(args) != len(a.params) && len(args) != 0 {
		return nil
	}
	if len(args) == 0 && len(a.params) > 0 {
		return nil
	}
	m := map[string]*tnode{}
	for i, x := range args {
		m[a.params[i]] = x
	}
	return subst(a.val, m)
}

// coeSortOf is what ↥t elaborates to when t is a term of a type with a
// CoeSort instance in the run (nil if none): the instance's function
// applied to t, a fun beta-reduced.
func (g *nameGen) coeSortOf(t *tnode) *tnode {
	ty := g.typeOf(t, 0)
	for range 3 {
		if ty == nil {
			return nil
		}
		name, _, ok := g.headConst(stripParam(ty))
		if !ok {
			return nil
		}
		for _, c := range g.n.coeSorts(name) {
			m := map[string]*tnode{}
			g.unify(c.pat, ty, c.vars, m)
			fn := subst(c.fn, m)
			if fn.op == 'l' && fn.name != "" {
				return subst(fn.body, map[string]*tnode{fn.name: t})
			}
			return &tnode{op: 'a', fn: fn, args: []*tnode{t}}
		}
		ty = g.unfoldAbbrev(ty) // CompHaus: CompHausLike's coercion
	}
	return nil
}

// Morphisms. x ⟶ y is Quiver.Hom x y, a projection of the objects'
// Quiver instance: where Lean's field notation finds no Quiver.Hom.f it
// unfolds the type through the instance (the functor category's
// `Hom F G := NatTrans F G`: f.app for f : F ⟶ G is NatTrans.app), and
// defeq unfolds it likewise.

// homClass are the classes whose instances give a Hom field.
var homClass = map[string]bool{"Quiver": true, "CategoryStruct": true, "Category": true,
	"LargeCategory": true, "SmallCategory": true}

// homOf returns the Hom field of the run's instance for objects whose
// type's head is head (resolved): its two objects' names and the type.
func (n *instNamer) homOf(head string) *abbrevDef {
	n.homOnce.Do(func() {
		n.homIdx = map[string]*abbrevDef{}
		for _, d := range n.homInsts {
			s := n.declSig(d)
			if s == nil {
				continue
			}
			_, args := appHead(stripParam(s.res))
			if len(args) != 1 {
				continue
			}
			ah, _ := appHead(stripParam(args[0]))
			if ah == nil || ah.op != 'c' || !ah.res || n.homIdx[ah.name] != nil {
				continue
			}
			if h := n.homField(d, s); h != nil {
				n.homIdx[ah.name] = h
			}
		}
	})
	return n.homIdx[head]
}

// homField reads `Hom X Y := T` (or `Hom := fun X Y => T`) in an
// instance's where-structure (the field ends at the next line that is
// not indented more than it).
func (n *instNamer) homField(d *pdecl, s *csig) *abbrevDef {
	src := d.row.Code
	toks, _ := Lex([]byte(src))
	ts := lexSeq(src)
	if len(ts.text) > len(toks) {
		return nil
	}
	where := -1
	for i := range ts.text {
		if ts.text[i] == "where" {
			where = i
			break
		}
	}
	if where < 0 {
		return nil
	}
	for i := where + 1; i < len(ts.text); i++ {
		if ts.text[i] != "Hom" || toks[i].Flags&FlagLineStart == 0 {
			continue
		}
		var params []string
		j := i + 1
		for ; j < len(ts.text) && ts.kinds[j] == TokIdent; j++ {
			params = append(params, ts.text[j])
		}
		if j >= len(ts.text) || ts.text[j] != ":=" {
			return nil
		}
		end := j + 1
		for end < len(ts.text) && !(toks[end].Flags&FlagLineStart != 0 && toks[end].Col <= toks[i].Col) {
			end++
		}
		locals := map[string]bool{}
		for _, b := range s.bs {
			if b.name != "" {
				locals[b.name] = true
			}
		}
		for _, x := range params {
			locals[x] = true
		}
		val := n.exprIn(d, ts, j+1, end, locals, "")
		if val == nil {
			return nil
		}
		if len(params) == 0 && val.op == 'l' {
			return nil // fun X Y => …: not read
		}
		if len(params) != 2 {
			return nil
		}
		return &abbrevDef{params: params, val: val}
	}
	return nil
}

// unfoldHom is x ⟶ y unfolded through the Hom field of the objects'
// instance (F ⟶ G for functors is NatTrans F G), nil if not known.
func (g *nameGen) unfoldHom(t *tnode) *tnode {
	h, args := appHead(stripParam(t))
	if h == nil || h.op != 'c' || len(args) < 2 {
		return nil
	}
	if name, ok := g.resolve(h); !ok || name != "Quiver.Hom" {
		return nil
	}
	x, y := args[len(args)-2], args[len(args)-1]
	oty := g.typeOf(x, 1)
	for range 3 {
		name, _, ok := g.headConst(stripParam(oty))
		if !ok {
			return nil
		}
		if hd := g.n.homOf(name); hd != nil {
			return subst(hd.val, map[string]*tnode{hd.params[0]: x, hd.params[1]: y})
		}
		oty = g.unfoldAbbrev(oty)
	}
	return nil
}
