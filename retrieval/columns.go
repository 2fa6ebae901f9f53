package retrieval

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/internal/flat"
	"github.com/driftkit/driftkit/workspace"
)

// TableColumns is a Table's data as flat columns (internal/flat): what an
// index writes once at build time and maps at open, so that a Table opens
// without decoding anything and a query touches only the pages it reads.
// Document ids are row numbers; a "ref" names a declaration: ref < n is
// document ref, ref ≥ n is ExtraNames[ref-n] (dependencies and users that
// are not documents of the corpus).
//
// Columns are loaded by group (Column.Group): "core" when the table opens
// (what every search reads), the others on first use — "entries" by
// Lookup, "usage" by UsedBy, "names" by theorem search.
type TableColumns struct {
	// core
	Names      flat.Keys    // document names; Find gives a name's document
	Kinds      flat.Strings // kind dictionary (at most 255)
	Kind       []uint8      // per document: index into Kinds
	Libraries  flat.Strings // library dictionary (at most 65,535)
	Library    []uint16     // per document: index into Libraries
	Modules    flat.Strings // module dictionary
	Module     []uint32     // per document: index into Modules
	Uses       []int32      // per document: how many statements use it
	Deps       flat.Lists   // per document: its statement dependencies that are documents
	PriorOrder []int32      // used documents, most used first
	Suffix     flat.Keys    // trailing name components ("cloud", "Set.cloud" of "ConNF.Set.cloud")
	SuffixDocs flat.Lists   // per suffix: the documents whose name ends with it
	Concept    flat.Keys    // lower-cased last name components of premise documents
	ConceptDoc flat.Lists   // per concept: its premise documents, most used first
	// entries
	Signature         flat.Strings
	InformalName      flat.Strings
	InformalStatement flat.Strings
	InformalSources   flat.Strings // dictionary
	InformalSource    []uint16     // per document: index into InformalSources
	ExtraNames        flat.Strings // refs ≥ n
	StatementDeps     flat.Lists   // per document: refs of all its statement dependencies, in order
	// usage
	UsagePremises flat.Keys  // every premise some statement uses
	UsageUsers    flat.Lists // per premise: refs of the declarations using it, as given (sorted by name)
	// names (theorem search)
	NameTokens flat.Keys  // normalised name components, sorted
	NameDocs   flat.Lists // per token: the documents whose name holds it
	NameIDF    []float32  // per token
	NameWeight []float32  // per document: summed idf of its name's tokens
	// notations (theorem search; optional: empty in indexes built without
	// the workspace's notation table, see AddNotations)
	NotationSymbols flat.Strings // per entry (a notation a query can mean): its symbol, sorted
	NotationAtoms   flat.Strings // per entry: its atoms after the symbol, \x1f-separated
	NotationHeads   flat.Strings // per entry: its head constant
	// proof_uses (theorem search's usage prior; optional: empty in
	// indexes built before it, see AddProofUses)
	ProofUses []int32  // per document: how many proofs use it
	_         struct{} // keep composite literals keyed
}

// Column is one column of TableColumns as the index stores it: its
// section name, its group, a pointer to the field (*flat.Keys,
// *flat.Strings, *flat.Lists, or a pointer to a slice), and what bounds
// its values (a Lists' values), for a reader to check: "" nothing, else
// LimitOf's argument.
type Column struct {
	Name, Group string
	Ptr         any
	Limit       string
}

// LimitOf is the bound of a column's values: "docs" (document ids),
// "refs" (refs: documents, then extra names), or a dictionary ("kinds",
// "libraries", "modules", "informal_sources"). It reads lengths only.
func (c *TableColumns) LimitOf(what string) int {
	switch what {
	case "docs":
		return c.Names.Len()
	case "refs":
		return c.Names.Len() + c.ExtraNames.Len()
	case "kinds":
		return c.Kinds.Len()
	case "libraries":
		return c.Libraries.Len()
	case "modules":
		return c.Modules.Len()
	case "informal_sources":
		return c.InformalSources.Len()
	}
	panic("retrieval: unknown column limit " + what)
}

