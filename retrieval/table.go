package retrieval

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Table is the corpus an Engine ranks over: the documents by id (their
// order is the backends' doc ids), the premise-usage graph, and the name
// indexes the signals use, all as flat columns (TableColumns) — in memory
// (NewTable) or memory-mapped from an index (OpenTable). It implements
// Corpus. It is immutable and safe for concurrent use.
//
// Strings a Table returns through its exported methods are copies: a
// mapped table's memory goes away when its index generation is released.
type Table struct {
	c TableColumns
	n int
	// premiseKind[k] says whether kind k is a premise kind.
	premiseKind []bool
	kinds, libs []string
	// load fills a column group on first use (nil: every group is loaded).
	load   ColumnLoader
	groups map[string]*groupState
	// damaged is the first error loading a group: the table's data is not
	// what the index wrote, and every later search fails with it.
	damaged atomic.Pointer[error]
	// notes finds the notations' symbols in queries (notations.go).
	notes notationState
	// usage is the usage prior's normaliser (usageprior.go).
	usage usageState
	// compiled are the classes of the selections searched (Compile).
	compiled compiledState
}

// ColumnLoader fills the columns of one group of c (TableColumns.Columns).
type ColumnLoader func(group string, c *TableColumns) error

type groupState struct {
	once sync.Once
	err  error
}

var _ Corpus = (*Table)(nil)

// NewTable indexes entries (doc id = position) and the usage graph
// (premise → sorted names of the declarations whose statement uses it; a
// premise outside entries is kept for UsedBy), in memory.
func NewTable(entries []Entry, usedBy map[string][]string) *Table {
	t, err := OpenTable(BuildTableColumns(entries, usedBy), nil)
	if err != nil {
		panic(err) // columns just built are consistent
	}
	return t
}

// OpenTable makes a Table of columns whose core group is loaded; load fills
// the other groups when first needed (nil: c has them all). It checks that
// the core columns agree with each other.
func OpenTable(c *TableColumns, load ColumnLoader) (*Table, error) {
	t := &Table{c: *c, n: c.Names.Len(), load: load, groups: map[string]*groupState{}}
	for _, g := range []string{GroupEntries, GroupUsage, GroupNames, GroupNotations, GroupProofUses} {
		t.groups[g] = &groupState{}
	}
	if err := t.checkCore(); err != nil {
		return nil, err
	}
	t.premiseKind = t.c.premiseKinds()
	for k := range c.Kinds.Len() {
		t.kinds = append(t.kinds, strings.Clone(c.Kinds.At(k)))
	}
	for l := range c.Libraries.Len() {
		t.libs = append(t.libs, strings.Clone(c.Libraries.At(l)))
	}
	return t, nil
}

// ErrColumns is wrapped when a table's columns disagree with each other.
var ErrColumns = errors.New("inconsistent table columns")

// checkCore verifies the lengths of the core columns (their values' ranges
// are the reader's to check: an index checks them as it maps the file, see
// Column.Limit).
func (t *Table) checkCore() error {
	c, n := &t.c, t.n
	bad := func(col string, format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrColumns, col, fmt.Sprintf(format, a...))
	}
	switch {
	case len(c.Kind) != n || len(c.Library) != n || len(c.Module) != n || len(c.Uses) != n || c.Deps.Len() != n:
		return bad("kind/library/module/uses/deps", "lengths differ from %d documents", n)
	case c.Kinds.Len() > 255 || c.Libraries.Len() > 1<<16-1:
		return bad("kinds/libraries", "dictionaries too large")
	case c.SuffixDocs.Len() != c.Suffix.Len() || c.ConceptDoc.Len() != c.Concept.Len():
		return bad("suffix/concept", "keys and lists differ in length")
	}
	return nil
}

// group loads a column group once; a failure marks the table damaged.
// The loader writes only the group's fields, which nobody reads before
// group returns (every accessor of a group calls group first).
func (t *Table) group(name string) error {
	if t.load == nil {
		return nil
	}
	if name == GroupUsage {
		// Users are refs: their names may be entries' extra names.
		if err := t.group(GroupEntries); err != nil {
			return err
		}
	}
	g := t.groups[name]
	g.once.Do(func() {
		if g.err = t.load(name, &t.c); g.err == nil {
			g.err = checkGroup(name, &t.c, t.n)
		}
		if g.err != nil {
			err := fmt.Errorf("table columns %q: %w", name, g.err)
			g.err = err
			t.damaged.CompareAndSwap(nil, &err)
		}
	})
	return g.err
}

