package lean

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Prover is implemented by checkers that keep Lean state between requests
// (the REPL): a prover takes a Session, elaborates a statement with `sorry`,
// and runs tactics on the proof states the sorries report. Use it as
//
//	if p, ok := checker.(lean.Prover); ok { s, err := p.Session(ctx, header); … }
type Prover interface {
	Session(ctx context.Context, header string) (*Session, error)
}

// Session holds one REPL worker for the caller alone until Close: the
// environments and proof states it returns exist only in that worker's
// process, so they are worker-affine — never pass them to Check or to
// another Session. A Session is not safe for concurrent use. If the worker
// fails (timeout, crash), its process is killed, every id it gave out is
// gone, and the Session answers ErrSessionLost from then on; open a new one.
type Session struct {
	c      *REPL
	w      *worker
	header int
	lost   error
	closed bool
}

// ErrSessionLost is wrapped once a Session's worker has died.
var ErrSessionLost = errors.New("REPL session lost (its worker died; its environments and proof states are gone)")

// TacticResult is the REPL's answer to a tactic.
type TacticResult struct {
	// ProofState is the new proof state, to continue from.
	ProofState int       `json:"proofState"`
	Goals      []string  `json:"goals"`
	Messages   []Message `json:"messages,omitempty"`
	Sorries    []Sorry   `json:"sorries,omitempty"`
	Traces     []string  `json:"traces,omitempty"`
	// ProofStatus is the REPL's verdict when it gives one ("Completed",
	// "Incomplete: open goals remain", "Error: …"); older REPLs leave it "".
	ProofStatus string        `json:"proofStatus,omitempty"`
	Time        time.Duration `json:"time_ns"`
}

// Solved reports whether no goal is left and no error was printed.
func (t *TacticResult) Solved() bool { return len(t.Goals) == 0 && !hasError(t.Messages) }

// Session takes a worker (queueing like Check) with header elaborated, or
// returns Lean's messages about the header as an error.
func (c *REPL) Session(ctx context.Context, header string) (*Session, error) {
	w, _, err := c.acquire(ctx, header)
	if err != nil {
		return nil, err
	}
	env, ok, err := c.headerEnv(ctx, w, header)
	if err != nil {
		var f *WorkerFault
		if errors.As(err, &f) {
			c.countFault(f)
		}
		c.kill(w)
		c.release(w)
		return nil, err
	}
	if !ok {
		c.release(w)
		return nil, ErrBadHeader
	}
	return &Session{c: c, w: w, header: env}, nil
}

// HeaderEnv is the environment of the session's header.
func (s *Session) HeaderEnv() int { return s.header }

func (s *Session) fail(err error) error {
	var f *WorkerFault
	if errors.As(err, &f) {
		s.c.countFault(f)
		s.c.kill(s.w)
		s.lost = fmt.Errorf("%w: %v", ErrSessionLost, f)
		return s.lost
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		s.c.kill(s.w)
		s.lost = fmt.Errorf("%w: %v", ErrSessionLost, err)
		return err
	}
	return err
}

func (s *Session) usable() error {
	if s.closed {
		return ErrClosed
	}
	return s.lost
}

// Command elaborates code on top of environment env (use HeaderEnv() for a
// fresh start). The Result's Env and its sorries' proof states belong to
// this session.
func (s *Session) Command(ctx context.Context, code string, env int, timeout time.Duration) (Result, error) {
	if err := s.usable(); err != nil {
		return Result{}, err
	}
	if timeout <= 0 {
		timeout = s.c.opts.Timeout
	}
	t0 := time.Now()
	s.c.stats.snippetCommands.Add(1)
	s.w.served++
	a, err := s.c.send(ctx, s.w, replCommand{Cmd: code, Env: &env}, timeout)
	if err != nil {
		return Result{}, s.fail(err)
	}
	r, err := commandResult(a)
	if err != nil {
		return Result{}, err
	}
	r.Time = time.Since(t0)
	return r, nil
}

// Tactic runs one tactic on a proof state. A REPL error answer ("Unknown
// proof state.", "Lean error: …") is a *REPLError and leaves the session
// usable.
func (s *Session) Tactic(ctx context.Context, proofState int, tactic string, timeout time.Duration) (TacticResult, error) {
	if err := s.usable(); err != nil {
		return TacticResult{}, err
	}
	if timeout <= 0 {
		timeout = s.c.opts.Timeout
	}
	t0 := time.Now()
	s.c.stats.tactics.Add(1)
	a, err := s.c.send(ctx, s.w, replTactic{Tactic: tactic, ProofState: proofState}, timeout)
	if err != nil {
		return TacticResult{}, s.fail(err)
	}
	if a.Message != nil && a.ProofState == nil {
		return TacticResult{}, &REPLError{Message: *a.Message}
	}
	if a.ProofState == nil {
		return TacticResult{}, s.fail(&WorkerFault{Kind: FaultGarbage, Detail: "tactic answer without \"proofState\""})
	}
	return TacticResult{ProofState: *a.ProofState, Goals: a.Goals, Messages: a.Messages, Sorries: a.Sorries,
		Traces: a.Traces, ProofStatus: a.ProofStatus, Time: time.Since(t0)}, nil
}

// Close gives the worker back to the pool (recycling it if it is due).
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.c.opts.Recycle > 0 && s.w.served >= s.c.opts.Recycle {
		s.c.stats.recycles.Add(1)
		s.c.kill(s.w)
	}
	s.c.release(s.w)
}
