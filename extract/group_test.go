package extract

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// groupColonScan is groupColon as it was: a scan from the opener. The table
// lookup must answer exactly as it did.
func (f *file) groupColonScan(k, j int) (int, int) {
	depth := 0
	colon := -1
	for m := k; m < j; m++ {
		if d := f.depthDelta(m); d != 0 {
			depth += d
			if depth == 0 {
				return m, colon
			}
			continue
		}
		if depth == 1 && colon < 0 && f.is(m, ":") {
			colon = m
		}
		if depth == 1 && f.is(m, ":=") {
			return m, -1
		}
	}
	return j, -1
}

// checkGroups compares groupColon with the scan for every opener of src and
// several range ends.
func checkGroups(t *testing.T, name string, src []byte) {
	checkGroupsAt(t, name, src, func(k, n int) []int { return []int{n, k + 1, k + 2, k + 5, (k + n) / 2} })
}

func checkGroupsAt(t *testing.T, name string, src []byte, ends func(k, n int) []int) {
	toks, _ := Lex(src)
	checkGroupsIn(t, name, &file{s: string(src), toks: toks}, ends)
}

// checkGroupsIn is checkGroupsAt for a file made by the caller.
func checkGroupsIn(t *testing.T, name string, f *file, ends func(k, n int) []int) {
	t.Helper()
	toks := f.toks
	for k := range toks {
		if f.depthDelta(k) != 1 {
			continue
		}
		for _, j := range ends(k, len(toks)) {
			if j > len(toks) {
				continue
			}
			gc, gcol := f.groupColon(k, j)
			wc, wcol := f.groupColonScan(k, j)
			if gc != wc || gcol != wcol {
				t.Fatalf("%s: group at token %d (%q), range end %d: got (%d, %d), the scan says (%d, %d)",
					name, k, f.text(k), j, gc, gcol, wc, wcol)
			}
		}
	}
}

