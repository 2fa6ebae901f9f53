package lean4export

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/workspace"
)

// declaration handles a declaration line. A malformed one is skipped with a
// warning: later records do not refer to it by line, only by name.
func (im *importer) declaration(b []byte) error {
	var rec declRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		im.warn(im.fail("%v", err))
		return nil
	}
	var err error
	switch {
	case rec.Def != nil:
		err = im.defLike(rec.Def, "def")
	case rec.Thm != nil:
		err = im.defLike(rec.Thm, "thm")
	case rec.Opaque != nil:
		err = im.defLike(rec.Opaque, "opaque")
	case rec.Axiom != nil:
		err = im.defLike(rec.Axiom, "axiom")
	case rec.Quot != nil:
		err = im.defLike(rec.Quot, "quot")
	case rec.Inductive != nil:
		err = im.inductive(rec.Inductive)
	case rec.Meta != nil:
		err = fmt.Errorf("a second metadata record")
	default:
		err = fmt.Errorf("unknown record (want a name, level, expression or declaration)")
	}
	if err != nil {
		im.warn(im.fail("%v", err))
	}
	return nil
}

func (im *importer) checkExpr(what string, e *uint32) error {
	if e == nil {
		return fmt.Errorf("%s missing", what)
	}
	if *e >= im.ex.n {
		return fmt.Errorf("%s refers to undefined expression %d", what, *e)
	}
	return nil
}

func (im *importer) checkConst(c *constVal, what string, needValue bool) error {
	if err := c.check(what); err != nil {
		return err
	}
	if *c.Name == 0 || *c.Name >= im.names.len() {
		return fmt.Errorf("%s name %d undefined", what, *c.Name)
	}
	if err := im.checkExpr(what+" type", c.Type); err != nil {
		return err
	}
	if needValue {
		if err := im.checkExpr(what+" value", c.Value); err != nil {
			return err
		}
	}
	return nil
}

// defLike handles def, thm, opaque, axiom and quot records.
func (im *importer) defLike(raw json.RawMessage, tag string) error {
	vals, err := constVals(raw)
	if err != nil {
		return fmt.Errorf("%s: %v", tag, err)
	}
	for i := range vals {
		c := &vals[i]
		needValue := tag == "def" || tag == "thm" || tag == "opaque"
		if err := im.checkConst(c, tag, needValue); err != nil {
			return err
		}
	}
	for i := range vals {
		im.constant(&vals[i], tag)
	}
	return nil
}

// constant turns one definition-like constant into a row, or into inlined
// dependencies when it is auxiliary.
func (im *importer) constant(c *constVal, tag string) {
	id := *c.Name
	im.declared[id] = true
	im.explicit[id] = im.explicitOf(*c.Type)
	full := im.names.full(id)
	name, private := elab.Normalize(full)
	if c.IsUnsafe || c.Safety == "unsafe" {
		im.stats.Unsafe++
		return
	}
	typeDeps := im.walk(*c.Type, nil)
	var valueDeps []uint32
	if c.Value != nil {
		valueDeps = im.walk(*c.Value, nil)
	}
	if im.isAux(id) {
		im.stats.Auxiliary++
		all := append(append([]uint32(nil), typeDeps...), valueDeps...)
		im.aux[id] = im.resolveIDs(id, all)
		return
	}
	d := workspace.Declaration{
		Library: im.opts.Library, Revision: im.opts.Revision, Name: name,
		Namespace: elab.Namespace(name), Signature: im.signature(*c.Type),
		StatementDeps: im.names2(im.resolveIDs(id, typeDeps)),
		ProofDeps:     im.names2(im.resolveIDs(id, valueDeps)),
	}
	if private {
		d.Modifiers = append(d.Modifiers, "private")
	}
	switch tag {
	case "thm":
		d.Kind, d.Keyword = workspace.KindTheorem, "theorem"
		if elab.IsInstanceName(name) {
			d.Kind, d.Keyword = workspace.KindInstance, "instance"
		}
	case "opaque":
		d.Kind, d.Keyword = workspace.KindOpaque, "opaque"
	case "axiom":
		d.Kind, d.Keyword = workspace.KindAxiom, "axiom"
	case "quot":
		d.Keyword = "quot"
		switch c.Kind {
		case "type":
			d.Kind = workspace.KindInductive
		case "ctor":
			d.Kind = workspace.KindConstructor
			d.GeneratedFrom = strp("Quot")
		case "ind":
			d.Kind = workspace.KindTheorem
		default:
			d.Kind = workspace.KindDefinition
		}
	default: // def
		if c.Safety == "partial" {
			d.Modifiers = append(d.Modifiers, "partial")
		}
		if s, self, ok := im.projectionOf(*c.Value); ok {
			d.Kind, d.Keyword = workspace.KindProjection, "structure"
			d.GeneratedFrom = strp(im.display(s))
			im.hasFields[s] = true
			if self == biInstImplicit {
				im.classes[s] = true
				d.Keyword = "class"
			}
			break
		}
		switch {
		case elab.IsInstanceName(name):
			d.Kind, d.Keyword = workspace.KindInstance, "instance"
		case c.hints() == "abbrev":
			d.Kind, d.Keyword = workspace.KindAbbrev, "abbrev"
		default:
			d.Kind, d.Keyword = workspace.KindDefinition, "def"
		}
	}
	im.add(d)
}

