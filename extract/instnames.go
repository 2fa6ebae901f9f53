package extract

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/workspace"
)

// Anonymous instance names. Lean names `instance : C T` itself, and how
// changed with Lean 4.8 (lean4#3089, Lean.Elab.DeclNameGen):
//
//   - InstanceNamesV47 (Lean ≤ 4.7): "inst" followed by every constant of
//     the elaborated type, capitalised, in order (instances and implicit
//     arguments included). Extract approximates it from the written type
//     (instanceName in generate.go): what elaboration adds cannot be read.
//   - InstanceNamesV48 (Lean ≥ 4.8): "inst" followed by the class and its
//     explicit arguments (and implicit ones that are types), each constant's
//     last component capitalised, skipping constants and subterms seen
//     before — and seeded with the prefixes of the current namespace that
//     are declarations (ENNReal.instCommSemiring, not
//     ENNReal.instCommSemiringENNReal); the instance's own binders that the
//     type does not depend on add "Of…" (instSMulOfMul); Prop/Type/Sort for
//     sorts, "Forall" for a ∀ inside, nothing for locals and literals'
//     values (a numeral is OfNat.ofNat ℕ n: "OfNatNat"); notation is
//     expanded first. A name none of whose constants come from the current
//     project gets the project as a suffix (Lean.instToJsonPUnit_mathlib).
//     The section variables are not binders of the instance.
//
// Both make a name unique in its namespace with _1, _2, … (mkUnusedBaseName).

// Instance naming algorithms (Source.InstanceNames).
const (
	InstanceNamesV47 = "lean4.7"
	InstanceNamesV48 = "lean4.8"
)

// instanceNamesFor returns the algorithm of a Lean minor version (4.x).
func instanceNamesFor(minor int) string {
	if minor < 8 {
		return InstanceNamesV47
	}
	return InstanceNamesV48
}

// instSrc is what the instance namer keeps of an anonymous instance: its
// signature's tokens and the names in force where it is declared.
type instSrc struct {
	// v47 is the base name under Lean ≤ 4.7 rules, read at parsing
	// (instanceName; the fields below are then unset)
	v47 string
	// base is the base name the instance is given (nameInstances), before
	// it is made unique
	base   string
	sig    tokSeq
	colon  int // index of the signature's top-level colon in sig (-1: none)
	ns     string
	path   string            // the file
	vars   map[string]string // section variables → their type's head as written
	varTys map[string]tokSeq // section variables → their type's tokens
	// setLikes are the section's [SetLike σ R] binders (σ's terms are
	// coerced to subtypes of R)
	setLikes []tokSeq
	univs    []string
	opened   []string // namespaces opened (as written)
	// instHeads are the classes of the section's instance binders, as
	// written ([SMul M α]: SMul)
	instHeads []string
	// applied: delta deriving's definition, written unapplied in sig for
	// f xs (deltaInstSrc)
	applied string
	// toLevel: the type (as written) a `deriving instance ToExpr for T`
	// derives for; Lean's ToExpr handler adds an instance binder
	// [ToLevel.{u}] per universe of T (Deriving/ToExpr.lean,
	// mkInstanceCmds), so the name ends in OfToLevel when T has one
	toLevel string
}

// captureInstance records an anonymous instance for nameInstances.
func (p *fileParser) captureInstance(d *declSyntax) *instSrc {
	colon := -1
	if d.colonIdx >= 0 {
		colon = d.colonIdx - d.sigStart
	}
	return p.instSrcOf(p.f.tokSeq(d.sigStart, d.sigEnd), colon)
}

// instSrcOf records an instance signature (sig, its top-level colon at
// index colon or -1) with the names in force where it is declared: the
// section variables it mentions, the scope's [SetLike σ R] binders, the
// universes and the opened namespaces.
func (p *fileParser) instSrcOf(sig tokSeq, colon int) *instSrc {
	src := &instSrc{sig: sig, colon: colon, ns: p.ns, path: p.path, vars: map[string]string{},
		varTys: map[string]tokSeq{}, univs: p.univs}
	mentioned := map[string]bool{}
	for i, t := range src.sig.text {
		if src.sig.kinds[i] == TokIdent {
			head, _, _ := strings.Cut(t, ".")
			mentioned[head] = true
		}
	}
	// the variables a mentioned variable's type mentions are known to
	// elaboration too (Lean's namer runs with every section variable in
	// the context: f : F ⟶ G brings F G : K ⥤ C, whose type fills Epi's
	// implicit category)
	for i := len(p.vars) - 1; i >= 0; i-- {
		if v := p.vars[i]; v.name != "" && mentioned[v.name] {
			for _, j := range v.mentions {
				if j < i && p.vars[j].name != "" {
					mentioned[p.vars[j].name] = true
				}
			}
		}
	}
	for _, v := range p.vars {
		if v.name == "" && v.kind == '[' && lastComponent(v.head) == "SetLike" && v.tyEnd-v.tyStart < 50 {
			src.setLikes = append(src.setLikes, p.f.tokSeq(v.tyStart, v.tyEnd))
		}
		if v.kind == '[' && v.head != "" {
			src.instHeads = append(src.instHeads, v.head)
		}
		if v.name != "" && mentioned[v.name] {
			src.vars[v.name] = v.head
			if v.tyEnd > v.tyStart && v.tyEnd-v.tyStart < 200 {
				src.varTys[v.name] = p.f.tokSeq(v.tyStart, v.tyEnd)
			}
		}
	}
	src.opened = openedNamespaces(p.opens)
	return src
}

// openedNamespaces are the namespaces `open` commands name: each as
// written, then relative to the namespace the open is in and its parents
// (Lean's resolveNamespace: `open Bicategory` in `namespace
// CategoryTheory.Oplax` opens CategoryTheory.Bicategory, whose scoped
// notation ⥤ᵒᵖᴸ is then in force).
func openedNamespaces(opens []openDecl) []string {
	var out []string
	for _, o := range opens {
		out = append(out, o.name)
	}
	for _, o := range opens {
		for ns := o.atNs; ns != ""; ns = parentNs(ns) {
			out = append(out, ns+"."+o.name)
		}
	}
	return out
}

// classInfo is what the namer knows of a class: the classes of its
// instance parameters and its parents (last components).
type classInfo struct {
	instParams []string
	parents    []string
	// sorts: whether each explicit parameter (as written in the class's
	// own binders) is a type — where a set-like argument is coerced (↥S)
	sorts []bool
}

