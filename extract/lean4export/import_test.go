package lean4export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/workspace"
)

func importFile(t *testing.T, path string) (*Stats, map[string]workspace.Declaration) {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(context.Background(), ws, path, Options{Library: "demo", Revision: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]workspace.Declaration{}
	for _, r := range rows {
		if _, dup := m[r.Name]; dup {
			t.Errorf("two rows named %s", r.Name)
		}
		m[r.Name] = r
	}
	return st, m
}

// TestDemo imports a small export written by hand for these tests: a
// class with a projection and an instance, a private theorem whose proof
// goes through an auxiliary proof_1 (which uses a recursor, a let, literals
// and metadata), an unsafe definition and an axiom.
func TestDemo(t *testing.T) {
	st, m := importFile(t, filepath.Join("testdata", "demo.ndjson"))
	want := map[string]string{
		"Nat": "inductive", "Nat.zero": "constructor", "Demo.Mul": "class", "Demo.Mul.mk": "constructor",
		"Demo.Mul.mul": "projection", "Demo.instMulNat": "instance", "Demo.mul_zero'": "theorem", "Demo.choice'": "axiom",
	}
	if len(m) != len(want) {
		names := []string{}
		for n := range m {
			names = append(names, n)
		}
		t.Fatalf("rows %v, want %d", names, len(want))
	}
	for n, k := range want {
		if m[n].Kind != k {
			t.Errorf("%s: kind %q, want %q", n, m[n].Kind, k)
		}
		if m[n].Library != "demo" || m[n].Revision != "r1" {
			t.Errorf("%s: library %q revision %q", n, m[n].Library, m[n].Revision)
		}
	}
	thm := m["Demo.mul_zero'"]
	deps := []string{"Nat", "Eq", "Demo.Mul.mul", "Demo.instMulNat", "Nat.zero"}
	if !slices.Equal(thm.StatementDeps, deps) || !slices.Equal(thm.ProofDeps, deps) {
		t.Errorf("mul_zero' deps: statement %v proof %v, want %v", thm.StatementDeps, thm.ProofDeps, deps)
	}
	if !slices.Equal(thm.Modifiers, []string{"private"}) || thm.Namespace != "Demo" {
		t.Errorf("mul_zero' modifiers %v namespace %q", thm.Modifiers, thm.Namespace)
	}
	if got := thm.Signature; got != "(n : Nat) : Eq Nat (Demo.Mul.mul n Nat.zero) Nat.zero" {
		t.Errorf("signature %q", got)
	}
	if got := m["Demo.Mul.mul"].Signature; got != "{α : Type u} [self : Demo.Mul α] : α → α → α" {
		t.Errorf("projection signature %q", got)
	}
	if g := m["Demo.Mul.mul"].GeneratedFrom; g == nil || *g != "Demo.Mul" {
		t.Errorf("projection generated_from %v", g)
	}
	if g := m["Demo.Mul.mk"].GeneratedFrom; g == nil || *g != "Demo.Mul" {
		t.Errorf("constructor generated_from %v", g)
	}
	if got := m["Demo.instMulNat"].ProofDeps; !slices.Equal(got, []string{"Demo.Mul.mk", "Nat", "Nat.mul"}) {
		t.Errorf("instance proof deps %v", got)
	}
	if st.Unsafe != 1 || st.Auxiliary != 3 || st.Exprs != 51 || st.Names != 26 || st.WarningCount != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestFormat30 reads the 3.0 shapes (definitions in arrays, inductive parts
// named inductiveVals/constructorVals/recursorVals, bvar and sort as objects).
func TestFormat30(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "demo.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for old, new := range map[string]string{
		`"format":{"version":"3.1.0"}`: `"format":{"version":"3.0.0"}`,
		`{"types":`:                    `{"inductiveVals":`, `"ctors":[{"name"`: `"constructorVals":[{"name"`,
		`"recs":[`: `"recursorVals":[`,
		`{"def":{`: `{"def":[{`, `"all":[8]}}`: `"all":[8]}]}`, `"all":[13]}}`: `"all":[13]}]}`, `"all":[25]}}`: `"all":[25]}]}`,
		`"bvar":0}`: `"bvar":{"deBruijnIndex":0}}`,
		`"sort":1}`: `"sort":{"u":1}}`,
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("fixture lacks %s", old)
		}
		s = strings.ReplaceAll(s, old, new)
	}
	p := filepath.Join(t.TempDir(), "old.ndjson")
	os.WriteFile(p, []byte(s), 0o644)
	st, m := importFile(t, p)
	if len(m) != 8 || st.WarningCount != 0 || m["Demo.Mul"].Kind != "class" || len(m["Demo.mul_zero'"].ProofDeps) != 5 {
		t.Fatalf("%d rows, stats %+v", len(m), st)
	}
}

// TestMalformed: every malformed file is an error naming its line, and the
// workspace keeps its previous tables.
func TestMalformed(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "demo.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	replace := func(i int, s string) string {
		l := slices.Clone(lines)
		l[i-1] = s + "\n"
		return strings.Join(l, "")
	}
	for _, c := range []struct {
		name, file string
		line       int
		target     error
	}{
		{"text format", "1 #NS 0 Nat\n2 #NS 1 succ\n", 1, ErrNotNDJSON},
		{"no meta", `{"in":1,"str":{"pre":0,"str":"Nat"}}` + "\n", 1, ErrNotNDJSON},
		{"empty", "", 0, elab.ErrFormat},
		{"future format", strings.Replace(string(good), `"format":{"version":"3.1.0"}`, `"format":{"version":"4.0.0"}`, 1), 1, elab.ErrFormat},
		{"undefined expression", replace(27, `{"ie":10,"app":{"fn":9,"arg":99}}`), 27, elab.ErrFormat},
		{"id out of sequence", replace(27, `{"ie":11,"app":{"fn":9,"arg":5}}`), 27, elab.ErrFormat},
		{"undefined name", replace(9, `{"ie":1,"const":{"name":77,"us":[]}}`), 9, elab.ErrFormat},
		{"truncated line", replace(27, `{"ie":10,"app":{"fn":9,"ar`), 27, elab.ErrFormat},
		{"missing field", replace(27, `{"ie":10,"app":{"fn":9}}`), 27, elab.ErrFormat},
		{"bad binder info", replace(23, `{"ie":7,"forallE":{"name":0,"type":5,"body":6,"binderInfo":"sideways"}}`), 23, elab.ErrFormat},
		{"name refers forward", replace(3, `{"in":1,"str":{"pre":5,"str":"u"}}`), 3, elab.ErrFormat},
		// a line longer than the reader's buffer (256 KiB) is one line
		{"after a long line", strings.Replace(replace(27, `{"ie":10,"app":{"fn":9,"arg":99}}`), lines[2], "{"+strings.Repeat(" ", 600<<10)+lines[2][1:], 1), 27, elab.ErrFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.ndjson")
			os.WriteFile(p, []byte(c.file), 0o644)
			ws, _ := workspace.Open(t.TempDir())
			// a previous import must survive the failed one
			if _, err := Import(context.Background(), ws, filepath.Join("testdata", "demo.ndjson"), Options{Library: "demo"}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(ws.Path(workspace.DeclarationsFile))
			_, err := Import(context.Background(), ws, p, Options{Library: "demo"})
			var re *elab.RecordError
			if !errors.As(err, &re) || !errors.Is(err, c.target) {
				t.Fatalf("error %v (%T), want a RecordError wrapping %v", err, err, c.target)
			}
			if c.line > 0 && re.Line != c.line {
				t.Errorf("line %d, want %d (%v)", re.Line, c.line, err)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
			after, _ := os.ReadFile(ws.Path(workspace.DeclarationsFile))
			if !bytes.Equal(before, after) {
				t.Error("a failed import replaced the previous table")
			}
			left, _ := filepath.Glob(ws.Path(".*tmp*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestMalformedDeclarationSkipped: a declaration record that refers to an
// expression that does not exist is skipped with a warning naming its line;
// the rest is imported.
func TestMalformedDeclarationSkipped(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "demo.ndjson"))
	s := strings.Replace(string(b), `{"axiom":{"name":26,"levelParams":[],"type":0,`, `{"axiom":{"name":26,"levelParams":[],"type":4000,`, 1)
	s = strings.Replace(s, `{"def":{"name":13,`, `{"def":{"nome":13,`, 1)
	p := filepath.Join(t.TempDir(), "skip.ndjson")
	os.WriteFile(p, []byte(s), 0o644)
	st, m := importFile(t, p)
	if st.WarningCount != 2 || len(m) != 6 {
		t.Fatalf("warnings %v, %d rows", st.Warnings, len(m))
	}
	var re *elab.RecordError
	if !errors.As(st.Warnings[0], &re) || re.Line != 50 || !errors.As(st.Warnings[1], &re) || re.Line != 89 {
		t.Errorf("warnings %v", st.Warnings)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ws, _ := workspace.Open(t.TempDir())
	var buf bytes.Buffer
	buf.WriteString(`{"meta":{"exporter":{"name":"lean4export","version":"3.1.0"},"format":{"version":"3.1.0"},"lean":{"githash":"0","version":"4"}}}` + "\n")
	for i := 1; i < 200000; i++ {
		buf.WriteString(`{"in":` + itoa(i) + `,"str":{"pre":0,"str":"x"}}` + "\n")
	}
	p := filepath.Join(t.TempDir(), "big.ndjson")
	os.WriteFile(p, buf.Bytes(), 0o644)
	if _, err := Import(ctx, ws, p, Options{Library: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if ws.Has(workspace.DeclarationsFile) {
		t.Error("a cancelled import wrote a table")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestSharedSample imports lean4export's example export kept outside the
// repository (../shared/samples/extractors, format 3.0.0); machines without
// it skip.
func TestSharedSample(t *testing.T) {
	p := filepath.Join("..", "..", "..", "..", "shared", "samples", "extractors", "lean4export_Nat.add_succ.ndjson")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("sample not on this machine: %v", err)
	}
	st, m := importFile(t, p)
	if st.WarningCount != 0 || st.Meta.Format.Version != "3.0.0" || len(m) != 21 {
		t.Fatalf("%d rows, stats %+v", len(m), st)
	}
	thm := m["Nat.add_succ"]
	if !slices.Equal(thm.StatementDeps, []string{"Nat", "Eq", "HAdd.hAdd", "instHAdd", "instAddNat", "Nat.succ"}) ||
		thm.Signature != "(n : Nat) (m : Nat) : Eq (HAdd.hAdd n (Nat.succ m)) (Nat.succ (HAdd.hAdd n m))" {
		t.Errorf("Nat.add_succ %+v", thm)
	}
	if m["Add"].Kind != "class" || m["Add.add"].Kind != "projection" || m["instAddNat"].Kind != "instance" {
		t.Errorf("kinds: Add %s, Add.add %s, instAddNat %s", m["Add"].Kind, m["Add.add"].Kind, m["instAddNat"].Kind)
	}
	if _, ok := m["Nat.rec"]; ok {
		t.Error("a recursor became a row")
	}
}