// Columns lists every column (the order is the file's).
func (c *TableColumns) Columns() []Column {
	return []Column{
		{"name", "core", &c.Names, ""}, {"kinds", "core", &c.Kinds, ""}, {"kind", "core", &c.Kind, "kinds"},
		{"libraries", "core", &c.Libraries, ""}, {"library", "core", &c.Library, "libraries"}, {"modules", "core", &c.Modules, ""},
		{"module", "core", &c.Module, "modules"}, {"uses", "core", &c.Uses, ""}, {"deps", "core", &c.Deps, "docs"},
		{"prior", "core", &c.PriorOrder, "docs"}, {"suffix", "core", &c.Suffix, ""}, {"suffix_docs", "core", &c.SuffixDocs, "docs"},
		{"concept", "core", &c.Concept, ""}, {"concept_docs", "core", &c.ConceptDoc, "docs"},
		{"signature", "entries", &c.Signature, ""}, {"informal_name", "entries", &c.InformalName, ""},
		{"informal_statement", "entries", &c.InformalStatement, ""}, {"informal_sources", "entries", &c.InformalSources, ""},
		{"informal_source", "entries", &c.InformalSource, "informal_sources"}, {"extra_names", "entries", &c.ExtraNames, ""},
		{"statement_deps", "entries", &c.StatementDeps, "refs"},
		{"usage_premises", "usage", &c.UsagePremises, ""}, {"usage_users", "usage", &c.UsageUsers, "refs"},
		{"name_tokens", "names", &c.NameTokens, ""}, {"name_docs", "names", &c.NameDocs, "docs"}, {"name_idf", "names", &c.NameIDF, ""},
		{"name_weight", "names", &c.NameWeight, ""},
		{"notation_symbols", "notations", &c.NotationSymbols, ""}, {"notation_atoms", "notations", &c.NotationAtoms, ""},
		{"notation_heads", "notations", &c.NotationHeads, ""},
		{"proof_uses", "proof_uses", &c.ProofUses, ""},
	}
}

// Table column groups.
const (
	GroupCore      = "core"
	GroupEntries   = "entries"
	GroupUsage     = "usage"
	GroupNames     = "names"
	GroupNotations = "notations"
	GroupProofUses = "proof_uses"
)

// OptionalGroup reports whether a column group may be missing from an
// index (written before the group existed): it then loads empty.
func OptionalGroup(name string) bool { return name == GroupNotations || name == GroupProofUses }

// BuildTableColumns computes every column of a table of entries (doc id =
// position) and a usage graph (premise → names of the declarations whose
// statement uses it, sorted by name; premises need not be documents). It is
// the one place the table's indexes are computed: an index writes its
// result, NewTable uses it in memory.
func BuildTableColumns(entries []Entry, usedBy map[string][]string) *TableColumns {
	n := len(entries)
	c := &TableColumns{Kind: make([]uint8, n), Library: make([]uint16, n), Module: make([]uint32, n), Uses: make([]int32, n),
		InformalSource: make([]uint16, n)}
	var names, kinds, libs, mods, sig, iname, istmt, isrc flat.StringsBuilder
	kindID, libID, modID, srcID := map[string]uint8{}, map[string]uint16{}, map[string]uint32{}, map[string]uint16{}
	// The four long columns are sized first: grown by appending, they
	// allocated twice their size (#29).
	var nameBytes, sigBytes, inameBytes, istmtBytes int
	for i := range entries {
		e := &entries[i]
		nameBytes, sigBytes, inameBytes, istmtBytes = nameBytes+len(e.Name), sigBytes+len(e.Signature), inameBytes+len(e.InformalName), istmtBytes+len(e.InformalStatement)
	}
	names.Grow(n, nameBytes)
	sig.Grow(n, sigBytes)
	iname.Grow(n, inameBytes)
	istmt.Grow(n, istmtBytes)
	for i := range entries {
		e := &entries[i]
		names.Add(e.Name)
		c.Uses[i] = int32(len(usedBy[e.Name]))
		c.Kind[i] = intern(kindID, &kinds, e.Kind, 255)
		c.Library[i] = intern(libID, &libs, e.Library, 1<<16-1)
		c.Module[i] = intern(modID, &mods, e.Module, math.MaxInt)
		c.InformalSource[i] = intern(srcID, &isrc, e.InformalSource, 1<<16-1)
		sig.Add(e.Signature)
		iname.Add(e.InformalName)
		istmt.Add(e.InformalStatement)
	}
	c.Names, c.Kinds, c.Libraries, c.Modules = flat.NewKeys(names.Strings()), kinds.Strings(), libs.Strings(), mods.Strings()
	c.Signature, c.InformalName, c.InformalStatement, c.InformalSources = sig.Strings(), iname.Strings(), istmt.Strings(), isrc.Strings()
	c.buildRefs(entries, usedBy)
	c.buildNameIndexes(entries)
	c.buildNameTokens(entries)
	return c
}