// instNamer names the anonymous instances of a run.
type instNamer struct {
	names   map[string]string // declared names → the root module of their library ("" core)
	classes map[string]*classInfo
	// classesFull: by full name (classes is by last component)
	classesFull map[string]*classInfo
	nots        *notationSet
	// sites are where each name is declared (anonymous instances and
	// their twins once named), for Lean's uniqueness rule (unused).
	sites map[string][]declSite
	vis   []bitset // per file: the files it imports, itself included
	// fallbacks counts instances whose name is not the one Lean's rule
	// gives in their own environment (nameFile)
	fallbacks int
	// decls are the rows whose signatures the namer reads (sigDecl), sigs
	// those read (csigOf)
	decls map[string]*pdecl
	sigs  memo[string, *csig]
	// instEdges: a class → the classes of the instances taking it as
	// their only instance argument (last components), with what they are
	// about (edgeArgHead)
	instEdges map[string][]instEdge
	// setLikes are the types the run has a SetLike instance for (last
	// components): their terms are coerced to subtypes (↥K, {x // x ∈ K})
	setLikes map[string]bool
	// ancs memoises ancestors (instUsed asks for them about 2 million
	// times on Mathlib): classes are all recorded by newInstNamer, so a
	// class's ancestors never change.
	ancs memo[string, map[string]bool]
	// needs memoises what a notation's head needs (notationNeeds)
	needs memo[*notn, notnNeeds]
	// translations: per attribute (to_additive, to_dual), a constant →
	// its translation (nameTwins: twins, `attribute [to_additive] Subgroup`,
	// `existing`); twinSig translates a twin's signature with it
	translations map[string]map[string]string
	// outInsts are the run's instances of the classes whose later
	// parameters are outParams of the first (FunLike F α β: outParamClass),
	// by class (last component); outIdx indexes them by the head of their
	// first argument once every declaration is known (fillOutParams)
	outInsts map[string][]*pdecl
	// fields are a structure's projections (its fields, parents' included),
	// in order: its constructor's explicit binders
	fields  map[string][]string
	outOnce sync.Once
	outIdx  map[string][]*csig
	// coeInsts are the run's CoeSort instances; coeIdx indexes their
	// coercions by the head of the type coerced (coeSorts)
	coeInsts []*pdecl
	coeOnce  sync.Once
	coeIdx   map[string][]coeSortFn
	// abbrevs memoises abbreviations' values (abbrevValue)
	abbrevs memo[string, *abbrevDef]
	// homInsts are the run's Quiver/Category instances; homIdx indexes
	// their Hom fields by the head of the objects' type (homOf)
	homInsts []*pdecl
	homOnce  sync.Once
	homIdx   map[string]*abbrevDef
}

// declSite is where a name is declared: a file and the index of the
// declaration in the file's rows; private: Lean's name of the declaration
// is _private.<module>.0.<name>.
type declSite struct {
	file, pos int32
	private   bool
}

// nameInstances gives the anonymous instances the names Lean gives them
// (under Lean ≥ 4.8 rules, or the Lean ≤ 4.7 base names read at parsing),
// renaming the rows made from them (where
// auxiliaries; to_additive twins are renamed with naming). Files are named
// in an import order (order; vis are the import closures, importClosures),
// so that a name is made unique against the names Lean's environment holds
// at the instance: its module's imports and the declarations before it.
// It returns how many instances were named past a name their environment
// does not hold (instNamer.fallbacks).
func nameInstances(files []*fileResult, naming *Naming, twins *twinNamespaces, vis []bitset, order []int, workers int) int {
	var insts []instSite
	for fi, fr := range files {
		for k, d := range fr.decls {
			if d.inst != nil {
				insts = append(insts, instSite{fi, k})
			}
		}
	}
	if len(insts) == 0 {
		return 0
	}
	n := newInstNamer(files, naming)
	if twins != nil {
		n.translations = twins.tr
	}
	n.vis = vis
	n.baseNames(files, insts, workers)
	for _, i := range order {
		n.nameFile(files, i, naming)
	}
	return n.fallbacks
}

// instSite is an anonymous instance: the k-th row of file fi.
type instSite struct{ fi, k int }

// baseNames computes every anonymous instance's base name (Lean ≤ 4.7's,
// read at parsing, or baseName's) into d.inst.base, on workers goroutines.
// A base name depends only on the instance's source and the run's
// declarations, classes and notations — not on the names given before it
// — so only making names unique (nameFile) follows the import order; the
// namer's memo tables (sigs, ancs) hold pure functions of their keys.
func (n *instNamer) baseNames(files []*fileResult, insts []instSite, workers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1) - 1)
				if j >= len(insts) {
					return
				}
				fr := files[insts[j].fi]
				src := fr.decls[insts[j].k].inst
				src.base = src.v47
				if src.base == "" {
					root, _, _ := strings.Cut(fr.mod.Name, ".")
					src.base = n.baseName(src, root)
				}
			}
		}()
	}
	wg.Wait()
}

func newInstNamer(files []*fileResult, naming *Naming) *instNamer {
	total := 0
	for _, fr := range files {
		total += len(fr.decls)
	}
	// sized once: growing maps of Mathlib's 300k names rehashed them ~1 CPU-s
	n := &instNamer{names: make(map[string]string, total+len(coreNames())), classes: map[string]*classInfo{}, classesFull: map[string]*classInfo{},
		nots: newNotationSet(), sites: make(map[string][]declSite, total), decls: map[string]*pdecl{}, instEdges: map[string][]instEdge{}, setLikes: map[string]bool{},
		outInsts: map[string][]*pdecl{}, fields: map[string][]string{}}
	for _, c := range coreNames() {
		n.names[c[0]] = ""
	}
	for fi, fr := range files {
		root, _, _ := strings.Cut(fr.mod.Name, ".")
		for k, d := range fr.decls {
			if d.inst == nil && (d.twinOf == nil || d.twinOf.inst == nil) {
				// (a twin of an anonymous instance is named with it)
				n.names[d.row.Name] = root
				n.sites[d.row.Name] = append(n.sites[d.row.Name], declSite{int32(fi), int32(k), isPrivate(d)})
			}
			if d.inst == nil && sigDecl(d) && (d.twinOf == nil || n.decls[d.row.Name] == nil) {
				// a twin named like a written declaration (to_dual's
				// TopHom of BotHom) is dropped later: the written one's
				// signature is the constant's
				n.decls[d.row.Name] = d
			}
			if d.row.Kind == workspace.KindProjection && d.row.GeneratedFrom != nil && d.twinOf == nil {
				n.fields[*d.row.GeneratedFrom] = append(n.fields[*d.row.GeneratedFrom], d.row.Name)
			}
			if d.row.Kind == "class" || d.row.Keyword == "class" {
				n.addClass(d, naming)
			}
			if d.row.Kind == workspace.KindInstance {
				n.addInstEdge(d, naming)
				if lastComponent(d.resultHead) == "CoeSort" && d.twinOf == nil {
					n.coeInsts = append(n.coeInsts, d)
				}
				if homClass[lastComponent(d.resultHead)] && d.twinOf == nil {
					n.homInsts = append(n.homInsts, d)
				}
				if c := lastComponent(d.resultHead); outParamClass[c] && d.twinOf == nil {
					n.outInsts[c] = append(n.outInsts[c], d)
				}
			}
		}
		for _, nd := range fr.notations {
			if nt := nd.forNamer(); nt != nil {
				n.nots.add(nt)
			}
		}
	}
	return n
}

// addClass records what the namer needs of a class: a to_additive twin
// (AddCommGroup) has its original's parents and parameters, translated.
func (n *instNamer) addClass(d *pdecl, naming *Naming) {
	src, tr := d, func(s string) string { return s }
	if d.twinOf != nil {
		src, tr = d.twinOf, naming.GuessAdditive
		if d.twinAttr == "to_dual" {
			tr = naming.GuessDual
		}
	}
	ci := &classInfo{sorts: src.paramSorts}
	for _, h := range src.instHeads {
		ci.instParams = append(ci.instParams, tr(lastComponent(h)))
	}
	for _, e := range src.extends {
		ci.parents = append(ci.parents, tr(lastComponent(e)))
	}
	if d.twinOf != nil && n.classesFull[d.row.Name] != nil {
		return // a twin named like a written class is dropped later
	}
	n.classes[lastComponent(d.row.Name)] = ci
	n.classesFull[d.row.Name] = ci
}

