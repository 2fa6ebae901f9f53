package extract

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// entry is one declaration in the global name table.
type entry struct {
	kind      string
	protected bool
	mod       int32    // index of the declaring module, -1 if always visible
	aliasOf   string   // export alias: the name it stands for
	parents   []string // resolved parent structures (field notation looks there too)
	decl      *pdecl
	// private: a private declaration (Lean mangles its name): visible only
	// in its module and those that `import all` it; privIn are the other
	// modules that declare a private one of the same name
	private bool
	privIn  []int32
}

// Table is the global name table of every declaration of every source: full
// names with their kinds, the namespaces they form, and notations. It is
// built once and then only read, so lookups are safe for concurrent use.
type Table struct {
	names      map[string]*entry
	namespaces map[string]bool
	notations  map[string][]*notationDef
	twins      *twinNamespaces     // to_additive/to_dual namespace translations (nil: guessed by words)
	suffix     map[string][]string // last component → names in type namespaces
	openCache  memo[*scopeCtx, []resolvedOpen]
	vis        []bitset // per module: the modules it (transitively) imports, itself included
	// priv: per module, the modules whose private declarations it sees:
	// itself and those it imports with `import all` (transitively)
	priv []bitset
	// providers maps a class to the classes an instance or a parent
	// projection derives it from ([B] provides A when B extends A).
	providers map[string][]string
	derives   map[string][]string    // reverse of providers
	derivMemo memo[string, []string] // class → classes derivable from it
	// unresolved counts identifiers that do not resolve (nil: not counted)
	unresolved *counter
	pool       []*resolver // parallel's resolvers (parallel passes never overlap)
}

// derivable returns the class itself and the classes instances and parent
// projections derive from it (three steps deep), memoised.
func (t *Table) derivable(c string) []string {
	if v, ok := t.derivMemo.get(c); ok {
		return v
	}
	seen := map[string]bool{c: true}
	out := []string{c}
	queue := []string{c}
	for depth := 0; depth < 3 && len(queue) > 0; depth++ {
		var next []string
		for _, x := range queue {
			for _, y := range t.derives[x] {
				if !seen[y] {
					seen[y] = true
					out = append(out, y)
					next = append(next, y)
				}
			}
		}
		queue = next
	}
	return t.derivMemo.put(c, out)
}

// bitset is a set of module indices.
type bitset []uint64

func (b bitset) has(i int32) bool {
	return i < 0 || int(i>>6) < len(b) && b[i>>6]&(1<<(uint(i)&63)) != 0
}

// Kind returns the kind of a full name and whether it is known.
func (t *Table) Kind(name string) (string, bool) {
	e, ok := t.names[name]
	if !ok {
		return "", false
	}
	return e.kind, true
}

// Len returns the number of names in the table.
func (t *Table) Len() int { return len(t.names) }

// IsNamespace reports whether some declared name lies in namespace ns.
func (t *Table) IsNamespace(ns string) bool { return t.namespaces[ns] }

type resolvedOpen struct {
	ns     string
	only   []string
	hiding []string
	scoped bool
}