// buildRefs computes the columns that name declarations: dependencies,
// the usage graph and the usage prior's order.
func (c *TableColumns) buildRefs(entries []Entry, usedBy map[string][]string) {
	n := len(entries)
	var extra flat.StringsBuilder
	extraID := map[string]int32{}
	ref := func(name string) int32 {
		if d := c.Names.Find(name); d >= 0 {
			return int32(d)
		}
		r, ok := extraID[name]
		if !ok {
			r = int32(n + extra.Add(name))
			extraID[name] = r
		}
		return r
	}
	deps, stmt := make([][]int32, n), make([][]int32, n)
	for i := range entries {
		for _, dep := range entries[i].StatementDeps {
			r := ref(dep)
			stmt[i] = append(stmt[i], r)
			if int(r) < n {
				deps[i] = append(deps[i], r)
			}
		}
	}
	c.Deps, c.StatementDeps = flat.NewLists(deps), flat.NewLists(stmt)
	premises := slices.Sorted(maps.Keys(usedBy))
	users := make([][]int32, len(premises))
	for i, p := range premises {
		for _, u := range usedBy[p] {
			users[i] = append(users[i], ref(u))
		}
		if d := c.Names.Find(p); d >= 0 && len(usedBy[p]) > 0 {
			c.PriorOrder = append(c.PriorOrder, int32(d))
		}
	}
	c.UsagePremises, c.UsageUsers, c.ExtraNames = flat.NewKeys(flat.NewStrings(premises)), flat.NewLists(users), extra.Strings()
	slices.SortFunc(c.PriorOrder, c.byUses)
}

// byUses orders documents most used first, then by id.
func (c *TableColumns) byUses(a, b int32) int {
	if d := c.Uses[b] - c.Uses[a]; d != 0 {
		return int(d)
	}
	return int(a - b)
}

// buildNameIndexes computes the suffix and concept indexes of mentions and
// concept words.
func (c *TableColumns) buildNameIndexes(entries []Entry) {
	var suffix, concept flat.StringsBuilder
	suffixID, conceptID := map[string]int{}, map[string]int{}
	var suffixDocs, conceptDocs [][]int32
	premiseKind := c.premiseKinds()
	for i := range entries {
		name := entries[i].Name
		for j := 0; j < len(name); j++ {
			if name[j] != '.' {
				continue
			}
			s := name[j+1:]
			id, ok := suffixID[s]
			if !ok {
				id = suffix.Add(s)
				suffixID[s] = id
				suffixDocs = append(suffixDocs, nil)
			}
			suffixDocs[id] = append(suffixDocs[id], int32(i))
		}
		if premiseKind[c.Kind[i]] {
			k := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
			id, ok := conceptID[k]
			if !ok {
				id = concept.Add(k)
				conceptID[k] = id
				conceptDocs = append(conceptDocs, nil)
			}
			conceptDocs[id] = append(conceptDocs[id], int32(i))
		}
	}
	for _, docs := range conceptDocs {
		slices.SortFunc(docs, c.byUses)
	}
	c.Suffix, c.SuffixDocs = flat.NewKeys(suffix.Strings()), flat.NewLists(suffixDocs)
	c.Concept, c.ConceptDoc = flat.NewKeys(concept.Strings()), flat.NewLists(conceptDocs)
}

// premiseKinds says, per kind id, whether the kind is a premise kind.
func (c *TableColumns) premiseKinds() []bool {
	out := make([]bool, 256)
	for k := range c.Kinds.Len() {
		out[k] = workspace.IsPremiseKind(c.Kinds.At(k))
	}
	return out
}

// buildNameTokens computes theorem search's name index (see NameMatch):
// tokens in sorted order, so that the float sums of NameWeight do not
// depend on map order.
func (c *TableColumns) buildNameTokens(entries []Entry) {
	docs := map[string][]int32{}
	for i := range entries {
		nameTokens(entries[i].Name, func(tok string) { docs[tok] = append(docs[tok], int32(i)) })
	}
	toks := slices.Sorted(maps.Keys(docs))
	lists := make([][]int32, len(toks))
	c.NameIDF, c.NameWeight = make([]float32, len(toks)), make([]float32, len(entries))
	n := float64(len(entries))
	for i, tok := range toks {
		ds := docs[tok]
		lists[i] = ds
		idf := float32(math.Log(1 + n/float64(len(ds))))
		c.NameIDF[i] = idf
		for _, d := range ds {
			c.NameWeight[d] += idf
		}
	}
	c.NameTokens, c.NameDocs = flat.NewKeys(flat.NewStrings(toks)), flat.NewLists(lists)
}

// intern returns s's id in b, adding it while b holds fewer than max
// strings; past that every new string shares id 0 (the column's width is
// the limit, and a table that full is not one a library makes).
func intern[T uint8 | uint16 | uint32](ids map[string]T, b *flat.StringsBuilder, s string, max int) T {
	id, ok := ids[s]
	if !ok && b.Len() < max {
		id = T(b.Add(s))
		ids[s] = id
	}
	return id
}
