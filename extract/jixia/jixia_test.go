package jixia

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract/elab"
)

var demo = Pair{Decl: filepath.Join("testdata", "Demo.Basic.decl.json"), Sym: filepath.Join("testdata", "Demo.Basic.sym.json")}

// TestDemo imports a module's jixia output written by hand for these tests
// (no source): declarations as written, constructors with jixia's doubled
// namespace, a class told from a structure by its keyword, a matcher to
// inline, a private theorem, a notation and an example to skip, and
// constants only the symbol table has.
func TestDemo(t *testing.T) {
	p := demo
	p.Module = ModuleFromFile(p.Decl, "")
	if p.Module != "Demo.Basic" {
		t.Fatalf("module %q", p.Module)
	}
	st, m, mods := importPairs(t, []Pair{p}, "")
	kinds := map[string]string{
		"Demo.add_zero'": "theorem", "Demo.Point": "structure", "Demo.HasSize": "class", "Demo.Color": "inductive",
		"Demo.Color.red": "constructor", "Demo.Color.green": "constructor", "Demo.Color.toNat": "definition",
		"Demo.instHasSizeColor": "instance", "Demo.secret": "theorem", "Demo.add_zero''": "theorem",
		"Demo.Point.mk": "constructor", "Demo.Point.x": "projection", "Demo.Point.y": "projection",
		"Demo.HasSize.mk": "constructor", "Demo.HasSize.size": "projection",
	}
	for n, k := range kinds {
		if m[n].Kind != k {
			t.Errorf("%s: kind %q, want %q", n, m[n].Kind, k)
		}
	}
	if len(m) != len(kinds) {
		t.Errorf("%d rows, want %d", len(m), len(kinds))
	}
	a := m["Demo.add_zero'"]
	if a.Docstring == nil || *a.Docstring != "Adding zero changes nothing." || !slices.Equal(a.Attributes, []string{"simp"}) ||
		!slices.Equal(a.Opens, []string{"Nat"}) || a.Namespace != "Demo" || a.Signature != "(n : Nat) : n + 0 = n" ||
		a.Code != "@[simp] theorem add_zero' (n : Nat) : n + 0 = n := rfl" || a.Module != "Demo.Basic" || a.LineStart != 0 {
		t.Errorf("add_zero' row %+v", a)
	}
	if !slices.Equal(a.StatementDeps, []string{"Nat", "Eq", "HAdd.hAdd", "instHAdd", "instAddNat", "OfNat.ofNat", "instOfNatNat"}) ||
		!slices.Equal(a.ProofDeps, []string{"rfl", "Nat"}) {
		t.Errorf("add_zero' deps %v / %v", a.StatementDeps, a.ProofDeps)
	}
	if got := m["Demo.Color.toNat"]; !slices.Equal(got.ProofDeps, []string{"Demo.Color", "Demo.Color.red", "Demo.Color.green", "OfNat.ofNat", "Nat"}) ||
		!slices.Equal(got.Modifiers, []string{"protected", "noncomputable"}) {
		t.Errorf("toNat: proof deps %v, modifiers %v", got.ProofDeps, got.Modifiers)
	}
	if g := m["Demo.Color.green"]; g.GeneratedFrom == nil || *g.GeneratedFrom != "Demo.Color" || g.Docstring == nil || *g.Docstring != "The second colour." {
		t.Errorf("green %+v", g)
	}
	if s := m["Demo.secret"]; !slices.Equal(s.Modifiers, []string{"private"}) {
		t.Errorf("secret modifiers %v", s.Modifiers)
	}
	if s := m["Demo.HasSize.size"]; s.Keyword != "class" || s.GeneratedFrom == nil || *s.GeneratedFrom != "Demo.HasSize" {
		t.Errorf("size %+v", s)
	}
	if d := m["Demo.add_zero''"]; d.GeneratedFrom != nil || d.Signature != ": ∀ (n : Nat), n = n" || !slices.Equal(d.ProofDeps, []string{"Demo.add_zero'"}) {
		t.Errorf("twin %+v", d)
	}
	if st.Written != 9 || st.Generated != 6 || len(mods) != 1 || mods[0].Name != "Demo.Basic" || mods[0].Declarations != 15 {
		t.Errorf("stats %+v modules %+v", st, mods)
	}
}

