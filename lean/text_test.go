package lean

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type proofNetItem struct {
	FullName   string `json:"full_name"`
	Header     string `json:"header"`
	FormalStmt string `json:"formal_stmt"`
}

// proofNet reads the bundled ProofNet sample (one item per distinct header
// of the valid split, and some more) and, when the shared benchmark is on
// this machine, the whole valid split (185 items).
func proofNet(t *testing.T) []proofNetItem {
	t.Helper()
	var items []proofNetItem
	for _, path := range []string{"testdata/proofnet_valid_sample.jsonl", "/work/shared/benchmarks/proofnet/valid.jsonl"} {
		f, err := os.Open(path)
		if err != nil {
			if path == "testdata/proofnet_valid_sample.jsonl" {
				t.Fatal(err)
			}
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var it proofNetItem
			if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			items = append(items, it)
		}
		f.Close()
	}
	return items
}

func TestParseStatementProofNet(t *testing.T) {
	for _, it := range proofNet(t) {
		st, err := ParseStatement(it.FormalStmt)
		if err != nil {
			t.Errorf("%s: %v", it.FullName, err)
			continue
		}
		short := it.FullName[strings.LastIndexByte(it.FullName, '.')+1:]
		if st.Name != short {
			t.Errorf("%s: name %q", it.FullName, st.Name)
		}
		if strings.Contains(st.Signature, "sorry") || strings.HasSuffix(st.Signature, ":=") || st.Prelude != "" {
			t.Errorf("%s: signature %q prelude %q", it.FullName, st.Signature, st.Prelude)
		}
		if st.Conclusion == "" || !strings.HasSuffix(st.Signature, st.Conclusion) {
			t.Errorf("%s: conclusion %q of %q", it.FullName, st.Conclusion, st.Signature)
		}
	}
}

func TestParseStatement(t *testing.T) {
	for _, c := range []struct {
		in                              string
		prelude, name, univ, sig, concl string
	}{
		{"theorem foo (x : ℕ) : x = x := rfl", "", "foo", "", "(x : ℕ) : x = x", "x = x"},
		{"lemma foo {α : Type*} [Group α] (a : α) :\n  a * 1 = a := by simp", "", "foo", "", "{α : Type*} [Group α] (a : α) :\n  a * 1 = a", "a * 1 = a"},
		{"theorem foo : let x := 3; x = 3 := by rfl", "", "foo", "", ": let x := 3; x = 3", "let x := 3; x = 3"},
		{"theorem foo.{u} (α : Type u) : α = α := rfl", "", "foo", ".{u}", "(α : Type u) : α = α", "α = α"},
		{"example (p : Prop) (hp : p) : p := hp", "", "", "", "(p : Prop) (hp : p) : p", "p"},
		{"/-- doc -/\n@[simp] protected theorem foo : True := trivial", "", "foo", "", ": True", "True"},
		{"open Real in\ntheorem foo : π > 3 := sorry", "open Real in\n", "foo", "", ": π > 3", "π > 3"},
		{"def g := 1\n-- theorem fake : False\ntheorem foo (x : ℕ) : -- the type\n  g = 1 := rfl", "def g := 1\n-- theorem fake : False\n", "foo", "", "(x : ℕ) :\n  g = 1", "g = 1"},
		{"theorem foo (h : \"a:=b\" = s) : s = s :=\nsorry", "", "foo", "", "(h : \"a:=b\" = s) : s = s", "s = s"},
		{"theorem foo (f : ℕ → ℕ) (hf : ∀ x, f x = (fun y => y) x) : f = id", "", "foo", "", "(f : ℕ → ℕ) (hf : ∀ x, f x = (fun y => y) x) : f = id", "f = id"},
		{"theorem my_theorem_about_theorems : True := trivial", "", "my_theorem_about_theorems", "", ": True", "True"},
	} {
		st, err := ParseStatement(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got := [5]string{st.Prelude, st.Name, st.Universes, st.Signature, st.Conclusion}
		want := [5]string{c.prelude, c.name, c.univ, c.sig, c.concl}
		if got != want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, want)
		}
	}
	for _, bad := range []string{"", "def f := 1", "theorem foo := rfl", "theorem : True := trivial", "-- theorem foo : True"} {
		if _, err := ParseStatement(bad); !errors.Is(err, ErrStatement) {
			t.Errorf("%q: %v, want ErrStatement", bad, err)
		}
	}
}

