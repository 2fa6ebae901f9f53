// Command fakerepl stands in for the Lean REPL (leanprover-community/repl)
// and for `lean --json FILE` in tests, where no Lean toolchain exists. It
// speaks the REPL's wire protocol as its README and REPL/Main.lean define
// it — commands are JSON read up to a blank line, answers are multi-line
// (pretty-printed) JSON followed by a blank line, environments and proof
// states are numbered from 0 in order of creation, {"message": …} answers
// errors, an unparseable command makes it exit — and elaborates a toy Lean:
//
//   - `import M` lines (only without "env"; `import Missing…` is an error),
//   - declarations `theorem|lemma|def|abbrev|instance|structure NAME`
//     (a name declared twice in one environment chain is an error),
//   - `sorry` (a `sorries` entry with a proof state, and the warning
//     "declaration uses 'sorry'" on the declaration),
//   - in a `:= by` block: `exact?` answers "Try this: exact <the first
//     theorem proved by sorry>"; with the environment flag `tactics-fail`
//     every tactic other than intros, symm_saturate and sorry is an error.
//
// Markers in comments make it misbehave on purpose (PATH variants act once,
// creating PATH):
//
//	--! error MSG         an error message at this position
//	--! info MSG          an info message
//	--! pid               an info message "pid N"
//	--! slow 200ms        answer after a delay
//	--! hang [PATH]       never answer
//	--! crash [PATH]      print half an answer and exit 3
//	--! garbage [PATH]    print a non-JSON block instead of the answer
//	--! noise             print a non-JSON line before the answer
//	--! stderr KB         write KB KiB to stderr in the middle of the answer
//	--! mem MB            allocate and touch MB MiB before answering
//	--! flag NAME         set a flag on the new environment (inherited)
//
// Environment: FAKEREPL_LOG appends one JSON line per process start and per
// request (pid, ppid, request); FAKEREPL_NOISE prints that many lines of
// chatter before the first answer (as `lake exe repl` may while building);
// FAKEREPL_FAIL makes it exit 1 at once with that text on stderr.
//
// Flags: --spawn-child runs a second fakerepl as a child with the same
// stdio and waits for it (as `lake env repl` does), so tests can check that
// grandchildren die too; --json FILE elaborates FILE as `lean --json` would;
// --version prints a version.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

type pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type message struct {
	Severity string `json:"severity"`
	Pos      pos    `json:"pos"`
	EndPos   *pos   `json:"endPos"`
	Data     string `json:"data"`
}

type sorry struct {
	Pos        pos    `json:"pos"`
	EndPos     pos    `json:"endPos"`
	Goal       string `json:"goal"`
	ProofState *int   `json:"proofState"`
}

// commandResponse keeps the REPL's key order: env, messages, sorries.
type commandResponse struct {
	Env      int       `json:"env"`
	Messages []message `json:"messages,omitempty"`
	Sorries  []sorry   `json:"sorries,omitempty"`
}

type proofStepResponse struct {
	ProofState  int       `json:"proofState"`
	Goals       []string  `json:"goals"`
	Messages    []message `json:"messages,omitempty"`
	ProofStatus string    `json:"proofStatus"`
}

type errorResponse struct {
	Message string `json:"message"`
}

type envState struct {
	decls map[string]bool
	flags map[string]bool
}

type proofState struct{ goals []string }

type repl struct {
	envs   []envState
	proofs []proofState
	log    *os.File
}

func main() {
	if msg := os.Getenv("FAKEREPL_FAIL"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	args := os.Args[1:]
	r := &repl{}
	if p := os.Getenv("FAKEREPL_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			r.log = f
		}
	}
	r.logf(map[string]any{"event": "start", "args": args})
	switch {
	case len(args) > 0 && args[0] == "--version":
		fmt.Println("Lean (version 4.99.0, fakerepl)")
		return
	case len(args) > 0 && args[0] == "--spawn-child":
		cmd := exec.Command(os.Args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				os.Exit(ee.ExitCode())
			}
			os.Exit(1)
		}
		return
	case len(args) == 2 && args[0] == "--json":
		os.Exit(r.oneShot(args[1]))
	}
	r.loop()
}