// projectionOf recognises a structure projection: fun params self => self.i.
func (im *importer) projectionOf(v uint32) (structName uint32, selfBI int, ok bool) {
	e := v
	bi := -1
	for n := 0; n < 256; n++ {
		switch im.ex.kindOf(e) {
		case exLam:
			bi = im.ex.bi(e)
			e = im.ex.b.get(e)
			continue
		case exMData:
			e = im.ex.a.get(e)
			continue
		case exProj:
			s := im.ex.a.get(e)
			if bi >= 0 && im.ex.kindOf(s) == exBVar && im.ex.a.get(s) == 0 {
				return im.ex.b.get(e), bi, true
			}
		}
		return 0, 0, false
	}
	return 0, 0, false
}

func (im *importer) add(d workspace.Declaration) {
	if err := im.sink.Add(d); err != nil {
		im.warn(err)
		return
	}
	im.stats.Declarations++
}

// inductive handles an inductive block: types, constructors, recursors.
func (im *importer) inductive(blk *inductiveBlock) error {
	types, ctors, recs := blk.Types, blk.Ctors, blk.Recs
	if len(types) == 0 {
		types, ctors, recs = blk.InductiveVals, blk.ConstructorVals, blk.RecursorVals
	}
	if len(types) == 0 {
		return fmt.Errorf("inductive block without types")
	}
	for i := range types {
		if err := im.checkConst(&types[i].constVal, "inductive", false); err != nil {
			return err
		}
	}
	for i := range ctors {
		if err := im.checkConst(&ctors[i].constVal, "constructor", false); err != nil {
			return err
		}
		if ctors[i].Induct == nil || *ctors[i].Induct >= im.names.len() {
			return fmt.Errorf("constructor without its inductive")
		}
	}
	for i := range recs {
		if err := im.checkConst(&recs[i].constVal, "recursor", false); err != nil {
			return err
		}
	}
	for i := range types {
		t := &types[i]
		id := *t.Name
		im.declared[id] = true
		im.explicit[id] = im.explicitOf(*t.Type)
		if t.IsUnsafe {
			im.stats.Unsafe++
			continue
		}
		name, private := elab.Normalize(im.names.full(id))
		if im.isAux(id) {
			im.stats.Auxiliary++
			continue
		}
		d := workspace.Declaration{Library: im.opts.Library, Revision: im.opts.Revision, Name: name,
			Namespace: elab.Namespace(name), Kind: workspace.KindInductive, Keyword: "inductive",
			Signature: im.signature(*t.Type), StatementDeps: im.names2(im.resolveIDs(id, im.walk(*t.Type, nil))),
			ProofDeps: []string{}}
		if private {
			d.Modifiers = []string{"private"}
		}
		// Lean's structure-like inductives (one constructor, no indices,
		// not recursive) are structures when they have projections, and
		// classes when a projection takes the structure as an instance
		// argument; both show only later in the export.
		if len(types) == 1 && len(t.Ctors) == 1 && t.NumIndices == 0 && !t.IsRec {
			im.pendingIdx[id] = len(im.pending)
			im.pending = append(im.pending, &d)
			continue
		}
		im.add(d)
	}
	for i := range ctors {
		c := &ctors[i]
		id := *c.Name
		im.declared[id] = true
		im.explicit[id] = im.explicitOf(*c.Type)
		if c.IsUnsafe {
			im.stats.Unsafe++
			continue
		}
		if im.isAux(id) {
			im.stats.Auxiliary++
			continue
		}
		name, private := elab.Normalize(im.names.full(id))
		d := workspace.Declaration{Library: im.opts.Library, Revision: im.opts.Revision, Name: name,
			Namespace: elab.Namespace(name), Kind: workspace.KindConstructor, Keyword: "inductive",
			Signature: im.signature(*c.Type), StatementDeps: im.names2(im.resolveIDs(id, im.walk(*c.Type, nil))),
			ProofDeps: []string{}, GeneratedFrom: strp(im.display(*c.Induct))}
		if private {
			d.Modifiers = []string{"private"}
		}
		im.add(d)
	}
	for i := range recs {
		r := &recs[i]
		id := *r.Name
		im.declared[id] = true
		// a recursor stands for the inductive types it eliminates
		im.stats.Auxiliary++
		var all []uint32
		for _, t := range r.All {
			if t < im.names.len() {
				all = append(all, t)
			}
		}
		if len(all) == 0 {
			for j := range types {
				all = append(all, *types[j].Name)
			}
		}
		im.aux[id] = im.resolveIDs(id, all)
		im.auxState = grow8(im.auxState, id)
		im.auxState[id] = 1
	}
	return nil
}

