package extract

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	f := &file{s: string(src), toks: toks}
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
