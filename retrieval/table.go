package retrieval

import (
	"slices"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Table is the in-memory corpus an Engine ranks over: the documents by id
// (their order is the backends' doc ids), the premise-usage graph, and the
// name indexes the signals use. It implements Corpus. It is immutable after
// NewTable and safe for concurrent use.
type Table struct {
	entries []Entry
	byName  map[string]int
	// usedBy[p] lists, sorted, the documents whose statement uses premise p.
	usedBy map[string][]string
	// uses[doc] = len(usedBy[name of doc]).
	uses []int32
	// premise[doc] says whether doc is a premise candidate by default
	// (workspace.IsPremiseKind).
	premise []bool
	// kind[doc] indexes kinds; library[doc] indexes libraries.
	kind    []uint8
	kinds   []string
	library []uint16
	libs    []string
	// suffix maps the trailing components of names ("cloud", "Set.cloud"
	// of "ConNF.Set.cloud") to documents, for mentions.
	suffix map[string][]int
	// concept maps a lower-cased last name component to premise documents,
	// most used first.
	concept map[string][]int32
	// deps[doc] are the ids of doc's statement dependencies in the corpus.
	deps [][]int32
	// priorOrder lists the used documents, most used first.
	priorOrder []int
	// The name index of theorem search, built on first use (names.go).
	nameOnceFields
}

// NewTable indexes entries (doc id = position) and the usage graph
// (premise → sorted names of the declarations whose statement uses it; a
// premise outside entries is kept for UsedBy). NewTable keeps both; the
// caller must not modify them afterwards.
func NewTable(entries []Entry, usedBy map[string][]string) *Table {
	t := &Table{entries: entries, byName: make(map[string]int, len(entries)), usedBy: usedBy, suffix: map[string][]int{},
		concept: map[string][]int32{}, uses: make([]int32, len(entries)), premise: make([]bool, len(entries)),
		kind: make([]uint8, len(entries)), library: make([]uint16, len(entries))}
	kindID, libID := map[string]uint8{}, map[string]uint16{}
	for i := range entries {
		e := &entries[i]
		t.byName[e.Name] = i
		t.premise[i] = workspace.IsPremiseKind(e.Kind)
		t.uses[i] = int32(len(usedBy[e.Name]))
		k, ok := kindID[e.Kind]
		if !ok && len(t.kinds) < 255 {
			k = uint8(len(t.kinds))
			kindID[e.Kind] = k
			t.kinds = append(t.kinds, e.Kind)
		}
		t.kind[i] = k
		l, ok := libID[e.Library]
		if !ok && len(t.libs) < 1<<16-1 {
			l = uint16(len(t.libs))
			libID[e.Library] = l
			t.libs = append(t.libs, e.Library)
		}
		t.library[i] = l
		parts := strings.Split(e.Name, ".")
		for j := 1; j < len(parts); j++ {
			s := strings.Join(parts[j:], ".")
			t.suffix[s] = append(t.suffix[s], i)
		}
		if t.premise[i] {
			k := strings.ToLower(e.Name[strings.LastIndex(e.Name, ".")+1:])
			t.concept[k] = append(t.concept[k], int32(i))
		}
	}
	t.deps = make([][]int32, len(entries))
	for i := range entries {
		for _, dep := range entries[i].StatementDeps {
			if r, ok := t.byName[dep]; ok {
				t.deps[i] = append(t.deps[i], int32(r))
			}
		}
	}
	for p, u := range usedBy {
		if r, ok := t.byName[p]; ok && len(u) > 0 {
			t.priorOrder = append(t.priorOrder, r)
		}
	}
	byUses := func(a, b int) int {
		if c := t.uses[b] - t.uses[a]; c != 0 {
			return int(c)
		}
		return a - b
	}
	slices.SortFunc(t.priorOrder, byUses)
	for _, docs := range t.concept {
		slices.SortFunc(docs, func(a, b int32) int { return byUses(int(a), int(b)) })
	}
	return t
}

var _ Corpus = (*Table)(nil)

// Len implements Corpus.
func (t *Table) Len() int { return len(t.entries) }

// Lookup implements Corpus.
func (t *Table) Lookup(name string) (Entry, bool) {
	i, ok := t.byName[name]
	if !ok {
		return Entry{}, false
	}
	return t.entries[i], true
}

// UsedBy implements Corpus.
func (t *Table) UsedBy(premise string) []string { return t.usedBy[premise] }

// Entry returns document doc (0 ≤ doc < Len()).
func (t *Table) Entry(doc int) *Entry { return &t.entries[doc] }

// Doc returns the id of a declaration.
func (t *Table) Doc(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// Premise reports whether doc is a premise candidate by default.
func (t *Table) Premise(doc int) bool { return t.premise[doc] }

// Deps returns the ids of doc's statement dependencies in the corpus.
// Shared: read-only.
func (t *Table) Deps(doc int) []int32 { return t.deps[doc] }

// Uses is how many declarations' statements use doc.
func (t *Table) Uses(doc int) int { return int(t.uses[doc]) }

// ModuleMembers lists the declarations of a module, in corpus order; with
// theoremsOnly, only those that are not premise candidates.
func (t *Table) ModuleMembers(module string, theoremsOnly bool) []string {
	var out []string
	for i := range t.entries {
		if t.entries[i].Module == module && !(theoremsOnly && t.premise[i]) {
			out = append(out, t.entries[i].Name)
		}
	}
	return out
}

// Compile turns selections into a Batch's Class: for each document, 1 + the
// index of the first selection holding it, or 0. It costs one pass over a
// byte per document.
func (t *Table) Compile(reqs []Request) *Batch {
	b := &Batch{Requests: reqs, Class: make([]uint8, len(t.entries))}
	// kindOK[r][k]: may request r hold kind k? lib[r]: the library it
	// wants, -1 for any (len(libs) when the corpus has no such library).
	kindOK := make([][]bool, len(reqs))
	lib := make([]int, len(reqs))
	for r, req := range reqs {
		kindOK[r] = make([]bool, len(t.kinds))
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
	class := func(doc int, skip func(r int) bool) uint8 {
		for r := range reqs {
			if kindOK[r][t.kind[doc]] && (lib[r] < 0 || lib[r] == int(t.library[doc])) && (skip == nil || !skip(r)) {
				return uint8(r + 1)
			}
		}
		return 0
	}
	for doc := range b.Class {
		b.Class[doc] = class(doc, nil)
	}
	// Excluded documents: few, so they are fixed up afterwards.
	for _, req := range reqs {
		for _, e := range req.Select.Exclude {
			if doc, ok := t.byName[e]; ok && b.Class[doc] != 0 {
				b.Class[doc] = class(doc, func(r int) bool { return slices.Contains(reqs[r].Select.Exclude, e) })
			}
		}
	}
	return b
}
