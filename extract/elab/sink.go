package elab

import (
	"context"
	"fmt"

	"github.com/driftkit/driftkit/dataset"
)

// Sink writes the tables `extract` writes — declarations.parquet and
// modules.parquet, with the same schemas — for an importer, streaming rows to
// temporary files that replace the old tables together only on Commit, and
// records the run in the workspace manifest. It keeps one row per full name
// (the first), as Lean has one constant per name. A Sink is not safe for
// concurrent use; call Abort (deferred) or Commit.
//
// The caller holds the workspace's tables lock (see cmd/driftkit tablesLock)
// for the Sink's lifetime.
type Sink struct {
	ws    *dataset.Workspace
	dw    *dataset.Writer[dataset.Declaration]
	mw    *dataset.Writer[dataset.Module]
	run   *dataset.RunRecorder
	seen  map[string]struct{}
	buf   []dataset.Declaration
	dups  int
	edges [2]int64
	done  bool
}

// NewSink refuses to replace tables the manifest does not know (unless force)
// and starts both tables. stage names the manifest entry ("import jixia").
func NewSink(ws *dataset.Workspace, stage string, force bool, params map[string]any) (*Sink, error) {
	if err := ws.GuardOutputs(force, dataset.DeclarationsFile, dataset.ModulesFile); err != nil {
		return nil, err
	}
	dw, err := dataset.NewWriter[dataset.Declaration](ws.Path(dataset.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	mw, err := dataset.NewWriter[dataset.Module](ws.Path(dataset.ModulesFile))
	if err != nil {
		dw.Abort()
		return nil, err
	}
	return &Sink{ws: ws, dw: dw, mw: mw, run: ws.StartRun(stage, params), seen: make(map[string]struct{}, 1<<12),
		buf: make([]dataset.Declaration, 0, 512)}, nil
}

// Run is the manifest entry being built, for inputs, counts and notes.
func (s *Sink) Run() *dataset.RunRecorder { return s.run }

// Has reports whether a row of that name was added.
func (s *Sink) Has(name string) bool { _, ok := s.seen[name]; return ok }

// Add writes a declaration row; a second row with the same name is dropped
// and counted. Nil lists become empty lists, as in extract's tables.
func (s *Sink) Add(d dataset.Declaration) error {
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
func (s *Sink) AddModule(m dataset.Module) error {
	if m.Imports == nil {
		m.Imports = []string{}
	}
	return s.mw.Write(m)
}

// Duplicates counts rows dropped because their name was already written.
func (s *Sink) Duplicates() int { return s.dups }

// Rows returns the declaration rows added so far.
func (s *Sink) Rows() int64 { return s.dw.Rows() + int64(len(s.buf)) }

// Commit completes both tables and puts them in place (declarations first;
// both are complete on disk before either is renamed), then records the run.
// A cancelled ctx aborts instead.
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
	s.done = true
	if err := s.dw.Finish(); err != nil {
		s.mw.Abort()
		return err
	}
	if err := s.mw.Finish(); err != nil {
		s.dw.Abort()
		return err
	}
	if err := s.dw.Commit(); err != nil {
		s.mw.Abort()
		return err
	}
	if err := s.mw.Commit(); err != nil {
		return err
	}
	if err := s.run.Output(dataset.DeclarationsFile, s.dw.Rows()); err != nil {
		return err
	}
	if err := s.run.Output(dataset.ModulesFile, s.mw.Rows()); err != nil {
		return err
	}
	s.run.Count("declarations", s.dw.Rows())
	s.run.Count("modules", s.mw.Rows())
	s.run.Count("duplicate_names_dropped", int64(s.dups))
	s.run.Count("statement_dep_edges", s.edges[0])
	s.run.Count("proof_dep_edges", s.edges[1])
	return s.run.Finish()
}

// Abort discards both tables; the workspace keeps its previous ones.
func (s *Sink) Abort() {
	if s.done {
		return
	}
	s.done = true
	s.dw.Abort()
	s.mw.Abort()
}
