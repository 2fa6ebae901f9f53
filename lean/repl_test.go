package lean

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/leantest"
)

// openREPL opens the REPL backend on the fake REPL (unless o.REPL is set)
// with a log of every process start and request.
func openREPL(t *testing.T, o Options) (*REPL, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "fakerepl.log")
	t.Setenv("FAKEREPL_LOG", log)
	if o.REPL == "" {
		o.REPL = leantest.FakeREPL(t)
	}
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second
	}
	c, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*REPL), log
}

type logEntry struct {
	Event   string          `json:"event"`
	PID     int             `json:"pid"`
	PPID    int             `json:"ppid"`
	Args    []string        `json:"args"`
	Request json.RawMessage `json:"request"`
}

func readLog(t *testing.T, path string) []logEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e logEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// requests returns the commands the fake REPL received (startup probes
// excluded: they send nothing).
func requests(t *testing.T, path string) []replCommand {
	var out []replCommand
	for _, e := range readLog(t, path) {
		if e.Event != "request" {
			continue
		}
		var c replCommand
		json.Unmarshal(e.Request, &c)
		out = append(out, c)
	}
	return out
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func check1(t *testing.T, c Checker, s Snippet) Result {
	t.Helper()
	rs, err := c.Check(context.Background(), []Snippet{s})
	if err != nil {
		t.Fatalf("Check(%q): %v", s.ID, err)
	}
	if len(rs) != 1 {
		t.Fatalf("Check: %d results", len(rs))
	}
	return rs[0]
}

const mathlibHeader = "import Mathlib\n\nopen Real Nat\nopen scoped BigOperators\n"

func TestREPLHeaderReuseAndResults(t *testing.T) {
	c, log := openREPL(t, Options{})
	snips := []Snippet{
		{ID: "ok", Header: mathlibHeader, Code: "theorem foo : 1 = 1 := rfl"},
		{ID: "again", Header: mathlibHeader, Code: "theorem foo : 2 = 2 := rfl"}, // same name: runs on the header env, not on the last one
		{ID: "sorry", Header: mathlibHeader, Code: "theorem bar : True := by\n  sorry"},
		{ID: "error", Header: mathlibHeader, Code: "example : True := by\n  trivial\n  exact nope --! error unknown identifier 'nope'"},
	}
	for _, s := range snips {
		r := check1(t, c, s)
		if r.Error != "" {
			t.Fatalf("%s: Error %q", s.ID, r.Error)
		}
		if r.Backend != "repl" || r.ID != s.ID || r.CodeLine0 != 1 || r.Env == nil {
			t.Errorf("%s: backend %q id %q line0 %d env %v", s.ID, r.Backend, r.ID, r.CodeLine0, r.Env)
		}
		switch s.ID {
		case "ok", "again":
			if !r.Pass || !r.Complete {
				t.Errorf("%s: pass %v complete %v, messages %+v", s.ID, r.Pass, r.Complete, r.Messages)
			}
		case "sorry":
			if !r.Pass || r.Complete || len(r.Sorries) != 1 || r.Sorries[0].ProofState == nil || r.Sorries[0].Pos != (Pos{2, 2}) {
				t.Errorf("sorry: %+v", r)
			}
		case "error":
			if r.Pass || len(r.Messages) != 1 || r.Messages[0].Pos != (Pos{3, 13}) || r.Messages[0].Data != "unknown identifier 'nope'" {
				t.Errorf("error: %+v", r)
			}
		}
	}
	reqs := requests(t, log)
	// imports once, the rest of the header once on top, then four snippets.
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6: %+v", len(reqs), reqs)
	}
	if reqs[0].Cmd != "import Mathlib" || reqs[0].Env != nil {
		t.Errorf("first request %+v, want the imports without env", reqs[0])
	}
	if reqs[1].Env == nil || *reqs[1].Env != 0 || !strings.Contains(reqs[1].Cmd, "open Real Nat") {
		t.Errorf("second request %+v, want the opens on env 0", reqs[1])
	}
	for _, r := range reqs[2:] {
		if r.Env == nil || *r.Env != 1 {
			t.Errorf("snippet request %+v, want env 1 (the header's)", r)
		}
	}
	if st := c.Stats(); st.HeaderCommands != 2 || st.SnippetCommands != 4 || st.Starts != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestREPLImportsInCode(t *testing.T) {
	c, log := openREPL(t, Options{})
	code := "import Mathlib\nimport Aesop\n\ntheorem t : True := by\n  exact nope --! error boom"
	r := check1(t, c, Snippet{ID: "file", Code: code})
	if r.Pass || len(r.Messages) != 1 || r.Messages[0].Pos.Line != 5 || r.CodeLine0 != 1 {
		t.Fatalf("want the error on line 5 of the code: %+v", r)
	}
	reqs := requests(t, log)
	if len(reqs) != 2 || reqs[0].Cmd != "import Mathlib\nimport Aesop" || reqs[1].Env == nil || strings.Contains(reqs[1].Cmd, "import") {
		t.Fatalf("requests %+v", reqs)
	}
	// The same imports again: no new import command.
	check1(t, c, Snippet{ID: "file2", Code: "import Mathlib\nimport Aesop\ntheorem u : True := trivial"})
	if n := len(requests(t, log)); n != 3 {
		t.Errorf("%d requests after a second file with the same imports, want 3", n)
	}
}

func TestREPLBrokenHeader(t *testing.T) {
	c, _ := openREPL(t, Options{})
	header := "import MissingLib\nopen Foo"
	r := check1(t, c, Snippet{ID: "h", Header: header, Code: "theorem t : True := trivial"})
	if r.Pass || r.Error != "" {
		t.Fatalf("a broken header must fail with Lean's message: %+v", r)
	}
	if r.CodeLine0 != 3 {
		t.Errorf("CodeLine0 %d, want 3 (header and code elaborated together)", r.CodeLine0)
	}
	if !strings.Contains(r.Messages[0].Data, "unknown module prefix") {
		t.Errorf("messages %+v", r.Messages)
	}
}

func TestREPLTimeoutRestartsAndRetries(t *testing.T) {
	c, log := openREPL(t, Options{})
	flag := filepath.Join(t.TempDir(), "hang-once")
	r := check1(t, c, Snippet{ID: "once", Code: "theorem t : True := trivial --! hang " + flag, Timeout: 300 * time.Millisecond})
	if !r.Pass || r.Error != "" {
		t.Fatalf("a snippet that hangs once must pass on the retry: %+v", r)
	}
	r = check1(t, c, Snippet{ID: "always", Code: "theorem t : True := trivial --! hang", Timeout: 300 * time.Millisecond})
	if r.Pass || !strings.Contains(r.Error, "timeout") {
		t.Fatalf("a hanging snippet must fail with a timeout: %+v", r)
	}
	st := c.Stats()
	if st.Timeouts != 3 || st.Retries != 2 || st.Kills != 3 {
		t.Errorf("stats %+v: want 3 timeouts, 2 retries, 3 kills", st)
	}
	// The pool still works, on a fresh process that imports the header again.
	if r := check1(t, c, Snippet{ID: "after", Header: "import Mathlib", Code: "theorem t : True := trivial"}); !r.Pass {
		t.Fatalf("after: %+v", r)
	}
	starts := 0
	for _, e := range readLog(t, log) {
		if e.Event == "start" && len(e.Args) == 0 {
			starts++
		}
	}
	if starts != 5 { // the probe; "once" and its retry; "always"'s retry (it ran on the retry's process); "after"
		t.Errorf("%d process starts, want 5", starts)
	}
}

func TestREPLNoRetry(t *testing.T) {
	c, _ := openREPL(t, Options{})
	flag := filepath.Join(t.TempDir(), "hang-once")
	r := check1(t, c, Snippet{ID: "x", Code: "--! hang " + flag, Timeout: 200 * time.Millisecond, NoRetry: true})
	if r.Error == "" || c.Stats().Retries != 0 {
		t.Fatalf("NoRetry must report the timeout at once: %+v %+v", r, c.Stats())
	}
}

func TestREPLFaults(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, code string
		pass       bool
		errHas     string
	}{
		{"crash-once", "theorem t : True := trivial --! crash " + filepath.Join(dir, "c1"), true, ""},
		{"crash", "theorem t : True := trivial --! crash", false, "exited in the middle of an answer"},
		{"garbage-once", "theorem t : True := trivial --! garbage " + filepath.Join(dir, "g1"), true, ""},
		{"garbage", "theorem t : True := trivial --! garbage", false, "not a JSON answer"},
		{"noise", "theorem t : True := trivial --! noise", false, "not a JSON answer"},
		{"stderr", "theorem t : True := trivial --! stderr 512", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := openREPL(t, Options{})
			r := check1(t, c, Snippet{ID: tc.name, Header: "import Mathlib", Code: tc.code})
			if r.Pass != tc.pass || !strings.Contains(r.Error, tc.errHas) {
				t.Fatalf("pass %v error %q, want pass %v and error containing %q", r.Pass, r.Error, tc.pass, tc.errHas)
			}
			if r := check1(t, c, Snippet{ID: "next", Header: "import Mathlib", Code: "theorem t : True := trivial"}); !r.Pass {
				t.Fatalf("the next snippet must pass on a fresh worker: %+v", r)
			}
		})
	}
}

