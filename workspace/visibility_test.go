package workspace

import (
	"path/filepath"
	"testing"
)

// legacyDecl and legacyModule are declarations.parquet and modules.parquet
// rows as written before the module-system columns.
type legacyDecl struct {
	Name      string   `parquet:"name"`
	Modifiers []string `parquet:"modifiers,list"`
}

type legacyModule struct {
	Name    string   `parquet:"name"`
	Imports []string `parquet:"imports,list"`
}

// TestModuleSystemColumnsAreOptional: workspaces extracted before the
// visibility, exposed, is_module and import_kinds columns still load, and
// IsPrivate falls back to the `private` modifier there.
func TestModuleSystemColumnsAreOptional(t *testing.T) {
	dir := t.TempDir()
	decls := filepath.Join(dir, "declarations.parquet")
	if err := WriteTable(decls, []legacyDecl{{Name: "a", Modifiers: []string{"private"}}, {Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	// Declaration itself needs every original column; read the added ones
	// through a row type that lists them as Declaration does.
	rows, err := ReadTable[addedDecl](decls)
	if err != nil {
		t.Fatalf("old declarations.parquet does not load: %v", err)
	}
	if len(rows) != 2 || !rows[0].d().IsPrivate() || rows[1].d().IsPrivate() || rows[0].Visibility != "" || rows[0].Exposed {
		t.Errorf("legacy rows %+v", rows)
	}
	mods := filepath.Join(dir, "modules.parquet")
	if err := WriteTable(mods, []legacyModule{{Name: "M", Imports: []string{"A"}}}); err != nil {
		t.Fatal(err)
	}
	ms, err := ReadTable[addedModule](mods)
	if err != nil {
		t.Fatalf("old modules.parquet does not load: %v", err)
	}
	if len(ms) != 1 || ms[0].IsModule || len(ms[0].ImportKinds) != 0 {
		t.Errorf("legacy module %+v", ms)
	}
	// A new row's visibility wins over its modifiers.
	if (&Declaration{Visibility: VisibilityPrivate}).IsPrivate() != true ||
		(&Declaration{Visibility: VisibilityPublic, Modifiers: []string{"private"}}).IsPrivate() {
		t.Error("IsPrivate does not follow Visibility")
	}
}

// addedDecl and addedModule read the added columns with the same
// AddedColumns lists as Declaration and Module.
type addedDecl struct {
	Name       string   `parquet:"name"`
	Modifiers  []string `parquet:"modifiers,list"`
	Visibility string   `parquet:"visibility,dict"`
	Exposed    bool     `parquet:"exposed"`
}

func (*addedDecl) AddedColumns() []string { return (*Declaration)(nil).AddedColumns() }

func (a addedDecl) d() *Declaration {
	return &Declaration{Name: a.Name, Modifiers: a.Modifiers, Visibility: a.Visibility, Exposed: a.Exposed}
}

type addedModule struct {
	Name        string   `parquet:"name"`
	Imports     []string `parquet:"imports,list"`
	IsModule    bool     `parquet:"is_module"`
	ImportKinds []string `parquet:"import_kinds,list"`
}

func (*addedModule) AddedColumns() []string { return (*Module)(nil).AddedColumns() }
