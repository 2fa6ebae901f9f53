package rauto

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/driftkit/driftkit/workspace"
)

// Stats summarises an import.
type Stats struct {
	Declarations int
	Informal     int
	Modules      int
	Premises     int // statement dependency edges
	Warnings     []error
}

// Import reads the library file at path and writes declarations.parquet,
// informal.parquet and modules.parquet into ws, recording the run in the
// manifest. Existing outputs not written by a recorded run are kept unless
// force is set. The three tables and the manifest entry are replaced
// together (one workspace.Txn), under the stage's workspace locks.
func Import(ws *workspace.Workspace, path string, force bool) (*Stats, error) {
	unlock, err := ws.Lock("import rauto")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(force, workspace.DeclarationsFile, workspace.InformalFile, workspace.ModulesFile, workspace.NotationsFile); err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run := ws.StartRun("import rauto", map[string]any{"library": path})
	t0 := time.Now()
	lib, err := Read(f, path)
	if err != nil {
		return nil, err
	}
	run.Phase("read", time.Since(t0))
	if err := run.Input(path); err != nil {
		return nil, err
	}
	decls, inf, mods := lib.Tables(time.Now().UTC().Format(time.RFC3339))
	st := &Stats{Declarations: len(decls), Informal: len(inf), Modules: len(mods), Warnings: lib.Warnings}
	for _, d := range decls {
		st.Premises += len(d.StatementDeps)
	}
	t1 := time.Now()
	tx := ws.Begin("import rauto")
	defer tx.Abort()
	if err := workspace.WriteStagedTable(tx, workspace.DeclarationsFile, decls); err != nil {
		return nil, err
	}
	if err := workspace.WriteStagedTable(tx, workspace.InformalFile, inf); err != nil {
		return nil, err
	}
	if err := workspace.WriteStagedTable(tx, workspace.ModulesFile, mods); err != nil {
		return nil, err
	}
	// a notation table from an earlier extract describes other declarations
	if err := tx.Remove(workspace.NotationsFile); err != nil {
		return nil, err
	}
	run.Phase("write", time.Since(t1))
	tx.Output(workspace.DeclarationsFile, int64(len(decls)))
	tx.Output(workspace.InformalFile, int64(len(inf)))
	tx.Output(workspace.ModulesFile, int64(len(mods)))
	run.Count("declarations", int64(len(decls)))
	run.Count("informal", int64(len(inf)))
	run.Count("statement_dep_edges", int64(st.Premises))
	run.Count("warnings", int64(len(lib.Warnings)))
	run.Note(fmt.Sprintf("informal texts are RAutoformalizer's informalizations (provider %q), not driftkit's", Provider))
	if err := tx.Commit(run); err != nil {
		return nil, err
	}
	return st, nil
}
