package lean

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// REPL is the Checker of a pool of Lean REPL processes
// (leanprover-community/repl), each started from Options.REPL in
// Options.REPLDir. Each worker elaborates each distinct header once — the
// import block as {"cmd": imports}, the rest of the header on top of it —
// and checks every snippet with that header as {"cmd": code, "env": n}, so
// `import Mathlib` is paid once per worker, not once per snippet.
//
// A worker that times out, dies (crash, RLIMIT_AS from --repl-mem), prints
// something that is not an answer, or forgets an environment is killed with
// its whole process group; the next command starts a fresh process and
// imports its headers again on first use. The snippet is retried once on
// the fresh process (unless Snippet.NoRetry) and then reported with Error
// saying why. A worker that has served Options.Recycle snippets is
// restarted the same way, before it grows too big.
//
// Callers beyond the pool's size queue (FIFO); Result.Wait is the time a
// snippet waited for a worker. A free worker that already holds the
// snippet's header is preferred. REPL is safe for concurrent use; Close (or
// cancelling the ctx given to Open) kills every process.
type REPL struct {
	opts Options
	argv []string

	mu      sync.Mutex
	free    []*worker
	waiters []*waiter
	procs   map[*replProc]bool
	closed  bool
	stop    func() bool

	stats replStats
}

type worker struct {
	id     int
	proc   *replProc
	envs   map[string]int // header text → env id on proc; -1: header has errors
	served int            // snippets checked on proc
}

type waiter struct{ ch chan *worker }

// ErrClosed is returned by a Checker used after Close.
var ErrClosed = errors.New("lean checker closed")

// REPLStats counts what the pool did, for logs and tests.
type REPLStats struct {
	Starts, Kills, Recycles, Retries         int64
	Timeouts, Crashes, Garbage, MemoryFaults int64
	HeaderCommands, SnippetCommands, Tactics int64
}

type replStats struct {
	starts, kills, recycles, retries         atomic.Int64
	timeouts, crashes, garbage, memoryFaults atomic.Int64
	headerCommands, snippetCommands, tactics atomic.Int64
}

// Stats returns the pool's counters so far.
func (c *REPL) Stats() REPLStats {
	s := &c.stats
	return REPLStats{s.starts.Load(), s.kills.Load(), s.recycles.Load(), s.retries.Load(),
		s.timeouts.Load(), s.crashes.Load(), s.garbage.Load(), s.memoryFaults.Load(),
		s.headerCommands.Load(), s.snippetCommands.Load(), s.tactics.Load()}
}

// newREPL makes the pool; processes start on first use.
func newREPL(o Options) (*REPL, error) {
	argv := strings.Fields(o.REPL)
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: --repl is empty", ErrBadOptions)
	}
	c := &REPL{opts: o, argv: argv, procs: map[*replProc]bool{}}
	for i := 0; i < o.Workers; i++ {
		c.free = append(c.free, &worker{id: i})
	}
	return c, nil
}

// Backend implements Checker.
func (c *REPL) Backend() string { return "repl" }

func (c *REPL) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// Close kills every worker process. Checks in flight return ErrClosed.
func (c *REPL) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	procs := make([]*replProc, 0, len(c.procs))
	for p := range c.procs {
		procs = append(procs, p)
	}
	for _, w := range c.waiters {
		close(w.ch)
	}
	c.waiters = nil
	stop := c.stop
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.kill() }()
	}
	wg.Wait()
	return nil
}

// acquire takes a worker for the caller's exclusive use, preferring a live
// one that already holds header; it queues when all are busy.
func (c *REPL) acquire(ctx context.Context, header string) (*worker, time.Duration, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, 0, ErrClosed
	}
	if n := len(c.free); n > 0 {
		best, score := 0, -1
		for i, w := range c.free {
			s := 0
			if w.proc != nil {
				s = 1
				if _, ok := w.envs[header]; ok {
					s = 2
				}
			}
			if s > score {
				best, score = i, s
			}
		}
		w := c.free[best]
		c.free = append(c.free[:best], c.free[best+1:]...)
		c.mu.Unlock()
		return w, 0, nil
	}
	wt := &waiter{ch: make(chan *worker, 1)}
	c.waiters = append(c.waiters, wt)
	c.mu.Unlock()
	t0 := time.Now()
	select {
	case w, ok := <-wt.ch:
		if !ok {
			return nil, time.Since(t0), ErrClosed
		}
		return w, time.Since(t0), nil
	case <-ctx.Done():
		c.mu.Lock()
		for i, x := range c.waiters {
			if x == wt {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
		select { // handed a worker just before we left the queue
		case w, ok := <-wt.ch:
			if ok && w != nil {
				c.release(w)
			}
		default:
		}
		return nil, time.Since(t0), ctx.Err()
	}
}

// release gives the worker to the longest waiter, or back to the pool.
func (c *REPL) release(w *worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if len(c.waiters) > 0 {
		wt := c.waiters[0]
		c.waiters = c.waiters[1:]
		wt.ch <- w
		return
	}
	c.free = append(c.free, w)
}

// start gives w a fresh process.
func (c *REPL) start(w *worker) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.mu.Unlock()
	p, err := startProc(c.argv, c.opts.REPLDir, c.opts.MemLimitMB)
	if err != nil {
		return c.unavailable(err.Error())
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		p.kill()
		return ErrClosed
	}
	c.procs[p] = true
	c.mu.Unlock()
	c.stats.starts.Add(1)
	c.logf("lean: REPL worker %d started (pid %d): %s", w.id, p.pid, c.opts.REPL)
	w.proc, w.envs, w.served = p, map[string]int{}, 0
	return nil
}

