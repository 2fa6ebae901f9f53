// Package lean talks to a Lean 4 verifier: the Lean REPL
// (leanprover-community/repl) over stdin/stdout, kimina-lean-server over
// HTTP, or a one-shot `lean --json FILE`. The DRIFT runner (typecheck,
// BEq+), the ToMap runner (Lean-gated execution) and the server use one
// interface, Checker, and never know which backend answered.
package lean

import (
	"context"
	"errors"
	"flag"
	"sync"
	"time"
)

// Snippet is one piece of Lean to check.
type Snippet struct {
	// ID names the snippet in results and logs (a benchmark item, a proof
	// unit); it need not be unique.
	ID string `json:"id"`
	// Header is the part every snippet of a project shares (imports,
	// options, opens). Backends that can reuse an elaborated environment
	// elaborate each distinct header once and check Code on top of it;
	// others prepend it. "" means no header.
	Header string `json:"header,omitempty"`
	// Code is the Lean text checked on top of Header.
	Code string `json:"code"`
	// Timeout bounds this snippet's check; 0 means the checker's default.
	Timeout time.Duration `json:"-"`
	// NoRetry reports a timed-out or crashed check at once instead of
	// retrying it once on a fresh worker (BEq+ uses it for proof attempts,
	// whose timeouts are an answer, not an accident).
	NoRetry bool `json:"-"`
}

// Pos is a position in the checked text (Line 1-based, Column 0-based, as
// Lean reports them). Positions are relative to Code when the backend
// elaborated Header separately, and to Header+"\n"+Code otherwise;
// Result.CodeLine0 tells which.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Message is one message Lean printed.
type Message struct {
	Severity string `json:"severity"` // "error", "warning", "info"
	Pos      Pos    `json:"pos"`
	EndPos   *Pos   `json:"endPos,omitempty"`
	Data     string `json:"data"`
}

// Sorry is one `sorry` Lean found, with the goal it stands for.
type Sorry struct {
	Pos        Pos    `json:"pos"`
	EndPos     *Pos   `json:"endPos,omitempty"`
	Goal       string `json:"goal"`
	ProofState *int   `json:"proofState,omitempty"`
}

// Result is the outcome of checking one snippet.
type Result struct {
	ID string `json:"id"`
	// Pass is true when Lean answered and printed no error message.
	Pass bool `json:"pass"`
	// Complete is Pass with no sorry (no `declaration uses 'sorry'`).
	Complete bool      `json:"complete"`
	Messages []Message `json:"messages,omitempty"`
	Sorries  []Sorry   `json:"sorries,omitempty"`
	// Env is the REPL environment id of the checked code, when the backend
	// has environments (a prover can continue from it on the same worker).
	Env *int `json:"env,omitempty"`
	// CodeLine0 is the line of Code's first line in the positions above
	// (1 when the header was elaborated separately).
	CodeLine0 int `json:"code_line0,omitempty"`
	// Time is the wall time of the check, queueing excluded; Wait is the
	// time spent waiting for a free worker.
	Time time.Duration `json:"time_ns"`
	Wait time.Duration `json:"wait_ns,omitempty"`
	// Backend names who answered: "repl", "kimina", "lean".
	Backend string `json:"backend"`
	// Error, when non-empty, says the snippet could not be checked at all
	// (timeout, crashed worker, unreachable server, garbage answer) after
	// the backend's retries: Pass and Complete are then false and say
	// nothing about the Lean text.
	Error string `json:"error,omitempty"`
}

// Checked reports whether Lean actually judged the snippet (no Error).
func (r *Result) Checked() bool { return r.Error == "" }

// Checker checks snippets. Implementations are safe for concurrent use by
// any number of goroutines; a busy backend queues callers. Check returns
// one Result per snippet, in order; a snippet that cannot be checked is a
// Result with Error set, not an error of the call. Check's error is for the
// whole call: ctx cancelled, or the backend unusable (ErrUnavailable).
//
// Lifetime: a Checker owns its workers (child processes, HTTP connections)
// from construction until Close, which stops them all — no orphan process
// survives Close or a cancelled ctx of the constructor. Check must not be
// called after Close.
type Checker interface {
	Check(ctx context.Context, snippets []Snippet) ([]Result, error)
	// Backend names the backend ("repl", "kimina", "lean") for labels.
	Backend() string
	Close() error
}