// newTable builds the name table of files; vis are their import closures
// (importClosures; nil: computed here).
func newTable(files []*fileResult, vis []bitset) *Table {
	n := 0
	for _, fr := range files {
		n += len(fr.decls)
	}
	t := &Table{names: make(map[string]*entry, n), namespaces: make(map[string]bool, n/4),
		notations: map[string][]*notationDef{}, suffix: make(map[string][]string, n/2)}
	visDone := make(chan struct{})
	go func() {
		if vis == nil {
			vis, _ = importClosures(files)
		}
		t.vis = vis
		close(visDone)
	}()
	add := func(name string, e *entry) {
		if old, dup := t.names[name]; dup {
			if old.private && e.private {
				old.privIn = append(old.privIn, e.mod)
			}
			// Lean names are unique. When a generated row (a to_additive
			// twin, a projection) collides with a written declaration, the
			// written one is the declaration; otherwise the first wins.
			if old.decl != nil && old.decl.row.GeneratedFrom != nil && e.decl != nil && e.decl.row.GeneratedFrom == nil {
				t.names[name] = e
			}
			return
		}
		t.names[name] = e
		for ns := parentNs(name); ns != "" && !t.namespaces[ns]; ns = parentNs(ns) {
			t.namespaces[ns] = true
		}
		if p := parentNs(name); p != "" {
			if l := lastComponent(p); l != "" && l[0] >= 'A' && l[0] <= 'Z' {
				last := lastComponent(name)
				t.suffix[last] = append(t.suffix[last], name)
			}
		}
	}
	for mi, fr := range files {
		for _, d := range fr.decls {
			add(d.row.Name, &entry{kind: d.row.Kind, protected: d.protected, decl: d, mod: int32(mi), private: isPrivate(d)})
		}
		for _, nd := range fr.notations {
			nd.mod = int32(mi)
			if nd.lookup {
				t.notations[nd.sym] = append(t.notations[nd.sym], nd)
			}
		}
	}
	for _, c := range coreNames() {
		add(c[0], &entry{kind: c[1], mod: -1})
	}
	<-visDone
	t.priv = importAllClosures(files)
	// export X (a b): aliases in the exporting namespace
	for mi, fr := range files {
		for _, ex := range fr.exports {
			for _, o := range t.opensOf(&scopeCtx{ns: ex.ns, opens: []openDecl{{name: ex.from, atNs: ex.ns}}}) {
				for _, a := range ex.names {
					target := joinNs(o.ns, a)
					if e := t.names[target]; e != nil {
						add(joinNs(ex.ns, a), &entry{kind: e.kind, mod: int32(mi), aliasOf: target})
					}
				}
			}
		}
	}
	return t
}

// importClosures computes, for every file, the files it imports
// transitively, itself included (a declaration is visible where its module
// is imported), and an import order of the files: each after the files it
// imports (depth first, in file order; an import cycle is cut where it is
// met).
func importClosures(files []*fileResult) ([]bitset, []int) {
	idx := make(map[string]int, len(files))
	for i, fr := range files {
		if _, dup := idx[fr.mod.Name]; !dup {
			idx[fr.mod.Name] = i
		}
	}
	words := (len(files) + 63) / 64
	vis := make([]bitset, len(files))
	order := make([]int, 0, len(files))
	state := make([]byte, len(files)) // 0 new, 1 in progress, 2 done
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		b := make(bitset, words)
		b[i>>6] |= 1 << (uint(i) & 63)
		for _, imp := range files[i].mod.Imports {
			j, ok := idx[imp]
			if !ok {
				continue
			}
			visit(j)
			if state[j] == 2 {
				for w := range b {
					b[w] |= vis[j][w]
				}
			}
		}
		vis[i] = b
		state[i] = 2
		order = append(order, i)
	}
	for i := range files {
		visit(i)
	}
	return vis, order
}

// importAllClosures computes, for every file, the files whose private
// declarations it sees: itself and the modules it imports with `import
// all`, and theirs in turn (Lean's importModulesCore: `import all` makes
// the imported module's private scope visible).
func importAllClosures(files []*fileResult) []bitset {
	idx := make(map[string]int, len(files))
	for i, fr := range files {
		if _, dup := idx[fr.mod.Name]; !dup {
			idx[fr.mod.Name] = i
		}
	}
	words := (len(files) + 63) / 64
	out := make([]bitset, len(files))
	var visit func(i int) bitset
	visit = func(i int) bitset {
		if out[i] != nil {
			return out[i]
		}
		b := make(bitset, words)
		b[i>>6] |= 1 << (uint(i) & 63)
		out[i] = b // an import cycle stops here
		for k, imp := range files[i].mod.Imports {
			if k >= len(files[i].mod.ImportKinds) || !slices.Contains(strings.Fields(files[i].mod.ImportKinds[k]), "all") {
				continue
			}
			if j, ok := idx[imp]; ok {
				for w, x := range visit(j) {
					b[w] |= x
				}
			}
		}
		return b
	}
	for i := range files {
		visit(i)
	}
	return out
}

