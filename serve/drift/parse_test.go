package drift

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDecomposition(t *testing.T) {
	ok := `{"sub_queries": [{"informal": "prime number", "formal": "Nat.Prime p"}, {"informal": "divisibility", "formal": "Dvd.dvd a b"}]}`
	for _, c := range []struct {
		in, err string
		n       int
	}{
		{ok, "", 2},
		{"```json\n" + ok + "\n```", "", 2},
		{"```\n" + ok + "\n```", "", 2},
		{"  \n" + ok + "\n", "", 2},
		{"", "empty answer", 0},
		{"I'm sorry, but I can't help with that.", "does not start with a JSON object", 0},
		{"Sure! " + ok, "does not start with a JSON object", 0},
		{ok + " Hope this helps.", "text after the JSON object", 0},
		{`{"sub_queries": []}`, "no sub_queries", 0},
		{`{"subqueries": [{"informal": "a", "formal": "b"}]}`, `unknown field "subqueries" at the top level`, 0},
		{`{"sub_queries": [{"informal": "a", "formal": "b", "why": "c"}]}`, `unknown field "why" in sub_queries[0]`, 0},
		// A valid field at the wrong level says where it belongs.
		{`{"sub_queries": [{"informal": "a", "formal": "b"}], "informal": "c"}`, `"informal" is at the top level; it belongs in each element of "sub_queries"`, 0},
		{`{"informal": "a", "formal": "b"}`, `"formal" is at the top level`, 0},
		{`{"sub_queries": [{"sub_queries": []}]}`, "not nested", 0},
		{`{"sub_queries": {"informal": "a", "formal": "b"}}`, "not a list of objects", 0},
		{`{"sub_queries": ["a"]}`, "sub_queries[0] is not an object", 0},
		{`{"sub_queries": [{"informal": "a"}]}`, `sub_queries[0] needs non-empty`, 0},
		{`{"sub_queries": [{"informal": " ", "formal": "x"}]}`, `sub_queries[0] needs non-empty`, 0},
		{`{"sub_queries": [{"informal": "a", "formal": 3}]}`, "sub_queries[0].formal is not a string", 0},
		{`{"sub_queries": [{"informal": "a", "formal": "b"}`, "not the JSON object", 0},
		{"```python\n" + ok + "\n```", `a "python" code block`, 0},
		{"```json\n" + ok, "unterminated code fence", 0},
		{`{"sub_queries": [` + strings.Repeat(`{"informal": "a", "formal": "b"},`, MaxSubQueries) + `{"informal": "a", "formal": "b"}]}`, "at most", 0},
	} {
		sq, err := ParseDecomposition(c.in)
		if c.err == "" {
			if err != nil || len(sq) != c.n {
				t.Errorf("%q: got %d sub-queries, %v; want %d", clip(c.in, 40), len(sq), err, c.n)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrDecompose) {
			t.Errorf("%q: error %v, want one containing %q wrapping ErrDecompose", clip(c.in, 40), err, c.err)
		}
	}
}

// TestParseDecompositionLaTeX: LaTeX with one backslash in a sub-query is
// the LaTeX, not a tab ("\times") or a backspace ("\big").
func TestParseDecompositionLaTeX(t *testing.T) {
	sq, err := ParseDecomposition(`{"sub_queries": [{"informal": "product $a \times b$, $\big(\frac{1}{2}\big)$", "formal": "a * b ≠ 0 -- \neq"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `product $a \times b$, $\big(\frac{1}{2}\big)$`; sq[0].Informal != want {
		t.Errorf("informal %q, want %q", sq[0].Informal, want)
	}
	if want := `a * b ≠ 0 -- \neq`; sq[0].Formal != want {
		t.Errorf("formal %q, want %q", sq[0].Formal, want)
	}
}

func FuzzParseDecomposition(f *testing.F) {
	for _, s := range []string{`{"sub_queries": [{"informal": "a", "formal": "b"}]}`, "```json\n{}\n```", "", "{", "```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sq, err := ParseDecomposition(s)
		if err == nil {
			if len(sq) == 0 || len(sq) > MaxSubQueries {
				t.Fatalf("accepted %d sub-queries", len(sq))
			}
			for _, q := range sq {
				if q.Informal == "" || q.Formal == "" {
					t.Fatalf("accepted an empty field: %+v", q)
				}
			}
		} else if !errors.Is(err, ErrDecompose) {
			t.Fatalf("error does not wrap ErrDecompose: %v", err)
		}
	})
}

