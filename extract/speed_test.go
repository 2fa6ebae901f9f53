package extract

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestNameListKeepsFirstUse: a nameList is the names in order of first
// addition without repeats, short or long (past the scan length it
// switches to a set).
func TestNameListKeepsFirstUse(t *testing.T) {
	for _, n := range []int{0, 1, nameListScan, nameListScan + 1, 3 * nameListScan} {
		var l nameList
		var want []string
		for i := 0; i < 3*n; i++ {
			name := fmt.Sprintf("N.c%d", (i*7)%(n+1))
			l.add(name)
			if !slices.Contains(want, name) {
				want = append(want, name)
			}
		}
		if !slices.Equal(l.names, want) {
			t.Errorf("%d distinct: got %v, want %v", n, l.names, want)
		}
	}
}

// TestManyDependenciesOnce: a statement using more constants than a
// nameList scans, several twice, lists each once, in order of first use.
func TestManyDependenciesOnce(t *testing.T) {
	var b strings.Builder
	var uses, want []string
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "def c%d : Nat := %d\n", i, i)
		uses = append(uses, fmt.Sprintf("c%d", i))
		want = append(want, fmt.Sprintf("c%d", i))
		if i%3 == 0 {
			uses = append(uses, fmt.Sprintf("c%d", i/2))
		}
	}
	fmt.Fprintf(&b, "theorem t : %s = 0 := sorry\n", strings.Join(uses, " + "))
	got := parse(t, b.String())["t"].StatementDeps
	got = slices.DeleteFunc(got, func(s string) bool { return !strings.HasPrefix(s, "c") })
	if !slices.Equal(got, want) {
		t.Errorf("statement deps:\n got  %v\n want %v", got, want)
	}
}

// TestBinderShadowsSectionVariable: a declaration's binder named like a
// section variable is the one its statement means (field notation goes to
// the binder's type), and the variable's type is back for the next
// declaration.
func TestBinderShadowsSectionVariable(t *testing.T) {
	src := `
structure Foo where
  a : Nat
structure Bar where
  b : Nat
def Foo.size (f : Foo) : Nat := f.a
def Bar.size (g : Bar) : Nat := g.b
variable (x : Foo)
theorem t (x : Bar) : x.size = x.size := rfl
theorem u : x.size = x.size := rfl
`
	rows := parse(t, src)
	if deps := rows["t"].StatementDeps; !slices.Contains(deps, "Bar.size") || slices.Contains(deps, "Foo.size") {
		t.Errorf("t (x : Bar) shadowing variable (x : Foo): statement deps %v, want Bar.size", deps)
	}
	if deps := rows["u"].StatementDeps; !slices.Contains(deps, "Foo.size") {
		t.Errorf("u with variable (x : Foo): statement deps %v, want Foo.size", deps)
	}
}

// TestParseRecyclesBuffers: files parse the same whatever file used (and
// returned) the recycled token and group buffers before them: the seed
// corpus and the bundled library, forwards, then backwards.
func TestParseRecyclesBuffers(t *testing.T) {
	paths, _ := filepath.Glob("testdata/seeds/*.lean")
	filepath.WalkDir("../testdata/lean", func(p string, _ fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lean") {
			paths = append(paths, p)
		}
		return err
	})
	if len(paths) < 10 {
		t.Fatalf("only %d files", len(paths))
	}
	var srcs [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b)
	}
	parseAll := func(order []int) map[int][]workspace.Declaration {
		out := map[int][]workspace.Declaration{}
		for _, i := range order {
			out[i], _, _ = ParseFile(srcs[i], paths[i], "t")
		}
		return out
	}
	var fwd, back []int
	for i := range srcs {
		fwd = append(fwd, i)
		back = append([]int{i}, back...)
	}
	a, b := parseAll(fwd), parseAll(back)
	for i := range srcs {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s parses differently after other files", paths[i])
		}
	}
}
