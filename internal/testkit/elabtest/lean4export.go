// Package elabtest writes elaborated-export fixtures from workspace rows: a
// lean4export NDJSON file and jixia declaration/symbol files whose
// constants, kinds and dependencies are those of the rows. Tests extract a
// Lean library, convert its rows with these writers and check that the
// importers give the rows back; benchmarks use Large for a Mathlib-sized
// export. It is test support, imported only by tests and benchmarks.
package elabtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Lean4exportOptions shape the export.
type Lean4exportOptions struct {
	// Format is "3.1.0" (types/ctors/recs, objects) or "3.0.0"
	// (inductiveVals/…, definitions as arrays).
	Format string
	// Aux splits the proof of every declaration with two or more proof
	// dependencies into an auxiliary name.proof_1 that the importer must
	// inline.
	Aux bool
}

// l4eWriter emits records with dense ids, hash-consing names, levels and
// expressions as lean4export does.
type l4eWriter struct {
	w      *bufio.Writer
	names  map[string]uint32
	exprs  map[string]uint32
	nName  uint32
	nLevel uint32
	nExpr  uint32
	err    error
}

func (l *l4eWriter) line(v any) {
	if l.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		l.err = err
		return
	}
	b = append(b, '\n')
	_, l.err = l.w.Write(b)
}

func (l *l4eWriter) name(n string) uint32 {
	if n == "" {
		return 0
	}
	if id, ok := l.names[n]; ok {
		return id
	}
	pre, comp := "", n
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		pre, comp = n[:i], n[i+1:]
	}
	p := l.name(pre)
	l.nName++
	id := l.nName
	l.names[n] = id
	l.line(map[string]any{"in": id, "str": map[string]any{"pre": p, "str": comp}})
	return id
}

// expr emits an expression given by its JSON payload (kind → fields) once.
func (l *l4eWriter) expr(kind string, payload any) uint32 {
	b, _ := json.Marshal(payload)
	key := kind + string(b)
	if id, ok := l.exprs[key]; ok {
		return id
	}
	id := l.nExpr
	l.nExpr++
	l.exprs[key] = id
	l.line(map[string]any{"ie": id, kind: payload})
	return id
}

func (l *l4eWriter) constE(n string) uint32 {
	return l.expr("const", map[string]any{"name": l.name(n), "us": []int{}})
}

func (l *l4eWriter) typeSort() uint32 { return l.expr("sort", 1) }

// chain is c1 c2 … cn as a left-nested application (a walk meets the
// constants in order); with no constants the bound variable x.
func (l *l4eWriter) chain(consts []string, bvar bool) uint32 {
	if len(consts) == 0 {
		if bvar {
			return l.expr("bvar", 0)
		}
		return l.typeSort()
	}
	e := l.constE(consts[0])
	for _, c := range consts[1:] {
		e = l.expr("app", map[string]any{"fn": e, "arg": l.constE(c)})
	}
	return e
}

// typeOf is ∀ (x : Type), deps…
func (l *l4eWriter) typeOf(deps []string) uint32 {
	body := l.chain(deps, true)
	return l.expr("forallE", map[string]any{"name": l.name("x"), "type": l.typeSort(), "body": body, "binderInfo": "default"})
}

// valueOf is fun (x : Type) => deps…
func (l *l4eWriter) valueOf(deps []string) uint32 {
	body := l.chain(deps, true)
	return l.expr("lam", map[string]any{"name": l.name("x"), "type": l.typeSort(), "body": body, "binderInfo": "default"})
}

// leanName is the kernel name of a row: private rows get Lean's private
// prefix.
func leanName(d *workspace.Declaration) string {
	for _, m := range d.Modifiers {
		if m == "private" {
			return "_private." + d.Module + ".0." + d.Name
		}
	}
	return d.Name
}