func TestExtractStatement(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		err            error
	}{
		{"plain", "```lean\ntheorem foo (n : ℕ) : n = n := by sorry\n```", "theorem foo (n : ℕ) : n = n := by sorry", nil},
		{"proof replaced", "```lean4\ntheorem foo (n : ℕ) : n = n := by\n  rfl\n```", "theorem foo (n : ℕ) : n = n := by sorry", nil},
		{"term proof replaced", "```lean\ntheorem foo : 1 = 1 := rfl\n```", "theorem foo : 1 = 1 := by sorry", nil},
		{"no proof gets sorry", "```lean\ntheorem foo (a b : ℕ) :\n    a + b = b + a\n```", "theorem foo (a b : ℕ) :\n    a + b = b + a := by sorry", nil},
		{"last lean block wins", "First try:\n```lean\ntheorem a : False := sorry\n```\nBetter:\n```lean\ntheorem b : True := sorry\n```\n", "theorem b : True := by sorry", nil},
		{"lean block preferred over later plain", "```lean\ntheorem a : True := sorry\n```\n```\nsome output\n```", "theorem a : True := by sorry", nil},
		{"plain block when no lean block", "```\nlemma c : True := sorry\n```", "lemma c : True := by sorry", nil},
		{"other language ignored", "```python\nprint(1)\n```", "", ErrNoLeanBlock},
		{"missing fence", "theorem foo : True := by sorry", "", ErrNoLeanBlock},
		{"unclosed block ignored", "```lean\ntheorem foo : True := by", "", ErrNoLeanBlock},
		{"refusal", "I cannot formalize this statement.", "", ErrNoLeanBlock},
		{"no theorem", "```lean\ndef f : ℕ := 3\n```", "", ErrNoTheorem},
		{"imports dropped, opens kept", "```lean\nimport Mathlib\nopen Nat\n\ntheorem foo (p : ℕ) (hp : p.Prime) : 2 ≤ p := by\n  exact hp.two_le\n```",
			"open Nat\n\ntheorem foo (p : ℕ) (hp : p.Prime) : 2 ≤ p := by sorry", nil},
		{"default argument in binder is not the proof", "```lean\ntheorem foo (n : ℕ := 3) : n = n := rfl\n```", "theorem foo (n : ℕ := 3) : n = n := by sorry", nil},
		{"set-builder braces", "```lean\ntheorem foo : {x : ℕ | x = 1} = {1} := by ext; simp\n```", "theorem foo : {x : ℕ | x = 1} = {1} := by sorry", nil},
		{"comment with := ignored", "```lean\n-- note: x := 1\ntheorem foo /- a := b -/ : True := trivial\n```", "-- note: x := 1\ntheorem foo /- a := b -/ : True := by sorry", nil},
		{"attribute and modifiers", "```lean\n@[simp] protected theorem X.foo : True := trivial\n```", "@[simp] protected theorem X.foo : True := by sorry", nil},
		{"ConNF style", "```lean\n@[simp]theorem thm_P[ConNF.Params ] {β : ConNF.Λ} :ConNF.cloud hγβ ∅ = ∅ := by sorry\n```", "@[simp]theorem thm_P[ConNF.Params ] {β : ConNF.Λ} :ConNF.cloud hγβ ∅ = ∅ := by sorry", nil},
		{"auxiliary def kept, last theorem cut", "```lean\ndef f (n : ℕ) : ℕ := n + 1\n\ntheorem foo : f 1 = 2 := by rfl\n```", "def f (n : ℕ) : ℕ := n + 1\n\ntheorem foo : f 1 = 2 := by sorry", nil},
		{"equation compiler", "```lean\ntheorem foo : ∀ n : ℕ, n + 0 = n\n  | 0 => rfl\n  | n+1 => rfl\n```", "theorem foo : ∀ n : ℕ, n + 0 = n := by sorry", nil},
		{"anonymous constructor in type", "```lean\ntheorem foo : (⟨1, 2⟩ : ℕ × ℕ).1 = 1 := rfl\n```", "theorem foo : (⟨1, 2⟩ : ℕ × ℕ).1 = 1 := by sorry", nil},
		{"string with :=", "```lean\ntheorem foo : \"a := b\".length = 6 := rfl\n```", "theorem foo : \"a := b\".length = 6 := by sorry", nil},
		{"example", "```lean\nexample (a : ℤ) : a * 1 = a := by simp\n```", "example (a : ℤ) : a * 1 = a := by sorry", nil},
		{"indented fence and CRLF", "  ```lean\r\ntheorem foo : True := trivial\r\n  ```\r\n", "theorem foo : True := by sorry", nil},
	} {
		got, err := ExtractStatement(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s:\n got %q (%v)\nwant %q", c.name, got, err, c.want)
		}
	}
}

func FuzzExtractStatement(f *testing.F) {
	for _, s := range []string{"```lean\ntheorem foo : True := trivial\n```", "```lean\ntheorem a (x : ℕ := 1) : x = x\n```", "```\nexample : /- := -/ True\n```", "```lean\n@[", "```lean\ntheorem \"\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ExtractStatement(s)
		if err != nil {
			if !errors.Is(err, ErrNoLeanBlock) && !errors.Is(err, ErrNoTheorem) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if !strings.HasSuffix(got, ":= by sorry") {
			t.Fatalf("statement %q does not end in := by sorry", got)
		}
		if lastDeclStart(got) < 0 {
			t.Fatalf("statement %q has no theorem", got)
		}
	})
}
