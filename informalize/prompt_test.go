package informalize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleInput() *Input {
	return &Input{
		Name: "Nat.Prime.two_le", Kind: "theorem", Module: "Mathlib.Data.Nat.Prime.Defs",
		ModuleDoc: "# Prime numbers\n\nThis file deals with prime numbers.",
		Signature: "{p : ℕ} (hp : p.Prime) : 2 ≤ p", Docstring: "A prime is at least two.",
		Deps: []Dep{
			{Name: "Nat.Prime", Signature: "(p : ℕ) : Prop", InformalName: "Prime natural number", InformalStatement: "A natural number p is prime if p ≥ 2 and its only divisors are 1 and p."},
			{Name: "LE.le", Signature: "(a b : α) : Prop"},
			{Name: "OfNat.ofNat"},
		},
	}
}

func TestPromptGolden(t *testing.T) {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range p.Messages(sampleInput()) {
		b.WriteString("=== " + m.Role + "\n" + m.Content + "\n")
	}
	b.WriteString("=== repair\n" + p.Repair("bad answer: empty content") + "\n")
	golden := filepath.Join("testdata", "prompt.golden")
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("prompt differs from %s (rerun with -update if intended; bump PromptVersion for meaningful changes):\n%s", golden, b.String())
	}
	if _, err := LoadPrompts("v0-missing"); err == nil {
		t.Error("missing prompt version loaded")
	}
}

func TestInputHash(t *testing.T) {
	base := InputHash(sampleInput(), "openai:m", "v1", "f")
	if base != InputHash(sampleInput(), "openai:m", "v1", "f") || len(base) != 64 {
		t.Fatal("hash not deterministic")
	}
	for name, mut := range map[string]func(*Input) (string, string, string){
		"dep text": func(in *Input) (string, string, string) {
			in.Deps[0].InformalStatement += "!"
			return "openai:m", "v1", "f"
		},
		"signature": func(in *Input) (string, string, string) { in.Signature += " "; return "openai:m", "v1", "f" },
		"docstring": func(in *Input) (string, string, string) { in.Docstring = ""; return "openai:m", "v1", "f" },
		"model":     func(in *Input) (string, string, string) { return "openai:other", "v1", "f" },
		"version":   func(in *Input) (string, string, string) { return "openai:m", "v2", "f" },
		"files":     func(in *Input) (string, string, string) { return "openai:m", "v1", "g" },
	} {
		in := sampleInput()
		p, v, f := mut(in)
		if InputHash(in, p, v, f) == base {
			t.Errorf("changing the %s keeps the hash", name)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := truncate("ααααα", 5); got != "αα …" {
		t.Errorf("truncate on a rune boundary: %q", got)
	}
	if got := truncate("  short ", 10); got != "short" {
		t.Errorf("%q", got)
	}
}
