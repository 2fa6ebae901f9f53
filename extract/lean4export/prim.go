package lean4export

// Expression kinds as stored in the expression table.
const (
	exBVar = iota + 1
	exSort
	exConst
	exApp
	exLam
	exForall
	exLet
	exLit
	exMData
	exProj
)

// Level kinds.
const (
	lvZero = iota
	lvSucc
	lvMax
	lvIMax
	lvParam
)

// Binder infos (stored in the expression table next to the kind).
const (
	biDefault = iota
	biImplicit
	biStrictImplicit
	biInstImplicit
)

// table of a primitive record
const (
	tabNone = iota
	tabName
	tabLevel
	tabExpr
)

// prim is one decoded primitive record: a name, level or expression with its
// index. For names, a is the prefix and str the component (num: a numeric
// component); for levels a and b are operands (param: a is the name); for
// expressions see exprTable.
type prim struct {
	tab     int
	id      uint32
	kind    int
	a, b, c uint32
	d       uint32 // letE body
	bi      int
	num     bool   // Name.num
	str     []byte // Name.str component, literal text
	natOK   bool   // natVal small enough to keep
	strLit  bool
	levels  int   // const: number of universe levels (ignored)
	got     uint8 // fields seen (required-field check)
	need    uint8
}

func binderInfo(s []byte) (int, bool) {
	switch string(s) {
	case "default":
		return biDefault, true
	case "implicit":
		return biImplicit, true
	case "strictImplicit":
		return biStrictImplicit, true
	case "instImplicit":
		return biInstImplicit, true
	}
	return 0, false
}

// parsePrimitive decodes a name, level or expression line. It reports
// ok=false when the line is not one (a declaration or the metadata), and
// bad=true when it is one but malformed.
func parsePrimitive(line []byte, sc *scanner) (p prim, ok bool, bad bool) {
	sc.b, sc.i, sc.bad = line, 0, false
	haveID, havePayload := false, false
	notPrim := false
	sc.object(func(k []byte) {
		if notPrim {
			sc.skip(0)
			return
		}
		switch string(k) {
		case "in", "il", "ie", "i":
			if haveID {
				sc.fail()
				return
			}
			haveID = true
			p.id = sc.uint()
			switch string(k) {
			case "in":
				setTab(&p, tabName, sc)
			case "il":
				setTab(&p, tabLevel, sc)
			case "ie":
				setTab(&p, tabExpr, sc)
			}
			return
		}
		if havePayload {
			// a second payload key: not a primitive we know
			notPrim = true
			sc.skip(0)
			return
		}
		havePayload = true
		if !payload(&p, k, sc) {
			notPrim = true
		}
	})
	if notPrim {
		return p, false, false
	}
	sc.end()
	if sc.bad {
		return p, true, true
	}
	if !haveID || !havePayload || p.tab == tabNone || p.got&p.need != p.need {
		return p, !haveID && !havePayload, true
	}
	return p, true, false
}

func setTab(p *prim, t int, sc *scanner) {
	if p.tab != tabNone && p.tab != t {
		sc.fail()
	}
	p.tab = t
}

// payload decodes the value of a primitive's kind key; false: unknown key.
func payload(p *prim, k []byte, sc *scanner) bool {
	switch string(k) {
	case "str", "num":
		namePayload(p, k, sc)
	case "succ", "max", "imax", "param":
		levelPayload(p, k, sc)
	case "const", "lam", "forallE", "letE", "proj":
		binderPayload(p, k, sc)
	case "bvar", "sort", "app", "natVal", "strVal", "mdata":
		exprPayload(p, k, sc)
	default:
		sc.skip(0)
		return false
	}
	return true
}

// namePayload reads a name record (str, num) into p.
func namePayload(p *prim, k []byte, sc *scanner) {
	switch string(k) {
	case "str":
		setTab(p, tabName, sc)
		p.need = 3
		sc.object(func(f []byte) {
			switch string(f) {
			case "pre":
				p.a = sc.uint()
				p.got |= 1
			case "str":
				p.str = append(p.str[:0], sc.str()...)
				p.got |= 2
			default:
				sc.skip(0)
			}
		})
	case "num":
		setTab(p, tabName, sc)
		p.need = 3
		p.num = true
		sc.object(func(f []byte) {
			switch string(f) {
			case "pre":
				p.a = sc.uint()
				p.got |= 1
			case "i":
				p.b = sc.uint()
				p.got |= 2
			default:
				sc.skip(0)
			}
		})
	}
}

// levelPayload reads a universe level record (succ, max, imax, param) into p.
func levelPayload(p *prim, k []byte, sc *scanner) {
	switch string(k) {
	case "succ":
		setTab(p, tabLevel, sc)
		p.kind = lvSucc
		p.a = sc.uint()
	case "max", "imax":
		setTab(p, tabLevel, sc)
		p.kind = lvMax
		if string(k) == "imax" {
			p.kind = lvIMax
		}
		if !sc.eat('[') {
			sc.fail()
			return
		}
		p.a = sc.uint()
		if !sc.eat(',') {
			sc.fail()
		}
		p.b = sc.uint()
		if !sc.eat(']') {
			sc.fail()
		}
	case "param":
		setTab(p, tabLevel, sc)
		p.kind = lvParam
		p.a = sc.uint()
	}
}

