package lean

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Child processes. Every REPL worker (and every one-shot `lean --json`) runs
// in its own process group (Setpgid), so killing -pgid takes the command and
// everything it started (`lake env` starts the REPL as its child) in one
// signal; Pdeathsig kills the direct child if driftkit itself dies, and the
// REPL below it then reads end of input and exits. The memory limit is set
// by a /bin/sh trampoline, `ulimit -v KiB && exec "$@"`, so RLIMIT_AS holds
// from the first instruction of the command and is inherited by all it
// starts — no window in which a grandchild escapes it, as prlimit(2) on the
// child's pid right after start would leave.

// memArgv wraps argv in the RLIMIT_AS trampoline (memMB <= 0: no limit).
func memArgv(argv []string, memMB int) []string {
	if memMB <= 0 {
		return argv
	}
	kib := strconv.Itoa(memMB * 1024)
	return append([]string{"/bin/sh", "-c", `ulimit -v ` + kib + ` && exec "$@"`, "driftkit-lean"}, argv...)
}

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group of pid (and pid itself, should it have
// left the group).
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// tail keeps the last bytes written to it (a child's stderr), so a crash can
// be reported with what the child said last.
type tail struct {
	mu  sync.Mutex
	buf []byte
	n   int64
}

const tailSize = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n += int64(len(p))
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailSize {
		b = b[len(b)-tailSize:]
	}
	return strings.TrimSpace(string(b))
}

// lastLines is the end of s, at most n lines, for error messages.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func looksOOM(stderr string) bool {
	s := strings.ToLower(stderr)
	return strings.Contains(s, "out of memory") || strings.Contains(s, "bad_alloc") ||
		strings.Contains(s, "cannot allocate memory")
}

// replProc is one running REPL process.
type replProc struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File
	stderr *tail
	memMB  int

	answers chan answerOrErr // from the reader goroutine
	dead    chan struct{}    // closed by kill: the reader stops sending
	exited  chan struct{}    // closed when the process has been reaped
	waitErr error
	once    sync.Once
	started time.Time
	// answered is set once the process has answered a request (only the
	// goroutine holding the worker touches it).
	answered bool
}

type answerOrErr struct {
	b   []byte
	err error
}

// startProc starts argv in dir. The error of a command that cannot be
// started at all (not found, bad folder) wraps ErrUnavailable.
func startProc(argv []string, dir string, memMB int) (*replProc, error) {
	full := memArgv(argv, memMB)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = groupAttr()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &replProc{cmd: cmd, stdin: inW, stderr: &tail{}, memMB: memMB,
		answers: make(chan answerOrErr), dead: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr // os/exec copies it in a goroutine; Wait waits for it
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("%w: cannot start %q: %v", ErrUnavailable, strings.Join(argv, " "), err)
	}
	inR.Close()
	outW.Close()
	p.pid = cmd.Process.Pid
	p.started = time.Now()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go p.read(outR)
	return p, nil
}

func (p *replProc) read(out *os.File) {
	defer out.Close()
	ar := newAnswerReader(out)
	for {
		b, err := ar.next()
		item := answerOrErr{err: err}
		if err == nil {
			item.b = append([]byte(nil), b...)
		}
		select {
		case p.answers <- item:
		case <-p.dead:
			return
		}
		if err != nil {
			return
		}
	}
}

// kill ends the process group and reaps the process. Safe to call from any
// goroutine, any number of times.
func (p *replProc) kill() {
	p.once.Do(func() {
		close(p.dead)
		killGroup(p.pid)
		p.stdin.Close()
	})
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
}

// Fault kinds: why a worker was killed.
const (
	FaultTimeout = "timeout"
	FaultCrash   = "crash"
	FaultGarbage = "garbage"
	FaultMemory  = "memory"
	FaultState   = "lost state" // the REPL does not know an env we gave it
)

// ErrWorkerFault is wrapped by every WorkerFault.
var ErrWorkerFault = errors.New("REPL worker failed")

// WorkerFault says why a REPL worker was killed.
type WorkerFault struct {
	Kind   string
	Detail string
	// Fresh is true when the process had not answered anything yet: a
	// worker that cannot even start (wrong command, wrong folder).
	Fresh bool
}

func (f *WorkerFault) Error() string {
	return fmt.Sprintf("REPL worker %s: %s", f.Kind, f.Detail)
}

func (f *WorkerFault) Unwrap() error { return ErrWorkerFault }

// roundTrip sends one request and waits for its answer, at most timeout.
// Errors: ctx's error (the caller kills the process), or a *WorkerFault.
func (p *replProc) roundTrip(ctx context.Context, req []byte, timeout time.Duration, fresh bool) (replAnswer, error) {
	deadline := time.Now().Add(timeout)
	_ = p.stdin.SetWriteDeadline(deadline)
	if _, err := p.stdin.Write(req); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return replAnswer{}, &WorkerFault{Kind: FaultTimeout, Detail: fmt.Sprintf("did not read its input within %v", timeout)}
		}
		return replAnswer{}, p.exitFault(fmt.Sprintf("closed its input (%v)", err), fresh)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return replAnswer{}, ctx.Err()
	case <-timer.C:
		return replAnswer{}, &WorkerFault{Kind: FaultTimeout, Detail: fmt.Sprintf("no answer within %v", timeout), Fresh: fresh}
	case <-p.dead: // killed by Close while we waited
		return replAnswer{}, &WorkerFault{Kind: FaultCrash, Detail: "killed (checker closed)"}
	case item := <-p.answers:
		if item.err != nil {
			var g *GarbageError
			if errors.As(item.err, &g) {
				return replAnswer{}, &WorkerFault{Kind: FaultGarbage, Detail: item.err.Error(), Fresh: fresh}
			}
			what := "exited without answering"
			if errors.Is(item.err, ErrPartialAnswer) {
				what = "exited in the middle of an answer"
			} else if item.err != io.EOF {
				what = "output failed: " + item.err.Error()
			}
			return replAnswer{}, p.exitFault(what, fresh)
		}
		a, err := parseAnswer(item.b)
		if err != nil {
			return replAnswer{}, &WorkerFault{Kind: FaultGarbage, Detail: err.Error(), Fresh: fresh}
		}
		return a, nil
	}
}

// exitFault describes a worker that died: its exit status and the end of
// its stderr; a memory fault when it ran out of memory under --repl-mem.
func (p *replProc) exitFault(what string, fresh bool) *WorkerFault {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
	status := "still running"
	select {
	case <-p.exited:
		if p.waitErr != nil {
			status = p.waitErr.Error()
		} else {
			status = "exit status 0"
		}
	default:
	}
	stderr := p.stderr.String()
	f := &WorkerFault{Kind: FaultCrash, Detail: what + " (" + status + ")", Fresh: fresh}
	if p.memMB > 0 && looksOOM(stderr) {
		f.Kind = FaultMemory
		f.Detail = fmt.Sprintf("ran out of memory under the limit --repl-mem %d MiB (%s)", p.memMB, status)
	}
	if stderr != "" {
		f.Detail += ": " + lastLines(stderr, 6)
	}
	return f
}