// checkGroup verifies a lazily loaded group's lengths.
func checkGroup(name string, c *TableColumns, n int) error {
	ok := true
	switch name {
	case GroupEntries:
		ok = c.Signature.Len() == n && c.InformalName.Len() == n && c.InformalStatement.Len() == n && len(c.InformalSource) == n && c.StatementDeps.Len() == n
	case GroupUsage:
		ok = c.UsageUsers.Len() == c.UsagePremises.Len()
	case GroupNames:
		ok = c.NameDocs.Len() == c.NameTokens.Len() && len(c.NameIDF) == c.NameTokens.Len() && len(c.NameWeight) == n
	case GroupNotations:
		ok = c.NotationHeads.Len() == c.NotationSymbols.Len() && c.NotationAtoms.Len() == c.NotationSymbols.Len()
	case GroupProofUses:
		ok = len(c.ProofUses) == n || len(c.ProofUses) == 0
	}
	if !ok {
		return fmt.Errorf("%w: the lengths of the %s columns disagree with each other or with the %d documents", ErrColumns, name, n)
	}
	return nil
}

// Err is the error that made the table unusable (a damaged column group
// found when it was first read), or nil.
func (t *Table) Err() error {
	if p := t.damaged.Load(); p != nil {
		return *p
	}
	return nil
}

// Len implements Corpus.
func (t *Table) Len() int { return t.n }

// name is doc's name, pointing into the table (not for callers to keep).
func (t *Table) name(doc int) string { return t.c.Names.At(doc) }

// Name returns document doc's name.
func (t *Table) Name(doc int) string { return strings.Clone(t.name(doc)) }

// kindOf is doc's kind (the dictionary's copy).
func (t *Table) kindOf(doc int) string { return t.kinds[t.c.Kind[doc]] }

// docOf is the document of a name.
func (t *Table) docOf(name string) (int, bool) {
	d := t.c.Names.Find(name)
	return d, d >= 0
}

// refName is the name of a ref (TableColumns); entries group.
func (t *Table) refName(r int32) string {
	if int(r) < t.n {
		return t.name(int(r))
	}
	return t.c.ExtraNames.At(int(r) - t.n)
}

// Lookup implements Corpus. It returns false when the declaration is not a
// document, or when the table's entry columns are damaged (Err says so).
func (t *Table) Lookup(name string) (Entry, bool) {
	i, ok := t.docOf(name)
	if !ok {
		return Entry{}, false
	}
	return t.Entry(i)
}

// Entry returns document doc (0 ≤ doc < Len()), with its own copies of
// every string; false when the entry columns are damaged (see Err).
func (t *Table) Entry(doc int) (Entry, bool) {
	if t.group(GroupEntries) != nil {
		return Entry{}, false
	}
	c := &t.c
	e := Entry{Name: t.Name(doc), Kind: t.kindOf(doc), Module: strings.Clone(c.Modules.At(int(c.Module[doc]))),
		Library: t.libs[c.Library[doc]], Signature: strings.Clone(c.Signature.At(doc)), InformalName: strings.Clone(c.InformalName.At(doc)),
		InformalStatement: strings.Clone(c.InformalStatement.At(doc)), InformalSource: strings.Clone(c.InformalSources.At(int(c.InformalSource[doc])))}
	if deps := c.StatementDeps.At(doc); len(deps) > 0 {
		e.StatementDeps = make([]string, len(deps))
		for i, r := range deps {
			e.StatementDeps[i] = strings.Clone(t.refName(r))
		}
	}
	return e, true
}

// UsedBy implements Corpus: a fresh slice (nil when the usage columns are
// damaged; see Err).
func (t *Table) UsedBy(premise string) []string {
	users := t.users(premise)
	if len(users) == 0 {
		return nil
	}
	out := make([]string, len(users))
	for i, r := range users {
		out[i] = strings.Clone(t.refName(r))
	}
	return out
}

// users are the refs of premise's users.
func (t *Table) users(premise string) []int32 {
	if t.group(GroupUsage) != nil {
		return nil
	}
	p := t.c.UsagePremises.Find(premise)
	if p < 0 {
		return nil
	}
	return t.c.UsageUsers.At(p)
}

// Doc returns the id of a declaration.
func (t *Table) Doc(name string) (int, bool) { return t.docOf(name) }

// Premise reports whether doc is a premise candidate by default.
func (t *Table) Premise(doc int) bool { return t.premiseKind[t.c.Kind[doc]] }

// Deps returns the ids of doc's statement dependencies in the corpus.
// Shared: read-only.
func (t *Table) Deps(doc int) []int32 { return t.c.Deps.At(doc) }

// Uses is how many declarations' statements use doc.
func (t *Table) Uses(doc int) int { return int(t.c.Uses[doc]) }

// ModuleMembers lists the declarations of a module, in corpus order; with
// theoremsOnly, only those that are not premise candidates.
func (t *Table) ModuleMembers(module string, theoremsOnly bool) []string {
	m := -1
	for i := range t.c.Modules.Len() {
		if t.c.Modules.At(i) == module {
			m = i
			break
		}
	}
	var out []string
	for i, mi := range t.c.Module {
		if int(mi) == m && !(theoremsOnly && t.Premise(i)) {
			out = append(out, t.Name(i))
		}
	}
	return out
}

