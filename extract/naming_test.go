package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

func writeFile(t *testing.T, path, s string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNamingFile: a library whose to_additive vocabulary differs from
// Mathlib's (here "times"/"plus", a kept namespace and a whole-name rule)
// extends the defaults with a file, and the twins it generates follow it.
func TestNamingFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "naming.json"), `{
  "additive": {"times": "plus", "unit": "zeroUnit"},
  "additive_names": {"IsCube": "IsTriple"},
  "keep_namespaces": ["Monoid"],
  "dual": {"floor": "ceil"},
  "abbreviations": [["zero", "ge", "nonpos"]]
}`)
	n, err := LoadNaming(path)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"times_one": "plus_zero", // the file's word next to Mathlib's
		"mul_unit":  "add_zeroUnit",
		"IsCube":    "IsTriple",
		"Monoid":    "AddMonoid", // a kept namespace component is still a word
		"one_ge_x":  "nonpos_x",  // the file's abbreviation
		"le_one":    "nonpos",    // Mathlib's
	} {
		if got := n.GuessAdditive(in); got != want {
			t.Errorf("GuessAdditive(%q) = %q, want %q", in, got, want)
		}
	}
	if got := n.GuessDual("floor_le"); got != "ceil_ge" {
		t.Errorf("GuessDual(floor_le) = %q", got)
	}
	// The defaults are untouched by loading a file.
	if got := GuessAdditiveName("times_one"); got != "times_zero" {
		t.Errorf("Mathlib's tables changed: %q", got)
	}
	if got := DefaultNaming(); got.Additive["times"] != "" {
		t.Error("DefaultNaming shares the file's table")
	}

	// "extends": "none" replaces Mathlib's tables.
	none := writeFile(t, filepath.Join(dir, "none.json"), `{"extends": "none", "additive": {"times": "plus"}}`)
	n2, err := LoadNaming(none)
	if err != nil {
		t.Fatal(err)
	}
	if got := n2.GuessAdditive("times_mul"); got != "plus_mul" {
		t.Errorf("without Mathlib's tables: %q", got)
	}

	// Extraction follows the file: the twin of Monoid.times_one is
	// Monoid.plus_zero (Monoid kept), the default gives AddMonoid.times_zero.
	src := writeFile(t, filepath.Join(dir, "src", "Lib", "A.lean"), "namespace Monoid\n@[to_additive] theorem times_one : True := trivial\nend Monoid\n")
	run := func(o Options) map[string]bool {
		ws, err := workspace.Open(filepath.Join(dir, "ws"))
		if err != nil {
			t.Fatal(err)
		}
		o.Sources = []Source{{Dir: filepath.Dir(src), Library: "lib", Revision: "r"}}
		o.Force = true
		if _, err := Run(context.Background(), ws, o); err != nil {
			t.Fatal(err)
		}
		rows, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, r := range rows {
			names[r.Name] = true
		}
		return names
	}
	if got := run(Options{Naming: n, NamingFile: path}); !got["Monoid.plus_zero"] || got["AddMonoid.times_zero"] {
		t.Errorf("with the naming file: %v", got)
	}
	if got := run(Options{}); !got["AddMonoid.times_zero"] {
		t.Errorf("with Mathlib's tables: %v", got)
	}
}

func TestNamingFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"{\n  \"additive\": {\"a\": 1}\n}", ":2: "},
		{"{\n\n  \"additiv\": {}\n}", "unknown field"},
		{`{"extends": "lean"}`, `extends "lean"`},
		{`{"additive": {"mul": ""}}`, "non-empty words"},
		{`{"dual": {"a.b": "c"}}`, "without spaces or dots"},
		{`{"rewrites": [["", "x"]]}`, "empty pattern"},
		{`{"abbreviations": [["a", "", "c"]]}`, "none empty"},
		{`{} {}`, "more than one"},
		{"{\n\"additive\": {\n", ":3: "},
	} {
		p := writeFile(t, filepath.Join(dir, "n.json"), c.text)
		_, err := LoadNaming(p)
		if !errors.Is(err, ErrNaming) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want ErrNaming naming the file and %q", c.text, err, c.want)
		}
	}
	if _, err := LoadNaming(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
