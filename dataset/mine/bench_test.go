package mine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func TestNormaliseStatement(t *testing.T) {
	cases := []struct{ in, want string }{
		{"theorem exercise_1_13a {f : ℂ → ℂ} (Ω : Set ℂ) :\n  f a = f b :=\nsorry", "{f:ℂ→ℂ}(Ω:Setℂ):fa=fb"},
		{"{f : ℂ → ℂ}  (Ω : Set ℂ) : f a = f b", "{f:ℂ→ℂ}(Ω:Setℂ):fa=fb"},
		{"@[simp]theorem thm_P[ConNF.Params ] {γ : ConNF.TypeIndex} :ConNF.cloud hγβ ∅ = ∅ := by sorry", "[ConNF.Params]{γ:ConNF.TypeIndex}:ConNF.cloudhγβ∅=∅"},
		{"@[simp, norm_cast] private lemma foo (x : ℕ) : x = x := rfl", "(x:ℕ):x=x"},
		{"/-- doc -/ theorem foo : True := trivial", ":True"},
		{"example (n : ℕ) (h : n = (fun (k : ℕ) => k) n := rfl) : True := by simp", "(n:ℕ)(h:n=(fun(k:ℕ)=>k)n:=rfl):True"},
		// modifiers and keywords are internal/leantext's (Modifier, Decl)
		{"scoped instance foo : Bar := ⟨⟩", ":Bar"},
		{"public meta def f (n : ℕ) : ℕ := n", "(n:ℕ):ℕ"},
		{"", ""},
		{"@[unclosed", ""},
	}
	for _, c := range cases {
		if got := NormaliseStatement(c.in); got != c.want {
			t.Errorf("NormaliseStatement(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestReadBenchmarkFormats(t *testing.T) {
	cases := []struct {
		file          string
		items         int
		names, formal bool
	}{
		{"proofnet_sample.jsonl", 3, true, true},
		{"connf_sample.jsonl", 3, true, true},
		{"proofflow_sample.json", 2, false, false},
	}
	for _, c := range cases {
		items, err := ReadBenchmark(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(items) != c.items {
			t.Fatalf("%s: %d items", c.file, len(items))
		}
		for _, it := range items {
			if (len(it.Names) > 0) != c.names || (it.Formal != "") != c.formal || it.Informal == "" {
				t.Errorf("%s line %d: %+v", c.file, it.Line, it)
			}
		}
	}
}

func TestParseBenchmarkErrors(t *testing.T) {
	for name, in := range map[string]string{
		"bad line":   "{\"full_name\": \"a\"}\n\n[1, 2]\n",
		"bad array":  "[{\"full_name\": 1}]",
		"not closed": "[{\"full_name\": \"a\"}",
	} {
		_, err := ParseBenchmark("b.jsonl", []byte(in))
		var be *BenchError
		if !errors.As(err, &be) || !errors.Is(err, ErrBenchmark) || be.Path != "b.jsonl" {
			t.Errorf("%s: err = %v", name, err)
		}
		if name == "bad line" && be != nil && be.Line != 3 {
			t.Errorf("bad line: reported line %d, want 3", be.Line)
		}
	}
}

func FuzzParseBenchmark(f *testing.F) {
	for _, n := range []string{"proofnet_sample.jsonl", "connf_sample.jsonl", "proofflow_sample.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", n)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("{}\n{\"full_name\":\"x\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := ParseBenchmark("fuzz", b)
		if err != nil {
			if !errors.Is(err, ErrBenchmark) {
				t.Fatalf("error %v does not wrap ErrBenchmark", err)
			}
			return
		}
		for _, it := range items {
			if len(it.Names) == 0 && it.Formal == "" && it.Informal == "" {
				t.Fatal("empty item kept")
			}
		}
	})
}

func FuzzNormaliseStatement(f *testing.F) {
	f.Add("theorem foo (x : ℕ) : x = x := rfl")
	f.Add("@[simp]theorem thm_P[ConNF.Params ] {γ} : a := by sorry")
	f.Add("@[")
	f.Fuzz(func(t *testing.T, s string) {
		k := NormaliseStatement(s)
		if utf8.ValidString(s) && !utf8.ValidString(k) {
			t.Fatalf("invalid UTF-8 key from valid input %q", s)
		}
		if k2 := NormaliseStatement(s); k2 != k {
			t.Fatalf("not deterministic: %q then %q", k, k2)
		}
	})
}

// TestDecontaminatorNameForms: a benchmark's name matches a theorem however
// either spells a keyword component (a table written before names were
// Lean's Name.toString has Foo.«structure»).
func TestDecontaminatorNameForms(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.jsonl")
	if err := os.WriteFile(p, []byte(`{"full_name": "FirstOrder.Ultraproduct.«structure»", "formal_stmt": "", "informal_stmt": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := NewDecontaminator([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"FirstOrder.Ultraproduct.structure", "FirstOrder.Ultraproduct.«structure»"} {
		if _, how, ok := d.Match(n, "", ""); !ok || how != "name" {
			t.Errorf("%s: matched %v (%q), want by name", n, ok, how)
		}
	}
}
