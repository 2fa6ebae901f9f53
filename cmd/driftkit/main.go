// Command driftkit turns a Lean 4 library into a dependency-retrieval system
// and runs the DRIFT and ToMap pipelines on top. Each stage is a subcommand
// that reads and writes plain files in a workspace (--ws DIR); this file only
// dispatches (command.go registers), and each cmd_<verb>.go binds its flags to
// an options struct, validates them and calls a package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/lean"
)

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

// stdin is what `-` reads.
func (env *Env) stdin() io.Reader {
	if env.Stdin != nil {
		return env.Stdin
	}
	return os.Stdin
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "driftkit turns a Lean 4 library into a dependency-retrieval system.\n\nUsage: driftkit <command> [flags]\n\nCommands:\n")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
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
	return exitCode(ctx, err, name, args, stderr)
}

// exitCode reports err on stderr as `driftkit <name>: …` and returns the
// exit status: 0 done (or --help), 1 failed (with advice naming the command
// that fixes it), 2 bad invocation, 3 no working Lean backend, 130
// interrupted.
func exitCode(ctx context.Context, err error, name string, args []string, stderr io.Writer) int {
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
