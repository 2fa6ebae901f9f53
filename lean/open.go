package lean

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Open starts the backend the options choose — exactly one of REPL, Kimina
// and Lean — and checks that it works: the REPL command must start and exit
// cleanly on empty input, the kimina server must answer /health, `<Lean>
// --version` must succeed. Errors wrap ErrBadOptions (none or several
// backends, impossible values: a usage error) or ErrUnavailable (the
// backend does not work: the message names the command or URL and what to
// install). Cancelling ctx closes the Checker, killing its processes.
func Open(ctx context.Context, o Options) (Checker, error) {
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	var c Checker
	switch {
	case o.REPL != "":
		r, err := newREPL(o)
		if err != nil {
			return nil, err
		}
		if err := probe(ctx, r.argv, o.REPLDir, o.MemLimitMB, nil, o.importTimeout()); err != nil {
			return nil, r.unavailable(err.Error())
		}
		c = r
		stop := context.AfterFunc(ctx, func() { r.Close() })
		r.mu.Lock()
		r.stop = stop
		r.mu.Unlock()
	case o.Kimina != "":
		k, err := newKimina(o)
		if err != nil {
			return nil, err
		}
		if err := k.health(ctx); err != nil {
			return nil, err
		}
		c = k
	default:
		l, err := newOneShot(o)
		if err != nil {
			return nil, err
		}
		if err := probe(ctx, l.argv, o.LeanDir, 0, []string{"--version"}, 2*time.Minute); err != nil {
			return nil, l.unavailable(err.Error())
		}
		c = l
		stop := context.AfterFunc(ctx, func() { l.Close() })
		l.mu.Lock()
		l.stop = stop
		l.mu.Unlock()
	}
	return c, nil
}

// normalized validates the options and fills the defaults.
func (o Options) normalized() (Options, error) {
	var chosen []string
	if o.REPL != "" {
		chosen = append(chosen, "--repl")
	}
	if o.Kimina != "" {
		chosen = append(chosen, "--kimina")
	}
	if o.Lean != "" {
		chosen = append(chosen, "--lean")
	}
	switch {
	case len(chosen) == 0:
		return o, fmt.Errorf("%w: no Lean backend: give --repl CMD (a Lean REPL), --kimina URL (a kimina-lean-server) or --lean CMD (e.g. \"lake env lean\")", ErrBadOptions)
	case len(chosen) > 1:
		return o, fmt.Errorf("%w: %s: choose one Lean backend", ErrBadOptions, strings.Join(chosen, " and "))
	}
	if o.Workers < 0 || o.MemLimitMB < 0 || o.Recycle < 0 || o.Timeout < 0 || o.KiminaBatch < 0 || o.KiminaParallel < 0 || o.KiminaRetries < 0 {
		return o, fmt.Errorf("%w: --repl-workers, --repl-mem, --repl-recycle and --lean-timeout must not be negative", ErrBadOptions)
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.MemLimitMB > 0 && o.MemLimitMB < 64 {
		return o, fmt.Errorf("%w: --repl-mem %d MiB is too small for any Lean (it counts address space, not RSS; Mathlib wants several GiB)", ErrBadOptions, o.MemLimitMB)
	}
	if o.KiminaBatch == 0 {
		o.KiminaBatch = 8
	}
	if o.KiminaParallel == 0 {
		o.KiminaParallel = 4
	}
	if o.KiminaRetries == 0 {
		o.KiminaRetries = 4
	}
	if o.KiminaBackoff <= 0 {
		o.KiminaBackoff = time.Second
	}
	for _, d := range []struct{ flag, dir string }{{"--repl-dir", o.REPLDir}, {"--lean-dir", o.LeanDir}} {
		if d.dir == "" {
			continue
		}
		if fi, err := os.Stat(d.dir); err != nil || !fi.IsDir() {
			return o, fmt.Errorf("%w: %s %s: not a folder", ErrBadOptions, d.flag, d.dir)
		}
	}
	if o.Kimina != "" {
		u, err := url.Parse(o.Kimina)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, fmt.Errorf("%w: --kimina %q: want an http(s) URL such as http://localhost:8000", ErrBadOptions, o.Kimina)
		}
	}
	return o, nil
}

func (o Options) importTimeout() time.Duration {
	if o.ImportTimeout > 0 {
		return o.ImportTimeout
	}
	return max(o.Timeout, 10*time.Minute)
}

// probe runs argv+extra in dir with empty input and wants exit status 0.
func probe(ctx context.Context, argv []string, dir string, memMB int, extra []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := memArgv(append(append([]string(nil), argv...), extra...), memMB)
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error { killGroup(cmd.Process.Pid); return nil }
	cmd.WaitDelay = 2 * time.Second
	var out tail
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	msg := err.Error()
	if errors.As(err, &ee) || ctx.Err() != nil {
		if ctx.Err() == context.DeadlineExceeded {
			msg = fmt.Sprintf("did not exit within %v on empty input", timeout)
		}
		if s := out.String(); s != "" {
			msg += ": " + lastLines(s, 8)
		}
	}
	if cmd.Process != nil {
		killGroup(cmd.Process.Pid)
	}
	return errors.New(strings.TrimSpace(msg))
}

// limitedBuffer keeps at most max bytes (a child's stdout).
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
