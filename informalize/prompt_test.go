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

func TestLegacyInputHash(t *testing.T) {
	base := legacyInputHash(sampleInput(), "openai:m", "v1", "f")
	if base != legacyInputHash(sampleInput(), "openai:m", "v1", "f") || len(base) != 64 {
		t.Fatal("hash not deterministic")
	}
	// The older rule's key covered the dependencies' informal text.
	in := sampleInput()
	in.Deps[0].InformalStatement += "!"
	if legacyInputHash(in, "openai:m", "v1", "f") == base {
		t.Error("the older key ignores dependency text")
	}
}

// TestReuseKeyCovers pins down what the reuse key covers: every own prompt
// input and every dependency's formal inputs, never dependency text.
func TestReuseKeyCovers(t *testing.T) {
	key := func(in *Input, modDoc, prov, ver, files string, depFormals map[string]string) string {
		own := ownInputHash(in, formalHash(in), modDoc, prov, ver, files)
		var deps []depFormal
		for _, d := range in.Deps {
			deps = append(deps, depFormal{Name: d.Name, Formal: depFormals[d.Name]})
		}
		return reuseKey(own, deps)
	}
	df := func() map[string]string { return map[string]string{"Nat.Prime": "f1", "LE.le": "f2"} }
	base := key(sampleInput(), "doc", "openai:m", "v1", "f", df())
	if base != key(sampleInput(), "doc", "openai:m", "v1", "f", df()) || len(base) != 64 {
		t.Fatal("key not deterministic")
	}
	type mut func(in *Input, modDoc, prov, ver, files *string, deps map[string]string)
	for name, tc := range map[string]struct {
		m       mut
		changes bool
	}{
		"signature":          {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Signature += " " }, true},
		"docstring":          {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Docstring = "" }, true},
		"kind":               {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Kind = "definition" }, true},
		"name":               {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Name += "'" }, true},
		"module":             {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Module += ".X" }, true},
		"body":               {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Body = "x" }, true},
		"dependency names":   {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Deps = in.Deps[1:] }, true},
		"module doc":         {func(_ *Input, d, _, _, _ *string, _ map[string]string) { *d += "!" }, true},
		"model":              {func(_ *Input, _, p, _, _ *string, _ map[string]string) { *p = "openai:other" }, true},
		"prompt version":     {func(_ *Input, _, _, v, _ *string, _ map[string]string) { *v = "v2" }, true},
		"prompt files":       {func(_ *Input, _, _, _, f *string, _ map[string]string) { *f = "g" }, true},
		"dependency formal":  {func(_ *Input, _, _, _, _ *string, deps map[string]string) { deps["Nat.Prime"] = "f9" }, true},
		"dependency text":    {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Deps[0].InformalStatement += "!" }, false},
		"dependency wording": {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Deps[0].InformalName = "" }, false},
		// A dependency's signature is its formal input: its formal hash
		// (the map) covers it, not the dependent's own hash.
		"dependency signature only": {func(in *Input, _, _, _, _ *string, _ map[string]string) { in.Deps[1].Signature += " " }, false},
	} {
		in, doc, p, v, f, deps := sampleInput(), "doc", "openai:m", "v1", "f", df()
		tc.m(in, &doc, &p, &v, &f, deps)
		if got := key(in, doc, p, v, f, deps) != base; got != tc.changes {
			t.Errorf("changing the %s: key changed %v, want %v", name, got, tc.changes)
		}
	}
	// What dependents' keys see of a declaration: its kind, name and
	// signature, nothing else.
	for name, tc := range map[string]struct {
		m       func(in *Input)
		changes bool
	}{
		"signature":        {func(in *Input) { in.Signature += " " }, true},
		"kind":             {func(in *Input) { in.Kind = "definition" }, true},
		"name":             {func(in *Input) { in.Name += "'" }, true},
		"docstring":        {func(in *Input) { in.Docstring = "" }, false},
		"body":             {func(in *Input) { in.Body = "x" }, false},
		"module":           {func(in *Input) { in.Module += ".X" }, false},
		"dependency names": {func(in *Input) { in.Deps = in.Deps[1:] }, false},
	} {
		in := sampleInput()
		tc.m(in)
		if got := formalHash(in) != formalHash(sampleInput()); got != tc.changes {
			t.Errorf("changing the %s: formal hash changed %v, want %v", name, got, tc.changes)
		}
	}
	// Field boundaries count: moving text between fields changes the hash.
	a, b := sampleInput(), sampleInput()
	a.Name, a.Signature = "ab", "c"
	b.Name, b.Signature = "a", "bc"
	if formalHash(a) == formalHash(b) {
		t.Error("formal hash ignores field boundaries")
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
