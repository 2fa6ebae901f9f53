package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
)

// allCommands are the registered commands but the groups, by full name.
func allCommands() map[string]*command {
	out := map[string]*command{}
	for name, c := range commands {
		if subcommands[name] == nil {
			out[name] = c
		}
	}
	for _, subs := range subcommands {
		for _, c := range subs {
			out[c.name] = c
		}
	}
	return out
}

// TestRegisterTwicePanics: two files claiming one verb (or one subcommand
// of a group) stop the binary at start instead of one silently winning.
func TestRegisterTwicePanics(t *testing.T) {
	for _, name := range []string{"search", "eval retrieval"} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "registered twice") {
					t.Errorf("registering %q twice: recovered %v, want a panic", name, r)
				}
			}()
			register(&command{name: name})
		}()
	}
	if commands["search"].flags == nil || subcommands["eval"]["retrieval"].flags == nil {
		t.Fatal("the failed registration replaced the command")
	}
}

// TestEveryCommandHasOptions: every command but the groups binds its flags
// to an options struct (newCommand), so its flags can be listed here.
func TestEveryCommandHasOptions(t *testing.T) {
	all := allCommands()
	if len(all) < 20 {
		t.Fatalf("only %d commands registered", len(all))
	}
	for name, c := range all {
		if c.flags == nil {
			t.Errorf("%s: not made by newCommand (no options struct)", name)
		}
	}
}

// sameNameOtherMeaning are the flags that two commands spell alike but that
// mean different things, each with why. Any other flag of several commands
// must be one declaration (its help identical everywhere): a flag shared by
// several commands is declared once (flags.go, or the package that owns
// it: llm.Config, lean.Options, tomap.AgentFlags).
var sameNameOtherMeaning = map[string]string{
	"all-kinds":   "search and eval retrieval rank theorems too; mine, export flagembedding and train head train on or export them",
	"batch":       "index: texts per embeddings request; train head: queries per batch",
	"bm25-engine": "index: which BM25 indexes to build; search and eval retrieval: which one answers",
	"bench":       "a benchmark of each command's own format",
	"encoder":     "index chooses the encoder; train head checks the index's",
	"exclude":     "search: names never returned; mine: benchmark files to decontaminate against",
	"header":      "lean check/beq: header text; drift: header for items without one; tomap: a header file",
	"json":        "what JSON each command prints",
	"k":           "search: hits; eval retrieval: cutoffs; train head: recall@k of early stopping",
	"kinds":       "search and eval search: candidate kinds; informalize: kinds to informalize",
	"library":     "import rauto: the library file; extract: the first source's name; jixia, lean4export: the rows' library",
	"limit":       "each command's unit (items, problems, declarations, pairs)",
	"max-tokens":  "each command's default completion limit",
	"mode":        "eval search takes a list; mine: the mining ranker's mode",
	"model":       "export flagembedding: finetune.sh's default model; elsewhere the chat or embedding model",
	"no-head":     "serve ignores the heads of every workspace it serves",
	"out":         "drift: a folder (or the context file); tomap: a folder",
	"per-item":    "one line per query, or per query and configuration",
	"profile":     "search defaults to auto, eval retrieval to premise; eval search takes a list",
	"quiet":       "serve: log errors only; elsewhere no progress display",
	"revision":    "extract: the first source's revision; the importers: the rows'",
	"samples":     "drift: formalizations per item; eval extract: rows listed",
	"seed":        "each command's sampling",
	"sources":     "mine: query sources; eval extract: sources scored",
	"split":       "eval: tune or held-out; tomap: all, dev or test",
	"src":         "extract: a source folder; import jixia: the source root",
	"temperature": "drift: formalizations; tomap: the agents; train head: InfoNCE",
	"ws":          "serve takes several, NAME=DIR; drift needs an index",
	"dry-run":     "what each command would do",
	"force":       "one declaration (stageFlags.AddFlags) whose help names what each stage replaces",
	"workers":     "extract: parse workers; mine: parallel queries",
	"jobs":        "drift: items in flight; tomap: problems at once",
	"vocabulary":  "informalize: the template provider's name words; search, eval search, serve, mcp: theorem search's phrase table",
	"augment":     "search and eval search: this query; serve: every theorem search, one client for all workspaces",
}

// TestSharedFlagsAlike fails when two commands declare a flag of one name
// with different help (defaults may differ), unless sameNameOtherMeaning says why: the ranking
// flags were declared three times with three helps before they were one.
func TestSharedFlagsAlike(t *testing.T) {
	usages := map[string]map[string][]string{} // flag → usage → commands
	for name, c := range allCommands() {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if usages[f.Name] == nil {
				usages[f.Name] = map[string][]string{}
			}
			// The defaults may differ (a search retries less than a batch
			// stage); the flag's meaning, its help, may not.
			usages[f.Name][f.Usage] = append(usages[f.Name][f.Usage], name)
		})
	}
	for name, byUsage := range usages {
		if len(byUsage) < 2 || sameNameOtherMeaning[name] != "" {
			continue
		}
		var lines []string
		for help, cmds := range byUsage {
			sort.Strings(cmds)
			lines = append(lines, fmt.Sprintf("  %s: %q", strings.Join(cmds, ", "), help))
		}
		slices.Sort(lines)
		t.Errorf("--%s is declared %d ways:\n%s", name, len(byUsage), strings.Join(lines, "\n"))
	}
	for name := range sameNameOtherMeaning {
		if len(usages[name]) < 2 {
			t.Errorf("--%s is listed in sameNameOtherMeaning but declared one way: remove it", name)
		}
	}
}

// TestValidateBeforeWork: a bad flag value is refused by Validate, before
// run is called.
func TestValidateBeforeWork(t *testing.T) {
	ran := false
	c := newCommand("validate-test", "", help{}, func(ctx context.Context, o *exportHFOptions, env *Env, args []string) error {
		ran = true
		return nil
	})
	err := c.run(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard}, []string{"--ws", "x"})
	var ue *usageError
	if ran || err == nil || !errors.As(err, &ue) || ue.fs == nil {
		t.Errorf("ran %v, err %v: want a usage error with the command's usage", ran, err)
	}
}