// WriteLean4export writes rows as a lean4export export. Structures, classes
// and inductives become inductive blocks with their constructor rows;
// projection rows become projection functions (fun self => self.i, the self
// binder instance-implicit for classes).
func WriteLean4export(w io.Writer, rows []workspace.Declaration, opt Lean4exportOptions) error {
	if opt.Format == "" {
		opt.Format = "3.1.0"
	}
	old := strings.HasPrefix(opt.Format, "3.0")
	l := &l4eWriter{w: bufio.NewWriter(w), names: map[string]uint32{}, exprs: map[string]uint32{}}
	l.line(map[string]any{"meta": map[string]any{"exporter": map[string]any{"name": "lean4export", "version": opt.Format},
		"format": map[string]any{"version": opt.Format}, "lean": map[string]any{"githash": "0", "version": "4.0.0"}}})
	l.nLevel = 1
	l.line(map[string]any{"il": 1, "succ": 0})
	byName := map[string]*workspace.Declaration{}
	ctors := map[string][]*workspace.Declaration{}
	fields := map[string][]*workspace.Declaration{}
	for i := range rows {
		d := &rows[i]
		byName[d.Name] = d
		if d.GeneratedFrom != nil {
			switch d.Kind {
			case workspace.KindConstructor:
				ctors[*d.GeneratedFrom] = append(ctors[*d.GeneratedFrom], d)
			case workspace.KindProjection:
				fields[*d.GeneratedFrom] = append(fields[*d.GeneratedFrom], d)
			}
		}
	}
	def := func(tag string, v map[string]any) {
		if old && tag != "axiom" && tag != "quot" {
			l.line(map[string]any{tag: []any{v}})
			return
		}
		l.line(map[string]any{tag: v})
	}
	for i := range rows {
		d := &rows[i]
		if d.GeneratedFrom != nil && (d.Kind == workspace.KindConstructor || d.Kind == workspace.KindProjection) {
			if p := byName[*d.GeneratedFrom]; p != nil && isType(p.Kind) {
				continue // emitted with its type
			}
		}
		name := leanName(d)
		switch d.Kind {
		case workspace.KindStructure, workspace.KindClass, workspace.KindInductive:
			typ := l.typeOf(d.StatementDeps)
			var ctorNames []uint32
			var ctorVals []map[string]any
			for ci, c := range ctors[d.Name] {
				ct := l.typeOf(c.StatementDeps)
				cn := l.name(leanName(c))
				ctorNames = append(ctorNames, cn)
				ctorVals = append(ctorVals, map[string]any{"name": cn, "levelParams": []int{}, "type": ct,
					"induct": l.name(name), "cidx": ci, "numParams": 0, "numFields": 0, "isUnsafe": false})
			}
			recName := l.name(name + ".rec")
			ind := map[string]any{"name": l.name(name), "levelParams": []int{}, "type": typ, "numParams": 0,
				"numIndices": 0, "all": []uint32{l.name(name)}, "ctors": ctorNames, "numNested": 0,
				"isRec": false, "isUnsafe": false, "isReflexive": false}
			rec := map[string]any{"name": recName, "levelParams": []int{}, "type": typ, "all": []uint32{l.name(name)},
				"numParams": 0, "numIndices": 0, "numMotives": 1, "numMinors": len(ctorNames), "rules": []any{},
				"k": false, "isUnsafe": false}
			if ctorVals == nil {
				ctorVals = []map[string]any{}
			}
			if old {
				l.line(map[string]any{"inductive": map[string]any{"inductiveVals": []any{ind}, "constructorVals": ctorVals, "recursorVals": []any{rec}}})
			} else {
				l.line(map[string]any{"inductive": map[string]any{"types": []any{ind}, "ctors": ctorVals, "recs": []any{rec}}})
			}
			bi := "default"
			if d.Kind == workspace.KindClass {
				bi = "instImplicit"
			}
			for fi, f := range fields[d.Name] {
				body := l.expr("proj", map[string]any{"typeName": l.name(name), "idx": fi, "struct": l.expr("bvar", 0)})
				val := l.expr("lam", map[string]any{"name": l.name("self"), "type": l.constE(name), "body": body, "binderInfo": bi})
				def("def", map[string]any{"name": l.name(leanName(f)), "levelParams": []int{}, "type": l.typeOf(f.StatementDeps),
					"value": val, "hints": "abbrev", "safety": "safe", "all": []uint32{l.name(leanName(f))}})
			}
		case workspace.KindAxiom:
			def("axiom", map[string]any{"name": l.name(name), "levelParams": []int{}, "type": l.typeOf(d.StatementDeps), "isUnsafe": false})
		default:
			typ := l.typeOf(d.StatementDeps)
			proof := d.ProofDeps
			if opt.Aux && len(proof) >= 2 {
				half := len(proof) / 2
				aux := name + ".proof_1"
				def("thm", map[string]any{"name": l.name(aux), "levelParams": []int{}, "type": l.typeSort(),
					"value": l.valueOf(proof[half:]), "all": []uint32{l.name(aux)}})
				proof = append(append([]string(nil), proof[:half]...), aux)
			}
			val := l.valueOf(proof)
			v := map[string]any{"name": l.name(name), "levelParams": []int{}, "type": typ, "value": val, "all": []uint32{l.name(name)}}
			switch d.Kind {
			case workspace.KindTheorem:
				def("thm", v)
			case workspace.KindOpaque:
				v["isUnsafe"] = false
				def("opaque", v)
			default:
				v["safety"] = "safe"
				v["hints"] = map[string]any{"regular": 1}
				if d.Kind == workspace.KindAbbrev {
					v["hints"] = "abbrev"
				}
				def("def", v)
			}
		}
	}
	if l.err != nil {
		return l.err
	}
	return l.w.Flush()
}

func isType(kind string) bool {
	return kind == workspace.KindStructure || kind == workspace.KindClass || kind == workspace.KindInductive
}