// kill ends w's process; the next use starts a new one.
func (c *REPL) kill(w *worker) {
	if w.proc == nil {
		return
	}
	p := w.proc
	w.proc, w.envs, w.served = nil, nil, 0
	p.kill()
	c.mu.Lock()
	delete(c.procs, p)
	c.mu.Unlock()
	c.stats.kills.Add(1)
}

func (c *REPL) countFault(f *WorkerFault) {
	switch f.Kind {
	case FaultTimeout:
		c.stats.timeouts.Add(1)
	case FaultGarbage:
		c.stats.garbage.Add(1)
	case FaultMemory:
		c.stats.memoryFaults.Add(1)
	default:
		c.stats.crashes.Add(1)
	}
}

// unavailable is the error of a REPL command that cannot serve at all.
func (c *REPL) unavailable(detail string) error {
	dir := c.opts.REPLDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	detail = strings.TrimPrefix(detail, ErrUnavailable.Error()+": ")
	return fmt.Errorf("%w: the REPL command %q (run in %s) does not work: %s\n"+
		"  Build the Lean REPL (git clone https://github.com/leanprover-community/repl; cd repl; lake build) with the\n"+
		"  toolchain of your project, then point --repl at it from the project folder, e.g.\n"+
		"  --repl \"lake env /path/to/repl/.lake/build/bin/repl\" --repl-dir /path/to/your/mathlib/project",
		ErrUnavailable, c.opts.REPL, dir, detail)
}

// Check implements Checker: the snippets run in parallel on the pool.
func (c *REPL) Check(ctx context.Context, snippets []Snippet) ([]Result, error) {
	if len(snippets) == 1 {
		r, err := c.checkOne(ctx, snippets[0])
		return []Result{r}, err
	}
	return checkEach(ctx, snippets, func(s Snippet) (Result, error) { return c.checkOne(ctx, s) })
}

func (c *REPL) timeout(s Snippet) time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return c.opts.Timeout
}

// checkOne checks one snippet, retrying once on a fresh process.
func (c *REPL) checkOne(ctx context.Context, s Snippet) (Result, error) {
	if err := ctx.Err(); err != nil { // do not sacrifice a worker to a dead caller
		return Result{ID: s.ID, Backend: "repl", Error: "cancelled: " + err.Error()}, err
	}
	w, wait, err := c.acquire(ctx, s.Header)
	if err != nil {
		return Result{ID: s.ID, Backend: "repl", Wait: wait, Error: err.Error()}, err
	}
	defer c.release(w)
	t0 := time.Now()
	res, err := c.attempt(ctx, w, s)
	var f *WorkerFault
	if errors.As(err, &f) {
		c.countFault(f)
		c.kill(w)
		if !s.NoRetry {
			c.stats.retries.Add(1)
			c.logf("lean: REPL worker %d: %v; restarted, retrying %q", w.id, f, s.ID)
			first := f
			res, err = c.attempt(ctx, w, s)
			if errors.As(err, &f) {
				c.countFault(f)
				c.kill(w)
				if first.Fresh && f.Fresh && f.Kind != FaultTimeout {
					err = c.unavailable(f.Error())
					res = Result{ID: s.ID, Backend: "repl", Error: err.Error()}
					return res, err
				}
			}
		}
	}
	res.ID, res.Backend, res.Wait, res.Time = s.ID, "repl", wait, time.Since(t0)
	switch {
	case err == nil:
	case errors.As(err, &f):
		res.Error = f.Error()
		res.judge()
		c.logf("lean: REPL worker %d: %v; %q reported failed", w.id, f, s.ID)
		err = nil
	case ctx.Err() != nil:
		c.kill(w) // the REPL cannot be interrupted mid-command
		res.Error = "cancelled: " + ctx.Err().Error()
		res.judge()
		return res, ctx.Err()
	default: // ErrClosed, unavailable
		res.Error = err.Error()
		res.judge()
		return res, err
	}
	if c.opts.Recycle > 0 && w.served >= c.opts.Recycle {
		c.stats.recycles.Add(1)
		c.logf("lean: REPL worker %d served %d snippets; recycling", w.id, w.served)
		c.kill(w)
	}
	return res, nil
}

