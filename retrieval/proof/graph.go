// Package proof is premise selection from a goal: the query is a formal
// proof state (hypotheses and a target, as Lean's Meta.ppGoal prints it)
// and the answers are the lemmas a proof of it uses (declarations.parquet's
// proof_deps), not the definitions its statement needs (the premise
// profile's task).
//
// Its ranker fuses, by weighted reciprocal-rank fusion:
//
//   - lexical: declarations whose text (name tokens, signature, informal
//     text) matches the goal's, from the index's BM25 (the caller runs it);
//   - consts: the goal's constants (identifiers that name declarations) and
//     their neighbours in the usage graph, i.e. lemmas whose statements
//     use the same constants, each shared constant weighing its inverse
//     document frequency;
//   - votes: the proof dependencies of the declarations most similar to the
//     goal (the lexical list's first ones), weighted by their rank;
//   - prior: how many proofs of the library use a lemma (a soft
//     popularity prior).
//
// The Graph holds the proof and statement dependencies of a workspace's
// declarations, by id; Rank answers one goal over it. The package knows no
// index: the server and the evaluation hand it the lexical list.
package proof

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Row is what the graph reads of one declarations.parquet row (the columns
// it names; the rest are not decoded).
type Row struct {
	Revision      string   `parquet:"revision,dict"`
	Name          string   `parquet:"name"`
	Kind          string   `parquet:"kind,dict"`
	Module        string   `parquet:"module,dict"`
	LineStart     int32    `parquet:"line_start"`
	Modifiers     []string `parquet:"modifiers,list"`
	StatementDeps []string `parquet:"statement_deps,list"`
	ProofDeps     []string `parquet:"proof_deps,list"`
	// Visibility and Exposed are Lean's module-system view of the row
	// (workspace.Declaration); tables written before them read "" and false.
	Visibility string `parquet:"visibility,dict"`
	Exposed    bool   `parquet:"exposed"`
}

// AddedColumns: the module-system columns are optional, as in
// workspace.Declaration.
func (*Row) AddedColumns() []string { return (*workspace.Declaration)(nil).AddedColumns() }

// ModuleRow is what the graph reads of a modules.parquet row: a module,
// the modules it imports directly and how (workspace.Module).
type ModuleRow struct {
	Name        string   `parquet:"name"`
	Imports     []string `parquet:"imports,list"`
	IsModule    bool     `parquet:"is_module"`
	ImportKinds []string `parquet:"import_kinds,list"`
}

// AddedColumns: the module-system columns are optional, as in
// workspace.Module.
func (*ModuleRow) AddedColumns() []string { return (*workspace.Module)(nil).AddedColumns() }

// Graph is a workspace's declarations and their dependencies, by id (the
// row order of declarations.parquet; a repeated name keeps its first row).
// It is immutable and safe for concurrent use.
type Graph struct {
	names   []string
	ids     map[string]int32
	kinds   []string
	kind    []uint8
	modules []string // sorted: the declarations' modules and modules.parquet's
	module  []int32
	line    []int32
	// private marks declarations Lean makes private to their module
	// (workspace.Declaration.IsPrivate): no other module can name them
	// (Lean mangles their names), except one that imports theirs with
	// `import all` under the module system.
	private []bool
	// exposed marks declarations whose body is in the public scope
	// (workspace.Declaration.Exposed).
	exposed []bool
	// moduleSystem marks modules whose file opts into the module system.
	moduleSystem []bool
	// imports are each module's direct imports (indices into modules);
	// importKind the matching import's flags (importPublic, importAll).
	imports    csr
	importKind []uint8
	// proof and stmt are each declaration's resolved proof and statement
	// dependencies; users inverts stmt (declarations whose statement uses
	// a constant).
	proof, stmt, users csr
	// proofUses counts the proofs that use each declaration; byUses is the
	// ids sorted by it, most used first.
	proofUses []int32
	byUses    []int32
	revisions []string
}

// csr is an adjacency list: the neighbours of i are dst[off[i]:off[i+1]].
type csr struct {
	off, dst []int32
}

func (c *csr) of(i int32) []int32 { return c.dst[c.off[i]:c.off[i+1]] }

// Load reads the graph of a declarations.parquet and, when modulesPath is
// not "" and the file exists, the module imports of a modules.parquet.
func Load(path, modulesPath string) (*Graph, error) {
	rows, err := workspace.ReadTable[Row](path)
	if err != nil {
		return nil, fmt.Errorf("proof graph: %w", err)
	}
	var mods []ModuleRow
	if modulesPath != "" {
		if _, serr := os.Stat(modulesPath); serr == nil {
			if mods, err = workspace.ReadTable[ModuleRow](modulesPath); err != nil {
				return nil, fmt.Errorf("proof graph: %w", err)
			}
		}
	}
	return New(rows, mods), nil
}

// New builds the graph of rows, with the modules and imports of mods
// (nil: modules are the declarations', imports unknown).
func New(rows []Row, mods []ModuleRow) *Graph {
	g := &Graph{ids: make(map[string]int32, len(rows))}
	kindIx := map[string]uint8{}
	modSet := map[string]bool{}
	keep := make([]int, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		if _, dup := g.ids[r.Name]; dup || r.Name == "" {
			continue
		}
		g.ids[r.Name] = int32(len(g.names))
		g.names = append(g.names, r.Name)
		k, ok := kindIx[r.Kind]
		if !ok {
			k = uint8(len(g.kinds))
			kindIx[r.Kind] = k
			g.kinds = append(g.kinds, r.Kind)
		}
		g.kind = append(g.kind, k)
		g.line = append(g.line, r.LineStart)
		g.private = append(g.private, workspace.IsPrivate(r.Visibility, r.Modifiers))
		g.exposed = append(g.exposed, r.Exposed)
		modSet[r.Module] = true
		if r.Revision != "" && !slices.Contains(g.revisions, r.Revision) {
			g.revisions = append(g.revisions, r.Revision)
		}
		keep = append(keep, i)
	}
	for _, m := range mods {
		if m.Name != "" {
			modSet[m.Name] = true
		}
	}
	for m := range modSet {
		g.modules = append(g.modules, m)
	}
	slices.Sort(g.modules)
	g.imports, g.importKind, g.moduleSystem = g.importGraph(mods)
	g.module = make([]int32, len(keep))
	for id, i := range keep {
		m, _ := slices.BinarySearch(g.modules, rows[i].Module)
		g.module[id] = int32(m)
	}
	g.proof = g.adjacency(rows, keep, func(r *Row) []string { return r.ProofDeps })
	g.stmt = g.adjacency(rows, keep, func(r *Row) []string { return r.StatementDeps })
	g.users = invert(&g.stmt, len(g.names))
	g.proofUses = make([]int32, len(g.names))
	for _, d := range g.proof.dst {
		g.proofUses[d]++
	}
	g.byUses = make([]int32, len(g.names))
	for i := range g.byUses {
		g.byUses[i] = int32(i)
	}
	slices.SortStableFunc(g.byUses, func(a, b int32) int { return cmp.Compare(g.proofUses[b], g.proofUses[a]) })
	return g
}

// Import flags (Graph.importKind): how a module imports another.
const (
	importPublic uint8 = 1 << iota // `public import`: re-exported to its importers
	importAll                      // `import all`: its private scope too
)

// importGraph resolves each module's direct imports to module indices
// (imports of modules the graph does not know are dropped), with their
// flags, and marks the module-system modules. An import without a kind
// (a modules.parquet written before import_kinds) counts as public, so
// the whole closure is importable, as before.
func (g *Graph) importGraph(mods []ModuleRow) (csr, []uint8, []bool) {
	direct := make([][]int32, len(g.modules))
	flags := make([][]uint8, len(g.modules))
	system := make([]bool, len(g.modules))
	for _, m := range mods {
		i, ok := slices.BinarySearch(g.modules, m.Name)
		if !ok {
			continue
		}
		system[i] = m.IsModule
		for k, imp := range m.Imports {
			j, ok := slices.BinarySearch(g.modules, imp)
			if !ok || j == i {
				continue
			}
			fl := importPublic
			if k < len(m.ImportKinds) {
				fl = importFlags(m.ImportKinds[k])
			}
			if at := slices.Index(direct[i], int32(j)); at >= 0 {
				flags[i][at] |= fl
				continue
			}
			direct[i] = append(direct[i], int32(j))
			flags[i] = append(flags[i], fl)
		}
	}
	c := csr{off: make([]int32, 1, len(g.modules)+1)}
	var kinds []uint8
	for i, d := range direct {
		c.dst = append(c.dst, d...)
		kinds = append(kinds, flags[i]...)
		c.off = append(c.off, int32(len(c.dst)))
	}
	return c, kinds, system
}

// importFlags reads a modules.parquet import kind ("public meta", "all", …).
func importFlags(kind string) uint8 {
	var fl uint8
	for _, w := range strings.Fields(kind) {
		switch w {
		case "public":
			fl |= importPublic
		case "all":
			fl |= importAll
		}
	}
	return fl
}

// Loaded is what a caller in the module system can use in its proofs
// when it imports roots (directly or not; Lean's client sends every module
// of its environment) and, with `import all`, allRoots: data marks the
// modules whose public scope is loaded, all those whose private scope is
// too. It is Lean's import-level fixed point (importModulesCore in
// src/Lean/Environment.lean): a loaded module's `public import`s are
// loaded; an import-all module's imports are all loaded and its `import
// all`s are import-all in turn; a plain `import` of a merely loaded module
// is not (it is private to that module). Modules outside the module
// system import everything they import publicly (Lean ignores the
// annotations there). Out-of-range indices are ignored.
func (g *Graph) Loaded(roots, allRoots []int) (data, all []bool) {
	n := len(g.modules)
	data, all = make([]bool, n), make([]bool, n)
	var stack []int32
	mark := func(m int32, a bool) {
		if a && !all[m] {
			all[m], data[m] = true, true
			stack = append(stack, m)
		} else if !data[m] {
			data[m] = true
			stack = append(stack, m)
		}
	}
	for _, m := range allRoots {
		if m >= 0 && m < n {
			mark(int32(m), true)
		}
	}
	for _, m := range roots {
		if m >= 0 && m < n {
			mark(int32(m), false)
		}
	}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo := g.imports.off[m]
		for k, d := range g.imports.of(m) {
			fl := g.importKind[int(lo)+k]
			if !g.moduleSystem[m] {
				fl |= importPublic
			}
			switch {
			case all[m]:
				mark(d, fl&importAll != 0)
			case fl&importPublic != 0:
				mark(d, false)
			}
		}
	}
	return data, all
}

