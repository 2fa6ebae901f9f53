// Package leantest provides test doubles for the Lean backends, for tests in
// any package: FakeREPL builds the fake REPL program (lean/internal/fakerepl,
// which also answers `--json FILE` like `lean` and `--version`), and
// Kimina is an in-process kimina-lean-server speaking the same wire format
// as server 2.0.0, with scripted faults.
package leantest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// FakeREPL returns the path of the fake REPL binary, compiling it on the
// first call of the process (`go build`, so the go command must be on
// PATH). Call Cleanup from TestMain to remove it.
func FakeREPL(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "driftkit-fakerepl-")
		if buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "fakerepl")
		out, err := exec.Command("go", "build", "-o", buildPath, "github.com/driftkit/driftkit/lean/internal/fakerepl").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building the fake REPL: %v", buildErr)
	}
	return buildPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// Cleanup removes the fake REPL binary.
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}
