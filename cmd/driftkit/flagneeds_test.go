package main

import (
	"flag"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFlagsWithoutTheirSetting: a flag that only matters with another
// setting, given without it, is a usage error (exit 2) naming the flag and
// the setting, before any work; given with it, it is not refused. Each
// case's workspace does not exist, so an accepted invocation fails later,
// for that reason (inside the test's temporary folder, should a command
// make the folder).
func TestFlagsWithoutTheirSetting(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "missing-ws")
	for _, tc := range []struct {
		args []string
		want string   // the refusal
		with []string // what makes the same flags accepted, after the verb (a later flag wins)
	}{
		{[]string{"search", "--ws", ws, "--augment-prompt", "v2", "q"}, "--augment-prompt only matters with --augment", []string{"--augment"}},
		{[]string{"search", "--ws", ws, "--augment-timeout", "1s", "q"}, "--augment-timeout only matters with --augment", []string{"--augment"}},
		{[]string{"search", "--ws", ws, "--model", "m", "--rpm", "5", "q"}, "--model, --rpm only matter with --augment", []string{"--augment"}},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--augment-prompt", "v2"}, "--augment-prompt only matters with --augment", []string{"--augment"}},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--base-url", "http://127.0.0.1:1/v1"}, "--base-url only matters with --augment", []string{"--augment"}},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--check", "--mode", "bm25", "--per-item", "x.jsonl"}, "--mode, --per-item only matter with a search run (without --check)", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--check", "--augment", "--model", "m"}, "--augment, --model only matter with a search run", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--check", "--split", "tune", "--every", "2"}, "", nil},
		{[]string{"serve", "--ws", ws, "--augment-prompt", "v2"}, "--augment-prompt only matters with --augment", []string{"--augment"}},
		{[]string{"serve", "--ws", ws, "--augment-wait", "1s"}, "--augment-wait only matters with --augment", []string{"--augment"}},
		{[]string{"search", "--ws", ws, "--weights", "{}", "--mode", "bm25", "q"}, "--weights only matters with --mode best", nil},
		{[]string{"search", "--ws", ws, "--weights", "{}", "q"}, "", nil}, // mode best by default
		{[]string{"search", "--ws", ws, "--profile", "theorem", "--mode", "hybrid", "q"}, "--profile only matters with --mode best", nil},
		// a flag that turns something off is never refused: make run's
		// loop over every mode passes --no-head to bm25 too
		{[]string{"search", "--ws", ws, "--no-head", "--mode", "bm25", "q"}, "", nil},
		{[]string{"search", "--ws", ws, "--no-head", "--mode", "dense", "q"}, "", nil},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", "b.jsonl", "--profile", "theorem", "--mode", "dense"}, "--profile only matters with --mode best", nil},
		// eval search's --mode is a list: a flag is accepted when one of
		// its modes uses it
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25", "--profile", "theorem"}, "--profile only matters with --mode best", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25,best", "--profile", "theorem"}, "", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "dense,hybrid", "--weights", "{}", "--vocabulary", "v.json"}, "--weights, --vocabulary only matter with --mode best", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "best", "--weights", "{}", "--vocabulary", "v.json"}, "", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25", "--embed-base-url", "http://127.0.0.1:1/v1"}, "--embed-base-url only matters with --mode dense, hybrid or best", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25,dense", "--embed-base-url", "http://127.0.0.1:1/v1"}, "", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "dense", "--bm25-engine", "bleve"}, "--bm25-engine only matters with --mode bm25, hybrid or best", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "dense,hybrid", "--bm25-engine", "bleve"}, "", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--profile", "theorem", "--embed-base-url", "http://127.0.0.1:1/v1"}, "", nil}, // every mode by default
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25", "--no-head"}, "", nil},
		{[]string{"eval", "search", "--ws", ws, "--bench", "b.jsonl", "--mode", "bm25,nope", "--profile", "theorem"}, "", nil}, // Validate names the bad mode
		{[]string{"search", "--ws", ws, "--bm25-engine", "bleve", "--mode", "dense", "q"}, "--bm25-engine only matters with --mode bm25, hybrid or best", nil},
		{[]string{"search", "--ws", ws, "--bm25-engine", "bleve", "--mode", "hybrid", "q"}, "", nil},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", "b.jsonl", "--bm25-engine", "bleve", "--mode", "dense"}, "--bm25-engine only matters with --mode bm25, hybrid or best", nil},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", "b.jsonl", "--no-head", "--mode", "bm25"}, "", nil},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", "b.jsonl", "--profile", "theorem", "--mode", "best"}, "", nil},
		{[]string{"drift", "--ws", ws, "--bench", "b.jsonl", "--json"}, "--json only matters with --context-only", nil},
		{[]string{"drift", "--ws", ws, "--bench", "b.jsonl", "--self", "X"}, "--self only matters with --context-only", nil},
		{[]string{"drift", "--ws", ws, "--context-only", "--samples", "2", "--model", "m", "s"}, "--samples, --model only matter with --bench", nil},
		{[]string{"drift", "--ws", ws, "--context-only", "--repl", "lake env repl", "s"}, "--repl only matters with --bench", nil},
		{[]string{"drift", "--ws", ws, "--bench", "b.jsonl", "--top-k", "3"}, "--top-k only matters with --context-only or --no-decompose", []string{"--no-decompose"}},
		{[]string{"drift", "--ws", ws, "--bench", "b.jsonl", "--no-decompose", "--per-query", "2"}, "--per-query only matters with decomposition", nil},
		{[]string{"informalize", "--ws", ws, "--poll", "1s"}, "--poll only matters with --submit", nil},
		{[]string{"informalize", "--ws", ws, "--provider", "template", "--rpm", "5"}, "--rpm only matters with --provider openai", nil},
		{[]string{"informalize", "--ws", ws, "--repairs", "1"}, "--repairs only matters with --provider openai", []string{"--model", "m"}},
		{[]string{"index", "--ws", ws, "--no-cache", "--max-chars", "100"}, "--max-chars, --no-cache only matter with --encoder openai", []string{"--encoder", "openai", "--dim", "8"}}, // --dim: no probe of the endpoint
		{[]string{"index", "--ws", ws, "--model", "bge-m3"}, "--model only matters with --encoder openai", []string{"--encoder", "openai", "--dim", "8"}},                               // --dim: no probe of the endpoint
		{[]string{"mine", "--ws", ws, "--no-index", "--range", "1-5"}, "--range only matters with mining from the index", nil},
		{[]string{"train", "head", "--ws", ws, "--eval-only"}, "--eval-only only matters with --bench", []string{"--bench", "b.jsonl"}},
		{[]string{"train", "head", "--ws", ws, "--eval-only", "--bench", "b.jsonl", "--epochs", "3"}, "--epochs only matters with training (without --eval-only)", nil},
		{[]string{"tomap", "--bench", "b.json", "--out", ws, "--no-lean", "--method", "proofflow", "--rounds", "3"}, "--rounds only matters with --method tomap", nil},
		{[]string{"tomap", "--bench", "b.json", "--out", ws, "--no-lean", "--method", "proofflow,tomap", "--rounds", "3"}, "", nil},
		{[]string{"tomap", "--bench", "b.json", "--out", ws, "--no-lean", "--end2end-retries", "1"}, "--end2end-retries only matters with --method end2end", []string{"--method", "tomap,end2end"}},
	} {
		code, _, errs := runCmd(tc.args...)
		if tc.want == "" { // accepted
			if strings.Contains(errs, "only matter") {
				t.Errorf("driftkit %q: refused with what it needs: %.300q", tc.args, errs)
			}
			continue
		}
		if code != 2 || !strings.Contains(errs, "driftkit "+tc.args[0]) || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "would be ignored") {
			t.Errorf("driftkit %q: exit %d, stderr %.300q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
		if tc.with == nil {
			continue
		}
		at := 1 // after the verb
		if subcommands[tc.args[0]] != nil {
			at = 2
		}
		args := slices.Concat(tc.args[:at], tc.with, tc.args[at:])
		if _, _, errs := runCmd(args...); strings.Contains(errs, "only matter") {
			t.Errorf("driftkit %q: refused with what it needs: %.300q", args, errs)
		}
	}
}

// withFlag is the help convention of a flag that only matters with
// another: "with --other: what it does".
var withFlag = regexp.MustCompile(`^with (--[a-z0-9-]+): `)

// TestHelpWithFlagIsEnforced: every flag whose help says it works "with
// --other:" is refused when given alone — a new such flag without its
// flagNeed fails here.
func TestHelpWithFlagIsEnforced(t *testing.T) {
	n := 0
	for name, c := range allCommands() {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			m := withFlag.FindStringSubmatch(f.Usage)
			if m == nil {
				return
			}
			n++
			args := strings.Fields(name)
			if fs.Lookup("ws") != nil {
				args = append(args, "--ws", filepath.Join(t.TempDir(), "missing-ws"))
			}
			val := f.DefValue
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				val = "true"
			}
			args = append(args, "--"+f.Name+"="+val, "q")
			code, _, errs := runCmd(args...)
			if want := "--" + f.Name + " only matters with " + m[1]; code != 2 || !strings.Contains(errs, want) {
				t.Errorf("driftkit %q: exit %d, stderr %.200q; want exit 2 and %q", args, code, errs, want)
			}
		})
	}
	if n < 7 {
		t.Errorf("only %d flags documented as \"with --other:\"", n)
	}
}