func TestGroupColonMatchesScan(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/seeds/*.lean", "../testdata/lean/*/*.lean", "../testdata/lean/*/*/*.lean", "../testdata/lean/*/*/*/*.lean"} {
		ps, _ := filepath.Glob(g)
		paths = append(paths, ps...)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d files", len(paths))
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkGroups(t, p, src)
	}
	// soups of brackets, colons, named arguments and comments
	parts := []string{"(", ")", "[", "]", "{", "}", "⟨", "⟩", "⦃", "⦄", ":", ":=", "x", " ", "/-", "-/", "\n", "fun y => ", ".a"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("def a : Nat := ")
		for n := rng.IntN(200); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		checkGroups(t, "soup", []byte(b.String()))
	}
}

// TestGroupTableRecycled: parseFile hands each file the group table buffer
// of the file parsed before it (fileScratch), so every entry must be written
// again: a file whose brackets do not close, parsed after one whose brackets
// closed at the same tokens, answers as the scan does; and the stages after
// a parse see rows that do not depend on the file parsed before.
func TestGroupTableRecycled(t *testing.T) {
	var srcs []string
	for _, n := range []int{1, 3, 40} {
		closed := "def a : Nat := " + strings.Repeat("(x : ", n) + "Nat" + strings.Repeat(")", n) + " + (b : Nat)\n"
		unclosed := "def a : Nat := " + strings.Repeat("(x : ", n) + "Nat + (b : Nat\n"
		srcs = append(srcs, closed, unclosed, closed)
	}
	parts := []string{"(", ")", "[", "]", "{", "}", "⟨", "⟩", ":", ":=", "x", " ", "\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		var b strings.Builder
		b.WriteString("def a : Nat := ")
		for n := rng.IntN(120); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		srcs = append(srcs, b.String())
	}
	ends := func(k, n int) []int { return []int{n, k + 1, k + 2, k + 5, (k + n) / 2} }
	var buf []groupEnd
	for i, src := range srcs {
		toks, _ := Lex([]byte(src))
		f := &file{s: src, toks: toks, groupsBuf: buf}
		checkGroupsIn(t, fmt.Sprintf("source %d (after %d) %q", i, i-1, src), f, ends)
		if f.groups != nil {
			buf = f.groups[:0]
		}
	}
	// the same through parseFile's pool: each source alone, then after the
	// one before it; a larger file first, whose table would cover a smaller
	// one's tokens if it were kept
	seeds, _ := filepath.Glob("testdata/seeds/*.lean")
	var corpus []string
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, string(b))
	}
	sort.Slice(corpus, func(i, j int) bool { return len(corpus[i]) > len(corpus[j]) })
	// rows that read the table: a receiver's type after `(e : T).f` and
	// the ascriptions whose types are no statement dependency
	recv := "namespace W\ntheorem u : (g 0 : Nat).succ = 1 := rfl\n" +
		"theorem v (s : Set Nat) : ((s : Set Nat) : Type).Nonempty := sorry\nend W\n"
	var interleaved []string
	for _, c := range corpus {
		interleaved = append(interleaved, c, recv)
	}
	srcs = append(interleaved, srcs...)
	alone := make([][]workspace.Declaration, len(srcs))
	for i, src := range srcs {
		scratchPool = sync.Pool{}
		alone[i], _, _ = ParseFile([]byte(src), "G.lean", "g")
	}
	scratchPool = sync.Pool{}
	for i, src := range srcs {
		rows, _, _ := ParseFile([]byte(src), "G.lean", "g")
		if len(rows) != len(alone[i]) {
			t.Fatalf("source %d parsed after source %d: %d rows, %d alone", i, i-1, len(rows), len(alone[i]))
		}
		for k := range rows {
			if !reflect.DeepEqual(rows[k], alone[i][k]) {
				t.Fatalf("source %d parsed after source %d: row %d\n%+v\nalone:\n%+v", i, i-1, k, rows[k], alone[i][k])
			}
		}
	}
}

func FuzzGroupColon(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if len(s) <= maxGroupFuzz {
			f.Add(s)
		}
	}
	f.Add([]byte("def f := g (x := (a : b)) (c : (d : e)) ((h)"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// The reference scan is quadratic: long inputs (the deep seeds,
		// checked by TestGroupColonMatchesScan) would make each run slow.
		if len(src) > maxGroupFuzz {
			return
		}
		checkGroupsAt(t, "fuzz", src, func(k, n int) []int { return []int{n, k + 3} })
	})
}

const maxGroupFuzz = 1 << 10

// TestDeepNestingLinear: the bracket scans do work linear in the nesting
// depth, counted in depthDelta calls rather than timed. Four times the depth
// must cost about four times the calls; when every '(' rescanned its group
// (40,000 nested '(' took 19.5 s) it cost sixteen times.
func TestDeepNestingLinear(t *testing.T) {
	shapes := map[string]func(n int) string{
		"parens": func(n int) string {
			return "def a : Nat := " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n"
		},
		"unclosed": func(n int) string { return "def a : Nat := " + strings.Repeat("(", n) + "\n" },
		"ascription": func(n int) string {
			return "def a : Nat := " + strings.Repeat("(x : ", n) + "Nat" + strings.Repeat(")", n) + "\n"
		},
		"commented": func(n int) string {
			return "def a : Nat := " + strings.Repeat("( /- (c -/ [ /-- d -/ ", n) + "1" + strings.Repeat(" /- e) -/ ] )", n) + "\n"
		},
		"signature": func(n int) string {
			return "theorem t " + strings.Repeat("(h : ", n) + "True" + strings.Repeat(")", n) + " : True := trivial\n"
		},
	}
	countDeltas = true
	defer func() { countDeltas = false }()
	calls := func(src string) int64 {
		deltaCalls.Store(0)
		ParseFile([]byte(src), "Deep.lean", "deep")
		return deltaCalls.Load()
	}
	for name, shape := range shapes {
		small, large := calls(shape(1000)), calls(shape(4000))
		if small == 0 {
			t.Fatalf("%s: depthDelta never called: the test measures nothing", name)
		}
		if r := float64(large) / float64(small); r > 6 {
			t.Errorf("%s: 4× the nesting took %.1f× the depthDelta calls (%d → %d): quadratic", name, r, small, large)
		} else {
			t.Logf("%s: %d → %d calls (%.1f×)", name, small, large, r)
		}
	}
}
