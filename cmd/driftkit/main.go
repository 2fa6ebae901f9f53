// Command driftkit turns a Lean 4 library into a dependency-retrieval system
// and runs the DRIFT and ToMap pipelines on top. Each stage is a subcommand
// that reads and writes plain files in a workspace (--ws DIR); this file only
// dispatches, and each cmd_<verb>.go parses its flags and calls a package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/lean"
)

// command is one subcommand. run gets the arguments after the verb.
type command struct {
	name  string
	short string // one line for the overview
	run   func(ctx context.Context, env *Env, args []string) error
	// gc, when set, is the garbage collector setting main applies for this
	// command (see tuneGC).
	gc *gcSetting
}

// gcSetting trades memory for fewer collections: a batch stage that builds
// large tables in memory runs faster with a higher GOGC, and the limit keeps
// it from growing without bound. Only the binary's main applies it — never
// run (tests, a server embedding a command) and never library code, for a
// process holding a large index would thrash under a limit set for another
// job.
type gcSetting struct {
	percent int   // GOGC
	limit   int64 // GOMEMLIMIT in bytes
}

// tuneGC applies the command's gcSetting unless the user chose GOGC or
// GOMEMLIMIT.
func tuneGC(args []string) {
	if len(args) == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if c := commands[args[0]]; c != nil && c.gc != nil {
		debug.SetGCPercent(c.gc.percent)
		debug.SetMemoryLimit(c.gc.limit)
	}
}

// Env is what a command may touch besides its arguments and the workspace:
// its output streams. Commands never write to os.Stdout or os.Stderr
// directly, so tests (and a server embedding a command) see what was printed.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is what `-` reads (nil: os.Stdin).
	Stdin io.Reader
}

// newFlags makes a FlagSet whose --help and errors go to the command's stderr.
func (env *Env) newFlags(name, synopsis, description string) *flag.FlagSet {
	fs := newFlags(name, synopsis, description)
	fs.SetOutput(env.Stderr)
	return fs
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// errUsage makes main exit with status 2 (bad invocation) instead of 1.
var errUsage = errors.New("usage")

// usageError is a bad invocation found after parsing (a required flag
// missing, a bad value): main prints the reason first, then the command's
// usage when fs is set, both to stderr, and exits 2 — as the go tool does.
type usageError struct {
	msg string
	fs  *flag.FlagSet // nil: the reason alone
}

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// usagef reports a missing or contradictory argument: the reason, then
// fs's usage.
func usagef(fs *flag.FlagSet, format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), fs: fs}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "driftkit turns a Lean 4 library into a dependency-retrieval system.\n\nUsage: driftkit <command> [flags]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].short)
	}
	fmt.Fprintf(w, "\nRun 'driftkit <command> --help' for a command's flags.\n")
}

func main() {
	tuneGC(os.Args[1:])
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		// A bare `driftkit` is a bad invocation: help goes to stderr, exit 2.
		usage(stderr)
		return 2
	case args[0] == "-h" || args[0] == "--help":
		// As every command's --help (the flag package's): stderr, exit 0.
		usage(stderr)
		return 0
	case args[0] == "help":
		// Asked for as output (`driftkit help | grep`), as `go help` does.
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "driftkit: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Long work reports its progress on stderr (--quiet removes the reporter).
	ctx = progress.WithReporter(ctx, progress.NewReporter(stderr))
	err := c.run(ctx, &Env{Stdout: stdout, Stderr: stderr}, args[1:])
	name := c.name
	if subs := subcommands[c.name]; subs != nil && len(args) > 1 && subs[args[1]] != nil {
		name += " " + args[1] // eval retrieval, import rauto, …
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "driftkit %s: %s\n", name, ue.msg)
		if ue.fs != nil {
			fmt.Fprintln(stderr)
			ue.fs.SetOutput(stderr)
			ue.fs.Usage()
		}
		return 2
	case errors.Is(err, errUsage):
		// A bare errUsage follows the flag package's own message or the
		// command's usage text; a wrapped one says what was wrong.
		if err != errUsage {
			msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
			msg = strings.TrimSuffix(msg, ": "+errUsage.Error())
			fmt.Fprintf(stderr, "driftkit %s: %s\n", name, msg)
		}
		return 2
	case errors.Is(err, lean.ErrBadOptions):
		fmt.Fprintf(stderr, "driftkit %s: %v\n", name, err)
		return 2
	case errors.Is(err, lean.ErrUnavailable) && ctx.Err() == nil:
		// The Lean backend does not work: the message names what was tried
		// and what to install.
		fmt.Fprintf(stderr, "driftkit %s: %v\n", name, err)
		return 3
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "driftkit %s: interrupted\n", name)
		return 130
	}
	fmt.Fprintf(stderr, "driftkit %s: %v\n", name, err)
	if a := advice(err, workspaceArg(args)); a != "" {
		fmt.Fprintf(stderr, "  %s\n", a)
	}
	if ctx.Err() != nil {
		return 130
	}
	return 1
}

// newFlags makes a FlagSet whose --help prints the command's description.
func newFlags(name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: driftkit %s %s\n\n%s\n\nFlags:\n", name, synopsis, description)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses and maps flag errors to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// subcommands of grouped verbs (eval extract, eval retrieval, export hf, …),
// registered by the cmd_<verb>_<sub>.go files.
var subcommands = map[string]map[string]*command{}

// registerSub adds `driftkit <group> <name>`.
func registerSub(group string, c *command) {
	if subcommands[group] == nil {
		subcommands[group] = map[string]*command{}
	}
	subcommands[group][c.name] = c
}

// group registers a verb that dispatches to its subcommands.
func group(name, short string) {
	register(&command{name: name, short: short, run: func(ctx context.Context, env *Env, args []string) error {
		subs := subcommands[name]
		if len(args) == 0 {
			fmt.Fprintf(env.Stderr, "driftkit %s: a subcommand is required\n\n", name)
			groupUsage(env.Stderr, name)
			return errUsage
		}
		if args[0] == "-h" || args[0] == "--help" {
			groupUsage(env.Stderr, name)
			return flag.ErrHelp
		}
		c, ok := subs[args[0]]
		if !ok {
			// A typo (eval retrieve) gets the list of what exists.
			fmt.Fprintf(env.Stderr, "driftkit %s: unknown subcommand %q\n\n", name, args[0])
			groupUsage(env.Stderr, name)
			return errUsage
		}
		return c.run(ctx, env, args[1:])
	}})
}

// groupUsage lists a group's subcommands.
func groupUsage(w io.Writer, name string) {
	subs := subcommands[name]
	fmt.Fprintf(w, "Usage: driftkit %s <subcommand> [flags]\n\nSubcommands:\n", name)
	keys := make([]string, 0, len(subs))
	for k := range subs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-14s %s\n", k, subs[k].short)
	}
}