// finish writes the structure-like inductives held back, now that their
// projections have said whether they are structures or classes.
func (im *importer) finish() error {
	for id, i := range im.pendingIdx {
		switch {
		case im.classes[id]:
			im.pending[i].Kind, im.pending[i].Keyword = workspace.KindClass, "class"
		case im.hasFields[id]:
			im.pending[i].Kind, im.pending[i].Keyword = workspace.KindStructure, "structure"
		}
	}
	for _, d := range im.pending {
		im.add(*d)
	}
	im.pending, im.pendingIdx = nil, nil
	return nil
}

func strp(s string) *string { return &s }

func grow8(s []uint8, i uint32) []uint8 {
	if int(i) < len(s) {
		return s
	}
	n := max(2*len(s), int(i)+1, 1024)
	return append(s, make([]uint8, n-len(s))...)
}

func grow32(s []uint32, i uint32) []uint32 {
	if int(i) < len(s) {
		return s
	}
	n := max(2*len(s), int(i)+1, 1024)
	return append(s, make([]uint32, n-len(s))...)
}

// isAux reports (memoised per name id) whether a constant is auxiliary.
func (im *importer) isAux(id uint32) bool {
	im.auxState = grow8(im.auxState, id)
	switch im.auxState[id] {
	case 1:
		return true
	case 2:
		return false
	}
	n, _ := elab.Normalize(im.names.full(id))
	aux := elab.IsAuxiliary(n)
	if aux {
		im.auxState[id] = 1
	} else {
		im.auxState[id] = 2
	}
	return aux
}

// display is the row name of a constant (memoised: dependency lists ask for
// the same constants again and again).
func (im *importer) display(id uint32) string {
	if s, ok := im.disp[id]; ok {
		return s
	}
	n, _ := elab.Normalize(im.names.full(id))
	im.disp[id] = n
	return n
}

// names2 turns resolved constant ids (already distinct) into row names;
// two private constants can share a display name, so it dedupes again.
func (im *importer) names2(ids []uint32) []string {
	out := make([]string, 0, len(ids))
	var seen map[string]bool // only for long lists
	for _, id := range ids {
		n := im.display(id)
		if seen == nil && len(out) < 32 {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]bool, 2*len(ids))
			for _, m := range out {
				seen[m] = true
			}
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// walk appends the constants of the expression at root to out, each once, in
// the order a left-to-right traversal meets them (function before
// arguments, binder type before body).
func (im *importer) walk(root uint32, out []uint32) []uint32 {
	im.stamp++
	if im.stamp == 0 {
		clear(im.nameStamp)
		im.stamp = 1
	}
	if need := int(im.ex.n+63) / 64; need > len(im.visited) {
		im.visited = append(im.visited, make([]uint64, max(need-len(im.visited), len(im.visited)))...)
	}
	stack := append(im.stack[:0], root)
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if im.visited[e>>6]&(1<<(e&63)) != 0 {
			continue
		}
		im.visited[e>>6] |= 1 << (e & 63)
		im.touched = append(im.touched, e)
		k := im.ex.kind.get(e)
		if k&hasConst == 0 {
			continue
		}
		switch k & kindMask {
		case exConst:
			n := im.ex.a.get(e)
			im.nameStamp = grow32(im.nameStamp, n)
			if im.nameStamp[n] != im.stamp {
				im.nameStamp[n] = im.stamp
				out = append(out, n)
			}
		case exApp, exLam, exForall:
			stack = append(stack, im.ex.b.get(e), im.ex.a.get(e))
		case exLet:
			stack = append(stack, im.ex.letBody[e], im.ex.b.get(e), im.ex.a.get(e))
		case exMData, exProj:
			stack = append(stack, im.ex.a.get(e))
		}
	}
	im.stack = stack
	for _, e := range im.touched {
		im.visited[e>>6] &^= 1 << (e & 63)
	}
	im.touched = im.touched[:0]
	return out
}

// resolveIDs replaces auxiliary constants by what they stand for and drops
// self references and duplicates.
func (im *importer) resolveIDs(self uint32, ids []uint32) []uint32 {
	out := make([]uint32, 0, len(ids))
	seen := make(map[uint32]bool, len(ids))
	for _, id := range ids {
		if !im.isAux(id) {
			if id != self && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
			continue
		}
		for _, x := range im.aux[id] {
			if x != self && !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}
