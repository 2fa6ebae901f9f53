// Package leantest provides test doubles for the Lean backends, for tests in
// any package: FakeREPL builds the fake REPL program (internal/testkit/fakerepl,
// which also answers `--json FILE` like `lean` and `--version`), and
// Kimina is an in-process kimina-lean-server speaking the same wire format
// as server 2.0.0, with scripted faults.
package leantest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// FakeREPL returns the path of the fake REPL binary, compiling it with `go
// build` (the go command must be on PATH) the first time a version of its
// source is asked for: the binary is kept in the system's temporary folder
// under a name derived from the source and the Go version, built to a
// temporary name and renamed, so parallel test processes share it and no
// run leaves a copy behind.
func FakeREPL(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		name := fmt.Sprintf("driftkit-fakerepl-%d", os.Getpid())
		if _, file, _, ok := runtime.Caller(0); ok {
			if src, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "fakerepl", "main.go")); err == nil {
				sum := sha256.Sum256(append(src, runtime.Version()...))
				name = fmt.Sprintf("driftkit-fakerepl-%x", sum[:8])
			}
		}
		buildPath = filepath.Join(os.TempDir(), name)
		if fi, err := os.Stat(buildPath); err == nil && fi.Mode().IsRegular() {
			return
		}
		tmp := fmt.Sprintf("%s.%d.tmp", buildPath, os.Getpid())
		out, err := exec.Command("go", "build", "-o", tmp, "github.com/driftkit/driftkit/internal/testkit/fakerepl").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
			return
		}
		buildErr = os.Rename(tmp, buildPath)
	})
	if buildErr != nil {
		t.Fatalf("building the fake REPL: %v", buildErr)
	}
	return buildPath
}
