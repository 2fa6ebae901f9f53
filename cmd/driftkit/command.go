package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
)

// command is one subcommand. run gets the arguments after the verb (after
// the group's verb for a subcommand: "eval retrieval" gets those after
// "retrieval").
type command struct {
	// name is the verb, or "group verb" for a subcommand (eval retrieval).
	name  string
	short string // one line for the overview
	run   func(ctx context.Context, env *Env, args []string) error
	// flags declares the command's flags on fs (nil for a group): what
	// --help lists, for tests that compare flags across commands.
	flags func(fs *flag.FlagSet)
	// gc, when set, is the garbage collector setting main applies for this
	// command (see tuneGC).
	gc *gcSetting
}

// options is what a command's flags bind to, as restic's XxxOptions are:
// AddFlags declares the flags on the command's FlagSet (with their
// defaults), Validate checks the parsed values and the positional
// arguments before any work — a bad invocation is a usage error (exit 2),
// found before a workspace, a model or a Lean process is touched — and the
// command's run function receives the options. Validate may keep what it
// resolved (a parsed mode, weights) in unexported fields for run.
type options interface {
	AddFlags(fs *flag.FlagSet)
	Validate(args []string) error
}

// help is a command's usage text: the synopsis after `driftkit <name>` and
// the description --help prints above the flags.
type help struct {
	synopsis, description string
}

// newCommand makes the command `driftkit name`: each invocation binds the
// flags to a fresh O (AddFlags), parses them, refuses flags given without
// the setting they need (dependentFlags), calls Validate with the
// positional arguments, then run(ctx, opts, env, args) — restic's
// runBackup(ctx, opts, gopts, term, args). A usagef error from Validate or
// run prints the command's usage after the reason.
func newCommand[O any, P interface {
	*O
	options
}](name, short string, h help, run func(ctx context.Context, opts P, env *Env, args []string) error) *command {
	return &command{name: name, short: short, flags: func(fs *flag.FlagSet) { P(new(O)).AddFlags(fs) }, run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags(name, h.synopsis, h.description)
		opts := P(new(O))
		opts.AddFlags(fs)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if d, ok := any(opts).(dependentFlags); ok {
			if err := checkFlagNeeds(fs, d.flagNeeds()); err != nil {
				return withUsage(err, fs)
			}
		}
		if err := opts.Validate(fs.Args()); err != nil {
			return withUsage(err, fs)
		}
		return withUsage(run(ctx, opts, env, fs.Args()), fs)
	}}
}

// withGC sets the garbage collector setting main applies for c.
func (c *command) withGC(g gcSetting) *command {
	c.gc = &g
	return c
}

// gcSetting trades memory for fewer collections: a batch stage that builds
// large tables in memory runs faster with a higher GOGC (or, for one whose
// heap is mostly live tables, a lower one keeps the peak down), and the
// limit keeps it from growing without bound. Only the binary's main
// applies it — never run (tests, a server embedding a command) and never
// library code, for a process holding a large index would thrash under a
// setting made for another job.
type gcSetting struct {
	percent int   // GOGC
	limit   int64 // GOMEMLIMIT in bytes (0: no limit set)
}

// tuneGC applies the command's gcSetting unless the user chose GOGC or
// GOMEMLIMIT.
func tuneGC(args []string) {
	if len(args) == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	c := commands[args[0]]
	if subs := subcommands[args[0]]; subs != nil && len(args) > 1 && subs[args[1]] != nil {
		c = subs[args[1]]
	}
	if c != nil && c.gc != nil {
		debug.SetGCPercent(c.gc.percent)
		if c.gc.limit > 0 {
			debug.SetMemoryLimit(c.gc.limit)
		}
	}
}

// commands are the verbs, subcommands the verbs of each group (eval
// extract, eval retrieval, export hf, …); both are filled by register from
// the cmd_<verb>.go files' init functions and only read afterwards.
var (
	commands    = map[string]*command{}
	subcommands = map[string]map[string]*command{}
)

// register adds c: `driftkit name`, or for a name "group verb" the
// subcommand verb of group. A name registered twice is a programming error
// (two files claiming one verb; the later would silently win): it panics
// when the binary starts, so every test fails.
func register(c *command) {
	group, verb, isSub := strings.Cut(c.name, " ")
	if !isSub {
		if commands[c.name] != nil {
			panic(fmt.Sprintf("driftkit: command %q registered twice", c.name))
		}
		commands[c.name] = c
		return
	}
	if subcommands[group] == nil {
		subcommands[group] = map[string]*command{}
	}
	if subcommands[group][verb] != nil {
		panic(fmt.Sprintf("driftkit: command %q registered twice", c.name))
	}
	subcommands[group][verb] = c
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
	for _, k := range slices.Sorted(maps.Keys(subs)) {
		fmt.Fprintf(w, "  %-14s %s\n", k, subs[k].short)
	}
}

// errUsage makes main exit with status 2 (bad invocation) instead of 1.
var errUsage = errors.New("usage")

// usageError is a bad invocation found after parsing (a required flag
// missing, a bad value): main prints the reason first, then the command's
// usage when fs is set, both to stderr, and exits 2 — as the go tool does.
type usageError struct {
	msg       string
	showUsage bool          // usagef: print the command's usage after msg
	fs        *flag.FlagSet // set by the command's runner (withUsage)
}

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// usagef reports a missing or contradictory argument: the reason, then the
// command's usage.
func usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), showUsage: true}
}

// withUsage gives a usagef error the FlagSet whose usage main prints.
func withUsage(err error, fs *flag.FlagSet) error {
	var ue *usageError
	if errors.As(err, &ue) && ue.showUsage && ue.fs == nil {
		ue.fs = fs
	}
	return err
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