func TestSplitImports(t *testing.T) {
	for _, c := range []struct {
		in, imports, rest string
		n                 int
	}{
		{"import Mathlib\nimport Aesop\n\ntheorem t : True := trivial", "import Mathlib\nimport Aesop", "\ntheorem t : True := trivial", 2},
		{"-- c\n/- block\n  import Fake -/\nimport Mathlib\nopen Real\n", "-- c\n/- block\n  import Fake -/\nimport Mathlib", "open Real\n", 4},
		{"theorem t : True := trivial", "", "theorem t : True := trivial", 0},
		{"import Mathlib", "import Mathlib", "", 0},
		{"open Real\nimport Mathlib", "", "open Real\nimport Mathlib", 0},
	} {
		imp, rest, n := SplitImports(c.in)
		if imp != c.imports || rest != c.rest || n != c.n {
			t.Errorf("SplitImports(%q) = %q, %q, %d; want %q, %q, %d", c.in, imp, rest, n, c.imports, c.rest, c.n)
		}
		if imp != "" && rest != "" && imp+"\n"+rest != c.in {
			t.Errorf("%q: imports and rest do not rejoin to the text", c.in)
		}
	}
}

func TestMergeHeaders(t *testing.T) {
	a := "import Mathlib\n\nopen Real\nopen scoped BigOperators\nnoncomputable section\n\n\nnoncomputable def f : ℕ → ℝ\n| 0 => sqrt 2\n| (n + 1) => sqrt (2 + sqrt (f n))\n"
	b := "import Mathlib\nimport Aesop\n\nopen Real\nopen Filter\nnoncomputable section\n\n/-- the gap -/\ndef g (n : ℕ) : ℝ := sqrt (n + 1) - sqrt n\n"
	got, err := MergeHeaders(a, b, "", a)
	if err != nil {
		t.Fatal(err)
	}
	want := "import Mathlib\nimport Aesop\n\nopen Real\nopen scoped BigOperators\nnoncomputable section\n\n" +
		"noncomputable def f : ℕ → ℝ\n| 0 => sqrt 2\n| (n + 1) => sqrt (2 + sqrt (f n))\n\nopen Filter\n\n/-- the gap -/\ndef g (n : ℕ) : ℝ := sqrt (n + 1) - sqrt n\n"
	if got != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got, want)
	}
	_, err = MergeHeaders("def f := 1", "def f := 2")
	var ce *ClashError
	if !errors.As(err, &ce) || ce.Name != "f" || !errors.Is(err, ErrNameClash) {
		t.Errorf("clash: %v", err)
	}
	if got, _ := MergeHeaders("", ""); got != "" {
		t.Errorf("empty headers merge to %q", got)
	}
}

// TestMergeHeadersProofNet merges every pair of ProofNet headers: imports
// come first and once, every command of both is there.
func TestMergeHeadersProofNet(t *testing.T) {
	items := proofNet(t)
	headers := map[string]bool{}
	for _, it := range items {
		headers[it.Header] = true
	}
	var hs []string
	for h := range headers {
		hs = append(hs, h)
	}
	for _, h1 := range hs {
		for _, h2 := range hs {
			m, err := MergeHeaders(h1, h2)
			if err != nil {
				// Two headers of the split define `lower_limit_topology` differently? Then the clash is real.
				t.Fatalf("%v\n%q\n%q", err, h1, h2)
			}
			if !strings.HasPrefix(m, "import Mathlib\n") || strings.Count(m, "import ") != 1 {
				t.Errorf("imports: %q", m)
			}
			for _, h := range []string{h1, h2} {
				for _, b := range splitCommands(h) {
					if !strings.Contains(m, strings.TrimRight(b, "\n")) {
						t.Errorf("merged header lost %q", b)
					}
				}
			}
			for _, line := range strings.Split(m, "\n") {
				if strings.HasPrefix(line, "open ") && strings.Count(m, "\n"+line+"\n") > 1 {
					t.Errorf("%q twice in %q", line, m)
				}
			}
		}
	}
}
