package informalize

// Graph is the dependency order of the selected declarations: deps[v] are the
// in-selection statement dependencies v waits for. Cycles are broken
// deterministically: inside a strongly connected component only edges to a
// dependency with a smaller name are kept (self-loops dropped), so the
// result is acyclic and the same on every run.
type Graph struct {
	Deps       [][]int32 // kept dependencies of each node
	Dependents [][]int32 // reverse of Deps
	Dropped    int       // edges removed to break cycles
	Cyclic     int       // nodes in a cycle
	// Height[v] is the number of nodes on the longest chain from v down to
	// a node nothing depends on (1 for such a node): the scheduler starts
	// the longest chains first. Depth is the longest chain of all, the
	// least number of sequential request rounds.
	Height []int32
	Depth  int
}

// BuildGraph builds the graph of n nodes with names names and raw edges
// adj[v] = dependencies of v (node indices, duplicates allowed).
func BuildGraph(names []string, adj [][]int32) *Graph {
	n := len(names)
	comp := scc(n, adj)
	size := make(map[int32]int)
	for _, c := range comp {
		size[c]++
	}
	g := &Graph{Deps: make([][]int32, n), Dependents: make([][]int32, n)}
	for v := 0; v < n; v++ {
		if size[comp[v]] > 1 {
			g.Cyclic++
		}
		seen := map[int32]bool{}
		for _, d := range adj[v] {
			if seen[d] {
				continue
			}
			seen[d] = true
			if comp[d] == comp[int32(v)] && !(names[d] < names[v]) {
				g.Dropped++
				continue
			}
			g.Deps[v] = append(g.Deps[v], d)
			g.Dependents[d] = append(g.Dependents[d], int32(v))
		}
	}
	g.heights()
	return g
}

// heights computes Height by peeling nodes without remaining dependents.
func (g *Graph) heights() {
	n := len(g.Deps)
	g.Height = make([]int32, n)
	left := make([]int32, n)
	var queue []int32
	for v := 0; v < n; v++ {
		left[v] = int32(len(g.Dependents[v]))
		if left[v] == 0 {
			queue = append(queue, int32(v))
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		h := int32(1)
		for _, w := range g.Dependents[v] {
			h = max(h, g.Height[w]+1)
		}
		g.Height[v] = h
		g.Depth = max(g.Depth, int(h))
		for _, d := range g.Deps[v] {
			left[d]--
			if left[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
}

// scc labels strongly connected components (Tarjan, iterative so that deep
// dependency chains do not exhaust the stack).
func scc(n int, adj [][]int32) []int32 {
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	comp := make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	type frame struct {
		v  int32
		ei int
	}
	var next, ncomp int32
	for s := 0; s < n; s++ {
		if index[s] >= 0 {
			continue
		}
		call := []frame{{v: int32(s)}}
		index[s], low[s] = next, next
		next++
		stack = append(stack, int32(s))
		onStack[s] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.ei < len(adj[v]) {
				w := adj[v][f.ei]
				f.ei++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				if low[v] < low[u] {
					low[u] = low[v]
				}
			}
		}
	}
	return comp
}
