package extract

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// resolveCorpus parses and resolves files as Run does, with either a fresh
// resolver for every file of every pass or one resolver for all of them,
// visiting the files in reverse order (Run's workers reuse theirs across
// files and passes: Table.resolvers).
func resolveCorpus(rels []string, srcs [][]byte, shared bool) map[string][]workspace.Declaration {
	src := &Source{Library: "t"}
	frs := make([]*fileResult, len(srcs))
	for i := range srcs {
		frs[i] = parseFile(srcs[i], string(srcs[i]), rels[i], ModuleName(rels[i]), src, &Options{})
	}
	vis, order := importClosures(frs)
	nameInstances(frs, mathlibNaming(), nil, vis, order, 2)
	tb := newTable(frs, vis)
	tb.prepare(frs)
	tb.attributeTwins(frs, mathlibNaming())
	tb.inheritFields(frs)
	one := &resolver{t: tb, cache: map[cacheKey]string{}}
	get := func() *resolver {
		if shared {
			return one
		}
		return &resolver{t: tb, cache: map[cacheKey]string{}}
	}
	idx := make([]int, len(frs))
	for i := range idx {
		idx[i] = i
	}
	if shared {
		slices.Reverse(idx)
	}
	for _, i := range idx {
		r := get()
		for _, d := range frs[i].decls {
			r.resolveInstClasses(d, i)
		}
	}
	for _, i := range idx {
		r := get()
		r.unres = &frs[i].unres
		for _, d := range frs[i].decls {
			r.resolveDecl(d, i)
		}
		r.unres = nil
	}
	decide(context.Background(), 1, tb, frs)
	fixups(tb, frs, mathlibNaming())
	dropDuplicates(tb, frs)
	out := map[string][]workspace.Declaration{}
	for i, fr := range frs {
		for _, d := range fr.decls {
			out[rels[i]] = append(out[rels[i]], d.row)
		}
		for _, u := range fr.unres {
			out[rels[i]+" unresolved"] = append(out[rels[i]+" unresolved"], workspace.Declaration{Name: u.name})
		}
	}
	return out
}

// TestResolverReuse: a resolver that has resolved other files (its cache,
// its context, its scratch buffers) resolves a file as a fresh one does —
// the bundled library and the seed corpus, every row and every unresolved
// identifier compared.
func TestResolverReuse(t *testing.T) {
	var rels []string
	var srcs [][]byte
	root := "../testdata/lean"
	filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lean") && !strings.HasSuffix(p, "lakefile.lean") {
			rel, _ := filepath.Rel(root, p)
			b, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Fatal(rerr)
			}
			rels, srcs = append(rels, filepath.ToSlash(rel)), append(srcs, b)
		}
		return err
	})
	// the same identifier under other opens and imports in each file, in
	// the same namespace: only the file's own context tells them apart
	for _, f := range [][2]string{
		{"Pair/Defs.lean", "namespace X\ndef foo : Nat := 0\nend X\nnamespace Y\ndef foo : Nat := 1\nend Y\n"},
		{"Pair/A.lean", "import Pair.Defs\nopen X\ntheorem a : foo = 0 := rfl\n"},
		{"Pair/B.lean", "import Pair.Defs\nopen Y\ntheorem b : foo = 1 := rfl\n"},
		{"Pair/C.lean", "theorem c : X.foo = 0 := rfl\n"},
		{"Pair/D.lean", "import Pair.Defs\ntheorem d : X.foo = 0 := rfl\n"},
	} {
		rels, srcs = append(rels, f[0]), append(srcs, []byte(f[1]))
	}
	seeds, _ := filepath.Glob("testdata/seeds/*.lean")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rels, srcs = append(rels, "Seeds/"+filepath.Base(p)), append(srcs, b)
	}
	if len(rels) < 30 {
		t.Fatalf("only %d files", len(rels))
	}
	fresh, shared := resolveCorpus(rels, srcs, false), resolveCorpus(rels, srcs, true)
	rows := 0
	for _, rel := range rels {
		rows += len(fresh[rel])
		for _, k := range []string{rel, rel + " unresolved"} {
			if !reflect.DeepEqual(shared[k], fresh[k]) {
				a, b := shared[k], fresh[k]
				for i := range min(len(a), len(b)) {
					if !reflect.DeepEqual(a[i], b[i]) {
						t.Fatalf("%s: row %d with a reused resolver\n%+v\nfresh:\n%+v", k, i, a[i], b[i])
					}
				}
				t.Fatalf("%s: %d rows with a reused resolver, %d fresh", k, len(a), len(b))
			}
		}
	}
	if a, b := fresh["Pair/A.lean"], fresh["Pair/B.lean"]; len(a) != 1 || len(b) != 1 ||
		!slices.Equal(a[0].StatementDeps, []string{"X.foo"}) || !slices.Equal(b[0].StatementDeps, []string{"Y.foo"}) {
		t.Fatalf("the pair files resolve otherwise than the test expects: %+v %+v", a, b)
	}
	if rows < 1000 {
		t.Fatalf("only %d rows compared", rows)
	}
}
