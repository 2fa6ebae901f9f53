package lean

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// OneShot is the Checker that runs `<Lean> --json FILE` once per snippet
// (Options.Lean, e.g. "lake env lean", in Options.LeanDir): the snippet,
// Header and Code joined, is written to a temporary file in the project
// folder, and Lean prints one JSON message per line:
//
//	{"severity":"error","pos":{"line":3,"column":2},"endPos":{…},"data":"…",
//	 "fileName":"…","caption":"","keepFullRange":false,"kind":"…"}
//
// ("information" is reported as "info", as the REPL says). Lean exits 0
// without errors and 1 with; any other end (signal, other status, no JSON
// for a failure) is Error. There is no `sorries` list: Complete relies on
// the "declaration uses 'sorry'" warning. Every snippet pays the imports;
// Workers runs that many at once. OneShot is safe for concurrent use.
type OneShot struct {
	opts Options
	argv []string
	sem  chan struct{}

	mu     sync.Mutex
	procs  map[int]bool // pids running
	closed bool
	stop   func() bool
}

func newOneShot(o Options) (*OneShot, error) {
	argv := strings.Fields(o.Lean)
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: --lean is empty", ErrBadOptions)
	}
	return &OneShot{opts: o, argv: argv, sem: make(chan struct{}, o.Workers), procs: map[int]bool{}}, nil
}

// Backend implements Checker.
func (l *OneShot) Backend() string { return "lean" }

// Close kills running checks.
func (l *OneShot) Close() error {
	l.mu.Lock()
	l.closed = true
	for pid := range l.procs {
		killGroup(pid)
	}
	stop := l.stop
	l.mu.Unlock()
	if stop != nil {
		stop()
	}
	return nil
}

func (l *OneShot) unavailable(detail string) error {
	dir := l.opts.LeanDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return fmt.Errorf("%w: the Lean command %q (run in %s as '%s --version') does not work: %s\n"+
		"  Install Lean with elan (https://github.com/leanprover/elan), then run it from your Lean project:\n"+
		"  --lean \"lake env lean\" --lean-dir /path/to/your/mathlib/project",
		ErrUnavailable, l.opts.Lean, dir, l.opts.Lean, detail)
}

// Check implements Checker.
func (l *OneShot) Check(ctx context.Context, snippets []Snippet) ([]Result, error) {
	return checkEach(ctx, snippets, func(s Snippet) (Result, error) {
		t0 := time.Now()
		select {
		case l.sem <- struct{}{}:
		case <-ctx.Done():
			return Result{ID: s.ID, Backend: "lean", Error: "cancelled: " + ctx.Err().Error()}, nil
		}
		defer func() { <-l.sem }()
		wait := time.Since(t0)
		r, err := l.checkOne(ctx, s)
		r.Wait = wait
		return r, err
	})
}

func (l *OneShot) checkOne(ctx context.Context, s Snippet) (Result, error) {
	text, line0 := joinHeader(s)
	res := Result{ID: s.ID, Backend: "lean", CodeLine0: line0}
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return res, ErrClosed
	}
	dir := l.opts.LeanDir
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "driftkit_check_*.lean")
	if err != nil {
		res.Error = fmt.Sprintf("cannot write the snippet into %s: %v", dir, err)
		return res, nil
	}
	name := f.Name()
	defer os.Remove(name)
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		res.Error = err.Error()
		return res, nil
	}
	if err := f.Close(); err != nil {
		res.Error = err.Error()
		return res, nil
	}
	abs, _ := filepath.Abs(name)
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = l.opts.Timeout
	}
	t0 := time.Now()
	argv := append(append([]string(nil), l.argv...), "--json", abs)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = groupAttr()
	cmd.WaitDelay = 2 * time.Second
	stdout := &limitedBuffer{max: 256 << 20}
	stderr := &tail{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		err = l.unavailable(err.Error())
		res.Error = err.Error()
		return res, err
	}
	pid := cmd.Process.Pid
	l.mu.Lock()
	l.procs[pid] = true
	l.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		killGroup(pid)
		<-done
		werr = errTimedOut
	case <-ctx.Done():
		killGroup(pid)
		<-done
		werr = ctx.Err()
	}
	killGroup(pid) // anything the command left behind in its group
	l.mu.Lock()
	delete(l.procs, pid)
	l.mu.Unlock()
	res.Time = time.Since(t0)
	if ctx.Err() != nil {
		res.Error = "cancelled: " + ctx.Err().Error()
		return res, ctx.Err()
	}
	if werr == errTimedOut {
		res.Error = fmt.Sprintf("lean: no result within %v", timeout)
		return res, nil
	}
	msgs, stray := parseLeanJSON(stdout.Bytes())
	res.Messages = msgs
	status := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = -1
		} else {
			status = ee.ExitCode()
		}
	} else if werr != nil {
		status = -1
	}
	res.judge()
	switch {
	case status == 0 || (status == 1 && hasError(msgs)):
	default:
		detail := lastLines(stderr.String()+"\n"+strings.Join(stray, "\n"), 6)
		res.Error = fmt.Sprintf("lean exited with %v without error messages: %s", werr, detail)
		res.judge()
	}
	if stdout.truncated && res.Error == "" {
		res.Error = "lean: output too long (over 256 MiB), truncated"
		res.judge()
	}
	return res, nil
}

var errTimedOut = errors.New("timed out")

// leanMessage is one line of `lean --json`: a Lean SerialMessage.
type leanMessage struct {
	FileName string `json:"fileName"`
	Pos      *Pos   `json:"pos"`
	EndPos   *Pos   `json:"endPos"`
	Severity string `json:"severity"`
	Caption  string `json:"caption"`
	Data     string `json:"data"`
}

// parseLeanJSON reads `lean --json` output: JSON message lines, and other
// lines (which Lean should not print; returned for error reports).
func parseLeanJSON(out []byte) (msgs []Message, stray []string) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m leanMessage
		if line[0] != '{' || json.Unmarshal(line, &m) != nil || m.Severity == "" || m.Pos == nil {
			stray = append(stray, clip(string(line), 300))
			continue
		}
		msg := Message{Severity: normSeverity(m.Severity), Pos: *m.Pos, EndPos: m.EndPos, Data: m.Data}
		if m.Caption != "" && !strings.HasPrefix(m.Data, m.Caption) {
			msg.Data = m.Caption + ":\n" + m.Data
		}
		msgs = append(msgs, msg)
	}
	return msgs, stray
}