func (r *repl) logf(v map[string]any) {
	if r.log == nil {
		return
	}
	v["pid"], v["ppid"] = os.Getpid(), os.Getppid()
	b, _ := json.Marshal(v)
	r.log.Write(append(b, '\n'))
}

// getLines reads one command as REPL/Main.lean's getLines does: lines up
// to a blank one, each with its trailing whitespace trimmed, joined; the
// blank line itself ends the text. At end of input it returns "".
func getLines(in *bufio.Reader) string {
	line, _ := in.ReadString('\n')
	if strings.TrimSpace(line) == "" {
		return line
	}
	return strings.TrimRight(line, " \t\r\n") + getLines(in)
}

func (r *repl) loop() {
	in := bufio.NewReader(os.Stdin)
	noise, _ := strconv.Atoi(os.Getenv("FAKEREPL_NOISE"))
	for i := 0; i < noise; i++ {
		fmt.Printf("✔ [%d/%d] Built Fake.Module%d\n", i+1, noise, i)
	}
	for {
		query := getLines(in)
		if query == "" {
			return
		}
		if strings.HasPrefix(query, "#") || strings.HasPrefix(query, "--") {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(query), &raw); err != nil {
			fmt.Fprintf(os.Stderr, "uncaught exception: {\"message\": \"Could not parse JSON:\\n%v\"}\n", err)
			os.Exit(1)
		}
		r.logf(map[string]any{"event": "request", "request": json.RawMessage(strings.TrimSpace(query))})
		_, isTactic := raw["tactic"]
		_, hasPS := raw["proofState"]
		_, isCmd := raw["cmd"]
		switch {
		case isTactic && hasPS:
			var t struct {
				Tactic     string `json:"tactic"`
				ProofState int    `json:"proofState"`
			}
			if json.Unmarshal([]byte(query), &t) != nil {
				die("Could not parse as a valid JSON command")
			}
			emit(r.tactic(t.Tactic, t.ProofState), nil)
		case isCmd:
			var c struct {
				Cmd string `json:"cmd"`
				Env *int   `json:"env"`
			}
			if json.Unmarshal([]byte(query), &c) != nil {
				die("Could not parse as a valid JSON command")
			}
			resp, acts := r.command(c.Cmd, c.Env)
			emit(resp, &acts)
		default:
			die("Could not parse as a valid JSON command")
		}
	}
}

func die(msg string) {
	fmt.Fprintf(os.Stderr, "uncaught exception: {\"message\": %q}\n", msg)
	os.Exit(1)
}

// actions are the marker directives that change how the answer is printed.
type actions struct {
	slow    time.Duration
	hang    bool
	crash   bool
	garbage bool
	noise   bool
	stderr  int
	mem     int
}

var markerRE = regexp.MustCompile(`--!\s*(\S+)\s*(.*)$`)