// addInstEdge records an instance with one instance argument: the class
// it gives from the class it takes (a to_additive twin's translated).
func (n *instNamer) addInstEdge(d *pdecl, naming *Naming) {
	src, tr := d, func(s string) string { return s }
	if d.twinOf != nil {
		src, tr = d.twinOf, naming.GuessAdditive
		if d.twinAttr == "to_dual" {
			tr = naming.GuessDual
		}
	}
	if d.twinOf == nil && lastComponent(d.resultHead) == "SetLike" {
		if h := setLikeArg(d.row.Signature); h != "" {
			n.setLikes[h] = true
		}
	}
	if len(src.instHeads) != 1 || src.resultHead == "" {
		return
	}
	about, ok := edgeArgHead(src.row.Signature, lastComponent(src.instHeads[0]))
	if !ok {
		return
	}
	from, to := tr(lastComponent(src.instHeads[0])), tr(lastComponent(src.resultHead))
	e := instEdge{to, about}
	if from != to && !slices.Contains(n.instEdges[from], e) {
		n.instEdges[from] = append(n.instEdges[from], e)
	}
}

// instEdge is an instance [C a] : D …: the class D it gives and what
// about — "" a itself (`[Mul α] : SMul αᵐᵒᵖ α`), a constant's last
// component for a term it heads (`[IsDomain R] : IsIntegral (Spec R)`:
// "Spec"), "*" not known.
type instEdge struct{ to, about string }

// edgeArgHead tells what an instance's class is about, as to the
// argument a of its instance binder [from a …] (after the signature's last
// colon outside brackets): "" when a is an argument of the class itself
// (Mul.toSMulMulOpposite's `[Mul α] : SMul αᵐᵒᵖ α`), the head of the
// bracketed term a is in otherwise (FreeRing.instCommRing's
// `[Subsingleton α] : CommRing (FreeRing α)`: "FreeRing", so
// [Subsingleton k] gives no CommRing, hence no Zero, about k itself — Lean
// keeps [Subsingleton k] in SkewMonoidAlgebra.instUniqueOfSubsingleton).
// ok is false when the class does not mention a (QuadraticMap.Isometry's
// `[Subsingleton M₁] : Zero (Q₁ →qᵢ Q₂)`): no edge. "*" when the binder
// or its argument is not in the signature (a section variable's).
func edgeArgHead(sig, from string) (about string, ok bool) {
	ts := lexSeq(sig)
	depth, colon, arg := 0, -1, ""
	for i, x := range ts.text {
		switch x {
		case "(", "[", "{", "⦃", "⟨":
			depth++
		case ")", "]", "}", "⦄", "⟩":
			depth--
		case ":":
			if depth == 0 {
				colon = i
			}
		}
		if x == "[" && depth == 1 && arg == "" {
			j := i + 1
			if j+1 < len(ts.text) && ts.text[j+1] == ":" { // [inst : C a]
				j += 2
			}
			if j+1 < len(ts.text) && lastComponent(ts.text[j]) == from && ts.kinds[j+1] == TokIdent {
				arg = ts.text[j+1]
			}
		}
	}
	if arg == "" || colon < 0 {
		return "*", true
	}
	var open []int // positions of the brackets around
	found := false
	for k := colon + 1; k < len(ts.text); k++ {
		switch x := ts.text[k]; x {
		case "(", "[", "{", "⦃", "⟨":
			open = append(open, k)
		case ")", "]", "}", "⦄", "⟩":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		default:
			if x != arg && !(strings.HasPrefix(x, arg) && modifierLetters(x[len(arg):])) {
				continue
			}
			if len(open) == 0 {
				return "", true // αᵐᵒᵖ, Mˣ: about α, M as well
			}
			if !found {
				found = true
				about = "*"
				if h := open[len(open)-1] + 1; h < k && ts.kinds[h] == TokIdent {
					about = lastComponent(ts.text[h])
				}
			}
		}
	}
	return about, found
}

// modifierLetters reports whether s is superscript letters Lean notation
// puts after a type (ᵐᵒᵖ, ᵒᵈ, ˣ).
func modifierLetters(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Lm, r) {
			return false
		}
	}
	return s != ""
}

// setLikeArg returns the head (last component) of the type an instance
// signature `… : SetLike (T …) α` makes set-like ("" if none).
func setLikeArg(sig string) string {
	ts := lexSeq(sig)
	for i := len(ts.text) - 1; i >= 0; i-- {
		if lastComponent(ts.text[i]) != "SetLike" {
			continue
		}
		j := i + 1
		for j < len(ts.text) && ts.text[j] == "(" {
			j++
		}
		if j < len(ts.text) && ts.kinds[j] == TokIdent {
			return lastComponent(ts.text[j])
		}
		return ""
	}
	return ""
}

// isPrivate tells whether a row is a private declaration: Lean's name for
// it is mangled (_private.<module>.0.<name>), so its written name does not
// make a generated name unused.
func isPrivate(d *pdecl) bool { return d.row.IsPrivate() }

// forNamer turns a notation definition into the parser's form (nil for
// macro_rules and notations without a plain pattern).
func (nd *notationDef) forNamer() *notn {
	exp := nd.expansion
	if nd.namerExpansion != "" {
		exp = nd.namerExpansion
	}
	if len(nd.pattern) == 0 || exp == "" {
		return nil
	}
	nt := &notn{items: nd.pattern, expansion: lexSeq(exp), scopedNs: nd.scopedNs, ctx: nd.ctx, head: nd.target}
	if nd.local {
		nt.localPath = nd.path
	}
	for _, it := range nd.pattern {
		if it.param != "" {
			nt.params = append(nt.params, it.param)
		}
		if it.scopedBody != "" {
			if nt.scopedBody == nil {
				nt.scopedBody = map[string]*notn{}
			}
			nt.scopedBody[it.param] = &notn{expansion: lexSeq(it.scopedBody), params: []string{it.scopedVar}, ctx: nd.ctx}
		}
	}
	switch nd.kind {
	case "infix", "infixl", "infixr", "prefix", "postfix":
		nt.apply = true
	case "notation", "notation3":
	default:
		return nil
	}
	return nt
}

// nameFile names one file's anonymous instances, in order, as Lean's
// mkUnusedBaseName does: the base name, else the first of base_1, base_2, …
// that the environment does not contain.
//
// The names taken are those of the whole run, not only the instance's
// environment (leanUsed): in a library that builds as a whole (Mathlib.lean
// imports every module) no module declares a name that Lean gave in a module
// it does not import, so both give Lean's name where the names around are
// right. Where they are not (a base name approximated differently from
// Lean's), the run-wide rule keeps every row under its own name instead of
// two rows under one; such instances are counted in n.fallbacks.
func (n *instNamer) nameFile(files []*fileResult, fi int, naming *Naming) {
	fr := files[fi]
	for k, d := range fr.decls {
		if d.inst == nil {
			continue
		}
		base := d.inst.base
		name, lean := base, ""
		for i := 1; ; i++ {
			full := joinNs(d.inst.ns, name)
			if lean == "" && !n.leanUsed(full, fi, k) {
				lean = full
			}
			if !n.taken(full, fi) {
				break
			}
			name = fmt.Sprintf("%s_%d", base, i)
		}
		full := joinNs(d.inst.ns, name)
		if full != lean {
			n.fallbacks++
		}
		renameDecl(fr, d, full, naming)
		n.sites[full] = append(n.sites[full], declSite{int32(fi), int32(k), isPrivate(d)})
		for j, g := range fr.decls {
			if g.twinOf == d {
				n.sites[g.row.Name] = append(n.sites[g.row.Name], declSite{int32(fi), int32(j), isPrivate(g)})
			}
		}
	}
}

