package elab

import (
	"context"
	"fmt"

	"github.com/driftkit/driftkit/workspace"
)

// Sink writes the tables `extract` writes — declarations.parquet and
// modules.parquet, with the same schemas — for an importer, streaming rows to
// staged files of one workspace.Txn: both tables and the run's manifest entry
// appear together on Commit, or not at all (a kill during the commit is
// rolled forward or back by the next stage run). It keeps one row per full
// name (the first), as Lean has one constant per name. A Sink is not safe
// for concurrent use; call Abort (deferred) or Commit.
//
// The Sink holds the stage's workspace locks (workspace.Workspace.Lock) from
// NewSink to Commit or Abort: a second importer, extract, or a stage reading
// the tables is refused with workspace.ErrBusy meanwhile.
type Sink struct {
	ws     *workspace.Workspace
	tx     *workspace.Txn
	unlock func()
	dw     *workspace.Writer[workspace.Declaration]
	mw     *workspace.Writer[workspace.Module]
	run    *workspace.RunRecorder
	seen   map[string]struct{}
	buf    []workspace.Declaration
	dups   int
	edges  [2]int64
	done   bool
}

// NewSink takes the workspace locks of stage (a workspace.StageNames name such as
// "import jixia"), refuses to replace tables the manifest does not know
// (unless force) and starts both tables.
func NewSink(ws *workspace.Workspace, stage string, force bool, params map[string]any) (*Sink, error) {
	unlock, err := ws.Lock(stage)
	if err != nil {
		return nil, err
	}
	if err := ws.GuardOutputs(force, workspace.DeclarationsFile, workspace.ModulesFile, workspace.NotationsFile); err != nil {
		unlock()
		return nil, err
	}
	tx := ws.Begin(stage)
	dw, err := workspace.NewStagedWriter[workspace.Declaration](tx, workspace.DeclarationsFile)
	if err != nil {
		tx.Abort()
		unlock()
		return nil, err
	}
	mw, err := workspace.NewStagedWriter[workspace.Module](tx, workspace.ModulesFile)
	if err != nil {
		dw.Abort()
		tx.Abort()
		unlock()
		return nil, err
	}
	return &Sink{ws: ws, tx: tx, unlock: unlock, dw: dw, mw: mw, run: ws.StartRun(stage, params), seen: make(map[string]struct{}, 1<<12),
		buf: make([]workspace.Declaration, 0, 512)}, nil
}

// Run is the manifest entry being built, for inputs, counts and notes.
func (s *Sink) Run() *workspace.RunRecorder { return s.run }

// Has reports whether a row of that name was added.
func (s *Sink) Has(name string) bool { _, ok := s.seen[name]; return ok }

// Add writes a declaration row; a second row with the same name is dropped
// and counted. Nil lists become empty lists, as in extract's tables.
func (s *Sink) Add(d workspace.Declaration) error {
	if _, dup := s.seen[d.Name]; dup {
		s.dups++
		return nil
	}
	s.seen[d.Name] = struct{}{}
	for _, l := range []*[]string{&d.Opens, &d.Modifiers, &d.Attributes, &d.StatementDeps, &d.ProofDeps} {
		if *l == nil {
			*l = []string{}
		}
	}
	s.edges[0] += int64(len(d.StatementDeps))
	s.edges[1] += int64(len(d.ProofDeps))
	s.buf = append(s.buf, d)
	if len(s.buf) == cap(s.buf) {
		return s.flush()
	}
	return nil
}

func (s *Sink) flush() error {
	err := s.dw.Write(s.buf...)
	clear(s.buf)
	s.buf = s.buf[:0]
	return err
}

// AddModule writes a modules.parquet row.
func (s *Sink) AddModule(m workspace.Module) error {
	if m.Imports == nil {
		m.Imports = []string{}
	}
	return s.mw.Write(m)
}

// Duplicates counts rows dropped because their name was already written.
func (s *Sink) Duplicates() int { return s.dups }

// Rows returns the declaration rows added so far.
func (s *Sink) Rows() int64 { return s.dw.Rows() + int64(len(s.buf)) }

// Commit completes both tables and commits them with the run's manifest
// entry as one workspace.Txn, then releases the locks. A cancelled ctx aborts
// instead.
func (s *Sink) Commit(ctx context.Context) error {
	if s.done {
		return fmt.Errorf("elab: sink already closed")
	}
	if err := s.flush(); err != nil {
		s.Abort()
		return err
	}
	if err := ctx.Err(); err != nil {
		s.Abort()
		return err
	}
	if err := s.dw.Close(); err != nil {
		s.Abort()
		return err
	}
	if err := s.mw.Close(); err != nil {
		s.Abort()
		return err
	}
	s.done = true
	defer s.unlock()
	defer s.tx.Abort() // a no-op after a commit
	// a notation table from an earlier extract describes other declarations
	if err := s.tx.Remove(workspace.NotationsFile); err != nil {
		return err
	}
	s.tx.Output(workspace.DeclarationsFile, s.dw.Rows())
	s.tx.Output(workspace.ModulesFile, s.mw.Rows())
	s.run.Count("declarations", s.dw.Rows())
	s.run.Count("modules", s.mw.Rows())
	s.run.Count("duplicate_names_dropped", int64(s.dups))
	s.run.Count("statement_dep_edges", s.edges[0])
	s.run.Count("proof_dep_edges", s.edges[1])
	return s.tx.Commit(s.run)
}

// Abort discards both tables and releases the locks; the workspace keeps its
// previous tables.
func (s *Sink) Abort() {
	if s.done {
		return
	}
	s.done = true
	s.dw.Abort()
	s.mw.Abort()
	s.tx.Abort()
	s.unlock()
}
