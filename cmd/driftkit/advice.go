package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/driftkit/driftkit/dataset/mine"
	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/serve"
	"github.com/driftkit/driftkit/serve/drift"
	"github.com/driftkit/driftkit/train"
	"github.com/driftkit/driftkit/workspace"
)

// advice says which driftkit command fixes err, or "". Library errors say
// what is wrong (a file is missing, an index is stale); only the command
// line knows the commands and flags that repair it. ws is the workspace the
// command was given ("" if none).
func advice(err error, ws string) string {
	if ws == "" {
		ws = "WS"
	}
	var missing *workspace.MissingError
	var noPairs *mine.NoPairsError
	switch {
	case errors.As(err, &missing):
		dir := filepath.Dir(missing.Path)
		switch filepath.Base(missing.Path) {
		case workspace.DeclarationsFile, workspace.ModulesFile:
			return fmt.Sprintf("run `driftkit extract --ws %s` or `driftkit import rauto --ws %s` first", dir, dir)
		case workspace.InformalFile:
			return fmt.Sprintf("run `driftkit informalize --ws %s` first", dir)
		case workspace.PairsFile:
			return fmt.Sprintf("run `driftkit mine --ws %s` first", dir)
		}
	case errors.Is(err, serve.ErrNoDeclarations):
		return fmt.Sprintf("run `driftkit extract --ws %s` or `driftkit import rauto --ws %s` first", ws, ws)
	case errors.Is(err, index.ErrNoIndex):
		return fmt.Sprintf("run `driftkit index --ws %s` first", ws)
	case errors.Is(err, index.ErrHeadWouldNotFit):
		return fmt.Sprintf("build with the encoder and dimensions the head takes (--dim), or move the head aside (mv %s/head %s/head.off), build, then retrain it with `driftkit train head --ws %s`", ws, ws, ws)
	case errors.Is(err, head.ErrMismatch):
		return fmt.Sprintf("retrain it with `driftkit train head --ws %s`, or search without it: --no-head", ws)
	case errors.Is(err, index.ErrStale):
		return fmt.Sprintf("rebuild it with `driftkit index --ws %s`", ws)
	case errors.Is(err, workspace.ErrForeignOutput):
		return "pass --force to replace it"
	case errors.As(err, &noPairs) && noPairs.TemplateExcluded > 0:
		return "informalize with a model (--model), or pass --allow-template to use the template fallback's statements as queries"
	case errors.Is(err, train.ErrNoValid):
		return fmt.Sprintf("mine with a larger --valid-frac (`driftkit mine --ws %s --valid-frac 0.1`)", ws)
	case errors.Is(err, train.ErrDiverged):
		return "lower the learning rate (--lr)"
	case errors.Is(err, drift.ErrSettingsChanged):
		return "use a new --out folder, or delete that one to start over"
	case errors.Is(err, lean.ErrBadHeader):
		return "check the header with `driftkit lean check`"
	}
	return ""
}

// workspaceArg returns the value of --ws in args ("" if absent): advice
// names the workspace the user gave.
func workspaceArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "ws" {
			continue
		}
		if hasVal {
			return val
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