// taken tells whether a row of the run (or core Lean) already has full: a
// private one only in file fi (elsewhere its name is another).
func (n *instNamer) taken(full string, fi int) bool {
	if root, ok := n.names[full]; ok && root == "" {
		return true
	}
	for _, s := range n.sites[full] {
		if !s.private || int(s.file) == fi {
			return true
		}
	}
	return false
}

// leanUsed tells whether Lean's environment at the k-th row of file fi
// contains full: a core name, a name declared in a module the file imports
// (transitively), or one declared earlier in the file.
func (n *instNamer) leanUsed(full string, fi, k int) bool {
	if root, ok := n.names[full]; ok && root == "" {
		return true
	}
	for _, s := range n.sites[full] {
		if s.private {
			continue // env.contains does not see its mangled name
		}
		if int(s.file) == fi {
			if int(s.pos) < k {
				return true
			}
		} else if n.vis == nil || n.vis[fi].has(s.file) {
			return true
		}
	}
	return false
}

// renameDecl renames an anonymous instance's row and the rows made from it.
func renameDecl(fr *fileResult, d *pdecl, full string, naming *Naming) {
	old := d.row.Name
	d.row.Name = full
	d.resNs = parentNs(full)
	for _, g := range fr.decls {
		switch {
		case g.twinOf == d:
			// also when the name does not change: the twin may carry the
			// placeholder toAdditive gave it (Lean ≤ 4.7 rules keep the
			// written-type name, `UniqueProds.instUniqueProdsG.to_additive`)
			g.row.Name = naming.twinName(g.twinAttr, g.twinExplicit, full)
			g.row.GeneratedFrom = strp(full)
			g.resNs = parentNs(g.row.Name)
		case old != full && g != d && g.row.GeneratedFrom != nil && *g.row.GeneratedFrom == old && strings.HasPrefix(g.row.Name, old+"."):
			g.row.Name = full + g.row.Name[len(old):]
			g.row.GeneratedFrom = strp(full)
		}
	}
}

// dropSelfTwins removes the to_additive/to_dual twins of anonymous
// instances whose name came out as their instance's (nothing in it to
// translate): Lean's translation attributes refuse a target named like the
// source, so no such declaration exists, and the row would only be dropped
// as a duplicate after its references were read (toAdditive makes every
// anonymous instance's twin, since its placeholder name may not translate
// where the instance's real name does).
func dropSelfTwins(files []*fileResult) {
	for _, fr := range files {
		out := fr.decls[:0]
		for _, d := range fr.decls {
			if d.twinOf != nil && d.twinOf.inst != nil && d.row.Name == d.twinOf.row.Name {
				continue
			}
			out = append(out, d)
		}
		clear(fr.decls[len(out):])
		fr.decls = out
	}
}

// baseName is Lean's mkBaseNameWithSuffix "inst" for one instance.
func (n *instNamer) baseName(src *instSrc, root string) string {
	locals := map[string]bool{}
	for v := range src.vars {
		locals[v] = true
	}
	for _, u := range src.univs {
		locals[u] = true
	}
	opened := map[string]bool{}
	for _, o := range src.opened {
		opened[o] = true
	}
	visNs := func(ns string) bool {
		return opened[ns] || src.ns == ns || strings.HasPrefix(src.ns, ns+".")
	}
	colon := src.colon
	if colon < 0 {
		colon = len(src.sig.text)
	}
	budget := 20000
	choose := n.chooser(src, colon)
	mk := func() (*tparser, []bnd) {
		p := &tparser{s: src.sig, end: colon, locals: locals, nots: n.nots, visNs: visNs, budget: &budget, path: src.path, choose: choose}
		return p, p.binderList(map[string]bool{})
	}
	_, bs := mk()
	for _, b := range bs {
		if b.name != "" {
			locals[b.name] = true
		}
	}
	_, bs = mk() // again, with every binder's name known
	var typ *tnode
	if src.colon >= 0 {
		p := &tparser{s: src.sig, pos: src.colon + 1, end: len(src.sig.text), locals: locals, nots: n.nots, visNs: visNs, budget: &budget, path: src.path, choose: choose}
		typ = p.expr()
	}
	if typ == nil {
		typ = &tnode{op: 'x'}
	}
	ltype := map[string]string{}
	ltypeT := map[string]*tnode{}
	for v, h := range src.vars {
		ltype[v] = h
		ltypeT[v] = &tnode{op: 'c', name: h}
		if ts, ok := src.varTys[v]; ok {
			p := &tparser{s: ts, end: len(ts.text), locals: locals, nots: n.nots, visNs: visNs, budget: &budget, path: src.path, choose: choose}
			if ty := p.expr(); ty != nil {
				ltypeT[v] = ty
				// the head of the type read with its notation (f : F ⟶ G
				// is a Quiver.Hom), not its first identifier
				if th, _ := appHead(ty); th != nil && th.op == 'c' {
					ltype[v] = th.name
				}
			}
		}
	}
	for _, b := range bs {
		if b.name != "" && b.ty != nil {
			ltypeT[b.name] = b.ty
		}
		if h, _ := appHead(b.ty); h != nil && h.op == 'c' && b.name != "" {
			ltype[b.name] = h.name
		}
	}
	g := &nameGen{n: n, src: src, locals: locals, ltype: ltype, ltypeT: ltypeT, seen: map[string]bool{}, consts: map[string]bool{}}
	for _, ts := range src.setLikes {
		p := &tparser{s: ts, end: len(ts.text), locals: locals, nots: n.nots, visNs: visNs, budget: &budget, path: src.path}
		g.addSetLike(p.expr())
	}
	for _, b := range bs {
		if b.inst {
			g.addSetLike(b.ty)
		}
	}
	g.top = typ
	for g.top != nil && g.top.op == 'p' {
		g.top = g.top.body
	}
	w := g.winnow(g.markDeps(bs, typ))
	for ns := src.ns; ns != ""; ns = parentNs(ns) {
		if _, ok := n.names[ns]; ok {
			g.seen["c:"+ns] = true
			g.consts[ns] = true
		}
	}
	name := "inst" + g.aux(w)
	if src.toLevel != "" {
		// the handler's binders [ToExpr α] name nothing (the class is
		// seen); its [ToLevel.{u}] binders come last and name ToLevel
		// once (the winnowed constant has no levels)
		if full, ok := g.resolve(&tnode{op: 'c', name: src.toLevel}); ok && n.levelParams(full) && !g.seen["c:Lean.ToLevel"] {
			g.seen["c:Lean.ToLevel"] = true
			g.consts["Lean.ToLevel"] = true
			name += "OfToLevel"
		}
	}
	if root == "Init" || root == "" {
		return name
	}
	for c := range g.consts {
		r, known := n.names[c]
		if !known || r == root {
			return name // project-local (or unknown: never guess a suffix)
		}
	}
	return name + "_" + decapitalize(root)
}

// levelParams tells whether a type of the run (its code: parameters,
// result and fields) or of core Lean (its signature in coreSigs) has
// universe parameters: a level after Type or Sort that is not a numeral
// (Type u, Type*, Sort (max u v), Type _) or explicit levels (ULift.{u}).
func (n *instNamer) levelParams(full string) bool {
	text, ok := coreSigs[full]
	if d := n.decls[full]; d != nil {
		switch d.row.Kind {
		case workspace.KindStructure, workspace.KindClass, workspace.KindInductive:
		default:
			return false // a definition is delta-derived: no handler
		}
		text, ok = d.varSig+" "+d.row.Code, true
	}
	if !ok {
		return false
	}
	toks, _ := Lex([]byte(text))
	ts := lexSeq(text)
	return hasLevelParams(ts, func(i int) bool { return i < len(toks) && toks[i].Flags&FlagLineStart != 0 })
}