// ImportClosure marks the given modules and every module they import,
// directly or not (indices into Modules; out-of-range ones are ignored).
func (g *Graph) ImportClosure(roots []int) []bool {
	seen := make([]bool, len(g.modules))
	stack := make([]int32, 0, len(roots))
	for _, m := range roots {
		if m >= 0 && m < len(seen) && !seen[m] {
			seen[m] = true
			stack = append(stack, int32(m))
		}
	}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range g.imports.of(m) {
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return seen
}

// adjacency resolves each kept row's dependency names to ids (unknown names
// and self-references dropped, repeats kept once).
func (g *Graph) adjacency(rows []Row, keep []int, deps func(*Row) []string) csr {
	c := csr{off: make([]int32, 1, len(keep)+1)}
	for id, i := range keep {
		start := len(c.dst)
		for _, n := range deps(&rows[i]) {
			d, ok := g.ids[n]
			if !ok || d == int32(id) || slices.Contains(c.dst[start:], d) {
				continue
			}
			c.dst = append(c.dst, d)
		}
		c.off = append(c.off, int32(len(c.dst)))
	}
	return c
}

func invert(c *csr, n int) csr {
	count := make([]int32, n+1)
	for _, d := range c.dst {
		count[d+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	out := csr{off: slices.Clone(count), dst: make([]int32, len(c.dst))}
	for i := 0; i < n; i++ {
		for _, d := range c.of(int32(i)) {
			out.dst[count[d]] = int32(i)
			count[d]++
		}
	}
	return out
}

// Len is the number of declarations.
func (g *Graph) Len() int { return len(g.names) }

// Name is declaration id's full name.
func (g *Graph) Name(id int32) string { return g.names[id] }

// ID looks a declaration up by full name.
func (g *Graph) ID(name string) (int32, bool) {
	id, ok := g.ids[name]
	return id, ok
}

// Kind is declaration id's kind.
func (g *Graph) Kind(id int32) string { return g.kinds[g.kind[id]] }

// Modules lists the modules of the graph's declarations, sorted.
func (g *Graph) Modules() []string { return g.modules }

// ModuleOf is the index into Modules of declaration id's module.
func (g *Graph) ModuleOf(id int32) int { return int(g.module[id]) }

// Private reports whether Lean makes declaration id private to its module
// (only its own module, or one importing it with `import all` under the
// module system, can use it).
func (g *Graph) Private(id int32) bool { return g.private[id] }

// Exposed reports whether declaration id's body is in the public scope.
func (g *Graph) Exposed(id int32) bool { return g.exposed[id] }

// InModuleSystem reports whether module m (an index into Modules) is a
// module-system file.
func (g *Graph) InModuleSystem(m int) bool { return g.moduleSystem[m] }

// Line is the line declaration id starts on.
func (g *Graph) Line(id int32) int32 { return g.line[id] }

// ProofDeps lists declaration id's proof dependencies (ids; shared, do not
// modify).
func (g *Graph) ProofDeps(id int32) []int32 { return g.proof.of(id) }

// StatementDeps lists declaration id's statement dependencies (ids).
func (g *Graph) StatementDeps(id int32) []int32 { return g.stmt.of(id) }

// ProofUses is how many proofs of the library use declaration id.
func (g *Graph) ProofUses(id int32) int { return int(g.proofUses[id]) }

// Revisions lists the library revisions of the declarations (the
// revision column), in order of first appearance.
func (g *Graph) Revisions() []string { return g.revisions }
