package lean4export

import (
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/extract/elab"
)

// maxSignature bounds a rendered signature: types of some generated
// definitions are huge, and the row only needs to be readable.
const maxSignature = 2000

// explicitArgs records which parameters of a constant are explicit, so that
// applications print without their implicit and instance arguments, as Lean
// shows them.
type explicitArgs struct {
	mask uint64
	n    uint8
}

// printer renders an elaborated type without notation: applications with
// their explicit arguments only, binders by name, sorts as Prop/Type/Sort.
// It is what a row's signature holds when there is no source text.
type printer struct {
	im    *importer
	sb    strings.Builder
	ctx   []string // binder names, innermost last
	limit int
	steps int
}

func (im *importer) explicitOf(typ uint32) explicitArgs {
	var ea explicitArgs
	e := typ
	for i := 0; i < 64; i++ {
		k := im.ex.kindOf(e)
		if k == exMData {
			e = im.ex.a.get(e)
			continue
		}
		if k != exForall {
			break
		}
		if im.ex.bi(e) == biDefault {
			ea.mask |= 1 << uint(ea.n)
		}
		ea.n++
		e = im.ex.b.get(e)
	}
	return ea
}

// binderName is the name a binder prints with: macro scopes (x._@.M._hyg.3)
// are dropped, and a binder with none is "x".
func (im *importer) binderName(n uint32) (string, bool) {
	s := im.names.full(n)
	accessible := true
	if i := strings.Index(s, "._@."); i >= 0 {
		s, accessible = s[:i], false
	}
	if s == "" {
		return "x", false
	}
	return s, accessible
}

// signature renders a declaration type as `binders : type`: the leading
// named ∀s become binders, the rest is the type.
func (im *importer) signature(typ uint32) string {
	p := &printer{im: im, limit: maxSignature}
	e := typ
	for p.sb.Len() < p.limit {
		k := im.ex.kindOf(e)
		if k == exMData {
			e = im.ex.a.get(e)
			continue
		}
		if k != exForall {
			break
		}
		name, ok := im.binderName(im.ex.c.get(e))
		if !ok {
			break
		}
		open, close := "(", ")"
		switch im.ex.bi(e) {
		case biImplicit:
			open, close = "{", "}"
		case biStrictImplicit:
			open, close = "⦃", "⦄"
		case biInstImplicit:
			open, close = "[", "]"
		}
		if p.sb.Len() > 0 {
			p.sb.WriteByte(' ')
		}
		p.sb.WriteString(open)
		if close != "]" || !strings.HasPrefix(name, "inst") {
			p.sb.WriteString(name)
			p.sb.WriteString(" : ")
		}
		p.expr(im.ex.a.get(e), 0)
		p.sb.WriteString(close)
		p.ctx = append(p.ctx, name)
		e = im.ex.b.get(e)
	}
	if p.sb.Len() > 0 {
		p.sb.WriteByte(' ')
	}
	p.sb.WriteString(": ")
	p.expr(e, 0)
	s := p.sb.String()
	if len(s) > p.limit {
		cut := p.limit
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + " …"
	}
	return s
}

// precedence levels: 0 top, 1 arrow/binder body, 2 application argument
func (p *printer) expr(e uint32, prec int) {
	p.steps++
	if p.sb.Len() > p.limit || p.steps > 20000 {
		return
	}
	im := p.im
	switch im.ex.kindOf(e) {
	case exBVar:
		i := int(im.ex.a.get(e))
		if i < len(p.ctx) {
			p.sb.WriteString(p.ctx[len(p.ctx)-1-i])
		} else {
			p.sb.WriteString("#" + strconv.Itoa(i))
		}
	case exSort:
		p.sort(im.ex.a.get(e), prec)
	case exConst:
		n, _ := elab.Normalize(im.names.full(im.ex.a.get(e)))
		p.sb.WriteString(n)
	case exApp:
		var args []uint32
		f := e
		for im.ex.kindOf(f) == exApp && len(args) < 256 {
			args = append(args, im.ex.b.get(f))
			f = im.ex.a.get(f)
		}
		var ea explicitArgs
		known := false
		if im.ex.kindOf(f) == exConst {
			ea, known = im.explicit[im.ex.a.get(f)]
		}
		var shown []uint32
		for i := len(args) - 1; i >= 0; i-- {
			j := len(args) - 1 - i
			if known && j < int(ea.n) && ea.mask&(1<<uint(j)) == 0 {
				continue
			}
			shown = append(shown, args[i])
		}
		if len(shown) == 0 {
			p.expr(f, prec)
			return
		}
		if prec >= 2 {
			p.sb.WriteByte('(')
		}
		p.expr(f, 2)
		for _, a := range shown {
			p.sb.WriteByte(' ')
			p.expr(a, 2)
		}
		if prec >= 2 {
			p.sb.WriteByte(')')
		}
	case exLam:
		if prec >= 1 {
			p.sb.WriteByte('(')
		}
		name, _ := im.binderName(im.ex.c.get(e))
		p.sb.WriteString("fun " + name + " ↦ ")
		p.ctx = append(p.ctx, name)
		p.expr(im.ex.b.get(e), 0)
		p.ctx = p.ctx[:len(p.ctx)-1]
		if prec >= 1 {
			p.sb.WriteByte(')')
		}
	case exForall:
		if prec >= 1 {
			p.sb.WriteByte('(')
		}
		name, named := im.binderName(im.ex.c.get(e))
		budget := 4096
		if named && im.usesBVar(im.ex.b.get(e), 0, &budget) {
			p.sb.WriteString("∀ (" + name + " : ")
			p.expr(im.ex.a.get(e), 0)
			p.sb.WriteString("), ")
		} else {
			p.expr(im.ex.a.get(e), 1)
			p.sb.WriteString(" → ")
		}
		p.ctx = append(p.ctx, name)
		p.expr(im.ex.b.get(e), 0)
		p.ctx = p.ctx[:len(p.ctx)-1]
		if prec >= 1 {
			p.sb.WriteByte(')')
		}
	case exLet:
		if prec >= 1 {
			p.sb.WriteByte('(')
		}
		name, _ := im.binderName(im.ex.c.get(e))
		p.sb.WriteString("let " + name + " := ")
		p.expr(im.ex.b.get(e), 0)
		p.sb.WriteString("; ")
		p.ctx = append(p.ctx, name)
		p.expr(im.ex.letBody[e], 0)
		p.ctx = p.ctx[:len(p.ctx)-1]
		if prec >= 1 {
			p.sb.WriteByte(')')
		}
	case exLit:
		if im.ex.kind.get(e)&smallNat != 0 {
			p.sb.WriteString(strconv.FormatUint(uint64(im.ex.a.get(e)), 10))
		} else {
			p.sb.WriteString("…")
		}
	case exMData:
		p.expr(im.ex.a.get(e), prec)
	case exProj:
		p.expr(im.ex.a.get(e), 2)
		p.sb.WriteString("." + strconv.Itoa(int(im.ex.c.get(e))+1))
	default:
		p.sb.WriteString("?")
	}
}