// hasLevelParams tells whether a type's text mentions a universe level
// that is not a numeral. lineStart tells whether token i begins a line:
// a level is written on Type's line, and what begins the next one is
// the next field (`α : Type` then `n : Nat`), not a level.
func hasLevelParams(ts tokSeq, lineStart func(i int) bool) bool {
	for i, t := range ts.text {
		if strings.HasPrefix(t, ".{") || strings.HasSuffix(t, ".{") {
			return true
		}
		if t == "Type*" || t == "Sort*" {
			return true
		}
		if t != "Type" && t != "Sort" || i+1 >= len(ts.text) {
			continue
		}
		if lineStart(i + 1) {
			continue
		}
		switch next := ts.text[i+1]; {
		case next == "*" || next == "_" || next == "(":
			return true
		case ts.kinds[i+1] == TokIdent && !termKeywords[next]:
			return true
		}
	}
	return false
}

// notnNeeds is what a notation's head constant needs: its full name and
// the classes of its instance parameters (last components).
type notnNeeds struct {
	full    string
	classes []string
}

// notationNeeds reads a notation's head in its scope and the classes of
// its signature's instance parameters (MulActionHom: SMul, SMul).
func (n *instNamer) notationNeeds(nt *notn) notnNeeds {
	if v, ok := n.needs.get(nt); ok {
		return v
	}
	var v notnNeeds
	ns, opened := "", []string(nil)
	if nt.ctx != nil {
		ns = nt.ctx.ns
		for _, o := range nt.ctx.opens {
			opened = append(opened, o.name)
		}
	}
	if full, ok := n.resolveIn(nt.head, ns, opened); ok {
		v.full = full
		if sig := n.csigOf(full); sig != nil {
			for _, b := range sig.bs {
				if b.kind != "[" {
					continue
				}
				t := stripParam(b.ty)
				for t != nil && t.op == 'p' {
					t = t.body
				}
				if h, _ := appHead(t); h != nil && h.op == 'c' {
					v.classes = append(v.classes, lastComponent(h.name))
				}
			}
		}
	}
	return n.needs.put(nt, v)
}

// chooser decides between notations spelt alike in one instance's
// signature (tparser.pick) as elaboration would, where it can without
// elaborating: the one alternative whose head's instance parameters the
// instance's binders and the section's instance variables all provide
// (`X →ₑ[φ] Y` under [SMul M X] is MulActionHom, under [AddAction M X]
// AddActionHom); else the one whose head is the current namespace or a
// prefix of it (in namespace MulActionHom); else nil (the later one).
func (n *instNamer) chooser(src *instSrc, colon int) func([]*notn) *notn {
	var avail map[string]bool // the classes in force, with their ancestors
	classes := func() map[string]bool {
		if avail != nil {
			return avail
		}
		avail = map[string]bool{}
		add := func(h string) {
			for a := range n.ancestors(lastComponent(h)) {
				avail[a] = true
			}
		}
		for _, h := range src.instHeads {
			add(h)
		}
		// the instance's own binders: [C …], [inst : C …], [∀ i, C …]
		ts := src.sig.text
		for i := 0; i+1 < colon && i+1 < len(ts); i++ {
			if ts[i] != "[" {
				continue
			}
			j := i + 1
			if j+1 < len(ts) && ts[j+1] == ":" && src.sig.kinds[j] == TokIdent {
				j += 2
			}
			if j < len(ts) && ts[j] == "∀" {
				for j < len(ts) && ts[j] != "," && ts[j] != "]" {
					j++
				}
				j++
			}
			if j < len(ts) && src.sig.kinds[j] == TokIdent {
				add(ts[j])
			}
		}
		return avail
	}
	return func(alike []*notn) *notn {
		// the one alternative whose needs are all in force (a global
		// instance may provide the others' — Category CommRingCat —, so
		// only one that needs something and finds it all tells)
		var found *notn
		for _, nt := range alike {
			needs := n.notationNeeds(nt).classes
			all := len(needs) > 0
			for _, c := range needs {
				if !classes()[c] {
					all = false
				}
			}
			if all {
				if found != nil {
					found = nil
					break
				}
				found = nt
			}
		}
		if found != nil {
			return found
		}
		var inNs *notn
		for _, nt := range alike {
			if f := n.notationNeeds(nt).full; f != "" && (src.ns == f || strings.HasPrefix(src.ns, f+".")) {
				if inNs != nil {
					return nil
				}
				inNs = nt
			}
		}
		return inNs
	}
}

func decapitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r >= 'A' && r <= 'Z' {
		return string(unicode.ToLower(r)) + s[size:]
	}
	return s
}

// capitalize is Lean's String.capitalize: only ASCII letters change.
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// markDeps builds the instance's type ∀ binders, type and marks binders
// the rest depends on (their domain is not named: winnowExpr's dependent
// ∀, whose body mentions the bound variable — for an instance binder,
// through the instances elaboration fills in).
func (g *nameGen) markDeps(bs []bnd, typ *tnode) *tnode {
	t := pis(bs, typ)
	for p := t; p != nil && p.op == 'p'; p = p.body {
		if p.inst && (p.name == "" || !mentions(p.body, p.name)) && g.instUsed(p.dom, p.body, bs) {
			p.name = "\x00dep"
		}
	}
	return t
}

// mentions reports whether local x occurs in t.
func mentions(t *tnode, x string) bool {
	if t == nil || x == "" {
		return false
	}
	if t.op == 'v' && t.name == x || t.recv == x {
		return true
	}
	if mentions(t.fn, x) || mentions(t.dom, x) || mentions(t.body, x) {
		return true
	}
	for _, a := range t.args {
		if mentions(a, x) {
			return true
		}
	}
	return false
}

