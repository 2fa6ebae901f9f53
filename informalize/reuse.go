package informalize

import (
	"slices"

	"github.com/driftkit/driftkit/workspace"
)

// Class says why a selected declaration is, or is not, redone: the reuse
// rule's verdict against informal.parquet as the last finished run left it.
type Class uint8

const (
	// ClassReused: the row's inputs are unchanged; it stands.
	ClassReused Class = iota
	// ClassChanged: the declaration's own prompt inputs changed (kind, name,
	// module or its documentation, signature, docstring, definition body,
	// the names of its statement dependencies, provider/model, prompt).
	ClassChanged
	// ClassDepChanged: its own inputs are unchanged but a statement
	// dependency's formal inputs changed (with RefreshDependents also: a
	// dependency's informal text changed).
	ClassDepChanged
	// ClassNew: the table has no row for it (a new declaration, or one that
	// failed or was not selected before).
	ClassNew
)

func (c Class) String() string {
	switch c {
	case ClassReused:
		return "reused"
	case ClassChanged:
		return "changed"
	case ClassDepChanged:
		return "dependency changed"
	case ClassNew:
		return "new"
	}
	return "?"
}

// nodePlan is the reuse bookkeeping of one selected declaration.
type nodePlan struct {
	key, own string
	class    Class // the default rule's verdict (RefreshDependents decides in decide)
	// answer is what the default rule uses instead of a request: the table
	// row (class reused) or an answer journalled by an interrupted run
	// (fromJournal). nil: ask the provider.
	answer      *Entry
	fromJournal bool
	// legacy: the table row was written by the older rule (no own hash);
	// legacyOK: its old key matches the current inputs with the dependency
	// texts of the table, whose revisions legacyCtx lists.
	legacy, legacyOK bool
	legacyCtx        []workspace.InformalContext
}

// formalInput is the prompt input of declaration di without any informal
// text: what its hashes cover.
func (st *state) formalInput(di int32) *Input {
	d := &st.decls[di]
	// load truncated the fields already; truncating again is what prompts
	// have always carried, and the older rule's keys depend on it.
	in := &Input{Name: d.Name, Kind: d.Kind, Signature: truncate(d.Signature, maxSignature)}
	if d.Docstring != nil {
		in.Docstring = truncate(*d.Docstring, maxDocstring)
	}
	if !st.prov.UsesDeps() {
		return in
	}
	in.Module = d.Module
	in.ModuleDoc = truncate(st.modDoc[d.Module], maxModuleDoc)
	if bodyKinds[d.Kind] {
		in.Body = truncate(d.Code, maxBody)
	}
	for _, name := range d.StatementDeps {
		if len(in.Deps) >= maxDeps || name == d.Name || slices.ContainsFunc(in.Deps, func(x Dep) bool { return x.Name == name }) {
			continue
		}
		dep := Dep{Name: name}
		if j, ok := st.byName[name]; ok {
			dep.Signature = truncate(st.decls[j].Signature, maxDepSig)
		}
		in.Deps = append(in.Deps, dep)
	}
	return in
}

// formalOf is the formal hash of declaration di, computed once.
func (st *state) formalOf(di int32) string {
	if st.formal[di] == "" {
		st.formal[di] = formalHash(st.formalInput(di))
	}
	return st.formal[di]
}

// modDocKey stands for a module's documentation in own hashes (hashed once
// per module rather than once per declaration).
func (st *state) modDocKey(module string) string {
	if !st.prov.UsesDeps() {
		return ""
	}
	k, ok := st.modDocSum[module]
	if !ok {
		k = workspace.InformalTextSHA256(module, truncate(st.modDoc[module], maxModuleDoc))
		st.modDocSum[module] = k
	}
	return k
}

// makePlan computes every selected declaration's reuse key and the default
// rule's verdict. Keys depend on formal inputs only, so all of it is known
// before the first request.
func (st *state) makePlan() {
	prov, ver := st.prov.Name(), st.prov.PromptVersion()
	st.formal = make([]string, len(st.decls))
	st.modDocSum = map[string]string{}
	st.plan = make([]nodePlan, len(st.sel))
	for v, di := range st.sel {
		d := &st.decls[di]
		in := st.formalInput(di)
		if st.formal[di] == "" {
			st.formal[di] = formalHash(in)
		}
		p := &st.plan[v]
		p.own = ownInputHash(in, st.formal[di], st.modDocKey(d.Module), prov, ver, st.promptHash)
		deps := make([]depFormal, len(in.Deps))
		for i, dep := range in.Deps {
			deps[i].Name = dep.Name
			if j, ok := st.byName[dep.Name]; ok {
				deps[i].Formal = st.formalOf(j)
			}
		}
		p.key = reuseKey(p.own, deps)
		if r, ok := st.table[d.Name]; ok && r.OwnInputSHA256 == "" {
			p.legacy = true
			p.legacyOK, p.legacyCtx = st.legacyMatch(int32(v), r, in)
		}
	}
	for v := range st.sel {
		st.decideDefault(int32(v))
	}
}

// legacyMatch recomputes the older rule's key of node v over the current
// library, with the dependency texts the table holds (as that rule's run
// put them in the prompt), and compares it with the row's.
func (st *state) legacyMatch(v int32, r workspace.Informal, in *Input) (bool, []workspace.InformalContext) {
	var ctx []workspace.InformalContext
	st.keptDeps(v, in, func(dep *Dep, _ int32) {
		if dr, ok := st.table[dep.Name]; ok {
			dep.InformalName, dep.InformalStatement = dr.InformalName, dr.InformalStatement
			ctx = append(ctx, workspace.InformalContext{Name: dep.Name, InformalSHA256: workspace.InformalTextSHA256(dr.InformalName, dr.InformalStatement)})
		}
	})
	ok := st.legacyKey(in) == r.InputSHA256
	for i := range in.Deps {
		in.Deps[i].InformalName, in.Deps[i].InformalStatement = "", ""
	}
	return ok, ctx
}

