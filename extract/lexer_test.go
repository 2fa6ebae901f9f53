package extract

import (
	"errors"
	"strings"
	"testing"
)

func lexTexts(t *testing.T, src string) ([]string, []TokKind, []error) {
	t.Helper()
	toks, errs := Lex([]byte(src))
	var texts []string
	var kinds []TokKind
	for _, tk := range toks {
		texts = append(texts, tk.Text([]byte(src)))
		kinds = append(kinds, tk.Kind)
	}
	return texts, kinds, errs
}

func TestLex(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		texts []string
		kinds []TokKind
	}{
		{"idents and dots", "Nat.succ_le h.1 x₁ α' f!", []string{"Nat.succ_le", "h", ".", "1", "x₁", "α'", "f!"},
			[]TokKind{TokIdent, TokIdent, TokSymbol, TokNumber, TokIdent, TokIdent, TokIdent}},
		{"nested comment dropped", "a /- x /- y -/ z -/ b", []string{"a", "b"}, []TokKind{TokIdent, TokIdent}},
		{"line comment", "a -- c\nb", []string{"a", "b"}, []TokKind{TokIdent, TokIdent}},
		{"doc and moddoc", "/-- d /- n -/ -/ /-! m -/", []string{"/-- d /- n -/ -/", "/-! m -/"}, []TokKind{TokDoc, TokModDoc}},
		{"string with escapes and comment marker", `"a\"b -- c" x`, []string{`"a\"b -- c"`, "x"}, []TokKind{TokString, TokIdent}},
		{"chars", `'a' '\n' '\'' x'`, []string{"'a'", `'\n'`, `'\''`, "x'"}, []TokKind{TokChar, TokChar, TokChar, TokIdent}},
		{"guillemets", "«my name».x", []string{"«my name».x"}, []TokKind{TokIdent}},
		{"symbols", "a := b => c ⟨d⟩ @[simp]", []string{"a", ":=", "b", "=>", "c", "⟨", "d", "⟩", "@[", "simp", "]"},
			[]TokKind{TokIdent, TokSymbol, TokIdent, TokSymbol, TokIdent, TokSymbol, TokIdent, TokSymbol, TokSymbol, TokIdent, TokSymbol}},
		{"lambda and pi are symbols", "λ x, Π y", []string{"λ", "x", ",", "Π", "y"}, []TokKind{TokSymbol, TokIdent, TokSymbol, TokSymbol, TokIdent}},
		{"name literal", "`foo ``bar `(x)", []string{"`foo", "``bar", "`(", "x", ")"}, []TokKind{TokNameLit, TokNameLit, TokSymbol, TokIdent, TokSymbol}},
		{"script letters", "𝓝 ℵ₀ ℝ", []string{"𝓝", "ℵ₀", "ℝ"}, []TokKind{TokIdent, TokIdent, TokIdent}},
		{"raw strings", `r#"a "quoted" -/"# r"x" rx`, []string{`r#"a "quoted" -/"#`, `r"x"`, "rx"}, []TokKind{TokString, TokString, TokIdent}},
		{"numbers", "0x1F 1.5 2", []string{"0x1F", "1.5", "2"}, []TokKind{TokNumber, TokNumber, TokNumber}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			texts, kinds, errs := lexTexts(t, tc.src)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if strings.Join(texts, "|") != strings.Join(tc.texts, "|") {
				t.Fatalf("texts = %q, want %q", texts, tc.texts)
			}
			for i := range kinds {
				if kinds[i] != tc.kinds[i] {
					t.Errorf("token %d %q kind %v, want %v", i, texts[i], kinds[i], tc.kinds[i])
				}
			}
		})
	}
}

func TestLexPositions(t *testing.T) {
	src := "a\n  bb /- x\n y -/ c\n"
	toks, _ := Lex([]byte(src))
	want := []struct {
		line, col int32
		start     bool
	}{{1, 0, true}, {2, 2, true}, {3, 6, true}} // c is the first token on line 3
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens", len(toks))
	}
	for i, w := range want {
		if toks[i].Line != w.line || toks[i].Col != w.col || (toks[i].Flags&FlagLineStart != 0) != w.start {
			t.Errorf("token %d: line %d col %d flags %b, want %+v", i, toks[i].Line, toks[i].Col, toks[i].Flags, w)
		}
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct {
		src  string
		want error
		line int
	}{
		{"a\n/- never closed", ErrUnterminatedComment, 2},
		{"x \"open string", ErrUnterminatedString, 1},
		{"a \xff b", ErrInvalidUTF8, 1},
	}
	for _, tc := range tests {
		_, errs := Lex([]byte(tc.src))
		if len(errs) != 1 || !errors.Is(errs[0], tc.want) {
			t.Fatalf("%q: errors %v, want %v", tc.src, errs, tc.want)
		}
		var le *LexError
		if !errors.As(errs[0], &le) || le.Line != tc.line {
			t.Errorf("%q: error %v, want line %d", tc.src, errs[0], tc.line)
		}
	}
}

func FuzzLex(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		toks, _ := Lex(src)
		prev := int32(-1)
		for _, tk := range toks {
			if tk.Start < prev || tk.End < tk.Start || int(tk.End) > len(src) {
				t.Fatalf("bad token %+v (prev end %d, len %d)", tk, prev, len(src))
			}
			prev = tk.End
		}
	})
}
