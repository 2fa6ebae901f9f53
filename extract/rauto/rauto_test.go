package rauto

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

func readSmall(t *testing.T) *Library {
	t.Helper()
	f, err := os.Open("testdata/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lib, err := Read(f, "small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func TestTables(t *testing.T) {
	lib := readSmall(t)
	if len(lib.Warnings) != 0 {
		t.Fatalf("warnings: %v", lib.Warnings)
	}
	decls, inf, mods := lib.Tables("2026-01-01T00:00:00Z")
	tests := []struct {
		name, kind, sig, module string
		deps, attrs             []string
	}{
		{"Foo.Bar", workspace.KindStructure, ":Type\n | x : Nat", "Foo.Basic", []string{"Nat"}, nil},
		{"Foo.bar_mk", workspace.KindTheorem, "(b : Foo.Bar ) :b.x = Foo.Bar.x b ∧ Foo.Bar = Foo.Bar", "Foo.Basic", []string{"Foo.Bar", "Foo.Bar.x"}, []string{"simp", "norm_cast"}},
		{"Nat", workspace.KindInductive, ":Type", "Init.Prelude", []string{}, nil},
		{"Foo.Bar.x", workspace.KindProjection, ": Nat", "Foo.Basic", []string{"Foo.Bar", "Nat"}, nil},
	}
	if len(decls) != len(tests) {
		t.Fatalf("got %d declarations", len(decls))
	}
	for i, tc := range tests {
		d := decls[i]
		if d.Name != tc.name || d.Kind != tc.kind || d.Signature != tc.sig || d.Module != tc.module {
			t.Errorf("row %d: got %q %q %q %q", i, d.Name, d.Kind, d.Signature, d.Module)
		}
		if !reflect.DeepEqual(d.StatementDeps, tc.deps) {
			t.Errorf("%s deps = %v, want %v", tc.name, d.StatementDeps, tc.deps)
		}
		if !reflect.DeepEqual(d.Attributes, tc.attrs) {
			t.Errorf("%s attrs = %v, want %v", tc.name, d.Attributes, tc.attrs)
		}
	}
	if len(inf) != 3 || inf[0].Provider != Provider || inf[0].InformalStatement != "A bar holds a natural number." {
		t.Errorf("informal rows: %+v", inf)
	}
	if len(mods) != 2 || mods[0].Name != "Foo.Basic" || mods[0].Declarations != 3 {
		t.Errorf("modules: %+v", mods)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"bad json", "{\"full_name\":\"a\"}\n{oops\n", 2},
		{"no name", "{\"ptype\":\"def\"}\n", 1},
		{"blank line", "{\"full_name\":\"a\"}\n\n{\"full_name\":\"b\"}\n", 2},
		{"empty file", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "lib.jsonl")
			var le *LineError
			if !errors.As(err, &le) || le.Line != tc.line || !errors.Is(err, ErrFormat) {
				t.Fatalf("err = %v, want line %d", err, tc.line)
			}
		})
	}
}

func TestReadWarnings(t *testing.T) {
	in := `{"full_name":"a","header":"x🔗<|PREMISE|>🔗","used_premises":[5]}` + "\n"
	lib, err := Read(strings.NewReader(in), "lib.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Warnings) != 1 || !strings.Contains(lib.Warnings[0].Error(), "out of range") {
		t.Fatalf("warnings = %v", lib.Warnings)
	}
	decls, _, _ := lib.Tables("")
	if len(decls[0].StatementDeps) != 0 {
		t.Fatalf("out-of-range premise kept: %v", decls[0].StatementDeps)
	}
}

func TestImport(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(ws, filepath.Join("testdata", "small.jsonl"), false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Declarations != 4 || st.Informal != 3 || st.Premises != 5 {
		t.Fatalf("stats %+v", st)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil || len(decls) != 4 {
		t.Fatalf("read back: %v %d", err, len(decls))
	}
	// A second import replaces outputs it wrote itself.
	if _, err := Import(ws, filepath.Join("testdata", "small.jsonl"), false); err != nil {
		t.Fatal(err)
	}
	// A hand-edited output is refused without force.
	if err := os.WriteFile(ws.Path(workspace.InformalFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(ws, filepath.Join("testdata", "small.jsonl"), false); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("err = %v, want ErrForeignOutput", err)
	}
}

func FuzzRead(f *testing.F) {
	b, _ := os.ReadFile("testdata/small.jsonl")
	f.Add(string(b))
	f.Add(`{"full_name":"a","header":"🔗<|PREMISE|>🔗","used_premises":[-1,0,9]}`)
	f.Fuzz(func(t *testing.T, s string) {
		lib, err := Read(strings.NewReader(s), "fuzz.jsonl")
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		decls, _, _ := lib.Tables("")
		if len(decls) != len(lib.Rows) {
			t.Fatalf("%d rows → %d declarations", len(lib.Rows), len(decls))
		}
	})
}

// TestReadDuplicates: a full_name on two lines is reported with both line
// numbers, and only the first row becomes a declaration.
func TestReadDuplicates(t *testing.T) {
	in := `{"full_name":"a","ptype":"def","code":"first"}` + "\n" + `{"full_name":"b","ptype":"def"}` + "\n" + `{"full_name":"a","ptype":"theorem","code":"second"}` + "\n"
	lib, err := Read(strings.NewReader(in), "lib.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Warnings) != 1 || !strings.Contains(lib.Warnings[0].Error(), `lib.jsonl:3: `) ||
		!strings.Contains(lib.Warnings[0].Error(), `duplicate full_name "a" (first on line 1)`) {
		t.Fatalf("warnings = %v", lib.Warnings)
	}
	decls, _, _ := lib.Tables("")
	if len(decls) != 2 || decls[0].Name != "a" || decls[0].Code != "first" || decls[1].Name != "b" {
		t.Fatalf("declarations = %+v", decls)
	}
}

// TestImportDropsStaleNotations: an import replaces the declarations, so a
// notation table an earlier extract wrote (about other declarations) goes
// with them, in the same commit.
func TestImportDropsStaleNotations(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := ws.StartRun("extract", nil)
	tx := ws.Begin("extract")
	if err := workspace.WriteStagedTable(tx, workspace.NotationsFile, []workspace.Notation{{Symbol: "ℝ≥0∞"}}); err != nil {
		t.Fatal(err)
	}
	tx.Output(workspace.NotationsFile, 1)
	if err := tx.Commit(run); err != nil {
		t.Fatal(err)
	}
	if !ws.Has(workspace.NotationsFile) {
		t.Fatal("setup: no notations table")
	}
	if _, err := Import(ws, filepath.Join("testdata", "small.jsonl"), false); err != nil {
		t.Fatal(err)
	}
	if ws.Has(workspace.NotationsFile) {
		t.Error("import rauto left the earlier extract's notations.parquet")
	}
}
