package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
)

func TestParseWorkspaceSpecs(t *testing.T) {
	root := t.TempDir()
	mathlib := filepath.Join(root, "mathlib")
	connf := filepath.Join(root, "con nf")
	os.Mkdir(mathlib, 0o755)
	os.Mkdir(connf, 0o755)
	got, err := ParseWorkspaceSpecs([]string{mathlib, "cnf=" + connf, connf})
	if err != nil {
		t.Fatal(err)
	}
	want := []WorkspaceSpec{{"mathlib", mathlib}, {"cnf", connf}, {"con-nf", connf}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("spec %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range [][]string{
		{mathlib, mathlib},                      // the same name twice
		{"x=" + filepath.Join(root, "missing")}, // no folder
		{"bad name=" + mathlib},                 // unusable name
		{"x="},                                  // no folder
	} {
		if _, err := ParseWorkspaceSpecs(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: %v, want ErrConfig", bad, err)
		}
	}
}

func TestOpenIndexNamesWhatToRun(t *testing.T) {
	_, _, err := OpenIndex(context.Background(), t.TempDir(), index.OpenOptions{})
	if !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("no index: %v", err)
	}
}

func TestOptionalParts(t *testing.T) {
	c, err := OpenChat(llm.Config{BaseURLs: []string{"http://127.0.0.1:9/v1"}})
	if c != nil || err != nil {
		t.Errorf("no model: %v %v, want nil, nil", c, err)
	}
	if _, err := OpenChat(llm.Config{BaseURLs: []string{"ftp://x"}, Model: "m"}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad URL: %v", err)
	}
	c, err = OpenChat(llm.Config{BaseURLs: []string{"http://127.0.0.1:9/v1"}, Model: "m"})
	if c == nil || err != nil {
		t.Errorf("with a model: %v %v", c, err)
	} else {
		c.Close()
	}
	if ck, err := OpenLean(context.Background(), lean.Options{}); ck != nil || !errors.Is(err, lean.ErrBadOptions) {
		t.Errorf("no Lean flags: %v %v, want lean.ErrBadOptions", ck, err)
	}
}