// instUsed guesses whether the instance binder [C a …] is used by
// instance resolution in rest: rest applies a constant one of whose
// instance parameters C provides — C itself or one of its ancestors (a
// parent projection), or the class of an instance that takes one of them
// as its only instance argument (Mul.toSMulMulOpposite: [Mul α] gives
// SMul αᵐᵒᵖ α; EquivLike.toFunLike) when no other binder of the instance
// (bs) has that class among its ancestors — and the parameter's
// arguments (the constant's signature with the application's arguments
// put in) mention C's first local argument. When the parameter's class is
// C the arguments must agree: [RingHomInvPair σ' σ] is used by
// SemilinearEquivClass F σ M M₂ (whose σ' is implicit, filled by
// unification); [AddMonoid M] is not used by MulAction ℕ M (whose
// [Monoid ℕ] is about ℕ).
func (g *nameGen) instUsed(dom, rest *tnode, bs []bnd) bool {
	n := g.n
	// [∀ i, C (γ i)] gives C (∀ i, γ i) (Pi instances: Pi.topologicalSpace
	// takes [∀ i, TopologicalSpace (π i)]) and C (γ j) for each j: it
	// provides C about γ
	bound := map[string]bool{}
	for dom != nil && dom.op == 'p' {
		bound[dom.name] = true
		dom = dom.body
	}
	head, args := appHead(dom)
	if head == nil || head.op != 'c' {
		return false
	}
	cls := lastComponent(head.name)
	provides := n.ancestors(cls)
	// classes reached through an instance, with what they are about
	// (instEdge.about)
	via := map[string]map[string]bool{}
	for a := range provides {
		for _, r := range n.instEdges[a] {
			for b := range n.ancestors(r.to) {
				if !provides[b] {
					if via[b] == nil {
						via[b] = map[string]bool{}
					}
					via[b][r.about] = true
				}
			}
		}
	}
	if len(via) > 0 {
		// a class another binder gives directly is not searched through C
		for _, b := range bs {
			if !b.inst || b.ty == dom {
				continue
			}
			if h, _ := appHead(b.ty); h != nil && h.op == 'c' {
				for a := range n.ancestors(lastComponent(h.name)) {
					delete(via, a)
				}
			}
		}
	}
	var first string
	for _, a := range args {
		if a.op == 'v' && !bound[a.name] {
			first = a.name
			break
		}
	}
	for _, a := range args {
		if first == "" && a.op == 'a' && a.fn.op == 'v' && !bound[a.fn.name] {
			first = a.fn.name // γ i
		}
	}
	used := false
	var walk func(t *tnode)
	walk = func(t *tnode) {
		if t == nil || used {
			return
		}
		if h, as := appHead(t); h != nil && h.op == 'c' && t.op == 'a' {
			used = g.appUses(h, as, cls, args, first, provides, via)
		}
		walk(t.fn)
		walk(t.dom)
		walk(t.body)
		for _, a := range t.args {
			walk(a)
		}
	}
	walk(rest)
	return used
}

// appUses tells whether the application h as has an instance parameter
// the binder [cls args…] (first: its first local argument) fills.
func (g *nameGen) appUses(h *tnode, as []*tnode, cls string, args []*tnode, first string, provides map[string]bool, via map[string]map[string]bool) bool {
	name, ok := g.resolve(h)
	var sig *csig
	if ok {
		sig = g.n.csigOf(name)
	}
	if sig == nil {
		// no signature: the class's recorded instance parameters, any
		// argument mentioning the binder's local
		ci := g.n.classesFull[name]
		if ci == nil {
			ci = g.n.classes[lastComponent(h.name)]
		}
		if ci == nil {
			return false
		}
		for _, ip := range ci.instParams {
			if !provides[ip] {
				continue
			}
			for _, a := range as {
				if first == "" || mentions(a, first) {
					return true
				}
			}
		}
		return false
	}
	vals, _, _, _, _ := g.sigArgs(sig, name, g.recvArgs(h, as), h.recv != "" || h.recvTerm != nil, nil, 0)
	param := map[string]int{}
	for i, b := range sig.bs {
		if b.name != "" {
			param[b.name] = i
		}
	}
	// val is a parameter type's argument with the application's put in
	// (nil: unknown, unification would fill it)
	val := func(x *tnode) *tnode {
		if x.op == 'v' {
			if k, isParam := param[x.name]; isParam {
				return vals[k]
			}
			return nil
		}
		m := map[string]*tnode{}
		for nm, k := range param {
			if vals[k] != nil {
				m[nm] = vals[k]
			}
		}
		return subst(x, m)
	}
	for _, b := range sig.bs {
		if b.kind != "[" {
			continue
		}
		bt := stripParam(b.ty)
		for bt != nil && bt.op == 'p' {
			bt = bt.body // [∀ i, Zero (β i)] (DFinsupp's) wants Zero about β
		}
		bh, bargs := appHead(bt)
		if bh == nil || bh.op != 'c' {
			continue
		}
		d := lastComponent(bh.name)
		if !provides[d] && via[d] == nil {
			continue
		}
		if d == cls && len(bargs) == len(args) {
			agree := true
			for i, x := range bargs {
				if v := val(x); v != nil && v.op == 'v' && args[i].op == 'v' && v.name != args[i].name {
					agree = false
				}
			}
			if agree {
				return true
			}
			continue
		}
		if first == "" {
			if provides[d] {
				return true
			}
			continue
		}
		unknown := false
		for _, x := range bargs {
			v := val(x)
			if v == nil {
				unknown = true
			} else if mentions(v, first) && (provides[d] || aboutOK(v, via[d])) {
				return true
			}
		}
		if unknown && provides[d] {
			for _, a := range as {
				if mentions(a, first) {
					return true
				}
			}
		}
	}
	return false
}

// aboutOK tells whether a class reached through instances about the terms
// abouts describe (instEdge.about) can be about v.
func aboutOK(v *tnode, abouts map[string]bool) bool {
	if abouts["*"] {
		return true
	}
	if v.op == 'v' {
		return abouts[""]
	}
	if h, _ := appHead(v); h != nil && h.op == 'c' {
		return abouts[lastComponent(h.name)]
	}
	return false
}

// headConst is the constant t applies (after its parameters are
// stripped by the caller where they should be), resolved, and its
// arguments; ok false when t's head is not a constant the run resolves.
func (g *nameGen) headConst(t *tnode) (name string, args []*tnode, ok bool) {
	h, args := appHead(t)
	if h == nil || h.op != 'c' {
		return "", nil, false
	}
	name, ok = g.resolve(h)
	return name, args, ok
}

func appHead(t *tnode) (*tnode, []*tnode) {
	if t == nil {
		return nil, nil
	}
	if t.op == 'a' {
		return t.fn, t.args
	}
	return t, nil
}

// ancestors is class c and the classes it extends, transitively (last
// components). The map returned is shared: callers must not modify it.
func (n *instNamer) ancestors(c string) map[string]bool {
	if a, ok := n.ancs.get(c); ok {
		return a
	}
	out := map[string]bool{}
	var walk func(c string, depth int)
	walk = func(c string, depth int) {
		if out[c] || depth > 30 {
			return
		}
		out[c] = true
		if ci := n.classes[c]; ci != nil {
			for _, p := range ci.parents {
				walk(p, depth+1)
			}
		}
	}
	walk(c, 0)
	return n.ancs.put(c, out)
}

// wnode is a winnowed term (Lean's winnowExpr): constants, applications,
// ∀s and sorts; everything else is the anonymous "_".
type wnode struct {
	op        byte // 'c' 'a' 'p' 's' '_'
	name      string
	f, x      *wnode // application
	dom, body *wnode
	key       string
}

func wmk(w *wnode) *wnode {
	switch w.op {
	case 'c':
		w.key = "c:" + w.name
	case 's':
		w.key = "s:" + w.name
	case 'a':
		w.key = "(" + w.f.key + " " + w.x.key + ")"
	case 'p':
		w.key = "∀" + w.dom.key + "," + w.body.key
	default:
		w.key = "_"
	}
	return w
}

var wAny = wmk(&wnode{op: '_'})

// nameGen is one run of Lean's name generator.
type nameGen struct {
	n      *instNamer
	src    *instSrc
	locals map[string]bool
	ltype  map[string]string // locals → their type's head as written
	ltypeT map[string]*tnode // locals → their type as written (binders; a section variable's head)
	top    *tnode            // the instance's class applied
	setVar map[string]*tnode // σ of [SetLike σ R] → R
	seen   map[string]bool
	consts map[string]bool
	types  map[*tnode]*tnode // typeOf's results
	// via: a field x.f found in a parent structure of x's type (F.map for
	// F : C ⥤ D is Prefunctor.map F.toPrefunctor): the parent projections
	// from x's type to it, set when the constant is resolved. Kept here,
	// not in the term: signatures' terms are shared by every instance
	// being named at once (baseNames), and x's type is this instance's.
	via map[*tnode][]string
	// nesting counts typeOf calls under way, wdepth winnowAt's, coeDepth
	// the coercions (coeSortOf) and unfolds the abbreviations unify
	// unfolds under way
	nesting, wdepth, coeDepth, unfolds int
}