// TestMalformed: a file that is not a JSON array or breaks off is an error
// naming file and line; a malformed element is skipped with a warning
// naming its line and index.
func TestMalformed(t *testing.T) {
	decl, _ := os.ReadFile(demo.Decl)
	sym, _ := os.ReadFile(demo.Sym)
	write := func(dir, name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	for _, c := range []struct {
		name      string
		decl, sym []byte
		line      int
		fatal     bool
	}{
		{"not an array", []byte(`{"kind":"theorem"}`), sym, 1, true},
		{"breaks off", decl[:len(decl)/2], sym, 0, true},
		{"empty", []byte{}, sym, 1, true},
		{"trailing data", append(slices.Clone(decl), []byte(" [] ")...), sym, 0, true},
		{"symbols not JSON", decl, []byte("[{\"kind\":\n\"theorem\",,}]"), 2, true},
		{"bad name", bytes.Replace(decl, []byte(`"name":["Demo","Point"]`), []byte(`"name":[{"x":1}]`), 1), sym, 7, false},
		{"unknown kind", bytes.Replace(decl, []byte(`"kind":"inductive"`), []byte(`"kind":"coinductive_thing"`), 1), sym, 17, false},
		{"bad docstring", bytes.Replace(decl, []byte(`"docString":"Things with a size."`), []byte(`"docString":[3]`), 1), sym, 12, false},
		{"bad symbol", decl, bytes.Replace(sym, []byte(`"typeReferences":[]`), []byte(`"typeReferences":7`), 1), 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := Pair{Decl: write(dir, "M.decl.json", c.decl), Sym: write(dir, "M.sym.json", c.sym), Module: "M"}
			ws := t.TempDir()
			st, err := importTo(ws, []Pair{p})
			var re *elab.RecordError
			if c.fatal {
				if !errors.As(err, &re) || !errors.Is(err, elab.ErrFormat) {
					t.Fatalf("error %v (%T), want a RecordError", err, err)
				}
				if _, serr := os.Stat(filepath.Join(ws, "declarations.parquet")); serr == nil {
					t.Error("a failed import wrote a table")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if st.WarningCount < 1 || !errors.As(st.Warnings[0], &re) {
					t.Fatalf("warnings %v", st.Warnings)
				}
			}
			if c.line > 0 && re.Line != c.line {
				t.Errorf("line %d, want %d: %v", re.Line, c.line, re)
			}
			if !strings.Contains(re.Error(), dir) {
				t.Errorf("%q does not name the file", re.Error())
			}
		})
	}
}

// FuzzImport: arbitrary declaration and symbol files must not panic, and
// every failure names a file and line.
func FuzzImport(f *testing.F) {
	decl, _ := os.ReadFile(demo.Decl)
	sym, _ := os.ReadFile(demo.Sym)
	f.Add(decl, sym)
	f.Add([]byte(`[{"kind":"theorem","name":["a"],"ref":{"original":true,"range":[0,1]}}]`), []byte(`[{"kind":"theorem","name":["a"],"typeReferences":[["a"],["_private","a",0,"b","match_1"]],"valueReferences":[]}]`))
	f.Add([]byte(`[`), []byte(`]`))
	f.Fuzz(func(t *testing.T, decl, sym []byte) {
		dir := t.TempDir()
		p := Pair{Decl: filepath.Join(dir, "F.decl.json"), Sym: filepath.Join(dir, "F.sym.json"), Module: "F"}
		os.WriteFile(p.Decl, decl, 0o644)
		os.WriteFile(p.Sym, sym, 0o644)
		m := &module{pair: p, opts: &Options{MaxWarnings: 10}, st: &Stats{}, sink: nil}
		m.written = nil
		err := m.parse()
		if err != nil {
			var re *elab.RecordError
			if !errors.As(err, &re) || re.Line < 1 {
				t.Fatalf("error %v is not a RecordError with a line", err)
			}
		}
		for _, r := range m.rows {
			if r.Name == "" {
				t.Fatalf("row without a name from %q", decl)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}
