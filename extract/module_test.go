package extract

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestModuleSystem checks visibility and body exposure as Lean computes them
// in a `module` file (testdata/seeds/module.lean): private by default,
// public inside `public section` or with `public`, `private` negating it;
// def bodies exposed with @[expose] or in an @[expose] section unless
// @[no_expose], abbrevs, instances and structures always, theorems and
// opaques never; an alias as its target's kind; a constructor or field
// written `private` is private in a public type.
func TestModuleSystem(t *testing.T) {
	rows, mod, errs := ParseFile(readSeed(t, "module.lean"), "Test/Module.lean", "test")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if !mod.IsModule {
		t.Errorf("module header not recorded")
	}
	wantImports := []string{"Mathlib.Order.Basic", "Mathlib.Logic.Basic", "Mathlib.Data.Foo", "Mathlib.Tactic.Bar"}
	wantKinds := []string{"public", "", "all", "public meta"}
	if !slices.Equal(mod.Imports, wantImports) || !slices.Equal(mod.ImportKinds, wantKinds) {
		t.Errorf("imports %q kinds %q, want %q %q", mod.Imports, mod.ImportKinds, wantImports, wantKinds)
	}
	m := rowsByName(rows)
	for name, w := range map[string]struct {
		vis     string
		exposed bool
	}{
		"hidden":          {"private", false},
		"shown":           {"public", false},
		"shownBody":       {"public", true},
		"exposedDef":      {"public", true},
		"unexposedDef":    {"public", false},
		"stillPrivate":    {"private", false},
		"publicThm":       {"public", false},
		"N.S":             {"public", true},
		"N.S.mk":          {"public", true},
		"N.S.x":           {"public", true},
		"N.Cat":           {"public", true},
		"N.Cat.mk":        {"private", true},
		"N.Cat.carrier":   {"public", true},
		"N.Cat.secret":    {"private", true},
		"N.T.open":        {"public", true},
		"N.T.closed":      {"private", true},
		"plainDef":        {"public", false},
		"plainAbbrev":     {"public", true},
		"instInhabitedS'": {"public", true},
		"secret":          {"public", false},
		"afterSections":   {"private", false},
		"plainAbbrev'":    {"public", true},
		"plainDef'":       {"public", false},
		"publicThm'":      {"public", false},
	} {
		r, ok := m[name]
		if !ok {
			t.Errorf("missing %s", name)
			continue
		}
		if r.Visibility != w.vis || r.Exposed != w.exposed {
			t.Errorf("%s: visibility %q exposed %v, want %q %v", name, r.Visibility, r.Exposed, w.vis, w.exposed)
		}
	}
	// `private mk ::` names the constructor; it is not a field
	var gen []string
	for _, r := range rows {
		if r.GeneratedFrom != nil && *r.GeneratedFrom == "N.Cat" {
			gen = append(gen, r.Name+" "+r.Kind)
		}
	}
	if want := []string{"N.Cat.mk constructor", "N.Cat.carrier projection", "N.Cat.secret projection"}; !slices.Equal(gen, want) {
		t.Errorf("rows generated from N.Cat: %q, want %q", gen, want)
	}
}

// TestNotModuleSystem: outside the module system only `private` makes a
// declaration private, and every body is exposed.
func TestNotModuleSystem(t *testing.T) {
	rows, mod, errs := ParseFile([]byte("import Foo\n\ndef a : Nat := 1\nprivate theorem b : a = 1 := rfl\npublic section\nend\n"), "Test/Old.lean", "test")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if mod.IsModule || !slices.Equal(mod.ImportKinds, []string{""}) {
		t.Errorf("is_module %v import kinds %q", mod.IsModule, mod.ImportKinds)
	}
	m := rowsByName(rows)
	if a, b := m["a"], m["b"]; a.Visibility != "public" || !a.Exposed || b.Visibility != "private" || !b.Exposed {
		t.Errorf("a %q %v, b %q %v", a.Visibility, a.Exposed, b.Visibility, b.Exposed)
	}
}

func readSeed(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