func (p *printer) sort(l uint32, prec int) {
	im := p.im
	// Sort 0 = Prop, Sort (u+1) = Type u
	switch {
	case im.levels.kind[l] == lvZero:
		p.sb.WriteString("Prop")
		return
	case im.levels.kind[l] == lvSucc:
		inner := im.levels.a[l]
		if im.levels.kind[inner] == lvZero {
			p.sb.WriteString("Type")
			return
		}
		if prec >= 2 {
			p.sb.WriteByte('(')
		}
		p.sb.WriteString("Type ")
		p.level(inner, true)
		if prec >= 2 {
			p.sb.WriteByte(')')
		}
		return
	}
	if prec >= 2 {
		p.sb.WriteByte('(')
	}
	p.sb.WriteString("Sort ")
	p.level(l, true)
	if prec >= 2 {
		p.sb.WriteByte(')')
	}
}

func (p *printer) level(l uint32, paren bool) {
	im := p.im
	// count successors: u+2
	n := 0
	for im.levels.kind[l] == lvSucc && n < 64 {
		l = im.levels.a[l]
		n++
	}
	base := ""
	switch im.levels.kind[l] {
	case lvZero:
		p.sb.WriteString(strconv.Itoa(n))
		return
	case lvParam:
		base = im.names.full(im.levels.a[l])
	case lvMax, lvIMax:
		op := "max"
		if im.levels.kind[l] == lvIMax {
			op = "imax"
		}
		if paren {
			p.sb.WriteByte('(')
		}
		p.sb.WriteString(op + " ")
		p.level(im.levels.a[l], true)
		p.sb.WriteByte(' ')
		p.level(im.levels.b[l], true)
		if paren {
			p.sb.WriteByte(')')
		}
		if n > 0 {
			p.sb.WriteString("+" + strconv.Itoa(n))
		}
		return
	}
	if n > 0 && paren {
		p.sb.WriteString("(" + base + "+" + strconv.Itoa(n) + ")")
		return
	}
	p.sb.WriteString(base)
	if n > 0 {
		p.sb.WriteString("+" + strconv.Itoa(n))
	}
}

// usesBVar reports whether bound variable depth (de Bruijn, counted from e)
// occurs in e: a named ∀ whose body does not use its variable prints as an
// arrow, as Lean shows it. When the budget runs out it answers true.
func (im *importer) usesBVar(e, depth uint32, budget *int) bool {
	for {
		*budget--
		if *budget < 0 {
			return true
		}
		switch im.ex.kindOf(e) {
		case exBVar:
			return im.ex.a.get(e) == depth
		case exApp:
			if im.usesBVar(im.ex.a.get(e), depth, budget) {
				return true
			}
			e = im.ex.b.get(e)
		case exLam, exForall:
			if im.usesBVar(im.ex.a.get(e), depth, budget) {
				return true
			}
			e, depth = im.ex.b.get(e), depth+1
		case exLet:
			if im.usesBVar(im.ex.a.get(e), depth, budget) || im.usesBVar(im.ex.b.get(e), depth, budget) {
				return true
			}
			e, depth = im.ex.letBody[e], depth+1
		case exMData, exProj:
			e = im.ex.a.get(e)
		default:
			return false
		}
	}
}
