package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// A build's backend is checked before any work: an unknown kind or a
// parameter it does not take is a configuration error (exit 2).
func TestDenseSpecChecked(t *testing.T) {
	if s, err := DenseSpec(index.DenseMmap, nil); err != nil || s.Kind != index.DenseMmap {
		t.Fatalf("DenseSpec(mmap) = %+v, %v", s, err)
	}
	for _, c := range []struct {
		kind   string
		params map[string]string
		want   error
	}{{"nosuch", nil, index.ErrUnknownDense}, {index.DenseMmap, map[string]string{"x": "1"}, index.ErrDenseParam}} {
		if _, err := DenseSpec(c.kind, c.params); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want.Error()) {
			t.Errorf("DenseSpec(%s, %v) = %v, want ErrConfig and %v", c.kind, c.params, err, c.want)
		}
	}
}
