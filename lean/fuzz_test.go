package lean

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers of outside input: REPL output, `lean --json` output, kimina
// responses, and the Lean texts BEq+ takes apart. Seeds are below and in
// testdata/fuzz.

func FuzzAnswerReader(f *testing.F) {
	f.Add([]byte("{\"env\": 0}\n\n{\"sorries\":\n [{\"pos\": {\"line\": 1, \"column\": 18},\n   \"endPos\": {\"line\": 1, \"column\": 23},\n   \"goal\": \"⊢ Nat\",\n   \"proofState\": 0}],\n \"env\": 1}\n\n"))
	f.Add([]byte("✔ [1/2] Built REPL\n{\"message\": \"Unknown environment.\"}\n\n"))
	f.Add([]byte("{\"env\": 3,\n \"messages\":"))
	f.Add([]byte("{\"proofState\": 1, \"goals\": [\"x : Unit\\n⊢ Int\"]}\n\nnot json\n\n"))
	f.Add([]byte("\n\n\n{\"env\": 0}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ar := newAnswerReader(bytes.NewReader(data))
		for i := 0; i < 1000; i++ {
			b, err := ar.next()
			if err != nil {
				return
			}
			if !startsObject(b) {
				t.Fatalf("answer %q does not start an object", b)
			}
			a, err := parseAnswer(b)
			if err != nil {
				continue
			}
			if r, err := commandResult(a); err == nil {
				if r.Pass == hasError(r.Messages) || (r.Complete && !r.Pass) {
					t.Fatalf("inconsistent verdict %+v", r)
				}
			}
		}
	})
}

func FuzzParseLeanJSON(f *testing.F) {
	f.Add([]byte(`{"severity":"error","pos":{"line":3,"column":2},"endPos":{"line":3,"column":9},"data":"unknown identifier 'x'","fileName":"a.lean","caption":"","keepFullRange":false}` + "\n" +
		`{"severity":"information","pos":{"line":1,"column":0},"endPos":null,"data":"Nat : Type","fileName":"a.lean","caption":"","kind":"[anonymous]"}` + "\n"))
	f.Add([]byte("a.lean:1:0: error: plain text\n{\"severity\":\"warning\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, _ := parseLeanJSON(data)
		for _, m := range msgs {
			if m.Severity == "" || m.Severity == "information" {
				t.Fatalf("severity %q", m.Severity)
			}
		}
	})
}

func FuzzParseKimina(f *testing.F) {
	f.Add([]byte(`{"results":[{"id":"0:a","time":0.5,"response":{"env":0,"messages":[{"severity":"error","pos":{"line":1,"column":0},"endPos":null,"data":"x"}]}},{"id":"1:b","time":60,"error":"Lean REPL command timed out in 60 seconds"}]}`))
	f.Add([]byte(`{"results":[{"custom_id":7,"error":null,"response":{"message":"Unknown environment.","time":0.1}}]}`))
	f.Add([]byte(`{"results": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseKimina(data)
		if err != nil {
			return
		}
		for _, x := range got {
			r := kiminaToResult(x, Snippet{ID: "s"}, 1)
			if r.Backend != "kimina" || (r.Error != "" && r.Pass) || r.Time < 0 {
				t.Fatalf("%+v", r)
			}
		}
	})
}

func FuzzStatement(f *testing.F) {
	for _, s := range []string{
		"theorem exercise_1_13a {f : ℂ → ℂ} (Ω : Set ℂ) (a b : Ω) (h : IsOpen Ω)\n  (hf : DifferentiableOn ℂ f Ω) :\n  f a = f b :=\nsorry",
		"open Real in\n/-- doc -/ @[simp] lemma x.{u} (α : Type u) : let y := 1; y = 1 := by rfl",
		"def f := 1\n-- theorem no\n/- theorem no -/ example : \"a:=b\" = \"a:=b\" := rfl",
		"import Mathlib\nopen Real\nnoncomputable def f : ℕ → ℝ\n| 0 => 1\n| n+1 => f n\n",
		"theorem «weird name» (x : ℕ) : x = x := rfl",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		imp, rest, n := SplitImports(text)
		if imp != "" && rest != "" && imp+"\n"+rest != text {
			t.Fatalf("SplitImports does not cut cleanly: %q | %q", imp, rest)
		}
		if n < 0 || n > strings.Count(text, "\n")+1 {
			t.Fatalf("n = %d", n)
		}
		if m1, err := MergeHeaders(text); err == nil {
			m2, err := MergeHeaders(text, text)
			if err != nil || m1 != m2 {
				t.Fatalf("merging a header with itself changed it: %q vs %q (%v)", m1, m2, err)
			}
		}
		st, err := ParseStatement(text)
		if err != nil {
			return
		}
		if !strings.HasSuffix(st.Signature, st.Conclusion) || st.Conclusion == "" {
			t.Fatalf("signature %q, conclusion %q", st.Signature, st.Conclusion)
		}
		task, err := NewBEqTask(BEqPair{Ref: text, Cand: text}, BEqOptions{})
		if err != nil {
			return
		}
		code, line := task.Text(true, "sorry")
		if line < 1 || line > strings.Count(code, "\n")+1 {
			t.Fatalf("line %d of %q", line, code)
		}
	})
}
