package extract

import (
	"fmt"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/internal/leantext"
	"github.com/driftkit/driftkit/workspace"
)

// openDecl is one namespace opened by `open`.
type openDecl struct {
	name   string   // as written
	atNs   string   // namespace in force at the open (for relative names)
	only   []string // open X (a b): only these names
	hiding []string
	scoped bool // open scoped X: notations and instances only
}

// scopeCtx is the namespace/open context shared by consecutive declarations.
type scopeCtx struct {
	ns    string
	opens []openDecl
}

// varBinder is one section variable.
type varBinder struct {
	name     string // "" for an anonymous instance binder [C α]
	kind     byte   // '(' '{' '[' '⦃'
	head     string
	refs     []ref
	mentions []int // indices of earlier variables its type mentions
	// tyStart, tyEnd: its type's tokens in the file
	tyStart, tyEnd int
}

// notationDef maps a notation token to the declaration it stands for.
type notationDef struct {
	sym    string
	target string // as written (the first of targets)
	// lookup: the symbol is resolved by name resolution (one to three
	// tokens without spaces, from a notation command); kind the command,
	// atoms every atom, targets the expansion's identifiers as written,
	// expansion its text, line where it is declared.
	lookup    bool
	kind      string
	atoms     []string
	targets   []string
	expansion string
	line      int32
	pattern   []notItem // atoms and parameters in order (nil: not a plain pattern)
	ctx       *scopeCtx
	scopedNs  string // non-empty for scoped notation
	local     bool
	path      string
	resolved  string
	mod       int32 // declaring module (notation is visible where it is imported)
	// namerExpansion: the expansion the namer reads when not expansion
	// (notation3 over binders: binderPattern)
	namerExpansion string
}

// pdecl is a parsed declaration before name resolution.
type pdecl struct {
	row       workspace.Declaration
	ctx       *scopeCtx
	resNs     string // namespace used for resolution (namespace + declared prefix)
	varRefs   []ref  // references of the section variables the declaration includes
	sigRefs   []ref
	bodyRefs  []ref
	protected bool
	extends   []string // structure parents as written
	// alias: target as written and which part (0 whole, 1 mp, 2 mpr)
	aliasTarget string
	aliasPart   int
	// to_additive twin of this declaration (nil if none)
	twinOf   *pdecl
	unresolv int
	// instHeads are the class heads (as written) of the instance binders of
	// the statement; instClasses their resolved names.
	instHeads   []string
	instClasses []string
	// varSig is the section variables the declaration includes, written as
	// binders (definitions, classes, structures: what the instance namer
	// reads of a constant's signature; "" for theorems and instances)
	varSig string
	// paramSorts tells, for each explicit binder of the signature, whether
	// its type is a sort (Type*, Sort u) or not written.
	paramSorts []bool
	// resultHead is the head of the declaration's result type (as written)
	// and resultType its resolution: field notation continues there.
	resultHead string
	resultType string
	// condVars are instance-implicit section variables that Lean before 4.10
	// included only when elaboration used them (decided at resolution).
	condVars []condVar
	// fixed statement dependencies of declarations made after parsing
	fixed []string
	// @[simps] with its explicit projection names
	simps     bool
	simpsArgs []string
	propField bool // a structure field whose type is a proposition
	// inst is an anonymous instance's signature, named after parsing under
	// Lean ≥ 4.8 rules (nameInstances); twinAttr and twinExplicit are a
	// to_additive/to_dual twin's attribute and explicit name.
	inst                   *instSrc
	twinAttr, twinExplicit string
	// sigAttr is a twin's attribute (to_additive, to_dual) for translating
	// its signature text; twinned marks a declaration with a twin, whose
	// signature's identifiers resolution records in sigNames (as written →
	// full name) for it
	sigAttr  string
	twinned  bool
	sigNames map[string]string
	varTypes map[string]string // section variable → its type's result head (resultHead)
	varElems map[string]string // section variable → its type's element type (elemHead)
	varHeads map[string]string // section variable → its type's head (typeHead)
	// dontTranslate: the twin's attribute says (dont_translate := …)
	dontTranslate bool
	// resolution results before the instance-variable decision
	sigDeps, bodyDeps, baseDeps []string
	condDeps                    [][]string
	condCls                     []string
	ownInst, instNext           []string
}

