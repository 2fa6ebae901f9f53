package lean

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The Lean REPL protocol (leanprover-community/repl, README and
// REPL/Main.lean): the client writes one JSON object per command followed by
// a blank line — the REPL reads lines up to a blank one and joins them, so a
// command must itself contain no blank line; encoding/json writes it on one
// line. The REPL answers with `toString` of a Lean Json value, pretty-printed
// over several lines, then an empty line. An unparseable command makes the
// REPL throw and exit, so the client never sends one; end of input makes it
// exit cleanly.

// replCommand is a command-mode request: {"cmd": …} elaborates in a new
// environment (the only place `import` is allowed), {"cmd": …, "env": n} on
// top of environment n.
type replCommand struct {
	Cmd string `json:"cmd"`
	Env *int   `json:"env,omitempty"`
}

// replTactic is a tactic-mode request on a proof state a sorry reported.
type replTactic struct {
	Tactic     string `json:"tactic"`
	ProofState int    `json:"proofState"`
}

// replAnswer is any REPL response: a command response (env, messages,
// sorries), a proof-step response (proofState, goals, …) or an error
// {"message": …}.
type replAnswer struct {
	Env         *int      `json:"env"`
	Messages    []Message `json:"messages"`
	Sorries     []Sorry   `json:"sorries"`
	Message     *string   `json:"message"`
	ProofState  *int      `json:"proofState"`
	Goals       []string  `json:"goals"`
	Traces      []string  `json:"traces"`
	ProofStatus string    `json:"proofStatus"`
}

// encodeRequest renders a request as the REPL reads it: one line, then the
// blank line that ends it.
func encodeRequest(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends with "\n"
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// maxAnswer bounds one response (an infotree can be large; a stream of
// garbage without blank lines must not eat the memory).
const maxAnswer = 256 << 20

// Errors of the response stream. A worker that produces them is killed.
var (
	// ErrBadHeader: a session's header (imports, opens, definitions) does
	// not elaborate without errors, so nothing can be checked on it.
	ErrBadHeader = errors.New("lean: the header does not elaborate without errors")
	// ErrPartialAnswer: the stream ended in the middle of a response.
	ErrPartialAnswer = errors.New("REPL output ended in the middle of an answer")
	// ErrGarbage: a response that is not a JSON object.
	ErrGarbage = errors.New("REPL printed something that is not a JSON answer")
)

// GarbageError carries the start of what was printed.
type GarbageError struct {
	Text string
	Err  error // the JSON error, if any
}

func (e *GarbageError) Error() string {
	msg := fmt.Sprintf("%s: %q", ErrGarbage, clip(e.Text, 200))
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *GarbageError) Unwrap() error { return ErrGarbage }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// answerReader splits REPL output into answers. Before the first answer it
// skips lines that do not start a JSON object (`lake exe repl` may print
// build progress first); after that, such a block is garbage.
type answerReader struct {
	r       *bufio.Reader
	started bool
	buf     []byte
	// Stray counts the lines skipped before the first answer.
	Stray int
}

func newAnswerReader(r io.Reader) *answerReader {
	return &answerReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next answer block (without its terminating blank line;
// the slice is valid until the next call), io.EOF at a clean end of output,
// ErrPartialAnswer or a *GarbageError.
func (a *answerReader) next() ([]byte, error) {
	a.buf = a.buf[:0]
	for {
		line, err := a.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// a long line: gather it whole
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = a.r.ReadSlice('\n')
				long = append(long, line...)
				if len(a.buf)+len(long) > maxAnswer {
					return nil, &GarbageError{Text: string(long[:200]), Err: errors.New("answer too long")}
				}
			}
			line = long
		}
		blankLine := len(bytes.TrimSpace(line)) == 0
		switch {
		case len(a.buf) == 0 && blankLine:
			// between answers
		case len(a.buf) == 0 && !a.started && !startsObject(line):
			a.Stray++
		case blankLine:
			a.started = true
			if !startsObject(a.buf) {
				return nil, &GarbageError{Text: string(a.buf)}
			}
			return a.buf, nil
		default:
			if len(a.buf)+len(line) > maxAnswer {
				return nil, &GarbageError{Text: string(a.buf[:200]), Err: errors.New("answer too long")}
			}
			a.buf = append(a.buf, line...)
		}
		if err != nil {
			if err != io.EOF {
				return nil, err
			}
			if len(a.buf) == 0 {
				return nil, io.EOF
			}
			// An answer without its blank line: complete JSON still counts
			// (some REPL builds may not flush the last newline), else partial.
			if startsObject(a.buf) && json.Valid(a.buf) {
				a.started = true
				return a.buf, nil
			}
			return nil, fmt.Errorf("%w: %q", ErrPartialAnswer, clip(string(a.buf), 200))
		}
	}
}

func startsObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// parseAnswer decodes one answer block.
func parseAnswer(b []byte) (replAnswer, error) {
	var a replAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return a, &GarbageError{Text: string(b), Err: err}
	}
	for i := range a.Messages {
		a.Messages[i].Severity = normSeverity(a.Messages[i].Severity)
	}
	return a, nil
}

// REPLError is an error answer {"message": …} of the REPL: an unknown
// environment or proof state, or an exception while elaborating.
type REPLError struct{ Message string }

func (e *REPLError) Error() string { return "REPL: " + e.Message }

// commandResult turns a command answer into a Result. An answer with
// neither env nor message breaks the protocol.
func commandResult(a replAnswer) (Result, error) {
	if a.Message != nil && a.Env == nil {
		return Result{}, &REPLError{Message: *a.Message}
	}
	if a.Env == nil {
		return Result{}, &GarbageError{Text: "answer without \"env\" or \"message\""}
	}
	r := Result{Messages: a.Messages, Sorries: a.Sorries, Env: a.Env, CodeLine0: 1, Backend: "repl"}
	r.judge()
	return r, nil
}