// once reports whether a PATH-guarded marker fires (creating PATH), or
// true when no PATH is given.
func once(arg string) bool {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return true
	}
	f, err := os.OpenFile(arg, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

var declRE = regexp.MustCompile(`^\s*(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|noncomputable)\s+)*(theorem|lemma|def|abbrev|instance|structure)\s+([^\s:({\[]+)`)
var sorryRE = regexp.MustCompile(`\bsorry\b`)

func col(line string, byteOff int) int { return utf8.RuneCountInString(line[:byteOff]) }

// elaborate runs the toy Lean over text on top of env.
func (r *repl) elaborate(text string, base envState, allowImports bool) (envState, []message, []sorry, actions) {
	env := envState{decls: map[string]bool{}, flags: map[string]bool{}}
	for k := range base.decls {
		env.decls[k] = true
	}
	for k := range base.flags {
		env.flags[k] = true
	}
	var msgs []message
	var sorries []sorry
	var act actions
	lines := strings.Split(text, "\n")
	curDecl, curKind, curDeclLine, curDeclCol := "", "", 0, 0
	warned := map[string]bool{}
	sorryBase := "" // first theorem proved by `sorry`
	inBy := false
	seenCode := false
	for i, line := range lines {
		ln := i + 1
		code := line
		if m := markerRE.FindStringSubmatchIndex(line); m != nil {
			code = line[:m[0]]
			name, arg := line[m[2]:m[3]], strings.TrimSpace(line[m[4]:m[5]])
			c := col(line, m[0])
			switch name {
			case "error":
				msgs = append(msgs, message{"error", pos{ln, c}, &pos{ln, col(line, len(line))}, arg})
			case "info":
				msgs = append(msgs, message{"info", pos{ln, c}, &pos{ln, col(line, len(line))}, arg})
			case "pid":
				msgs = append(msgs, message{"info", pos{ln, c}, &pos{ln, c + 6}, fmt.Sprintf("pid %d", os.Getpid())})
			case "slow":
				act.slow, _ = time.ParseDuration(arg)
			case "hang":
				act.hang = act.hang || once(arg)
			case "crash":
				act.crash = act.crash || once(arg)
			case "garbage":
				act.garbage = act.garbage || once(arg)
			case "noise":
				act.noise = true
			case "stderr":
				act.stderr, _ = strconv.Atoi(arg)
			case "mem":
				act.mem, _ = strconv.Atoi(arg)
			case "flag":
				env.flags[arg] = true
			}
		} else if k := strings.Index(line, "--"); k >= 0 {
			code = line[:k]
		}
		trimmed := strings.TrimSpace(code)
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "import ") {
			switch {
			case !allowImports || seenCode:
				msgs = append(msgs, message{"error", pos{ln, 0}, &pos{ln, len(trimmed)}, "invalid 'import' command, it must be used in the beginning of the file"})
			case strings.HasPrefix(strings.TrimSpace(trimmed[len("import "):]), "Missing"):
				msgs = append(msgs, message{"error", pos{1, 0}, &pos{1, 0}, "unknown module prefix 'Missing'\n\nNo directory 'Missing' or file 'Missing.olean' in the search path entries"})
			}
			continue
		}
		seenCode = true
		if m := declRE.FindStringSubmatchIndex(code); m != nil {
			name := code[m[4]:m[5]]
			curDecl, curKind, curDeclLine, curDeclCol = name, code[m[2]:m[3]], ln, col(code, m[4])
			inBy = false
			if env.decls[name] {
				msgs = append(msgs, message{"error", pos{ln, curDeclCol}, &pos{ln, curDeclCol + utf8.RuneCountInString(name)},
					fmt.Sprintf("'%s' has already been declared", name)})
			}
			env.decls[name] = true
		}
		if strings.Contains(code, ":= sorry") && sorryBase == "" && curKind == "theorem" {
			sorryBase = curDecl
		}
		if strings.Contains(code, ":= by") {
			inBy = true
		}
		for _, s := range sorryRE.FindAllStringIndex(code, -1) {
			id := len(r.proofs)
			r.proofs = append(r.proofs, proofState{goals: []string{"⊢ True"}})
			c := col(code, s[0])
			sorries = append(sorries, sorry{pos{ln, c}, pos{ln, c + 5}, "⊢ True", &id})
			if curDecl != "" && !warned[curDecl] {
				warned[curDecl] = true
				msgs = append(msgs, message{"warning", pos{curDeclLine, curDeclCol}, &pos{curDeclLine, curDeclCol + utf8.RuneCountInString(curDecl)}, "declaration uses 'sorry'"})
			}
		}
		if inBy && !strings.Contains(code, ":= by") {
			c := col(code, len(code)-len(strings.TrimLeft(code, " ")))
			switch {
			case trimmed == "exact?" && !env.flags["tactics-fail"]:
				if sorryBase == "" {
					msgs = append(msgs, message{"error", pos{ln, c}, &pos{ln, c + 6}, "`exact?` could not close the goal. Try `apply?` to see partial suggestions."})
				} else {
					msgs = append(msgs, message{"info", pos{ln, c}, &pos{ln, c + 6}, "Try this: exact " + sorryBase})
				}
			case env.flags["tactics-fail"] && trimmed != "intros" && trimmed != "symm_saturate" && trimmed != "sorry":
				msgs = append(msgs, message{"error", pos{ln, c}, &pos{ln, c + len(trimmed)}, "fake: tactic failed"})
			}
		}
	}
	return env, msgs, sorries, act
}