// ExpectedKind is the kind the lean4export importer can recover for a row:
// an export has no attributes, so instances are known by their inst… names
// only.
func ExpectedKind(d *workspace.Declaration) string {
	switch d.Kind {
	case workspace.KindInstance:
		last := d.Name[strings.LastIndexByte(d.Name, '.')+1:]
		if len(last) > 4 && strings.HasPrefix(last, "inst") && last[4] >= 'A' && last[4] <= 'Z' {
			return workspace.KindInstance
		}
		return workspace.KindDefinition
	case workspace.KindStructure, workspace.KindClass:
		return d.Kind
	}
	return d.Kind
}

// Large writes a synthetic export shaped like a big library's: decls
// declarations in a dependency order, each with a type of about typeSize
// and a value of about valueSize expression records that reuse earlier
// expressions (the hash-consed sharing of real exports) and mention earlier
// constants. It returns the number of lines written.
func Large(w io.Writer, decls, typeSize, valueSize int, seed uint64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var lines int64
	var buf []byte
	emit := func(format string, args ...any) {
		buf = fmt.Appendf(buf[:0], format, args...)
		bw.Write(buf)
		lines++
	}
	emit(`{"meta":{"exporter":{"name":"lean4export","version":"3.1.0"},"format":{"version":"3.1.0"},"lean":{"githash":"0","version":"4.0.0"}}}` + "\n")
	emit(`{"il":1,"succ":0}` + "\n")
	var nName, nExpr uint32
	newName := func(pre uint32, s string) uint32 {
		nName++
		emit(`{"in":%d,"str":{"pre":%d,"str":"%s"}}`+"\n", nName, pre, s)
		return nName
	}
	ns := []uint32{newName(0, "Mathlib"), newName(0, "Nat"), newName(0, "Set"), newName(0, "Finset")}
	x := newName(0, "x")
	newExpr := func(format string, args ...any) uint32 {
		id := nExpr
		nExpr++
		emit(`{"ie":%d,`+format+"}\n", append([]any{id}, args...)...)
		return id
	}
	sortE := newExpr(`"sort":1`)
	bv := newExpr(`"bvar":0`)
	var constExpr []uint32 // const expressions of the declared constants
	// pool holds small shared subterms (instance arguments, types: what
	// hash-consing shares across a real library); the spine of each term is
	// its own, so what one declaration reaches stays the size of its term.
	var pool []uint32
	small := func() uint32 {
		e := bv
		if len(constExpr) > 0 {
			e = constExpr[r.IntN(len(constExpr))]
		}
		for j := r.IntN(4); j > 0; j-- {
			if len(constExpr) > 0 && r.IntN(2) == 0 {
				e = newExpr(`"app":{"fn":%d,"arg":%d}`, constExpr[r.IntN(len(constExpr))], e)
			} else {
				e = newExpr(`"app":{"fn":%d,"arg":%d}`, e, bv)
			}
		}
		return e
	}
	build := func(size int) uint32 {
		e := bv
		for i := 0; i < size; i++ {
			switch k := r.IntN(10); {
			case k < 3 && len(constExpr) > 0:
				e = newExpr(`"app":{"fn":%d,"arg":%d}`, constExpr[r.IntN(len(constExpr))], e)
			case k < 6:
				var arg uint32
				if len(pool) > 0 && r.IntN(4) > 0 {
					arg = pool[r.IntN(len(pool))]
				} else {
					arg = small()
					pool = append(pool, arg)
					if len(pool) > 4096 {
						pool = pool[len(pool)-4096:]
					}
				}
				e = newExpr(`"app":{"fn":%d,"arg":%d}`, e, arg)
			case k < 8:
				e = newExpr(`"lam":{"name":%d,"type":%d,"body":%d,"binderInfo":"default"}`, x, sortE, e)
			default:
				e = newExpr(`"app":{"fn":%d,"arg":%d}`, e, bv)
			}
		}
		return e
	}
	for i := 0; i < decls; i++ {
		n := newName(ns[r.IntN(len(ns))], fmt.Sprintf("decl_%d", i))
		typ := newExpr(`"forallE":{"name":%d,"type":%d,"body":%d,"binderInfo":"implicit"}`, x, sortE, build(typeSize))
		val := build(valueSize)
		if r.IntN(2) == 0 {
			emit(`{"thm":{"name":%d,"levelParams":[],"type":%d,"value":%d,"all":[%d]}}`+"\n", n, typ, val, n)
		} else {
			emit(`{"def":{"name":%d,"levelParams":[],"type":%d,"value":%d,"hints":{"regular":1},"safety":"safe","all":[%d]}}`+"\n", n, typ, val, n)
		}
		constExpr = append(constExpr, newExpr(`"const":{"name":%d,"us":[]}`, n))
	}
	if err := bw.Flush(); err != nil {
		return lines, err
	}
	return lines, nil
}