// ErrUnavailable is wrapped when a backend cannot be used at all: the REPL
// command does not start, the kimina server does not answer.
var ErrUnavailable = errors.New("lean backend unavailable")

// ErrBadOptions is wrapped by Open when the options choose no backend or
// several, or carry an impossible value: a usage error of the command.
var ErrBadOptions = errors.New("bad Lean backend options")

// Options choose and configure a backend. Every command that checks Lean
// (`lean check`, `lean beq`, `drift`, `tomap`, `serve`) registers the same
// flags with AddFlags, so a user learns them once.
type Options struct {
	// REPL is the command that starts one Lean REPL worker, split on
	// spaces (e.g. "lake env repl" or "lake exe repl"); run in REPLDir.
	REPL    string
	REPLDir string
	// Workers is the number of REPL processes (default 1).
	Workers int
	// MemLimitMB caps each REPL worker's address space (RLIMIT_AS); 0: none.
	MemLimitMB int
	// Recycle restarts a worker after it has served this many commands
	// (0: never), bounding the REPL's memory growth.
	Recycle int
	// Kimina is the base URL of a kimina-lean-server; its API key comes
	// from KIMINA_API_KEY.
	Kimina string
	// Lean is the one-shot command ("lake env lean"), run as
	// `<Lean> --json FILE` on a temporary file in LeanDir.
	Lean    string
	LeanDir string
	// Timeout bounds one snippet's check (default 5m).
	Timeout time.Duration

	// The fields below have no flag; zero means the default.

	// ImportTimeout bounds the elaboration of one header on one REPL
	// worker (`import Mathlib` takes a while on a cold cache; default
	// max(Timeout, 10m)).
	ImportTimeout time.Duration
	// KiminaBatch is the number of snippets per /api/check request
	// (default 8) and KiminaParallel the number of requests in flight
	// (default 4).
	KiminaBatch, KiminaParallel int
	// KiminaRetries is the number of retries of one request on 429, 5xx
	// or a connection error (default 4), with exponential backoff from
	// KiminaBackoff (default 1s, capped at 30s) and Retry-After honoured.
	KiminaRetries int
	KiminaBackoff time.Duration
	// KiminaAPIKey overrides KIMINA_API_KEY.
	KiminaAPIKey string
	// Logf, when set, receives one line per worker start, restart and
	// retry (commands pass their stderr); nil is silent.
	Logf func(format string, args ...any)
}

// AddFlags registers the backend flags on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.REPL, "repl", o.REPL, "Lean REPL command, one worker per process (e.g. \"lake env repl\", run in --repl-dir)")
	fs.StringVar(&o.REPLDir, "repl-dir", o.REPLDir, "folder the REPL runs in (a Lean project with Mathlib built)")
	fs.IntVar(&o.Workers, "repl-workers", max(o.Workers, 1), "number of REPL worker processes")
	fs.IntVar(&o.MemLimitMB, "repl-mem", o.MemLimitMB, "address-space limit per REPL worker in MiB (0: none)")
	fs.IntVar(&o.Recycle, "repl-recycle", o.Recycle, "restart a REPL worker after this many commands (0: never)")
	fs.StringVar(&o.Kimina, "kimina", o.Kimina, "kimina-lean-server base URL (API key from KIMINA_API_KEY)")
	fs.StringVar(&o.Lean, "lean", o.Lean, "one-shot Lean command run as '<cmd> --json FILE' (e.g. \"lake env lean\", run in --lean-dir)")
	fs.StringVar(&o.LeanDir, "lean-dir", o.LeanDir, "folder the one-shot Lean command runs in")
	fs.DurationVar(&o.Timeout, "lean-timeout", orDuration(o.Timeout, 5*time.Minute), "timeout per snippet")
}

// Configured reports whether a backend was chosen.
func (o *Options) Configured() bool { return o.REPL != "" || o.Kimina != "" || o.Lean != "" }

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// checkEach checks every snippet with one, all at once (one bounds how many
// really run: a worker pool, a semaphore), and returns the results in order
// with ctx's error, else the first snippet's error.
func checkEach(ctx context.Context, snippets []Snippet, one func(Snippet) (Result, error)) ([]Result, error) {
	results := make([]Result, len(snippets))
	errs := make([]error, len(snippets))
	var wg sync.WaitGroup
	for i := range snippets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = one(snippets[i])
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return results, err
	}
	for _, err := range errs {
		if err != nil {
			return results, err
		}
	}
	return results, nil
}
