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
}

// ModuleRow is what the graph reads of a modules.parquet row: a module
// and the modules it imports directly.
type ModuleRow struct {
	Name    string   `parquet:"name"`
	Imports []string `parquet:"imports,list"`
}

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
	// private marks declarations written `private`: no other module can
	// name them (Lean mangles their names).
	private []bool
	// imports are each module's direct imports (indices into modules).
	imports csr
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
		g.private = append(g.private, slices.Contains(r.Modifiers, "private"))
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
	g.imports = g.importGraph(mods)
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

// importGraph resolves each module's direct imports to module indices
// (imports of modules the graph does not know are dropped).
func (g *Graph) importGraph(mods []ModuleRow) csr {
	direct := make([][]int32, len(g.modules))
	for _, m := range mods {
		i, ok := slices.BinarySearch(g.modules, m.Name)
		if !ok {
			continue
		}
		for _, imp := range m.Imports {
			if j, ok := slices.BinarySearch(g.modules, imp); ok && j != i && !slices.Contains(direct[i], int32(j)) {
				direct[i] = append(direct[i], int32(j))
			}
		}
	}
	c := csr{off: make([]int32, 1, len(g.modules)+1)}
	for _, d := range direct {
		c.dst = append(c.dst, d...)
		c.off = append(c.off, int32(len(c.dst)))
	}
	return c
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

// Private reports whether declaration id is written `private` (only its
// own module can use it).
func (g *Graph) Private(id int32) bool { return g.private[id] }

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