// binderPayload reads an expression record with binders or fields (const, lam, forallE, letE, proj) into p.
func binderPayload(p *prim, k []byte, sc *scanner) {
	switch string(k) {
	case "const":
		setTab(p, tabExpr, sc)
		p.kind = exConst
		p.need = 1
		sc.object(func(f []byte) {
			switch string(f) {
			case "name", "declName":
				p.a = sc.uint()
				p.got |= 1
			case "us":
				if !sc.eat('[') {
					sc.fail()
					return
				}
				if sc.eat(']') {
					return
				}
				for !sc.bad {
					sc.uint()
					p.levels++
					if sc.eat(',') {
						continue
					}
					if !sc.eat(']') {
						sc.fail()
					}
					return
				}
			default:
				sc.skip(0)
			}
		})
	case "lam", "forallE":
		setTab(p, tabExpr, sc)
		p.kind = exLam
		p.need = 7
		if string(k) == "forallE" {
			p.kind = exForall
		}
		sc.object(func(f []byte) {
			switch string(f) {
			case "type", "binderType":
				p.a = sc.uint()
				p.got |= 1
			case "body":
				p.b = sc.uint()
				p.got |= 2
			case "name", "binderName":
				p.c = sc.uint()
				p.got |= 4
			case "binderInfo":
				bi, ok := binderInfo(sc.str())
				if !ok {
					sc.fail()
				}
				p.bi = bi
			default:
				sc.skip(0)
			}
		})
	case "letE":
		setTab(p, tabExpr, sc)
		p.kind = exLet
		p.need = 15
		sc.object(func(f []byte) {
			switch string(f) {
			case "type":
				p.a = sc.uint()
				p.got |= 1
			case "value":
				p.b = sc.uint()
				p.got |= 2
			case "body":
				p.d = sc.uint()
				p.got |= 4
			case "name", "declName":
				p.c = sc.uint()
				p.got |= 8
			default:
				sc.skip(0)
			}
		})
	case "proj":
		setTab(p, tabExpr, sc)
		p.kind = exProj
		p.need = 7
		sc.object(func(f []byte) {
			switch string(f) {
			case "struct":
				p.a = sc.uint()
				p.got |= 1
			case "typeName":
				p.b = sc.uint()
				p.got |= 2
			case "idx":
				p.c = sc.uint()
				p.got |= 4
			default:
				sc.skip(0)
			}
		})
	}
}

// exprPayload reads another expression record (bvar, sort, app, mdata) or a literal (natVal, strVal) into p.
func exprPayload(p *prim, k []byte, sc *scanner) {
	switch string(k) {
	case "bvar":
		setTab(p, tabExpr, sc)
		p.kind = exBVar
		if sc.peek() == '{' {
			sc.object(func(f []byte) {
				if string(f) == "deBruijnIndex" {
					p.a = sc.uint()
				} else {
					sc.skip(0)
				}
			})
		} else {
			p.a = sc.uint()
		}
	case "sort":
		setTab(p, tabExpr, sc)
		p.kind = exSort
		if sc.peek() == '{' {
			sc.object(func(f []byte) {
				if string(f) == "u" {
					p.a = sc.uint()
				} else {
					sc.skip(0)
				}
			})
		} else {
			p.a = sc.uint()
		}
	case "app":
		setTab(p, tabExpr, sc)
		p.kind = exApp
		p.need = 3
		sc.object(func(f []byte) {
			switch string(f) {
			case "fn":
				p.a = sc.uint()
				p.got |= 1
			case "arg":
				p.b = sc.uint()
				p.got |= 2
			default:
				sc.skip(0)
			}
		})
	case "natVal":
		setTab(p, tabExpr, sc)
		p.kind = exLit
		var digits []byte
		if sc.peek() == '"' {
			digits = sc.str()
		} else {
			start := sc.i
			sc.number()
			digits = sc.b[start:sc.i]
		}
		if len(digits) == 0 {
			sc.fail()
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				sc.fail()
			}
		}
		if len(digits) <= 9 {
			v := uint32(0)
			for _, c := range digits {
				v = v*10 + uint32(c-'0')
			}
			p.a, p.natOK = v, true
		}
	case "strVal":
		setTab(p, tabExpr, sc)
		p.kind = exLit
		p.strLit = true
		sc.str()
	case "mdata":
		setTab(p, tabExpr, sc)
		p.kind = exMData
		p.need = 1
		sc.object(func(f []byte) {
			if string(f) == "expr" {
				p.a = sc.uint()
				p.got |= 1
			} else {
				sc.skip(0)
			}
		})
	}
}