func (r *repl) command(text string, envID *int) (any, actions) {
	base := envState{}
	if envID != nil {
		if *envID < 0 || *envID >= len(r.envs) {
			return errorResponse{"Unknown environment."}, actions{}
		}
		base = r.envs[*envID]
	}
	env, msgs, sorries, act := r.elaborate(text, base, envID == nil)
	r.envs = append(r.envs, env)
	return commandResponse{Env: len(r.envs) - 1, Messages: msgs, Sorries: sorries}, act
}

func (r *repl) tactic(t string, ps int) any {
	if ps < 0 || ps >= len(r.proofs) {
		return errorResponse{"Unknown proof state."}
	}
	if strings.Contains(t, "fail") {
		return errorResponse{"Lean error:\n<input>:1:0: unknown tactic"}
	}
	goals := r.proofs[ps].goals
	status := "Incomplete: open goals remain"
	if strings.HasPrefix(t, "exact") || t == "rfl" || t == "trivial" || strings.HasPrefix(t, "simp") {
		goals, status = []string{}, "Completed"
	}
	r.proofs = append(r.proofs, proofState{goals: goals})
	return proofStepResponse{ProofState: len(r.proofs) - 1, Goals: goals, ProofStatus: status}
}

// emit prints an answer the way the REPL does (pretty JSON, then a blank
// line), misbehaving as the markers ask.
func emit(v any, act *actions) {
	if act == nil {
		act = &actions{}
	}
	out, _ := json.MarshalIndent(v, "", " ")
	s := string(out) + "\n"
	if act.mem > 0 {
		b := make([]byte, act.mem<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		_ = b[len(b)-1]
	}
	if act.slow > 0 {
		time.Sleep(act.slow)
	}
	if act.hang {
		time.Sleep(100 * 24 * time.Hour) // not select{}: the runtime would call that a deadlock and exit
	}
	if act.noise {
		fmt.Print("some stray text that is not JSON\n")
	}
	if act.garbage {
		fmt.Print("this is not JSON at all\n\n")
		return
	}
	half := len(s) / 2
	io.WriteString(os.Stdout, s[:half])
	if act.crash {
		os.Exit(3)
	}
	if act.stderr > 0 {
		chunk := strings.Repeat("warning: fake stderr chatter\n", 1024*act.stderr/29+1)
		io.WriteString(os.Stderr, chunk)
	}
	io.WriteString(os.Stdout, s[half:]+"\n")
}

// serialMessage is what `lean --json` prints per message.
type serialMessage struct {
	FileName      string `json:"fileName"`
	Pos           pos    `json:"pos"`
	EndPos        *pos   `json:"endPos"`
	KeepFullRange bool   `json:"keepFullRange"`
	Severity      string `json:"severity"`
	Caption       string `json:"caption"`
	Data          string `json:"data"`
}

// oneShot elaborates a file as `lean --json FILE`: one compact JSON line
// per message, exit status 1 when there is an error.
func (r *repl) oneShot(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "file not found: %s\n", path)
		return 1
	}
	_, msgs, _, act := r.elaborate(string(b), envState{}, true)
	if act.hang {
		time.Sleep(100 * 24 * time.Hour) // not select{}: the runtime would call that a deadlock and exit
	}
	if act.slow > 0 {
		time.Sleep(act.slow)
	}
	if act.crash {
		fmt.Fprintln(os.Stderr, "INTERNAL PANIC: fake crash")
		return 134
	}
	status := 0
	for _, m := range msgs {
		sev := m.Severity
		if sev == "info" {
			sev = "information"
		}
		if m.Severity == "error" {
			status = 1
		}
		line, _ := json.Marshal(serialMessage{FileName: path, Pos: m.Pos, EndPos: m.EndPos, Severity: sev, Data: m.Data})
		fmt.Println(string(line))
	}
	return status
}