func TestREPLStartupNoise(t *testing.T) {
	t.Setenv("FAKEREPL_NOISE", "3")
	c, _ := openREPL(t, Options{})
	if r := check1(t, c, Snippet{ID: "x", Header: "import Mathlib", Code: "theorem t : True := trivial"}); !r.Pass {
		t.Fatalf("build chatter before the first answer must be skipped: %+v", r)
	}
}

func TestREPLMemoryLimit(t *testing.T) {
	// The Go runtime of the fake reserves ~600 MiB of address space at start.
	c, _ := openREPL(t, Options{MemLimitMB: 1024})
	r := check1(t, c, Snippet{ID: "small", Code: "theorem t : True := trivial --! mem 100"})
	if !r.Pass {
		t.Fatalf("100 MiB under a 1 GiB limit: %+v", r)
	}
	r = check1(t, c, Snippet{ID: "big", Code: "theorem t : True := trivial --! mem 2000"})
	if r.Pass || !strings.Contains(r.Error, "ran out of memory under the limit --repl-mem 1024 MiB") {
		t.Fatalf("2000 MiB under a 1 GiB limit: %+v", r)
	}
	if st := c.Stats(); st.MemoryFaults != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestREPLRecycle(t *testing.T) {
	c, _ := openREPL(t, Options{Recycle: 2})
	var pids []string
	for i := 0; i < 5; i++ {
		r := check1(t, c, Snippet{ID: fmt.Sprint(i), Header: "import Mathlib", Code: "theorem t : True := trivial --! pid"})
		if !r.Pass || len(r.Messages) != 1 {
			t.Fatalf("%d: %+v", i, r)
		}
		pids = append(pids, r.Messages[0].Data)
	}
	if pids[0] != pids[1] || pids[1] == pids[2] || pids[2] != pids[3] || pids[3] == pids[4] {
		t.Fatalf("pids %v: want a new process every 2 snippets", pids)
	}
	if st := c.Stats(); st.Recycles != 2 || st.Starts != 3 || st.HeaderCommands != 3 {
		t.Errorf("stats %+v: want 2 recycles, 3 starts, the header imported by each", st)
	}
}

func TestREPLConcurrentCallers(t *testing.T) {
	c, _ := openREPL(t, Options{Workers: 4})
	headers := []string{"import Mathlib", "import Mathlib\nopen Real", "import Aesop"}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var snips []Snippet
			for i := 0; i < 5; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				code := "theorem " + strings.ReplaceAll(id, "-", "_") + " : True := trivial"
				if i == 3 {
					code += " --! error no"
				}
				snips = append(snips, Snippet{ID: id, Header: headers[(g+i)%3], Code: code})
			}
			rs, err := c.Check(context.Background(), snips)
			if err != nil {
				errs <- err
				return
			}
			for i, r := range rs {
				if r.ID != snips[i].ID || r.Pass != (i != 3) || r.Error != "" {
					errs <- fmt.Errorf("%s: %+v", snips[i].ID, r)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := c.Stats(); st.Starts > 4 || st.SnippetCommands != 40 {
		t.Errorf("stats %+v", st)
	}
}

func TestREPLQueueWait(t *testing.T) {
	c, _ := openREPL(t, Options{Workers: 1})
	rs, err := c.Check(context.Background(), []Snippet{
		{ID: "a", Code: "theorem a : True := trivial --! slow 300ms"},
		{ID: "b", Code: "theorem b : True := trivial --! slow 300ms"},
	})
	if err != nil {
		t.Fatal(err)
	}
	waited := rs[0].Wait + rs[1].Wait
	if waited < 250*time.Millisecond {
		t.Fatalf("one of two snippets on one worker must wait for the other: waits %v %v", rs[0].Wait, rs[1].Wait)
	}
	if rs[0].Time < 250*time.Millisecond || rs[1].Time < 250*time.Millisecond {
		t.Errorf("times %v %v exclude the wait but include the 300ms answer", rs[0].Time, rs[1].Time)
	}
}

func TestREPLCancelKillsWorker(t *testing.T) {
	c, log := openREPL(t, Options{Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Check(ctx, []Snippet{{ID: "hang", Code: "--! hang"}, {ID: "ok", Code: "theorem t : True := trivial"}})
		done <- err
	}()
	waitFor(t, func() bool { return len(requests(t, log)) >= 4 })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Check did not return after cancel")
	}
	// The hanging worker is dead; the pool serves on.
	hangPID := 0
	for _, e := range readLog(t, log) {
		if e.Event == "request" && strings.Contains(string(e.Request), "hang") {
			hangPID = e.PID
		}
	}
	if hangPID == 0 || alive(hangPID) {
		t.Fatalf("the worker running the cancelled snippet (pid %d) must be killed", hangPID)
	}
	if r := check1(t, c, Snippet{ID: "after", Code: "theorem t : True := trivial"}); !r.Pass {
		t.Fatalf("after cancel: %+v", r)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached in 10s")
}

// TestREPLNoOrphans runs workers the way `lake env repl` does (a wrapper
// process whose child is the REPL) and checks that Close, and cancelling
// Open's ctx, leave neither wrappers nor REPLs running.
func TestREPLNoOrphans(t *testing.T) {
	for _, how := range []string{"close", "cancel"} {
		t.Run(how, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "fakerepl.log")
			t.Setenv("FAKEREPL_LOG", log)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := Open(ctx, Options{REPL: leantest.FakeREPL(t) + " --spawn-child", Workers: 3, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var snips []Snippet
			for i := 0; i < 6; i++ {
				snips = append(snips, Snippet{ID: fmt.Sprint(i), Header: "import Mathlib", Code: "theorem t : True := trivial --! slow 50ms"})
			}
			rs, err := c.Check(context.Background(), snips)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if !r.Pass {
					t.Fatalf("%+v", r)
				}
			}
			var pids []int
			grandchildren := 0
			for _, e := range readLog(t, log) {
				if e.Event == "start" {
					pids = append(pids, e.PID)
					if len(e.Args) == 0 {
						grandchildren++
					}
				}
			}
			if grandchildren < 2 { // the probe's plus at least one worker's
				t.Fatalf("log shows %d REPL processes under wrappers", grandchildren)
			}
			// One REPL is busy when the end comes: it will not notice its
			// input closing, only a kill of the whole group stops it.
			busy := make(chan error, 1)
			go func() {
				_, err := c.Check(context.Background(), []Snippet{{ID: "busy", Code: "--! hang"}})
				busy <- err
			}()
			waitFor(t, func() bool {
				for _, r := range requests(t, log) {
					if strings.Contains(r.Cmd, "hang") {
						return true
					}
				}
				return false
			})
			if how == "close" {
				c.Close()
			} else {
				cancel()
			}
			waitFor(t, func() bool {
				for _, p := range pids {
					if alive(p) {
						return false
					}
				}
				return true
			})
			if err := <-busy; !errors.Is(err, ErrClosed) {
				t.Errorf("the check in flight: %v, want ErrClosed", err)
			}
			if _, err := c.Check(context.Background(), snips[:1]); !errors.Is(err, ErrClosed) {
				t.Errorf("Check after close: %v, want ErrClosed", err)
			}
		})
	}
}

func TestREPLUnavailable(t *testing.T) {
	_, err := Open(context.Background(), Options{REPL: "/nonexistent/repl --flag"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "/nonexistent/repl") || !strings.Contains(err.Error(), "lake build") {
		t.Fatalf("a missing command: %v", err)
	}
	t.Setenv("FAKEREPL_FAIL", "error: unknown executable repl")
	_, err = Open(context.Background(), Options{REPL: leantest.FakeREPL(t)})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "unknown executable repl") {
		t.Fatalf("a command that fails at start must be unavailable with its stderr: %v", err)
	}
}

func TestOpenOptions(t *testing.T) {
	for _, o := range []Options{
		{},
		{REPL: "x", Kimina: "http://localhost:1"},
		{REPL: "x", Lean: "lean"},
		{REPL: "x", Workers: -1},
		{REPL: "x", MemLimitMB: 10},
		{REPL: "x", REPLDir: "/nonexistent/dir"},
		{Kimina: "localhost:8000"},
	} {
		if _, err := Open(context.Background(), o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("Open(%+v): %v, want ErrBadOptions", o, err)
		}
	}
}

func TestSessionTacticMode(t *testing.T) {
	c, _ := openREPL(t, Options{Workers: 1})
	var p Prover = c
	s, err := p.Session(context.Background(), "import Mathlib")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Command(context.Background(), "theorem t : True := by\n  sorry", s.HeaderEnv(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sorries) != 1 || r.Sorries[0].ProofState == nil {
		t.Fatalf("want one sorry with a proof state: %+v", r)
	}
	ps := *r.Sorries[0].ProofState
	step, err := s.Tactic(context.Background(), ps, "intro h", 0)
	if err != nil || step.Solved() || len(step.Goals) != 1 {
		t.Fatalf("intro: %+v %v", step, err)
	}
	step, err = s.Tactic(context.Background(), step.ProofState, "exact trivial", 0)
	if err != nil || !step.Solved() || step.ProofStatus != "Completed" {
		t.Fatalf("exact: %+v %v", step, err)
	}
	var re *REPLError
	if _, err := s.Tactic(context.Background(), 999, "simp", 0); !errors.As(err, &re) || re.Message != "Unknown proof state." {
		t.Fatalf("unknown proof state: %v", err)
	}
	if _, err := s.Tactic(context.Background(), ps, "fail", 0); !errors.As(err, &re) {
		t.Fatalf("failing tactic: %v", err)
	}
	if _, err := s.Command(context.Background(), "x", 12345, 0); !errors.As(err, &re) || re.Message != "Unknown environment." {
		t.Fatalf("unknown env from the caller is the caller's error, not a fault: %v", err)
	}
	// A dead worker loses the session.
	if _, err := s.Command(context.Background(), "--! crash", s.HeaderEnv(), 0); !errors.Is(err, ErrSessionLost) {
		t.Fatalf("crash: %v", err)
	}
	if _, err := s.Tactic(context.Background(), ps, "simp", 0); !errors.Is(err, ErrSessionLost) {
		t.Fatalf("after crash: %v", err)
	}
}