// opensOf resolves the namespaces opened in a context (cached per context).
func (t *Table) opensOf(ctx *scopeCtx) []resolvedOpen {
	if v, ok := t.openCache.get(ctx); ok {
		return v
	}
	var out []resolvedOpen
	for _, o := range ctx.opens {
		found := false
		prev := len(out) // opens before this one
		for ns := o.atNs; ; ns = parentNs(ns) {
			c := joinNs(ns, o.name)
			if t.namespaces[c] || t.names[c] != nil {
				out = append(out, resolvedOpen{ns: c, only: o.only, hiding: o.hiding, scoped: o.scoped})
				found = true
			}
			if ns == "" {
				break
			}
		}
		// open Lean Meta: relative to the namespaces opened before, as well
		// (Lean's resolveNamespace returns both kinds of match: with a root
		// namespace Measure and `open MeasureTheory Measure`, both open)
		for i := prev - 1; i >= 0; i-- {
			if c := joinNs(out[i].ns, o.name); t.namespaces[c] && !openedAt(out[prev:], c) {
				out = append(out, resolvedOpen{ns: c, only: o.only, hiding: o.hiding, scoped: o.scoped})
				found = true
			}
		}
		if !found {
			out = append(out, resolvedOpen{ns: o.name, only: o.only, hiding: o.hiding, scoped: o.scoped})
		}
	}
	return t.openCache.put(ctx, out)
}

func openedAt(os []resolvedOpen, ns string) bool {
	for _, o := range os {
		if o.ns == ns {
			return true
		}
	}
	return false
}

