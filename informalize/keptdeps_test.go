package informalize

import (
	"slices"
	"testing"
)

// TestKeptDeps: a prompt carries the informal text of a dependency only
// when it is a selected node and a kept edge of the graph: not a
// declaration outside the selection, not an edge dropped to break a cycle
// (whose text would depend on timing), not a name the library lacks.
func TestKeptDeps(t *testing.T) {
	st := &state{
		byName: map[string]int32{"kept": 0, "dropped": 1, "unselected": 2, "self": 3},
		nodeOf: []int32{0, 1, -1, 2},
		graph:  &Graph{Deps: [][]int32{{}, {}, {0}}},
	}
	in := &Input{Deps: []Dep{{Name: "unselected"}, {Name: "dropped"}, {Name: "unknown"}, {Name: "kept"}}}
	var got []string
	var nodes []int32
	st.keptDeps(2, in, func(dep *Dep, w int32) {
		got, nodes = append(got, dep.Name), append(nodes, w)
		dep.InformalName = "set"
	})
	if !slices.Equal(got, []string{"kept"}) || !slices.Equal(nodes, []int32{0}) {
		t.Errorf("keptDeps = %q at nodes %v, want [kept] at [0]", got, nodes)
	}
	if in.Deps[3].InformalName != "set" {
		t.Error("fn did not get the input's own Dep")
	}
}
