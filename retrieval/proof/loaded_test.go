package proof

import (
	"slices"
	"testing"
)

// TestLoaded follows Lean's import levels (importModulesCore): a loaded
// module's `public import`s are loaded, its plain and `meta` imports are
// not; below an `import all` every import is loaded and `import all`s
// chain; a non-module file's imports are all followed.
func TestLoaded(t *testing.T) {
	mods := []ModuleRow{
		{Name: "A", IsModule: true, Imports: []string{"B", "C", "D"}, ImportKinds: []string{"public", "", "all"}},
		{Name: "B", IsModule: true, Imports: []string{"E", "F"}, ImportKinds: []string{"", "public meta"}},
		{Name: "C", IsModule: true},
		{Name: "D", IsModule: true, Imports: []string{"G", "H"}, ImportKinds: []string{"", "all"}},
		{Name: "E", IsModule: true}, {Name: "F", IsModule: true}, {Name: "G", IsModule: true},
		{Name: "H", IsModule: true, Imports: []string{"I"}, ImportKinds: []string{""}},
		{Name: "I", IsModule: true},
		{Name: "Old", Imports: []string{"E"}},
	}
	g := New([]Row{{Name: "x", Module: "A"}}, mods)
	ix := func(names ...string) []int {
		var out []int
		for _, n := range names {
			i, _ := slices.BinarySearch(g.Modules(), n)
			out = append(out, i)
		}
		return out
	}
	names := func(marks []bool) []string {
		var out []string
		for i, m := range marks {
			if m {
				out = append(out, g.Modules()[i])
			}
		}
		return out
	}
	// A caller that imports A (public scope only): A, then B by A's public
	// import, F by B's public meta import; not C, E (plain imports) nor D.
	data, all := g.Loaded(ix("A"), nil)
	if got := names(data); !slices.Equal(got, []string{"A", "B", "F"}) || len(names(all)) != 0 {
		t.Errorf("import A: loaded %v, all %v", got, names(all))
	}
	// `import all A`: everything A imports, and D, H by the chain of
	// `import all`s; G and I are imported plainly below D and H.
	data, all = g.Loaded(nil, ix("A"))
	if got, a := names(data), names(all); !slices.Equal(got, []string{"A", "B", "C", "D", "F", "G", "H", "I"}) ||
		!slices.Equal(a, []string{"A", "D", "H"}) {
		t.Errorf("import all A: loaded %v, all %v", got, a)
	}
	// Outside the module system every import counts.
	if data, _ := g.Loaded(ix("Old"), nil); !slices.Equal(names(data), []string{"E", "Old"}) {
		t.Errorf("non-module Old: %v", names(data))
	}
}
