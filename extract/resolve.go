package extract

import (
	"strings"
	"sync"
)

// entry is one declaration in the global name table.
type entry struct {
	kind      string
	protected bool
	parents   []string // resolved parent structures (field notation looks there too)
	decl      *pdecl
}

// Table is the global name table of every declaration of every source: full
// names with their kinds, the namespaces they form, and notations. It is
// built once and then only read, so lookups are safe for concurrent use.
type Table struct {
	names      map[string]*entry
	namespaces map[string]bool
	notations  map[string][]*notationDef
	openCache  sync.Map // *scopeCtx -> []resolvedOpen
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

func newTable(files []*fileResult) *Table {
	n := 0
	for _, fr := range files {
		n += len(fr.decls)
	}
	t := &Table{names: make(map[string]*entry, n), namespaces: make(map[string]bool, n/4), notations: map[string][]*notationDef{}}
	for _, fr := range files {
		for _, d := range fr.decls {
			if _, dup := t.names[d.row.Name]; dup {
				continue
			}
			t.names[d.row.Name] = &entry{kind: d.row.Kind, protected: d.protected, decl: d}
			for ns := parentNs(d.row.Name); ns != "" && !t.namespaces[ns]; ns = parentNs(ns) {
				t.namespaces[ns] = true
			}
		}
		for _, nd := range fr.notations {
			t.notations[nd.sym] = append(t.notations[nd.sym], nd)
		}
	}
	return t
}

// opensOf resolves the namespaces opened in a context (cached per context).
func (t *Table) opensOf(ctx *scopeCtx) []resolvedOpen {
	if v, ok := t.openCache.Load(ctx); ok {
		return v.([]resolvedOpen)
	}
	var out []resolvedOpen
	for _, o := range ctx.opens {
		found := false
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
		if !found {
			out = append(out, resolvedOpen{ns: o.name, only: o.only, hiding: o.hiding, scoped: o.scoped})
		}
	}
	t.openCache.Store(ctx, out)
	return out
}

// rctx is the resolution context of one declaration.
type rctx struct {
	ns    string
	opens []resolvedOpen
	path  string
	buf   []byte
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
		if e := t.names[id]; e != nil {
			return id, e
		}
		return "", nil
	}
	rc.buf = append(append(append(rc.buf[:0], ns...), '.'), id...)
	if e := t.names[string(rc.buf)]; e != nil {
		return string(rc.buf), e
	}
	return "", nil
}

// resolveExact resolves id (no trailing projections) with Lean's rules:
// the current namespace and its parents, the root, then opened namespaces.
func (t *Table) resolveExact(id string, rc *rctx) string {
	if strings.HasPrefix(id, "_root_.") {
		id = id[len("_root_."):]
		if t.names[id] != nil {
			return id
		}
		return ""
	}
	atomic := strings.IndexByte(id, '.') < 0
	for ns := rc.ns; ns != ""; ns = parentNs(ns) {
		if n, e := t.lookup(rc, ns, id); e != nil && (!atomic || !e.protected) {
			return n
		}
	}
	if t.names[id] != nil {
		return id
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
	if e := t.names[typ]; e != nil {
		for _, p := range e.parents {
			if n := t.resolveField(p, field, rc, depth+1); n != "" {
				return n
			}
		}
	}
	return ""
}

// notation resolves a notation token in a context.
func (t *Table) notation(sym string, rc *rctx) string {
	defs := t.notations[sym]
	for i := len(defs) - 1; i >= 0; i-- {
		d := defs[i]
		if d.resolved == "" {
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

// resolver resolves the references of declarations; one per worker.
type resolver struct {
	t     *Table
	opens []string
	rc    rctx
	cache map[ref]string
	cctx  *scopeCtx
	cns   string
}

const unresolvedMark = "\x00"

func (r *resolver) setContext(d *pdecl, path string) {
	if r.cctx != d.ctx || r.cns != d.resNs {
		r.cctx, r.cns = d.ctx, d.resNs
		r.rc = rctx{ns: d.resNs, opens: r.t.opensOf(d.ctx), path: path, buf: r.rc.buf}
		clear(r.cache)
		r.opens = make([]string, 0, len(r.rc.opens))
		for _, o := range r.rc.opens {
			r.opens = append(r.opens, o.ns)
		}
	}
}

// one resolves a reference; "" if it does not resolve. unresolved reports
// identifiers (not notation or fields) that did not resolve.
func (r *resolver) one(x ref) (name string, unresolved bool) {
	if v, ok := r.cache[x]; ok {
		if v == unresolvedMark {
			return "", true
		}
		return v, false
	}
	switch {
	case x.sym:
		name = r.t.notation(x.name, &r.rc)
	case x.recv != "":
		if typ := r.t.resolve(x.recv, &r.rc); typ != "" {
			name = r.t.resolveField(typ, x.name, &r.rc, 0)
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
		r.cache[x] = unresolvedMark
	} else {
		r.cache[x] = name
	}
	return name, unresolved
}

// isAutoBound reports names Lean would auto-bind as implicit arguments
// (single letters with optional subscripts/primes/digits).
func isAutoBound(s string) bool {
	rs := []rune(s)
	if len(rs) == 0 {
		return false
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
func (r *resolver) deps(self string, out []string, seen map[string]bool, refs []ref) ([]string, int) {
	bad := 0
	for _, x := range refs {
		n, un := r.one(x)
		if un {
			bad++
		}
		if n == "" || n == self || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, bad
}

func (r *resolver) resolveDecl(d *pdecl) int {
	r.setContext(d, d.row.Path)
	seen := make(map[string]bool, 16)
	var bad, b int
	d.row.StatementDeps, b = r.deps(d.row.Name, nil, seen, d.varRefs)
	bad += b
	d.row.StatementDeps, b = r.deps(d.row.Name, d.row.StatementDeps, seen, d.sigRefs)
	bad += b
	clear(seen)
	d.row.ProofDeps, b = r.deps(d.row.Name, nil, seen, d.bodyRefs)
	bad += b
	if d.row.StatementDeps == nil {
		d.row.StatementDeps = []string{}
	}
	if d.row.ProofDeps == nil {
		d.row.ProofDeps = []string{}
	}
	d.unresolv = bad
	d.row.Opens = r.opens
	return bad
}

// resolveStructures resolves structure parents and notation targets, which
// field notation and notation lookups need before the main pass.
func (t *Table) prepare(files []*fileResult) {
	r := &resolver{t: t, cache: map[ref]string{}}
	for _, fr := range files {
		for _, d := range fr.decls {
			if len(d.extends) == 0 {
				continue
			}
			r.setContext(d, d.row.Path)
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
			rc := rctx{ns: nd.ctx.ns, opens: t.opensOf(nd.ctx), path: nd.path}
			nd.resolved = t.resolve(nd.target, &rc)
		}
	}
}