// Compile turns selections into a Batch's Class: for each document, 1 + the
// index of the first selection holding it, or 0. It costs a copy of a byte
// per document: the classes of the selections without their exclusions
// are compiled once per table (baseClasses), the excluded documents fixed
// up in the copy.
func (t *Table) Compile(reqs []Request) *Batch {
	class := slices.Clone(t.baseClasses(reqs))
	t.exclude(class, reqs)
	return &Batch{Requests: reqs, Class: class}
}

// compileShared is Compile's Batch (without Requests): its Class is the
// table's own shared array when no selection excludes a document (a
// server's queries with one filter all read one array), else a fresh one
// with Shared and Patched set.
func (t *Table) compileShared(reqs []Request) *Batch {
	base := t.baseClasses(reqs)
	if !slices.ContainsFunc(reqs, func(r Request) bool { return len(r.Select.Exclude) > 0 }) {
		return &Batch{Class: base}
	}
	class := slices.Clone(base)
	return &Batch{Class: class, Shared: base, Patched: t.exclude(class, reqs)}
}

// maxCompiled bounds the selections whose classes a table keeps (a
// filter's kinds and library; exclusions are not part of it).
const maxCompiled = 64

// compiledState holds the classes of selections without exclusions, by
// their key, compiled on first use.
type compiledState struct {
	mu sync.Mutex
	m  map[string][]uint8
}

// baseClasses returns the classes of reqs' selections without their
// exclusions (shared, read-only).
func (t *Table) baseClasses(reqs []Request) []uint8 {
	var key strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&key, "%t%q%q\x00", r.Select.Kinds == nil, r.Select.Kinds, r.Select.Library)
	}
	k := key.String()
	t.compiled.mu.Lock()
	class, ok := t.compiled.m[k]
	t.compiled.mu.Unlock()
	if ok {
		return class
	}
	class = t.classify(reqs)
	t.compiled.mu.Lock()
	defer t.compiled.mu.Unlock()
	if t.compiled.m == nil {
		t.compiled.m = map[string][]uint8{}
	}
	if len(t.compiled.m) < maxCompiled {
		t.compiled.m[k] = class
	}
	return class
}

// classifier returns the class of a document of kind k and library l
// under reqs (skip: requests that do not hold it), by kinds and library.
func (t *Table) classifier(reqs []Request) func(k, l int, skip func(r int) bool) uint8 {
	// kindOK[r][k]: may request r hold kind k? lib[r]: the library it
	// wants, -1 for any (len(libs) when the corpus has no such library).
	kindOK := make([][]bool, len(reqs))
	lib := make([]int, len(reqs))
	for r, req := range reqs {
		kindOK[r] = make([]bool, max(len(t.kinds), 1))
		for k, name := range t.kinds {
			kindOK[r][k] = req.Select.Kinds == nil || slices.Contains(req.Select.Kinds, name)
		}
		lib[r] = -1
		if l := req.Select.Library; l != "" {
			if lib[r] = slices.Index(t.libs, l); lib[r] < 0 {
				lib[r] = len(t.libs)
			}
		}
	}
	return func(k, l int, skip func(r int) bool) uint8 {
		for r := range reqs {
			if kindOK[r][k] && (lib[r] < 0 || lib[r] == l) && (skip == nil || !skip(r)) {
				return uint8(r + 1)
			}
		}
		return 0
	}
}

// classify compiles reqs' selections, their exclusions aside.
func (t *Table) classify(reqs []Request) []uint8 {
	classOf := t.classifier(reqs)
	kind, library := t.c.Kind, t.c.Library
	// A document's class depends only on its kind and library: one table
	// lookup per document.
	nk, nl := max(len(t.kinds), 1), len(t.libs)+1
	tab := make([]uint8, nk*nl)
	for k := range nk {
		for l := range nl {
			tab[k*nl+l] = classOf(k, l, nil)
		}
	}
	class := make([]uint8, t.n)
	for doc := range class {
		class[doc] = tab[int(kind[doc])*nl+int(library[doc])]
	}
	return class
}

// exclude fixes up the classes of reqs' excluded documents (few) and
// returns the documents whose class it changed, sorted.
func (t *Table) exclude(class []uint8, reqs []Request) []int32 {
	var classOf func(k, l int, skip func(r int) bool) uint8
	var changed []int32
	for _, req := range reqs {
		for _, e := range req.Select.Exclude {
			if doc, ok := t.docOf(e); ok && class[doc] != 0 {
				if classOf == nil {
					classOf = t.classifier(reqs)
				}
				c := classOf(int(t.c.Kind[doc]), int(t.c.Library[doc]), func(r int) bool { return slices.Contains(reqs[r].Select.Exclude, e) })
				if c != class[doc] {
					class[doc] = c
					changed = append(changed, int32(doc))
				}
			}
		}
	}
	slices.Sort(changed)
	return slices.Compact(changed)
}