// rctx is the resolution context of one declaration.
type rctx struct {
	ns    string
	opens []resolvedOpen
	path  string
	buf   []byte
	vis   bitset // modules visible from the current file (nil: all)
	priv  bitset // modules whose private rows the current file sees (nil: all)
	any   bool   // ignore visibility (fallback pass)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lookup returns the entry of ns.id without allocating.
func (t *Table) lookup(rc *rctx, ns, id string) (string, *entry) {
	if ns == "" {
		if e := t.names[id]; t.visible(rc, e) {
			if e.aliasOf != "" {
				return e.aliasOf, e
			}
			return id, e
		}
		return "", nil
	}
	rc.buf = append(append(append(rc.buf[:0], ns...), '.'), id...)
	if e := t.names[string(rc.buf)]; t.visible(rc, e) {
		if e.aliasOf != "" {
			return e.aliasOf, e
		}
		return string(rc.buf), e
	}
	return "", nil
}

func (t *Table) visible(rc *rctx, e *entry) bool {
	return e != nil && (rc.any || rc.vis == nil || rc.vis.has(e.mod)) && (!e.private || privVisible(rc.priv, e))
}

// privVisible tells whether a private row is visible from a file that
// sees the private rows of priv: Lean forbids a reference to another
// module's private declaration unless that module is imported with
// `import all` (the fallback pass that ignores imports keeps this rule).
func privVisible(priv bitset, e *entry) bool {
	if priv == nil || priv.has(e.mod) {
		return true
	}
	for _, m := range e.privIn {
		if priv.has(m) {
			return true
		}
	}
	return false
}

// resolveExact resolves id (no trailing projections) with Lean's rules:
// the current namespace and its parents, the root, then opened namespaces.
func (t *Table) resolveExact(id string, rc *rctx) string {
	if strings.HasPrefix(id, "_root_.") {
		n, _ := t.lookup(rc, "", id[len("_root_."):])
		return n
	}
	atomic := strings.IndexByte(id, '.') < 0
	for ns := rc.ns; ns != ""; ns = parentNs(ns) {
		if n, e := t.lookup(rc, ns, id); e != nil && (!atomic || !e.protected) {
			return n
		}
	}
	if n, _ := t.lookup(rc, "", id); n != "" {
		return n
	}
	for i := len(rc.opens) - 1; i >= 0; i-- {
		o := rc.opens[i]
		if o.scoped {
			continue
		}
		if o.only != nil && !contains(o.only, id) {
			continue
		}
		if o.hiding != nil && contains(o.hiding, id) {
			continue
		}
		if n, e := t.lookup(rc, o.ns, id); e != nil && (!atomic || !e.protected) {
			return n
		}
	}
	return ""
}

// Resolve resolves an identifier as written; trailing components that do not
// resolve are taken as projections (h.symm, Nat.succ_le.mpr).
func (t *Table) resolve(id string, rc *rctx) string {
	if n := t.resolveDrop(id, rc); n != "" || rc.vis == nil {
		return n
	}
	// imports unknown or incomplete: accept declarations of any module
	rc.any = true
	n := t.resolveDrop(id, rc)
	rc.any = false
	return n
}

func (t *Table) resolveDrop(id string, rc *rctx) string {
	cur := id
	for {
		if n := t.resolveExact(cur, rc); n != "" {
			return n
		}
		i := strings.LastIndexByte(cur, '.')
		if i <= 0 {
			return ""
		}
		cur = cur[:i]
	}
}

// resolveField resolves generalized field notation x.field where x has type
// head typ: typ.field, then in the parent structures.
func (t *Table) resolveField(typ, field string, rc *rctx, depth int) string {
	if depth > 8 {
		return ""
	}
	if n, e := t.lookup(rc, typ, field); e != nil {
		return n
	}
	if typ == "" {
		return ""
	}
	if e := t.names[typ]; e != nil {
		for _, p := range e.parents {
			if n := t.resolveField(p, field, rc, depth+1); n != "" {
				return n
			}
		}
	}
	return ""
}

// uniqueSuffix resolves a field of an expression of unknown type: the one
// visible declaration in a type namespace with that last component, if unique.
func (t *Table) uniqueSuffix(field string, rc *rctx) string {
	found := ""
	for _, n := range t.suffix[field] {
		if !t.visible(rc, t.names[n]) {
			continue
		}
		if found != "" {
			return ""
		}
		found = n
	}
	return found
}

// notation resolves a notation token in a context.
func (t *Table) notation(sym string, rc *rctx) string {
	defs := t.notations[sym]
	for i := len(defs) - 1; i >= 0; i-- {
		d := defs[i]
		if d.resolved == "" || (rc.vis != nil && !rc.vis.has(d.mod)) {
			continue
		}
		switch {
		case d.local:
			if d.path == rc.path {
				return d.resolved
			}
		case d.scopedNs != "":
			if rc.ns == d.scopedNs || strings.HasPrefix(rc.ns, d.scopedNs+".") {
				return d.resolved
			}
			for _, o := range rc.opens {
				if o.ns == d.scopedNs {
					return d.resolved
				}
			}
		default:
			return d.resolved
		}
	}
	return ""
}

// resolvers returns n resolvers, one per worker of a parallel pass. They
// are the same from pass to pass: their caches hold what resolution gives
// once the table is prepared, and growing a new cache to 65,536 entries in
// every pass (rehashing each key at every doubling) was about a tenth of
// the resolve phase on Mathlib.
func (t *Table) resolvers(n int) []*resolver {
	for len(t.pool) < n {
		t.pool = append(t.pool, &resolver{t: t, cache: make(map[cacheKey]string, 1024)})
	}
	return t.pool[:n]
}

// resolver resolves the references of declarations; one per worker.
type resolver struct {
	t     *Table
	opens []string
	rc    rctx
	cache map[cacheKey]string
	cctx  *scopeCtx
	cns   string
	// unres, when set, collects the identifiers that do not resolve, with
	// cur, the declaration being resolved (see unresolved.go)
	unres *[]unresolvedUse
	cur   *pdecl
}

const unresolvedMark = "\x00"

// cacheKey memoises a reference's resolution in one context.
type cacheKey struct {
	r   ref
	ctx *scopeCtx
	ns  string
}

func (r *resolver) setContext(d *pdecl, path string, mi int) {
	var vis, priv bitset
	if mi >= 0 {
		vis, priv = r.t.vis[mi], r.t.priv[mi]
	}
	if r.cctx != d.ctx || r.cns != d.resNs || r.rc.path != path {
		r.cctx, r.cns = d.ctx, d.resNs
		r.rc = rctx{ns: d.resNs, opens: r.t.opensOf(d.ctx), path: path, buf: r.rc.buf, vis: vis, priv: priv}
		if len(r.cache) > 1<<16 {
			clear(r.cache)
		}
		r.opens = make([]string, 0, len(r.rc.opens))
		for _, o := range r.rc.opens {
			r.opens = append(r.opens, o.ns)
		}
	}
}

// one resolves a reference; "" if it does not resolve. unresolved reports
// identifiers (not notation or fields) that did not resolve.
func (r *resolver) one(x ref) (name string, unresolved bool) {
	key := cacheKey{x, r.cctx, r.cns}
	if v, ok := r.cache[key]; ok {
		if v == unresolvedMark {
			return "", true
		}
		return v, false
	}
	switch {
	case x.sym:
		name = r.t.notation(x.name, &r.rc)
	case x.recv == "?":
		name = r.t.uniqueSuffix(x.name, &r.rc)
	case x.recv != "":
		if typ := r.t.resolve(x.recv, &r.rc); typ != "" {
			name = r.t.resolveField(typ, x.name, &r.rc, 0)
		}
		if name == "" {
			name = r.t.uniqueSuffix(x.name, &r.rc)
		}
	default:
		name = r.t.resolve(x.name, &r.rc)
		if name == "" {
			name = r.t.notation(x.name, &r.rc)
		}
		if name == "" && !isAutoBound(x.name) {
			unresolved = true
		}
	}
	if unresolved {
		if r.t.unresolved != nil {
			r.t.unresolved.Add(x.name)
		}
		r.cache[key] = unresolvedMark
	} else {
		r.cache[key] = name
	}
	return name, unresolved
}

// chain resolves x.f.g for a local x of type head recv: each field in the
// namespace of the previous one's result type.
func (r *resolver) chain(x ref) []string {
	var out []string
	var typ string
	if strings.HasPrefix(x.recv, "=") {
		n := r.t.resolve(x.recv[1:], &r.rc)
		if e := r.t.names[n]; e != nil && e.decl != nil {
			typ = e.decl.resultType
		}
	} else {
		typ = r.t.resolve(x.recv, &r.rc)
	}
	rest := x.name
	for rest != "" {
		var comp string
		comp, rest = firstComponent(rest)
		n := ""
		if typ != "" {
			n = r.t.resolveField(typ, comp, &r.rc, 0)
		}
		if n == "" {
			n = r.t.uniqueSuffix(comp, &r.rc)
		}
		if n == "" {
			break
		}
		out = append(out, n)
		typ = ""
		if e := r.t.names[n]; e != nil && e.decl != nil {
			typ = e.decl.resultType
		}
	}
	return out
}

// isAutoBound reports names Lean would auto-bind as implicit arguments
// (single letters with optional subscripts/primes/digits), and the
// universe names Lean itself generates (u_1, u_2).
func isAutoBound(s string) bool {
	rs := []rune(s)
	if len(rs) == 0 {
		return false
	}
	if len(rs) > 2 && rs[1] == '_' && unicode.IsLetter(rs[0]) {
		rs = append(rs[:1:1], rs[2:]...) // u_1 → u1
	}
	for _, c := range rs[1:] {
		if !(isSubScriptAlnum(c) || c == '\'' || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// deps resolves refs into a list of unique names in order of first use,
// excluding self. It returns the count of unresolved identifiers.
func (r *resolver) deps(self string, refs []ref, skipAsc bool) ([]string, int) {
	var out nameList
	bad := 0
	skipNext := false
	for _, x := range refs {
		if x.asc && skipAsc {
			continue
		}
		if x.sym {
			if skipNext && x.recv == "" {
				skipNext = false
				continue
			}
			skipNext = false
			n := r.t.notation(x.name, &r.rc)
			if n == "" {
				continue
			}
			skipNext = x.recv == symLong
			if n != self {
				out.add(n)
			}
			continue
		}
		if skipNext && x.recv == "" {
			// the word of a word-led notation (H[…]) that resolved
			skipNext = false
			continue
		}
		skipNext = false
		if x.recv != "" && x.recv != "?" {
			for _, n := range r.chain(x) {
				if n != self {
					out.add(n)
				}
			}
			continue
		}
		n, un := r.one(x)
		if un {
			bad++
			if r.unres != nil {
				*r.unres = append(*r.unres, unresolvedUse{name: x.name, decl: r.cur})
			}
		}
		if n == "" || n == self {
			continue
		}
		out.add(n)
	}
	return out.names, bad
}

// writtenNames maps the identifiers of refs (not notation, not field
// notation) to the constants they resolve to.
func (r *resolver) writtenNames(refs []ref) map[string]string {
	out := map[string]string{}
	for _, x := range refs {
		if x.sym || x.recv != "" {
			continue
		}
		if _, ok := out[x.name]; ok {
			continue
		}
		n := r.t.resolve(x.name, &r.rc)
		if n == "" {
			n = r.t.notation(x.name, &r.rc)
		}
		if n != "" {
			out[x.name] = n
		}
	}
	return out
}

// nameList is a list of names without repeats, in order of first addition.
// Most lists are short: they are scanned, and a set is made only once a
// list is long (a map per declaration was a fifth of extract's
// allocations).
type nameList struct {
	names []string
	seen  map[string]bool // nil while names is short
}

// nameListScan is the length up to which a nameList is scanned.
const nameListScan = 24

// add appends n unless the list has it.
func (l *nameList) add(n string) {
	if l.seen == nil {
		if slices.Contains(l.names, n) {
			return
		}
		l.names = append(l.names, n)
		if len(l.names) > nameListScan {
			l.seen = make(map[string]bool, 2*len(l.names))
			for _, m := range l.names {
				l.seen[m] = true
			}
		}
		return
	}
	if !l.seen[n] {
		l.seen[n] = true
		l.names = append(l.names, n)
	}
}

func (r *resolver) resolveDecl(d *pdecl, mi int) int {
	r.setContext(d, d.row.Path, mi)
	r.cur = d
	var bad, b int
	d.sigDeps, b = r.deps(d.row.Name, d.sigRefs, true)
	bad += b
	if d.twinned {
		d.sigNames = r.writtenNames(d.sigRefs)
	}
	d.bodyDeps, b = r.deps(d.row.Name, d.bodyRefs, false)
	bad += b
	d.baseDeps, b = r.deps(d.row.Name, d.varRefs, true)
	bad += b
	if d.fixed != nil {
		d.baseDeps = d.fixed
	}
	d.condDeps = d.condDeps[:0]
	for _, cv := range d.condVars {
		var cd []string
		cd, b = r.deps(d.row.Name, cv.refs, true)
		bad += b
		d.condDeps = append(d.condDeps, cd)
	}
	d.unresolv = bad
	d.row.Opens = r.opens
	// references are not needed any more: free them (most of the memory)
	d.sigRefs, d.bodyRefs, d.varRefs = nil, nil, nil
	for i := range d.condVars {
		d.condVars[i].refs = nil
	}
	d.row.ProofDeps = d.bodyDeps
	if d.row.ProofDeps == nil {
		d.row.ProofDeps = []string{}
	}
	return bad
}

// condIncluded reports which conditional instance variables of d are
// included: Lean < 4.10 included one when elaboration used it, i.e. when a
// constant the declaration uses needs its class (instClasses of the others
// from the previous round).
func (t *Table) condIncluded(d *pdecl) []bool {
	inc := make([]bool, len(d.condVars))
	if len(d.condVars) == 0 {
		return inc
	}
	need := map[string]bool{}
	var queue []string
	mention := map[string]bool{}
	for _, l := range [][]string{d.baseDeps, d.sigDeps, d.bodyDeps} {
		for _, n := range l {
			mention[n] = true
			if !need[n] {
				need[n] = true
				queue = append(queue, n)
			}
			if e := t.names[n]; e != nil && e.decl != nil {
				for _, c := range e.decl.instClasses {
					if !need[c] {
						need[c] = true
						queue = append(queue, c)
					}
				}
			}
		}
	}
	_ = queue
	for i := range d.condVars {
		if d.condCls[i] == "" {
			continue
		}
		// included if its class, or a class instances derive from it, is needed
		used := false
		for _, c := range t.derivable(d.condCls[i]) {
			if need[c] {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		// [C a] for a constant a (not a variable) is used only where a is
		ok := true
		for _, n := range d.condDeps[i] {
			if n == d.condCls[i] {
				continue
			}
			if e := t.names[n]; e != nil && e.kind == "projection" && !mention[n] {
				ok = false
				break
			}
		}
		inc[i] = ok
	}
	return inc
}

// decideRound recomputes instNext from the current instClasses.
func (t *Table) decideRound(d *pdecl) {
	if len(d.condVars) == 0 {
		d.instNext = d.instClasses
		return
	}
	inc := t.condIncluded(d)
	next := append([]string(nil), d.ownInst...)
	for i, ok := range inc {
		if ok && d.condCls[i] != "" {
			next = append(next, d.condCls[i])
		}
	}
	d.instNext = next
}

// buildProviders records which classes instances, parent structures and
// abbreviations of a class derive each class from.
func (t *Table) buildProviders(files []*fileResult) {
	t.providers = map[string][]string{}
	t.derives = map[string][]string{}
	defer func() {
		for a, bs := range t.providers {
			for _, b := range bs {
				t.derives[b] = append(t.derives[b], a)
			}
		}
	}()
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.row.Kind == "instance" && d.resultType != "" {
				for _, c := range d.ownInst {
					if c != d.resultType {
						t.providers[d.resultType] = append(t.providers[d.resultType], c)
					}
				}
			}
			if d.row.Kind == "abbrev" && len(d.bodyDeps) > 0 {
				// abbrev IsFractionRing … := IsLocalization (nonZeroDivisors R) K:
				// reducible, so an instance of it is one of the class it unfolds to
				if e := t.names[d.bodyDeps[0]]; e != nil && e.kind == "class" && d.bodyDeps[0] != d.row.Name {
					t.providers[d.bodyDeps[0]] = append(t.providers[d.bodyDeps[0]], d.row.Name)
				}
			}
			if d.row.Kind == "class" {
				if e := t.names[d.row.Name]; e != nil && e.decl == d {
					for _, p := range e.parents {
						t.providers[p] = append(t.providers[p], d.row.Name)
					}
				}
			}
		}
	}
}

// assemble writes the statement dependencies: included variables first,
// then the signature's, in order of first use.
func (t *Table) assemble(d *pdecl) {
	inc := t.condIncluded(d)
	out := nameList{names: make([]string, 0, len(d.baseDeps)+len(d.sigDeps))}
	add := func(l []string) {
		for _, n := range l {
			out.add(n)
		}
	}
	add(d.baseDeps)
	for i, ok := range inc {
		if ok {
			add(d.condDeps[i])
		}
	}
	add(d.sigDeps)
	d.row.StatementDeps = out.names
}

// resolveInstClasses resolves the classes of a declaration's instance
// binders (and of its conditional ones, for the first round) and its result type.
func (r *resolver) resolveInstClasses(d *pdecl, mi int) {
	if len(d.instHeads) == 0 && d.resultHead == "" && len(d.condVars) == 0 {
		return
	}
	r.setContext(d, d.row.Path, mi)
	if d.resultHead != "" {
		d.resultType, _ = r.one(ref{name: d.resultHead})
	}
	d.ownInst = d.ownInst[:0]
	for _, h := range d.instHeads {
		if n, _ := r.one(ref{name: h}); n != "" {
			d.ownInst = append(d.ownInst, n)
		}
	}
	d.condCls = d.condCls[:0]
	d.instClasses = append(d.instClasses[:0], d.ownInst...)
	for _, cv := range d.condVars {
		n, _ := r.one(ref{name: cv.head})
		d.condCls = append(d.condCls, n)
		if n != "" {
			d.instClasses = append(d.instClasses, n)
		}
	}
}

// resolveStructures resolves structure parents and notation targets, which
// field notation and notation lookups need before the main pass.
func (t *Table) prepare(files []*fileResult) {
	r := &resolver{t: t, cache: map[cacheKey]string{}}
	for mi, fr := range files {
		for _, d := range fr.decls {
			if len(d.extends) == 0 {
				continue
			}
			r.setContext(d, d.row.Path, mi)
			// parents are resolved in the namespace the structure is declared in
			r.rc.ns = d.row.Namespace
			r.cns = ""
			e := t.names[d.row.Name]
			if e == nil || e.decl != d {
				continue
			}
			for _, p := range d.extends {
				if n := t.resolve(p, &r.rc); n != "" {
					e.parents = append(e.parents, n)
				}
			}
		}
		for _, nd := range fr.notations {
			rc := rctx{ns: nd.ctx.ns, opens: t.opensOf(nd.ctx), path: nd.path, vis: t.vis[mi]}
			nd.resolved = t.resolve(nd.target, &rc)
		}
	}
}

//go:embed core_names.txt
var coreNamesText string

var coreOnce struct {
	sync.Once
	names [][2]string
}

// coreNames lists Lean core declarations that every file sees.
func coreNames() [][2]string {
	coreOnce.Do(func() {
		for _, line := range strings.Split(coreNamesText, "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && !strings.HasPrefix(line, "#") {
				coreOnce.names = append(coreOnce.names, [2]string{f[0], f[1]})
			}
		}
	})
	return coreOnce.names
}

// counter counts the unresolved identifiers of one run (Options.Debug).
type counter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *counter) Add(s string) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[s]++
	c.mu.Unlock()
}

// print writes the n most frequent identifiers.
func (c *counter) print(w io.Writer, n int) {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range c.m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	for i := 0; i < n && i < len(all); i++ {
		fmt.Fprintf(w, "%8d %s\n", all[i].v, all[i].k)
	}
}

// inheritFields adds the projections Lean creates for the fields a structure
// copies from its second and later parents (the first parent is a subobject
// reached through toParent): class AddLeftCancelMonoid extends
// AddLeftCancelSemigroup M, AddMonoid M has AddLeftCancelMonoid.nsmul.
func (t *Table) inheritFields(files []*fileResult) {
	own := map[string][]*pdecl{}
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.row.Kind == "projection" && d.row.GeneratedFrom != nil && !strings.Contains(lastComponent(d.row.Name), "to") {
				own[*d.row.GeneratedFrom] = append(own[*d.row.GeneratedFrom], d)
			}
		}
	}
	memo := map[string][]*pdecl{}
	var all func(s string, depth int) []*pdecl
	all = func(s string, depth int) []*pdecl {
		if v, ok := memo[s]; ok || depth > 12 {
			return v
		}
		memo[s] = nil // cycle guard
		out := append([]*pdecl(nil), own[s]...)
		if e := t.names[s]; e != nil {
			for _, p := range e.parents {
				out = append(out, all(p, depth+1)...)
			}
		}
		memo[s] = out
		return out
	}
	for mi, fr := range files {
		var extra []*pdecl
		for _, d := range fr.decls {
			if d.row.Kind != "structure" && d.row.Kind != "class" {
				continue
			}
			e := t.names[d.row.Name]
			if e == nil || e.decl != d || len(e.parents) < 2 {
				continue
			}
			have := map[string]bool{}
			for _, f := range own[d.row.Name] {
				have[lastComponent(f.row.Name)] = true
			}
			for _, f := range all(e.parents[0], 0) {
				have[lastComponent(f.row.Name)] = true
			}
			for _, p := range e.parents[1:] {
				for _, f := range all(p, 0) {
					field := lastComponent(f.row.Name)
					if have[field] {
						continue
					}
					have[field] = true
					name := d.row.Name + "." + field
					if t.names[name] != nil {
						continue
					}
					r := f.row
					r.Name = name
					r.Library, r.Revision, r.Module, r.Path = d.row.Library, d.row.Revision, d.row.Module, d.row.Path
					r.LineStart, r.LineEnd, r.Namespace, r.Keyword = d.row.LineStart, d.row.LineEnd, d.row.Namespace, d.row.Keyword
					r.GeneratedFrom = strp(d.row.Name)
					g := &pdecl{row: r, ctx: d.ctx, resNs: d.resNs, fixed: []string{d.row.Name, f.row.Name},
						resultHead: f.resultHead, propField: f.propField}
					extra = append(extra, g)
					t.names[name] = &entry{kind: "projection", decl: g, mod: int32(mi)}
				}
			}
		}
		fr.decls = append(fr.decls, extra...)
	}
}

