package tomap

import (
	"strings"
	"testing"
)

func TestPrompts(t *testing.T) {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPrompts("v0-missing"); err == nil {
		t.Error("a missing prompt version loaded")
	}
	if !strings.HasPrefix(p.Header, "import Mathlib") || p.Hash() == "" {
		t.Errorf("header %q hash %q", p.Header, p.Hash())
	}
	for _, r := range []Role{RoleDecomposer, RoleRewriter, RoleJudge, RoleFormalizer, RoleProver, RoleEnd2End, RoleSF} {
		sys := p.System(r)
		if !strings.HasPrefix(sys, "You are ") || p.RoleOf(sys) != r {
			t.Errorf("%s: system prompt %q… not recognised", r, clip(sys, 40))
		}
	}
	pd := problemData{Theorem: "T", Proof: "P", FormalStatement: "theorem x : True := by"}
	u := Unit{ID: "l1", Claim: "c", Variables: []string{"x : real"}, Assumptions: []string{"x > 0"}, Deps: []string{"l0"}, Hints: "h"}
	for name, data := range map[string]any{
		"decompose": pd,
		"dag":       map[string]any{"Problems": []string{"a", "b"}},
		"repair":    map[string]string{"Problem": "x", "Schema": LeanSchema},
		"judge": struct {
			problemData
			Candidate string
		}{pd, "{}"},
		"formalize":   unitData{problemData: pd, Header: p.Header, Context: "ctx", Unit: u, Last: true},
		"prove":       unitData{problemData: pd, Header: p.Header, Context: "ctx", Unit: u, Statement: "lemma l1 : True := by sorry"},
		"lean_errors": map[string]string{"What": "w", "Errors": "e"},
		"end2end": struct {
			problemData
			Header string
		}{pd, p.Header},
		"sf": struct {
			problemData
			Code string
		}{pd, "lemma"},
	} {
		if out := p.render(name, data); out == "" || strings.Contains(out, "<no value>") {
			t.Errorf("%s rendered %q", name, out)
		}
	}
	f := p.render("formalize", unitData{problemData: problemData{Theorem: "T"}, Unit: u, Last: true})
	if !strings.Contains(f, "the theorem itself") || strings.Contains(p.render("formalize", unitData{Unit: u}), "the theorem itself") {
		t.Errorf("last-unit note:\n%s", f)
	}
}
