package informalize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

func writeVocab(t *testing.T, dir, s string) string {
	t.Helper()
	p := filepath.Join(dir, "vocabulary.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVocabularyFile: a library (here con-nf's words) extends Mathlib's
// vocabulary with a file; the template reads its names with it, and Mathlib's
// stays as it was.
func TestVocabularyFile(t *testing.T) {
	p := writeVocab(t, t.TempDir(), `{
  "words": {"nf": "new foundations", "le": "at most"},
  "namespaces": {"ConNF": "con-nf"},
  "class_words": {"tangle": "tangled"},
  "types": {"Λ": ["type index", "type indices"]},
  "collections": {"Tree": ["tree", "trees"]}
}`)
	v, err := LoadVocabulary(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.HumanizeName("ConNF.Nat.nf_le"); got != "New foundations at most (con-nf, natural numbers)" {
		t.Errorf("HumanizeName with the file: %q", got)
	}
	if got := HumanizeName("ConNF.Nat.nf_le"); got != "Nf less than or equal (con NF, natural numbers)" {
		t.Errorf("Mathlib's vocabulary changed: %q", got)
	}
	in := Input{Name: "ConNF.foo", Kind: "theorem", Signature: "{α : Λ} (t : Tree α) [TangleData α] : True"}
	s := v.Statement(&in)
	for _, want := range []string{"a type index α", "a tree t of α", "α is a tangled data"} {
		if !strings.Contains(s, want) {
			t.Errorf("statement %q lacks %q", s, want)
		}
	}
	if got := (Template{}).PromptVersion(); got != TemplateVersion {
		t.Errorf("default prompt version %q", got)
	}
	if got := (Template{Vocabulary: DefaultVocabulary()}).PromptVersion(); got != TemplateVersion {
		t.Errorf("Mathlib's vocabulary given explicitly changes the prompt version: %q", got)
	}
	if got := (Template{Vocabulary: v}).PromptVersion(); !strings.HasPrefix(got, TemplateVersion+"+vocabulary-") {
		t.Errorf("another vocabulary keeps the prompt version %q", got)
	}
	none, err := LoadVocabulary(writeVocab(t, t.TempDir(), `{"extends": "none", "words": {"two": "deux"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := none.HumanizeName("Nat.two_le"); got != "Deux le (nat)" {
		t.Errorf("without Mathlib's vocabulary: %q", got)
	}
}

// TestVocabularyRedoesRows: rows written with one vocabulary are redone
// with another (its prompt version differs), and reused with the same one.
func TestVocabularyRedoesRows(t *testing.T) {
	dir := t.TempDir()
	ds := synthDecls(20, 3)
	writeFixture(t, dir, ds)
	ws := &workspace.Workspace{Dir: dir}
	if _, err := Run(context.Background(), ws, quietOpts(Template{})); err != nil {
		t.Fatal(err)
	}
	v, err := LoadVocabulary(writeVocab(t, t.TempDir(), `{"words": {"le": "at most"}}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ws, quietOpts(Template{Vocabulary: v}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reused != 0 || rep.Requested != rep.Selected {
		t.Errorf("another vocabulary: %d reused, %d requested of %d", rep.Reused, rep.Requested, rep.Selected)
	}
	for _, r := range readInformal(t, dir) {
		if r.PromptVersion != (Template{Vocabulary: v}).PromptVersion() {
			t.Fatalf("row %s has prompt version %q", r.Name, r.PromptVersion)
		}
	}
	rep, err = Run(context.Background(), ws, quietOpts(Template{Vocabulary: v}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reused != rep.Selected {
		t.Errorf("the same vocabulary again: %d reused of %d", rep.Reused, rep.Selected)
	}
}

func TestVocabularyFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"{\n  \"words\": {\"a\": 1}\n}", ":2: "},
		{`{"word": {}}`, "unknown field"},
		{`{"extends": "lean"}`, `extends "lean"`},
		{`{"words": {"le": " "}}`, "non-empty reading"},
		{`{"words": {"Le": "x"}}`, "lower case"},
		{`{"types": {"ℕ": ["n", ""]}}`, "singular, plural"},
		{`{} []`, "more than one"},
	} {
		p := writeVocab(t, dir, c.text)
		_, err := LoadVocabulary(p)
		if !errors.Is(err, ErrVocabulary) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want ErrVocabulary naming the file and %q", c.text, err, c.want)
		}
	}
}