// attributeTwins creates the twins that `attribute [to_additive] foo`
// commands ask for, next to the declarations they come from.
func (t *Table) attributeTwins(files []*fileResult, naming *Naming) {
	r := &resolver{t: t, cache: map[cacheKey]string{}}
	for mi, fr := range files {
		for _, ac := range fr.attrCmds {
			r.rc = rctx{ns: ac.ctx.ns, opens: t.opensOf(ac.ctx), path: fr.mod.Path, vis: t.vis[mi]}
			for _, n := range ac.names {
				full := t.resolve(n, &r.rc)
				e := t.names[full]
				if e == nil || e.decl == nil || e.mod < 0 {
					continue
				}
				explicit := ac.name
				if len(ac.names) > 1 {
					explicit = ""
				}
				tw := makeTwin(e.decl, t.twins.name(naming, ac.attr, explicit, full))
				if tw == nil || ac.existing || t.names[tw.row.Name] != nil {
					continue
				}
				tw.sigAttr = ac.attr
				t.names[tw.row.Name] = &entry{kind: tw.row.Kind, protected: tw.protected, decl: tw, mod: e.mod}
				if t.twins != nil && t.twins.tr[ac.attr] != nil {
					t.twins.add(ac.attr, full, tw.row.Name)
				}
				files[e.mod].decls = append(files[e.mod].decls, tw)
			}
		}
	}
}