func (g *nameGen) winnow(t *tnode) *wnode {
	return g.winnowAt(t, false, nil)
}

// winnowAt winnows t where a type is expected (isType: a set-like term
// there is coerced, ↥S) or a term of type expected (a numeral's type).
func (g *nameGen) winnowAt(t *tnode, isType bool, expected *tnode) *wnode {
	if t == nil || g.wdepth > 40 {
		// (a type filled in by unification names its own implicit
		// types: bounded)
		return wAny
	}
	g.wdepth++
	defer func() { g.wdepth-- }()
	if isType && t.op != 'o' {
		if coll := g.setLikeType(t); coll != nil {
			return g.coerce(t, coll)
		}
		if g.coeDepth < 3 {
			if c := g.coeSortOf(t); c != nil {
				g.coeDepth++
				defer func() { g.coeDepth-- }()
				return g.winnowAt(c, true, nil)
			}
		}
	}
	switch t.op {
	case 'c':
		name, ok := g.resolve(t)
		if !ok {
			return wAny
		}
		if sig := g.n.csigOf(name); sig != nil && sig.implicitTypes() {
			return g.winnowSig(&tnode{op: 'a', fn: t, asc: t.asc}, name, sig, expected)
		}
		return wmk(&wnode{op: 'c', name: name})
	case 's':
		return wmk(&wnode{op: 's', name: t.name})
	case 'n':
		// OfNat.ofNat T n: the literal's value is no name, its type is
		// (ℕ unless ascribed or expected otherwise)
		ty := wmk(&wnode{op: 'c', name: "Nat"})
		if t.asc != nil {
			ty = g.winnow(t.asc)
		} else if expected != nil {
			ty = g.winnow(expected)
		}
		return g.app(wmk(&wnode{op: 'c', name: "OfNat.ofNat"}), ty)
	case 'o':
		coll := g.setLikeType(t.args[0])
		if coll == nil {
			coll = &tnode{op: 'x'}
		}
		return g.coerce(t.args[0], coll)
	case 'a':
		return g.winnowApp(t, expected)
	case 'p':
		dom := wAny
		if !strings.HasPrefix(t.name, "\x00") && !(t.name != "" && t.name != "_" && mentions(t.body, t.name)) {
			dom = g.winnowAt(t.dom, true, nil)
		}
		return wmk(&wnode{op: 'p', dom: dom, body: g.winnowAt(t.body, true, nil)})
	case 'l':
		return g.winnow(t.body)
	}
	return wAny
}

// winnowApp winnows an application: a class's arguments that are types
// are coerced where set-like, a local function's numerals get its
// domain's type.
func (g *nameGen) winnowApp(t *tnode, expected *tnode) *wnode {
	if t.parentProj && len(t.args) == 1 {
		return g.winnow(t.args[0])
	}
	if t.fn.op == 'c' && t.fn.written != "" {
		if name, _ := g.resolve(t.fn); name == t.fn.written {
			return wmk(&wnode{op: 'c', name: name})
		}
	}
	if t.fn.op == 'c' {
		if name, ok := g.resolve(t.fn); ok {
			if sig := g.n.csigOf(name); sig != nil {
				return g.winnowSig(t, name, sig, expected)
			}
		}
	}
	w := g.winnow(t.fn)
	var sorts []bool
	var doms []*tnode
	switch t.fn.op {
	case 'c':
		name, _ := g.resolve(t.fn)
		switch name {
		case "Prod", "Sum", "PProd", "PSum":
			sorts = []bool{true, true}
		default:
			ci := g.n.classesFull[name]
			if ci == nil {
				ci = g.n.classes[lastComponent(name)]
			}
			if ci == nil && t == g.top {
				// the instance's class, not the library's (Inhabited)
				sorts = make([]bool, len(t.args))
				for i := range sorts {
					sorts[i] = true
				}
			} else if ci != nil {
				sorts = ci.sorts
				// section variables the class includes come first
				if len(sorts) > len(t.args) {
					sorts = sorts[len(sorts)-len(t.args):]
				} else {
					sorts = append(make([]bool, len(t.args)-len(sorts)), sorts...)
					for i := range len(t.args) - len(ci.sorts) {
						sorts[i] = true
					}
				}
			}
		}
	case 'v':
		for ty := g.ltypeT[t.fn.name]; ty != nil && ty.op == 'p'; ty = ty.body {
			doms = append(doms, ty.dom)
		}
	}
	for i, a := range t.args {
		var exp *tnode
		if i < len(doms) {
			exp = doms[i]
		}
		w = g.app(w, g.winnowAt(a, i < len(sorts) && sorts[i], exp))
	}
	return w
}

func (g *nameGen) app(f *wnode, xs ...*wnode) *wnode {
	for _, x := range xs {
		f = wmk(&wnode{op: 'a', f: f, x: x})
	}
	return f
}

// addSetLike records an instance binder [SetLike σ R].
func (g *nameGen) addSetLike(ty *tnode) {
	h, args := appHead(ty)
	if h == nil || h.op != 'c' || lastComponent(h.name) != "SetLike" || len(args) != 2 || args[0].op != 'v' && args[0].op != 'c' {
		return
	}
	if g.setVar == nil {
		g.setVar = map[string]*tnode{}
	}
	g.setVar[args[0].name] = args[1]
}

// setLikeType returns the type of a set-like term (a local of type Set α,
// Subgroup G, …, or (⊥ : IntermediateField F E)), nil for others.
func (g *nameGen) setLikeType(t *tnode) *tnode {
	var ty *tnode
	switch {
	case t.asc != nil:
		ty = t.asc
	case t.op == 'v':
		ty = g.ltypeT[t.name]
	case t.op == 'a' && t.fn.op == 'v':
		// A i for A : ι → σ
		ty = g.ltypeT[t.fn.name]
		for range t.args {
			if ty == nil || ty.op != 'p' {
				return nil
			}
			ty = ty.body
		}
	}
	h, _ := appHead(ty)
	if h != nil && h.op == 'c' && (setLike(h.name) || g.n.setLikes[lastComponent(h.name)]) {
		return ty
	}
	if h != nil && (h.op == 'v' || h.op == 'c') && g.setVar[h.name] != nil {
		return &tnode{op: 'a', fn: h, args: []*tnode{g.setVar[h.name]}}
	}
	return nil
}

// setLike reports whether a type head is one whose terms are coerced to
// types as subtypes (Set, Finset, Submonoid, Ideal, …).
func setLike(head string) bool {
	l := lastComponent(head)
	return l == "Set" || l == "Finset" || strings.HasPrefix(l, "Sub") || strings.Contains(l, "Subgroup") ||
		strings.Contains(l, "Submonoid") || strings.Contains(l, "Subalgebra") || strings.Contains(l, "Submodule") ||
		l == "Ideal" || l == "IntermediateField" || l == "Opens" || l == "Closeds"
}