// legacyKey is the older rule's key of a prompt input (texts included).
func (st *state) legacyKey(in *Input) string {
	return legacyInputHash(in, st.prov.Name(), st.prov.PromptVersion(), st.promptHash)
}

// legacyDepChanged reports, for a node whose table row was written by the
// older rule, whether a selected statement dependency may have changed its
// formal inputs since. The older key covered dependencies' names and
// signatures only, so a dependency counts as changed when its own row does
// not match any more.
func (st *state) legacyDepChanged(v int32) bool {
	for _, w := range st.depNodes(v) {
		q := &st.plan[w]
		r, ok := st.table[st.decls[st.sel[w]].Name]
		if !ok {
			continue
		}
		if q.legacy && !q.legacyOK || !q.legacy && r.OwnInputSHA256 != q.own {
			return true
		}
	}
	return false
}

// depNodes lists the selected nodes among v's statement dependencies.
func (st *state) depNodes(v int32) []int32 {
	d := &st.decls[st.sel[v]]
	var out []int32
	for _, name := range d.StatementDeps {
		if j, ok := st.byName[name]; ok && name != d.Name {
			if w := st.nodeOf[j]; w >= 0 && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// classOf judges node v against its table row, once the row is known not
// to be reusable.
func (st *state) classOf(v int32) Class {
	p := &st.plan[v]
	r, ok := st.table[st.decls[st.sel[v]].Name]
	switch {
	case !ok:
		return ClassNew
	case p.legacy && !p.legacyOK:
		// The older key cannot tell which input changed.
		return ClassChanged
	case p.legacy:
		return ClassDepChanged
	case r.OwnInputSHA256 != p.own:
		return ClassChanged
	}
	return ClassDepChanged
}

// decideDefault applies the default rule to node v: reuse the table row when
// its key is unchanged, else redo, with an answer an interrupted run already
// journalled for the same key if there is one.
func (st *state) decideDefault(v int32) {
	p := &st.plan[v]
	name := st.decls[st.sel[v]].Name
	var journalled *Entry
	if es := st.byKey[p.key]; len(es) > 0 {
		journalled = &es[len(es)-1]
	}
	r, hasRow := st.table[name]
	switch {
	case hasRow && !p.legacy && r.InputSHA256 == p.key:
		p.class = ClassReused
		p.answer = journalled
		if p.answer == nil {
			e := rowEntry(r)
			p.answer = &e
		}
	case hasRow && p.legacy && p.legacyOK && !st.legacyDepChanged(v):
		p.class = ClassReused
		e := st.adopt(r, p, p.legacyCtx)
		p.answer = &e
	default:
		p.class = st.classOf(v)
		p.answer, p.fromJournal = journalled, journalled != nil
	}
}

// decideRefresh applies RefreshDependents to node v, whose dependencies are
// done: reuse only an answer with the same key whose prompt carried exactly
// the dependency texts it would carry now (ctx). It returns the verdict, the
// answer to use (nil: ask) and whether the answer comes from the journal.
func (st *state) decideRefresh(v int32, in *Input, ctx []workspace.InformalContext) (Class, *Entry, bool) {
	p := &st.plan[v]
	name := st.decls[st.sel[v]].Name
	var journalled *Entry
	es := st.byKey[p.key]
	for i := len(es) - 1; i >= 0; i-- {
		if contextEqual(es[i].Context, ctx) {
			journalled = &es[i]
			break
		}
	}
	r, hasRow := st.table[name]
	switch {
	case hasRow && !p.legacy && r.InputSHA256 == p.key && contextEqual(r.Context, ctx):
		if journalled != nil {
			return ClassReused, journalled, false
		}
		e := rowEntry(r)
		return ClassReused, &e, false
	case hasRow && p.legacy && st.legacyKey(in) == r.InputSHA256:
		// The older rule's own verdict: the prompt is exactly the same.
		e := st.adopt(r, p, ctx)
		return ClassReused, &e, false
	}
	return st.classOf(v), journalled, journalled != nil
}

func contextEqual(a, b []workspace.InformalContext) bool {
	return slices.Equal(a, b)
}

// adopt re-keys a row of the older rule that the new one accepts.
func (st *state) adopt(r workspace.Informal, p *nodePlan, ctx []workspace.InformalContext) Entry {
	e := rowEntry(r)
	e.InputSHA256, e.OwnInputSHA256, e.Context = p.key, p.own, ctx
	return e
}

// rowEntry is a table row as a journal entry.
func rowEntry(r workspace.Informal) Entry {
	return Entry{Name: r.Name, Status: StatusOK, InputSHA256: r.InputSHA256, OwnInputSHA256: r.OwnInputSHA256,
		InformalName: r.InformalName, InformalStatement: r.InformalStatement, Provider: r.Provider,
		PromptVersion: r.PromptVersion, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		CreatedAt: r.CreatedAt, Context: r.Context}
}

// entryRow is an entry as a table row.
func entryRow(e Entry) workspace.Informal {
	return workspace.Informal{Name: e.Name, InformalName: e.InformalName, InformalStatement: e.InformalStatement,
		Provider: e.Provider, PromptVersion: e.PromptVersion, InputSHA256: e.InputSHA256,
		PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens, CreatedAt: e.CreatedAt,
		OwnInputSHA256: e.OwnInputSHA256, InformalSHA256: workspace.InformalTextSHA256(e.InformalName, e.InformalStatement),
		Context: e.Context}
}
