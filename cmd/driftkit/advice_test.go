package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/serve"
	"github.com/driftkit/driftkit/serve/drift"
	"github.com/driftkit/driftkit/train"
	"github.com/driftkit/driftkit/workspace"
)

// TestAdvice: library errors say what is wrong; the command line adds the
// command that repairs it, naming the workspace.
func TestAdvice(t *testing.T) {
	ws := filepath.Join("w", "s")
	wrap := func(err error) error { return fmt.Errorf("outer: %w", err) }
	for _, c := range []struct {
		err  error
		want string // "" for no advice
	}{
		{&workspace.MissingError{Path: filepath.Join(ws, workspace.DeclarationsFile)}, "run `driftkit extract --ws w/s` or `driftkit import rauto --ws w/s` first"},
		{wrap(&workspace.MissingError{Path: filepath.Join(ws, workspace.PairsFile)}), "run `driftkit mine --ws w/s` first"},
		{&workspace.MissingError{Path: filepath.Join(ws, workspace.InformalFile)}, "run `driftkit informalize --ws w/s` first"},
		{wrap(index.ErrNoIndex), "run `driftkit index --ws w/s` first"},
		{wrap(serve.ErrNoDeclarations), "run `driftkit extract --ws w/s` or `driftkit import rauto --ws w/s` first"},
		{&workspace.FileError{Path: "x", Row: -1, Err: fmt.Errorf("%w: sha256", index.ErrStale)}, "rebuild it with `driftkit index --ws w/s`"},
		{wrap(head.ErrMismatch), "--no-head"},
		{fmt.Errorf("%w: both", errors.Join(head.ErrMismatch, index.ErrStale)), "retrain it with `driftkit train head --ws w/s`"},
		{wrap(workspace.ErrForeignOutput), "pass --force"},
		{&mine.NoPairsError{Theorems: 3, TemplateExcluded: 3}, "--allow-template"},
		{&mine.NoPairsError{Theorems: 3, NoPositives: 3}, ""},
		{wrap(train.ErrNoValid), "--valid-frac"},
		{train.ErrNoData, ""},
		{wrap(train.ErrDiverged), "--lr"},
		{lean.ErrBadHeader, "driftkit lean check"},
		{wrap(drift.ErrSettingsChanged), "use a new --out folder"},
		{errors.New("something else"), ""},
	} {
		got := advice(c.err, ws)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("advice(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if got := advice(index.ErrNoIndex, ""); !strings.Contains(got, "--ws WS") {
		t.Errorf("no workspace given: %q", got)
	}
}

func TestWorkspaceArg(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ws", "a", "x"}, "a"},
		{[]string{"-ws=b"}, "b"},
		{[]string{"--k", "3", "--ws=c", "--ws", "d"}, "c"},
		{[]string{"--", "--ws", "e"}, ""},
		{[]string{"--wsx", "f"}, ""},
		{[]string{"--ws"}, ""},
		{nil, ""},
	} {
		if got := workspaceArg(c.args); got != c.want {
			t.Errorf("workspaceArg(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