// coerce is ↥x for x : coll: Set.Elem α x for a set, else the subtype
// {y : α // y ∈ x}, α the collection type's last argument.
func (g *nameGen) coerce(t, coll *tnode) *wnode {
	bare := *t
	bare.asc = nil
	term := g.winnow(&bare)
	h, args := appHead(coll)
	elem := wAny
	if len(args) > 0 {
		elem = g.winnow(args[len(args)-1])
	}
	if h != nil && lastComponent(h.name) == "Set" {
		return g.app(wmk(&wnode{op: 'c', name: "Set.Elem"}), elem, term)
	}
	mem := g.app(wmk(&wnode{op: 'c', name: "Membership.mem"}), elem, g.winnow(coll), term, wAny)
	return g.app(wmk(&wnode{op: 'c', name: "Subtype"}), elem, mem)
}

// resolve finds the constant an identifier names: in the namespaces of
// the instance from the innermost, in the opened ones, then at the root.
// Unknown short names are auto-bound implicit variables (false); other
// unknown names are kept as written.
func (g *nameGen) resolve(t *tnode) (string, bool) {
	id := t.name
	if t.res {
		return id, true
	}
	if t.recvTerm != nil {
		head, _, ok := g.headConst(g.typeOf(t.recvTerm, 0))
		if !ok {
			return g.writtenField(t)
		}
		if full, via, ok := g.n.field(head, id); ok {
			g.setVia(t, via)
			return full, true
		}
		if full, ok := g.homField(g.typeOf(t.recvTerm, 0), id, t); ok {
			return full, true
		}
		return g.writtenField(t)
	}
	if t.scope != nil {
		var opened []string
		for _, o := range t.scope.opens {
			opened = append(opened, o.name)
		}
		if full, ok := g.n.resolveIn(id, t.scope.ns, opened); ok {
			return full, true
		}
	}
	if t.recv != "" {
		h := g.ltype[t.recv]
		if h == "" {
			return "", false
		}
		head, ok := g.resolve(&tnode{op: 'c', name: h})
		if !ok {
			return "", false
		}
		if full, via, ok := g.n.field(head, id); ok {
			g.setVia(t, via)
			return full, true
		}
		if full, ok := g.homField(g.ltypeT[t.recv], id, t); ok {
			return full, true
		}
		return head + "." + id, true
	}
	for ns := g.src.ns; ; ns = parentNs(ns) {
		if _, ok := g.n.names[joinNs(ns, id)]; ok {
			return joinNs(ns, id), true
		}
		if ns == "" {
			break
		}
	}
	for _, o := range g.src.opened {
		if _, ok := g.n.names[joinNs(o, id)]; ok {
			return joinNs(o, id), true
		}
	}
	if autoBound(id) {
		return "", false
	}
	return id, true
}

// writtenField is an unresolved x.f.g: named as written (its last
// component), "" if it was (e).g.
func (g *nameGen) writtenField(t *tnode) (string, bool) {
	if t.written != "" {
		return t.written, true
	}
	return "", false
}

// field finds the constant generalized field notation x.id names for x of
// type head: head.id, else id in a parent structure of head (Lean's
// resolveLValLoop looks through the parents: Functor.map is Prefunctor.map),
// with the parent projections leading there.
func (n *instNamer) field(head, id string) (string, []string, bool) {
	if _, ok := n.names[head+"."+id]; ok {
		return head + "." + id, nil, true
	}
	// an abbreviation's fields are its value's (X.toTop for X : CompHaus,
	// CompHausLike fun _ ↦ True: Lean's resolveLValLoop unfolds the type)
	for k, h := 0, head; k < 3; k++ {
		a := n.abbrevValue(h)
		if a == nil {
			break
		}
		vh, _ := appHead(a.val)
		if vh == nil || vh.op != 'c' || !vh.res {
			break
		}
		h = vh.name
		if _, ok := n.names[h+"."+id]; ok {
			return h + "." + id, nil, true
		}
	}
	type step struct {
		s   string
		via []string
	}
	queue := []step{{head, nil}}
	seen := map[string]bool{head: true}
	for len(queue) > 0 && len(seen) < 20 {
		st := queue[0]
		queue = queue[1:]
		d := n.decls[st.s]
		if d == nil {
			continue
		}
		for _, e := range d.extends {
			proj := st.s + ".to" + lastComponent(e)
			sig := n.csigOf(proj)
			if sig == nil || sig.res == nil {
				continue
			}
			h, _ := appHead(stripParam(sig.res))
			if h == nil || h.op != 'c' || !h.res || seen[h.name] {
				continue
			}
			seen[h.name] = true
			via := append(append([]string(nil), st.via...), proj)
			if _, ok := n.names[h.name+"."+id]; ok {
				return h.name + "." + id, via, true
			}
			queue = append(queue, step{h.name, via})
		}
	}
	return "", nil, false
}

// homField resolves x.id for x of a morphism type ty (Quiver.Hom a b)
// in the type it unfolds to (unfoldHom: NatTrans.app).
func (g *nameGen) homField(ty *tnode, id string, t *tnode) (string, bool) {
	if g.unfolds > 3 {
		return "", false
	}
	g.unfolds++
	defer func() { g.unfolds-- }()
	u := g.unfoldHom(ty)
	uh, _ := appHead(u)
	if uh == nil || uh.op != 'c' {
		return "", false
	}
	head, ok := g.resolve(uh)
	if !ok {
		return "", false
	}
	full, via, ok := g.n.field(head, id)
	if ok {
		g.setVia(t, via)
	}
	return full, ok
}

func (g *nameGen) setVia(t *tnode, via []string) {
	if g.via == nil {
		g.via = map[*tnode][]string{}
	}
	g.via[t] = via
}

// recvArgs returns an application's arguments with the receiver of field
// notation found in a parent (g.via) put through the parent projections.
func (g *nameGen) recvArgs(h *tnode, args []*tnode) []*tnode {
	via := g.via[h]
	if len(via) == 0 || len(args) == 0 || h.recv == "" && h.recvTerm == nil {
		return args
	}
	x := args[0]
	for _, proj := range via {
		x = &tnode{op: 'a', fn: &tnode{op: 'c', name: proj, res: true}, args: []*tnode{x}, parentProj: true}
	}
	return append([]*tnode{x}, args[1:]...)
}

// autoBound reports whether an unknown identifier looks like a variable
// (α, R, M₁, x', f): Lean binds it automatically.
func autoBound(id string) bool {
	if strings.Contains(id, ".") {
		return false
	}
	n := 0
	for _, r := range id {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n <= 1
}

// aux is Lean's mkBaseNameAux: the body's name, then "Of…" for each
// top-level ∀ whose domain names something.
func (g *nameGen) aux(w *wnode) string {
	var foralls []string
	var visit func(w *wnode) string
	visit = func(w *wnode) string {
		if w.op != 'p' {
			return g.core(w, false)
		}
		sb := visit(w.body)
		if st := g.core(w.dom, true); st != "" {
			foralls = append([]string{"Of" + st}, foralls...)
		}
		return sb
	}
	sb := visit(w)
	return sb + strings.Join(foralls, "")
}

// core is Lean's mkBaseNameCore.
func (g *nameGen) core(w *wnode, omitTopForall bool) string {
	if g.seen[w.key] {
		return ""
	}
	s := g.core1(w, omitTopForall)
	g.seen[w.key] = true
	return s
}

func (g *nameGen) core1(w *wnode, omitTopForall bool) string {
	switch w.op {
	case 'c':
		g.consts[w.name] = true
		return capitalize(lastComponent(w.name))
	case 'a':
		f := g.core(w.f, false)
		return f + g.core(w.x, false)
	case 'p':
		sty := g.core(w.dom, false)
		if omitTopForall && sty == "" {
			return g.core(w.body, true)
		}
		return "Forall" + sty + g.core(w.body, false)
	case 's':
		return w.name
	}
	return ""
}
