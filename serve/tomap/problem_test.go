package tomap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadProofFlowBench(t *testing.T) {
	const path = "/work/shared/benchmarks/proofflow/benchmark.json"
	if _, err := os.Stat(path); err != nil {
		t.Skip("ProofFlowBench not available:", err)
	}
	ps, err := ReadProblems(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 184 {
		t.Fatalf("%d problems, want 184", len(ps))
	}
	if ps[0].Key != "naturalproofs_stein.json/5" || !strings.Contains(ps[0].Theorem, "Euler") || ps[0].ReferenceUnits == 0 || ps[0].Line != 2 {
		t.Errorf("first problem %+v", ps[0])
	}
	var strIDs int
	for _, p := range ps {
		if strings.HasSuffix(p.Key, "/18a") || strings.HasSuffix(p.Key, "/18b") {
			strIDs++
		}
		if p.Proof == "" || p.Theorem == "" {
			t.Errorf("%s: empty text", p.Key)
		}
	}
	if strIDs != 2 {
		t.Errorf("string ids: %d, want 2", strIDs)
	}
	restored, withRestored := 0, 0
	for _, p := range ps {
		restored += p.Restored
		if p.Restored > 0 {
			withRestored++
		}
		for _, c := range p.Theorem + p.Proof {
			if c < 32 && c != '\n' && c != '\t' && c != '\r' {
				t.Errorf("%s: control character %q left", p.Key, c)
			}
		}
	}
	if withRestored != 24 || restored < 180 {
		t.Errorf("restored %d backslashes in %d problems, want 24 problems", restored, withRestored)
	}
	dev := 0
	for _, p := range ps {
		if Split(p.Key) == "dev" {
			dev++
		}
	}
	if dev < 70 || dev > 114 {
		t.Errorf("dev half has %d of 184 problems", dev)
	}
}

func TestParseProblemsJSONL(t *testing.T) {
	in := `{"name": "mathd_algebra_10", "informal_statement": "Compute it.", "informal_proof": "It is 94.", "formal_statement": "theorem mathd_algebra_10 : abs ((120 : ℝ) / 100 * 30 - 130) = 94 := by"}

{"problem_name": "p2", "informal_prefix": "/-- Show that 1 = 1. -/\n", "nl_proof": "Reflexivity."}
{"id": 7, "informal_stmt": "S", "informal_proof": "P"}
`
	ps, err := ParseProblems("x.jsonl", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0].FormalStatement == "" || ps[1].Theorem != "Show that 1 = 1." || ps[1].Line != 3 || ps[2].Key != "7" {
		t.Errorf("%+v", ps)
	}
}

func TestParseProblemsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"empty", "  \n", []string{"x:", "empty file"}},
		{"jsonl missing proof", `{"name": "a", "informal_statement": "S"}` + "\n" + `{"name": "b", "informal_statement": "S", "informal_proof": "P"}`,
			[]string{"x:1", "no informal proof"}},
		{"jsonl not JSON", `{"name": "a"` + "\n", []string{"x:1", "not a JSON object"}},
		{"jsonl duplicate key", `{"name": "a", "informal_statement": "S", "informal_proof": "P"}` + "\n" + `{"name": "a", "informal_statement": "S", "informal_proof": "P"}`,
			[]string{"x:2", `key "a" also used at line 1`}},
		{"array item without proof", "[\n {\"origin\": \"o\", \"id\": 1, \"nl_theorem\": \"T\", \"nl_proof\": \"P\"},\n {\"origin\": \"o\", \"id\": 2, \"nl_theorem\": \"T\"}\n]",
			[]string{"x:3 (item 2)", "nl_proof missing"}},
		{"array bad id", `[{"origin": "o", "id": {"a": 1}, "nl_theorem": "T", "nl_proof": "P"}]`, []string{"item 1", "neither a string nor a number"}},
		{"array unterminated", `[{"origin": "o", "id": 1, "nl_theorem": "T", "nl_proof": "P"}`, []string{"unterminated"}},
		{"array trailing", `[{"origin": "o", "id": 1, "nl_theorem": "T", "nl_proof": "P"}] x`, []string{"text after the JSON array"}},
		{"array of non-objects", `[1, 2]`, []string{"item 1", "item 2"}},
		{"array duplicate", `[{"origin": "o", "id": 1, "nl_theorem": "T", "nl_proof": "P"}, {"origin": "o", "id": "1", "nl_theorem": "T", "nl_proof": "P"}]`,
			[]string{`key "o/1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ParseProblems("x", []byte(tc.in))
			if err == nil {
				t.Fatalf("accepted: %+v", ps)
			}
			if ps != nil {
				t.Errorf("returned %d problems with an error", len(ps))
			}
			if !errors.Is(err, ErrInput) {
				t.Errorf("%v does not wrap ErrInput", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestRestoreLaTeX(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{"$\frac{1}{2}$", "$\\frac{1}{2}$", 1},
		{"a\tb\tfrac 1 2", "a\\tb\\tfrac 1 2", 2},
		{"x\t= 1\r\n", "x\t= 1\r\n", 0},
		{"\binom{n}{k}, \vphi(n), \rightarrow", "\\binom{n}{k}, \\vphi(n), \\rightarrow", 3},
		{"plain", "plain", 0},
	} {
		got, n := RestoreLaTeX(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("%q → %q (%d), want %q (%d)", tc.in, got, n, tc.want, tc.n)
		}
	}
}

func TestFileName(t *testing.T) {
	a, b := FileName("R prob/3"), FileName("R_prob/3")
	if a == b || strings.ContainsAny(a, " /") {
		t.Errorf("%q %q", a, b)
	}
	if long := FileName(strings.Repeat("x", 500)); len(long) > 100 {
		t.Errorf("long name %d bytes", len(long))
	}
}

func FuzzParseProblems(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/bench/*")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"origin": "o", "id": 1, "nl_theorem": "T", "nl_proof": "P", "proof_graph": []}]`))
	f.Add([]byte(`{"name": "a", "informal_statement": "S", "informal_proof": "P"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParseProblems("fuzz", data)
		if err != nil {
			if ps != nil {
				t.Fatal("problems with an error")
			}
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error without ErrInput: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if p.Key == "" || p.Theorem == "" || p.Proof == "" || seen[p.Key] || p.Line < 1 {
				t.Fatalf("bad problem %+v", p)
			}
			seen[p.Key] = true
		}
	})
}

func FuzzParseDecomposition(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/answers/*")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`{"units": [{"id": "a", "claim": "c"}, {"id": "main", "claim": "d", "depends_on": ["a"]}]}`)
	f.Add(`{"units": [{"id": "a", "claim": "c", "depends_on": ["b"]}, {"id": "b", "claim": "d", "depends_on": ["a"]}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecomposition(s)
		if err != nil {
			return
		}
		// A valid decomposition is a DAG in list order ending in its last unit.
		pos := map[string]int{}
		for i, u := range d.Units {
			pos[u.ID] = i
		}
		used := map[string]bool{}
		for i, u := range d.Units {
			for _, dep := range u.Deps {
				if j, ok := pos[dep]; !ok || j >= i {
					t.Fatalf("accepted dependency %s of %s", dep, u.ID)
				}
				used[dep] = true
			}
		}
		for _, u := range d.Units[:len(d.Units)-1] {
			if !used[u.ID] {
				t.Fatalf("accepted unused unit %s", u.ID)
			}
		}
	})
}

func FuzzParseRubric(f *testing.F) {
	f.Add(`{"faithful": {"score": 0.8, "critique": "x"}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 0.5, "critique": "y"}}`)
	f.Add(`{"faithful": {"score": 1e400, "critique": ""}}`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRubric(s)
		if err != nil {
			return
		}
		for _, x := range r.Scores {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("score %v accepted", x)
			}
		}
	})
}

func FuzzParseProof(f *testing.F) {
	f.Add(`{"proof": "by\n  intro x\n  simp"}`)
	f.Add(`{"proof": "sorry"}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProof(s)
		if err != nil {
			return
		}
		if p == "" || forbidden.MatchString(p) {
			t.Fatalf("accepted %q", p)
		}
		if forbidden.MatchString(withProof("lemma a : True := by sorry", p)) {
			t.Fatalf("assembled proof has a forbidden token: %q", p)
		}
	})
}