// condVar is a conditionally included instance variable.
type condVar struct {
	head string
	refs []ref
}

// attrCmd is `attribute [to_additive] a b`: twins of declarations made
// elsewhere, created once the global table is known.
type attrCmd struct {
	ctx   *scopeCtx
	attr  string // to_additive or to_dual
	name  string // explicit twin name or ""
	names []string
	// existing: `[to_additive existing]` — a translation to a declaration
	// written elsewhere, no new row (names are full, `_root_.`-prefixed,
	// when it comes from a declaration's own attribute)
	existing bool
}

// exportDef is `export X (a b)`: aliases ns.a → X.a.
type exportDef struct {
	ctx   *scopeCtx
	ns    string
	from  string
	names []string
}

// fileResult is what parsing one file yields.
type fileResult struct {
	mod       workspace.Module
	decls     []*pdecl
	notations []*notationDef
	exports   []*exportDef
	attrCmds  []*attrCmd
	errs      []error
	source    *Source
	unres     []unresolvedUse // identifiers that did not resolve
}

// ParseError is a parse problem at a position of a file.
type ParseError struct {
	Path      string
	Line, Col int
	Err       error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// ErrUnbalanced is wrapped when a command's brackets do not balance.
var ErrUnbalanced = fmt.Errorf("unbalanced brackets in command")

// ErrPanic is wrapped when parsing a file panicked (a bug; the file is skipped).
var ErrPanic = fmt.Errorf("internal error while parsing")

type scopeEntry struct {
	kind  byte // 'n' namespace, 's' section, 'm' mutual
	name  string
	ns    string
	opens []openDecl
	vars  []*varBinder
	univs []string
	incl  []string
	omit  []string
	vis   sectionVis
}

// sectionVis is what Lean's scopes carry for the module system
// (Lean.Elab.Command.Scope, elabSection in src/Lean/Elab/BuiltinCommand.lean):
// `public section` makes declarations public by default, `@[expose] section`
// adds @[expose] to its defs. Both are inherited by nested sections and
// namespaces (isPublic := outer || new; attrs := outer ++ new) and dropped at
// the matching `end`.
type sectionVis struct {
	public, expose bool
}

// fileParser holds the per-file scope state.
type fileParser struct {
	f         *file
	path      string
	module    string
	opts      *Options
	src       *Source
	ns        string
	opens     []openDecl
	vars      []*varBinder
	univs     []string
	incl      []string
	omit      []string // omitted variables (names, or "[Class" for instance binders)
	vis       sectionVis
	stack     []scopeEntry
	ctx       *scopeCtx
	res       *fileResult
	oldRules  bool
	pendIn    *scopeEntry // state to restore after the next command (… in)
	instNames map[string]int
	// pendingInst is the anonymous instance declName just named, for decl
	// to attach to its row.
	pendingInst *instSrc
	base        baseScope // baseLocals' map of the current vars and univs
}

func (p *fileParser) context() *scopeCtx {
	if p.ctx == nil || p.ctx.ns != p.ns || len(p.ctx.opens) != len(p.opens) || (len(p.opens) > 0 && &p.ctx.opens[0] != &p.opens[0]) {
		p.ctx = &scopeCtx{ns: p.ns, opens: p.opens}
	}
	return p.ctx
}

func (p *fileParser) errAt(tok int, err error) {
	t := Token{}
	if tok >= 0 && tok < len(p.f.toks) {
		t = p.f.toks[tok]
	}
	p.res.errs = append(p.res.errs, &ParseError{Path: p.path, Line: int(t.Line), Col: int(t.Col), Err: err})
}

func joinNs(ns, name string) string {
	if ns == "" {
		return name
	}
	if name == "" {
		return ns
	}
	return ns + "." + name
}

func (p *fileParser) save() scopeEntry {
	return scopeEntry{ns: p.ns, opens: p.opens, vars: p.vars, univs: p.univs, incl: p.incl, omit: p.omit, vis: p.vis}
}

func (p *fileParser) restore(e scopeEntry) {
	p.ns, p.opens, p.vars, p.univs, p.incl, p.omit, p.vis = e.ns, e.opens, e.vars, e.univs, e.incl, e.omit, e.vis
}

// clone-on-append helpers keep earlier contexts immutable.
func appendOpens(a []openDecl, b ...openDecl) []openDecl {
	out := make([]openDecl, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// fileScratch is the token and group buffers of a parse, recycled from
// file to file: fresh ones for every Mathlib file were a sixth of what
// extract allocates.
type fileScratch struct {
	toks   []Token
	groups []groupEnd
	refs   []ref
}

var scratchPool sync.Pool // *fileScratch

// parseFile lexes, splits and parses one file.
func parseFile(src []byte, s string, path, module string, source *Source, opts *Options) (res *fileResult) {
	res = &fileResult{source: source}
	res.mod = workspace.Module{Library: source.Library, Revision: source.Revision, Name: module, Path: path}
	defer func() {
		if r := recover(); r != nil {
			res.errs = append(res.errs, &ParseError{Path: path, Err: fmt.Errorf("%w: %v", ErrPanic, r)})
			res.decls = nil
		}
		res.mod.Errors = int32(len(res.errs))
		res.mod.Declarations = int32(len(res.decls))
	}()
	sc, _ := scratchPool.Get().(*fileScratch)
	if sc == nil {
		sc = &fileScratch{}
	}
	toks, lerrs := lex(src, sc.toks)
	f := &file{s: s, toks: toks, groupsBuf: sc.groups, refsBuf: sc.refs}
	defer func() {
		// nothing of f outlives the parse (rows, references and instance
		// signatures hold strings of s, never tokens)
		sc.toks = f.toks[:0]
		if f.groups != nil {
			sc.groups = f.groups[:0]
		}
		sc.refs = f.refsBuf[:0]
		scratchPool.Put(sc)
	}()
	for _, e := range lerrs {
		le := e.(*LexError)
		res.errs = append(res.errs, &ParseError{Path: path, Line: le.Line, Col: le.Col, Err: le.Err})
	}
	p := &fileParser{f: f, path: path, module: module, opts: opts, src: source, res: res, oldRules: source.oldVariableRules}
	cmds := f.splitCommands()
	for _, c := range cmds {
		if c.Unbalanced {
			p.errAt(c.Start, ErrUnbalanced)
		}
		p.command(c)
	}
	return res
}

func (p *fileParser) command(c Command) {
	f := p.f
	endsIn := c.End-1 > c.Start && f.is(c.End-1, "in") && f.toks[c.End-1].Kind == TokIdent
	restoreAfter := p.pendIn
	p.pendIn = nil
	if endsIn {
		st := p.save()
		p.pendIn = &st
	}
	k := f.skipHeader(c.Start)
	kw := f.text(k)
	t := f.toks[c.Start]
	switch {
	case t.Kind == TokModDoc:
		if p.res.mod.Docstring == nil {
			p.res.mod.Docstring = f.docText(c.Start)
		}
	case kw == "import":
		p.imports(c)
	case kw == "module" && len(p.res.mod.Imports) == 0 && len(p.res.decls) == 0 && len(p.stack) == 0:
		// the header `module` (before the imports) opts the file into
		// Lean's module system
		p.res.mod.IsModule = true
	case kw == "namespace":
		// one scope per component: `end B` may close part of `namespace A.B`
		name := f.text(k + 1)
		root := strings.HasPrefix(name, "_root_.")
		name = strings.TrimPrefix(name, "_root_.")
		for i, part := range strings.Split(name, ".") {
			p.stack = append(p.stack, scopeEntry{kind: 'n', name: part, ns: p.ns, opens: p.opens, vars: p.vars, univs: p.univs, incl: p.incl, vis: p.vis})
			if i == 0 && root {
				p.ns = part
			} else {
				p.ns = joinNs(p.ns, part)
			}
		}
	case kw == "section":
		name := ""
		if k+1 < c.End && f.toks[k+1].Kind == TokIdent && f.toks[k+1].Line == f.toks[k].Line {
			name = f.text(k + 1)
		}
		p.stack = append(p.stack, scopeEntry{kind: 's', name: name, ns: p.ns, opens: p.opens, vars: p.vars, univs: p.univs, incl: p.incl, vis: p.vis})
		p.sectionHeader(c.Start, k)
	case kw == "mutual":
		p.stack = append(p.stack, scopeEntry{kind: 'm', ns: p.ns, opens: p.opens, vars: p.vars, univs: p.univs, incl: p.incl, vis: p.vis})
	case kw == "end":
		name := ""
		if k+1 < c.End && f.toks[k+1].Kind == TokIdent && f.toks[k+1].Line == f.toks[k].Line {
			name = f.text(k + 1)
		}
		p.end(name, k)
	case kw == "open":
		p.open(k+1, c.End)
	case kw == "variable" || kw == "variables":
		p.variable(k+1, c.End)
	case kw == "universe" || kw == "universes":
		u := append([]string(nil), p.univs...)
		for j := k + 1; j < c.End; j++ {
			if f.toks[j].Kind == TokIdent {
				u = append(u, f.text(j))
			}
		}
		p.univs = u
	case kw == "omit":
		om := append([]string(nil), p.omit...)
		for j := k + 1; j < c.End && !f.is(j, "in"); j++ {
			if f.is(j, "[") {
				cl := f.matchBracket(j)
				if h := f.typeHead(j+1, cl); h != "" {
					om = append(om, "["+h)
				}
				j = cl
				continue
			}
			if f.toks[j].Kind == TokIdent {
				om = append(om, f.text(j))
			}
		}
		p.omit = om
	case kw == "include":
		in := append([]string(nil), p.incl...)
		for j := k + 1; j < c.End && !f.is(j, "in"); j++ {
			if f.toks[j].Kind == TokIdent {
				in = append(in, f.text(j))
			}
		}
		p.incl = in
	case kw == "attribute":
		var attrs []attrSyntax
		if f.is(k+1, "[") {
			j := f.parseAttrs(k+1, c.End, &attrs)
			var names []string
			for ; j < c.End && !f.is(j, "in"); j++ {
				if f.toks[j].Kind == TokIdent {
					names = append(names, f.text(j))
				}
			}
			for _, a := range attrs {
				if a.name != "to_additive" && a.name != "to_dual" {
					continue
				}
				if explicit, ok := f.twinSpec(a); ok && len(names) > 0 {
					p.res.attrCmds = append(p.res.attrCmds, &attrCmd{ctx: p.context(), attr: a.name, name: explicit, names: names})
				} else if explicit, ok := f.twinExisting(a); ok && len(names) > 0 {
					p.res.attrCmds = append(p.res.attrCmds, &attrCmd{ctx: p.context(), attr: a.name, name: explicit, names: names, existing: true})
				}
			}
		}
	case kw == "export":
		e := &exportDef{ctx: p.context(), ns: p.ns}
		for j := k + 1; j < c.End; j++ {
			if f.toks[j].Kind == TokIdent {
				if e.from == "" {
					e.from = f.text(j)
				} else {
					e.names = append(e.names, f.text(j))
				}
			}
		}
		p.res.exports = append(p.res.exports, e)
	case kw == "deriving" && f.is(k+1, "instance"):
		p.derivingCommand(c, k)
	case kw == "macro_rules":
		p.macroRules(c, k)
	case notationKeywords[kw]:
		p.notation(c, k)
	case leantext.Is(kw, leantext.Decl):
		if d := f.parseDecl(c.Start, c.End); d != nil {
			p.decl(d, c)
		}
	}
	if restoreAfter != nil && !endsIn {
		p.restore(*restoreAfter)
	} else if restoreAfter != nil && endsIn {
		// `open A in open B in decl`: keep the outermost state
		p.pendIn = restoreAfter
	}
}

func (p *fileParser) imports(c Command) {
	f := p.f
	for j := c.Start; j < c.End; j++ {
		if !f.is(j, "import") {
			continue
		}
		// last identifier on the line after import (public import X, import all X)
		line := f.toks[j].Line
		name := ""
		for m := j + 1; m < c.End && f.toks[m].Line == line; m++ {
			if f.toks[m].Kind == TokIdent {
				name = f.text(m)
			}
		}
		if name != "" {
			p.res.mod.Imports = append(p.res.mod.Imports, name)
			p.res.mod.ImportKinds = append(p.res.mod.ImportKinds, f.importKind(j))
		}
	}
}

func (p *fileParser) end(name string, tok int) {
	if len(p.stack) == 0 {
		p.errAt(tok, fmt.Errorf("end %s without matching namespace or section", name))
		return
	}
	name = strings.TrimPrefix(name, "_root_.")
	parts := 1
	if name != "" {
		parts = strings.Count(name, ".") + 1
	}
	for parts > 0 && len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		p.restore(top)
		parts--
		if name == "" || top.kind == 's' && top.name == name {
			break
		}
	}
}

func (p *fileParser) open(i, end int) {
	f := p.f
	var add []openDecl
	scoped := false
	for j := i; j < end; j++ {
		t := f.toks[j]
		if t.Kind != TokIdent && !f.is(j, "(") {
			continue
		}
		s := f.text(j)
		switch s {
		case "scoped":
			scoped = true
			continue
		case "in":
			j = end
			continue
		case "hiding", "renaming":
			if len(add) > 0 {
				for m := j + 1; m < end && f.toks[m].Kind == TokIdent && !f.is(m, "in"); m++ {
					add[len(add)-1].hiding = append(add[len(add)-1].hiding, f.text(m))
					j = m
				}
			}
			continue
		case "(":
			c := f.matchBracket(j)
			if len(add) > 0 {
				for m := j + 1; m < c; m++ {
					if f.toks[m].Kind == TokIdent {
						add[len(add)-1].only = append(add[len(add)-1].only, f.text(m))
					}
				}
			}
			j = c
			continue
		}
		// `_root_.X` names the root's X: nothing relative to p.ns
		atNs := p.ns
		if strings.HasPrefix(s, "_root_.") {
			atNs = ""
		}
		add = append(add, openDecl{name: strings.TrimPrefix(s, "_root_."), atNs: atNs, scoped: scoped})
	}
	if len(add) > 0 {
		p.opens = appendOpens(p.opens, add...)
	}
}

// binderGroup is one binder group of a signature or variable command.
type binderGroup struct {
	names            []string
	kind             byte
	typeStart, tyEnd int
	head             string
}

// parseBinders parses binder groups in [i, end) up to the first top-level ':'
// (or end). Bare identifiers are binders without type.
func (f *file) parseBinders(i, end int) []binderGroup {
	var out []binderGroup
	for j := i; j < end; j++ {
		t := f.toks[j]
		if t.Kind == TokIdent {
			if termKeywords[f.text(j)] {
				return out
			}
			out = append(out, binderGroup{names: []string{f.text(j)}, kind: '(', typeStart: j, tyEnd: j})
			continue
		}
		if t.Kind != TokSymbol {
			continue
		}
		s := f.text(j)
		if s == ":" || s == ":=" || s == "|" {
			return out
		}
		if s != "(" && s != "{" && s != "[" && s != "⦃" && s != "{{" {
			continue
		}
		c := f.matchBracket(j)
		if c > end {
			c = end
		}
		g := binderGroup{kind: s[0], typeStart: c, tyEnd: c}
		if s == "⦃" {
			g.kind = '{'
		}
		// names before ':' (for [C α] without ':' there are none)
		colon := -1
		for m := j + 1; m < c; m++ {
			if f.is(m, ":") {
				colon = m
				break
			}
			if f.depthDelta(m) != 0 {
				break
			}
		}
		if colon >= 0 {
			for m := j + 1; m < colon; m++ {
				if f.toks[m].Kind == TokIdent {
					g.names = append(g.names, f.text(m))
				}
			}
			g.typeStart = colon + 1
		} else if s == "[" {
			g.typeStart = j + 1
		} else {
			for m := j + 1; m < c; m++ {
				if f.toks[m].Kind == TokIdent {
					g.names = append(g.names, f.text(m))
				}
			}
		}
		// type ends at := (default value)
		g.tyEnd = c
		for m := g.typeStart; m < c; m++ {
			if f.is(m, ":=") {
				g.tyEnd = m
				break
			}
		}
		g.head = f.typeHead(g.typeStart, g.tyEnd)
		out = append(out, g)
		j = c
	}
	return out
}

// resultHead returns the head of the codomain of the type in [i, end): the
// part after the first top-level ':' and after the last top-level '→'.
func (f *file) resultHead(i, end int) string {
	depth := 0
	start := -1
	for j := i; j < end; j++ {
		if d := f.depthDelta(j); d != 0 {
			depth += d
			continue
		}
		if depth != 0 {
			continue
		}
		if start < 0 {
			if f.is(j, ":") {
				start = j + 1
			}
			continue
		}
		if (f.is(j, "→") && !(j+1 < end && f.toks[j+1].Start == f.toks[j].End && f.toks[j+1].Kind == TokSymbol)) || f.is(j, ",") {
			start = j + 1
		}
	}
	if start < 0 {
		return ""
	}
	// bundled maps: A →* B, A →+ B, A ≃ B, A ↪ B
	depth = 0
	for j := start; j < end; j++ {
		if d := f.depthDelta(j); d != 0 {
			depth += d
			continue
		}
		if depth != 0 {
			continue
		}
		adj := j+1 < end && f.toks[j+1].Start == f.toks[j].End
		switch {
		case f.is(j, "→") && adj && f.is(j+1, "*"):
			return "MonoidHom"
		case f.is(j, "→") && adj && f.is(j+1, "+"):
			return "AddMonoidHom"
		case f.is(j, "≃") && adj && f.is(j+1, "*"):
			return "MulEquiv"
		case f.is(j, "≃") && adj && f.is(j+1, "+"):
			return "AddEquiv"
		case f.is(j, "≃"):
			return "Equiv"
		case f.is(j, "↪"):
			return "Function.Embedding"
		}
	}
	depth = 0
	for j := start; j < end; j++ {
		if d := f.depthDelta(j); d != 0 {
			depth += d
		} else if depth == 0 && f.is(j, "×") {
			return "Prod"
		}
	}
	return f.typeHead(start, end)
}

// typeHead returns the first identifier of a type (skipping coercion arrows
// and opening parentheses), "" if the type does not start with one.
func (f *file) typeHead(i, end int) string {
	for j := i; j < end; j++ {
		t := f.toks[j]
		if t.Kind == TokIdent {
			s := f.text(j)
			if termKeywords[s] {
				return ""
			}
			return s
		}
		if t.Kind == TokSymbol && (f.is(j, "(") || f.is(j, "↑") || f.is(j, "@")) {
			continue
		}
		return ""
	}
	return ""
}

// baseLocals is a new locals over the universes and section variables in
// scope (a variable shadows a universe and an earlier variable of its name).
func (p *fileParser) baseLocals() *locals {
	if p.base.m == nil || !sameSlice(p.base.vars, p.vars) || !sameSlice(p.base.univs, p.univs) {
		m := make(map[string]localInfo, len(p.univs)+len(p.vars))
		for _, u := range p.univs {
			if u != "" && u != "_" {
				m[u] = localInfo{varIdx: -1}
			}
		}
		for idx, v := range p.vars {
			if v.name != "" {
				m[v.name] = localInfo{head: v.head, varIdx: idx}
			}
		}
		p.base = baseScope{vars: p.vars, univs: p.univs, m: m}
	}
	return newLocals(len(p.vars), p.base.m)
}

// baseScope is the map baseLocals made for the variables and universes of
// a scope; the parser replaces (never changes) those lists, so an
// identical slice is the same scope.
type baseScope struct {
	vars  []*varBinder
	univs []string
	m     map[string]localInfo
}

// sameSlice reports whether a and b are the same slice (same elements in
// the same memory), not merely equal.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (p *fileParser) variable(i, end int) {
	f := p.f
	if end > i && f.is(end-1, "in") {
		end--
	}
	groups := f.parseBinders(i, end)
	vars := append([]*varBinder(nil), p.vars...)
	for _, g := range groups {
		if g.typeStart >= g.tyEnd && g.kind != '[' {
			// variable (x): changes the binder info of an existing
			// variable, which constants' signatures then show
			// (varSig: `class C … ` after `variable {M : Type*}`
			// and `variable (M)` takes M explicitly)
			updateBinders(vars, g.names, g.kind)
			continue
		}
		// the type is resolved in the context of later declarations
		tmp := &fileParser{f: f, vars: vars, univs: p.univs}
		loc := tmp.baseLocals()
		loc.binderEnd = g.tyEnd
		refs := f.collectRefs(g.typeStart, g.tyEnd, loc, nil)
		var mentions []int
		for idx, u := range loc.used {
			if u {
				mentions = append(mentions, idx)
			}
		}
		if len(g.names) == 0 {
			vars = append(vars, &varBinder{kind: g.kind, head: g.head, refs: refs, mentions: mentions, tyStart: g.typeStart, tyEnd: g.tyEnd})
			continue
		}
		for _, n := range g.names {
			vars = append(vars, &varBinder{name: n, kind: g.kind, head: g.head, refs: refs, mentions: mentions, tyStart: g.typeStart, tyEnd: g.tyEnd})
		}
	}
	p.vars = vars
}

// updateBinders gives the latest variables of the given names the binder
// kind of a `variable (x)` update, as copies: earlier declarations' scopes
// share the old binders.
func updateBinders(vars []*varBinder, names []string, kind byte) {
	for _, n := range names {
		for i := len(vars) - 1; i >= 0; i-- {
			if vars[i].name == n {
				v := *vars[i]
				v.kind = kind
				vars[i] = &v
				break
			}
		}
	}
}

// sectionHeader reads the modifiers of a `section` command [start, kw):
// `public` and `@[expose]` (Lean's section syntax:
// `@[expose]? public? noncomputable? meta? section`).
func (p *fileParser) sectionHeader(start, kw int) {
	f := p.f
	for j := start; j < kw; j++ {
		switch {
		case f.is(j, "public") && f.toks[j].Kind == TokIdent:
			p.vis.public = true
		case f.is(j, "@["):
			var attrs []attrSyntax
			f.parseAttrs(j, kw, &attrs)
			for _, a := range attrs {
				p.vis.expose = p.vis.expose || a.name == "expose"
			}
			j = f.matchBracket(j)
		}
	}
}

// importKind is how the `import` at token i imports: the words of Lean's
// import syntax `public? meta? import all? M` that are present, in that
// order, space-separated ("" for a plain import).
func (f *file) importKind(i int) string {
	line := f.toks[i].Line
	var pub, meta bool
	for j := i - 1; j >= 0 && f.toks[j].Line == line && f.toks[j].Kind == TokIdent; j-- {
		pub = pub || f.is(j, "public")
		meta = meta || f.is(j, "meta")
	}
	var words []string
	if pub {
		words = append(words, "public")
	}
	if meta {
		words = append(words, "meta")
	}
	if i+2 < len(f.toks) && f.is(i+1, "all") && f.toks[i+2].Line == line && f.toks[i+2].Kind == TokIdent {
		words = append(words, "all")
	}
	return strings.Join(words, " ")
}