// send runs one request on w's process, starting it if needed.
func (c *REPL) send(ctx context.Context, w *worker, v any, timeout time.Duration) (replAnswer, error) {
	if w.proc == nil {
		if err := c.start(w); err != nil {
			return replAnswer{}, err
		}
	}
	req, err := encodeRequest(v)
	if err != nil {
		return replAnswer{}, err
	}
	fresh := !w.proc.answered
	a, err := w.proc.roundTrip(ctx, req, timeout, fresh)
	if err == nil {
		w.proc.answered = true
	}
	return a, err
}

// sendOwn is send for a command on an environment the pool itself created:
// "Unknown environment" then means the process lost its state, a fault.
func (c *REPL) sendOwn(ctx context.Context, w *worker, cmd replCommand, timeout time.Duration) (replAnswer, error) {
	a, err := c.send(ctx, w, cmd, timeout)
	if err == nil && cmd.Env != nil && a.Message != nil && a.Env == nil && strings.HasPrefix(*a.Message, "Unknown environment") {
		return a, &WorkerFault{Kind: FaultState, Detail: *a.Message}
	}
	return a, err
}

func (c *REPL) importTimeout() time.Duration { return c.opts.importTimeout() }

// headerEnv returns the environment of header on w, elaborating it the
// first time: imports as a fresh command, the rest on top. ok is false when
// the header itself does not elaborate cleanly (the caller then sends header
// and code together, so Lean's messages say what is wrong with it).
func (c *REPL) headerEnv(ctx context.Context, w *worker, header string) (env int, ok bool, err error) {
	if w.proc != nil {
		if e, hit := w.envs[header]; hit {
			return e, e >= 0, nil
		}
	}
	imports, rest, _ := SplitImports(header)
	key := "\x00imports\x00" + imports
	var ie int
	var hit bool
	if w.proc != nil {
		ie, hit = w.envs[key]
	}
	if !hit {
		c.stats.headerCommands.Add(1)
		a, err := c.send(ctx, w, replCommand{Cmd: imports}, c.importTimeout())
		if err != nil {
			return 0, false, err
		}
		r, err := commandResult(a)
		if err != nil || !r.Pass {
			w.envs[key], w.envs[header] = -1, -1
			return -1, false, nil
		}
		ie = *r.Env
		w.envs[key] = ie
	}
	if ie < 0 {
		w.envs[header] = -1
		return -1, false, nil
	}
	if strings.TrimSpace(mask(rest)) == "" {
		w.envs[header] = ie
		return ie, true, nil
	}
	c.stats.headerCommands.Add(1)
	a, err := c.sendOwn(ctx, w, replCommand{Cmd: rest, Env: &ie}, c.importTimeout())
	if err != nil {
		return 0, false, err
	}
	r, err := commandResult(a)
	if err != nil || !r.Pass {
		w.envs[header] = -1
		return -1, false, nil
	}
	w.envs[header] = *r.Env
	return *r.Env, true, nil
}

// attempt checks s once on w.
func (c *REPL) attempt(ctx context.Context, w *worker, s Snippet) (Result, error) {
	header, code, shift := s.Header, s.Code, 0
	if header == "" {
		if imp, rest, n := SplitImports(code); imp != "" {
			header, code, shift = imp, rest, n
		}
	}
	env, ok, err := c.headerEnv(ctx, w, header)
	if err != nil {
		return Result{}, err
	}
	cmd := replCommand{Cmd: code, Env: &env}
	line0 := 1
	if !ok {
		// The header has errors: elaborate it with the code, so the result
		// carries Lean's messages about it.
		cmd = replCommand{Cmd: header + "\n" + code}
		if shift == 0 {
			line0 = lines(header) + 1
		}
		shift = 0
	}
	c.stats.snippetCommands.Add(1)
	w.served++
	a, err := c.sendOwn(ctx, w, cmd, c.timeout(s))
	if err != nil {
		return Result{}, err
	}
	r, err := commandResult(a)
	if err != nil {
		var re *REPLError
		if errors.As(err, &re) {
			r = Result{Error: re.Error()}
			r.judge()
			return r, nil
		}
		return Result{}, &WorkerFault{Kind: FaultGarbage, Detail: err.Error()}
	}
	r.shiftLines(shift)
	r.CodeLine0 = line0
	return r, nil
}
