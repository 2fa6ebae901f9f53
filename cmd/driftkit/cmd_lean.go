package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/lean"
)

func init() {
	group("lean", "check Lean snippets and BEq+ equivalence through a Lean backend")
	register(newCommand("lean check", "typecheck Lean files or snippets", help{"[--repl CMD | --kimina URL | --lean CMD] [--header TEXT] [--json] FILE…|-",
		"Checks each FILE (a .lean file: one snippet; a .jsonl file: one snippet per line, {\"id\", \"header\", \"code\"};\n" +
			"-: standard input) and prints one result per snippet: pass (no error), complete (no sorry either),\n" +
			"Lean's messages with file positions, time and backend.\n" + leanBackendHelp}, runLeanCheck))
	register(newCommand("lean beq", "BEq+ equivalence of a candidate statement with a reference", help{"[backend flags] --ref STATEMENT --cand STATEMENT [--header TEXT] [--json] | --pairs FILE.jsonl",
		"Decides whether a candidate formal statement is equivalent to the reference by BEq+ (Poiroux et al.,\n" +
			"EMNLP 2025): each is proved from the other with a fixed tactic script (exact?, apply, have, convert).\n" +
			"Prints equivalent, one-direction or not-proved, with the tactic that proved each direction.\n" +
			"--pairs reads one pair per line: {\"id\", \"ref\", \"cand\", \"header\", \"ref_header\", \"cand_header\"}.\n" +
			leanBackendHelp + " (1: a pair is not equivalent)"}, runLeanBEq))
}

const leanBackendHelp = "Backends (exactly one): --repl CMD (the Lean REPL, e.g. \"lake env /path/to/repl/.lake/build/bin/repl\"\n" +
	"run in --repl-dir, a Lean project with Mathlib built), --kimina URL (a kimina-lean-server),\n" +
	"--lean CMD (one-shot \"lake env lean\", run as '<cmd> --json FILE' in --lean-dir).\n" +
	"Exit status: 0 all pass, 1 a check failed, 2 usage, 3 the backend does not work."

// openLean opens the backend through app, its warnings on the command's
// stderr, mapping bad options to a usage error.
func openLean(ctx context.Context, env *Env, o lean.Options) (lean.Checker, error) {
	o.Logf = func(format string, args ...any) { fmt.Fprintf(env.Stderr, format+"\n", args...) }
	c, err := app.OpenLean(ctx, o)
	if errors.Is(err, lean.ErrBadOptions) {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return c, err
}

// leanCheckOptions are the flags of `driftkit lean check`.
type leanCheckOptions struct {
	Lean     lean.Options
	header   headerFlags
	JSON     bool
	Complete bool
}

func (o *leanCheckOptions) AddFlags(fs *flag.FlagSet) {
	o.Lean.AddFlags(fs)
	o.header.AddFlags(fs, "Lean text every snippet is checked on (imports, opens); default: each file's own imports")
	fs.BoolVar(&o.JSON, "json", false, "print one JSON result per line")
	fs.BoolVar(&o.Complete, "complete", false, "count a snippet that uses sorry as failed")
}

func (o *leanCheckOptions) Validate(args []string) error {
	if len(args) == 0 {
		return usagef("give at least one FILE (or - for standard input)")
	}
	return nil
}

func runLeanCheck(ctx context.Context, o *leanCheckOptions, env *Env, args []string) error {
	hdr, err := o.header.read()
	if err != nil {
		return err
	}
	var snippets []lean.Snippet
	for _, path := range args {
		s, err := readSnippets(env, path, hdr)
		if err != nil {
			return err
		}
		snippets = append(snippets, s...)
	}
	if len(snippets) == 0 {
		return fmt.Errorf("%w: no snippets in %s", errUsage, strings.Join(args, ", "))
	}
	c, err := openLean(ctx, env, o.Lean)
	if err != nil {
		return err
	}
	defer c.Close()
	results, err := c.Check(ctx, snippets)
	if err != nil {
		return err
	}
	failed := 0
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	for i, r := range results {
		ok := r.Pass && (r.Complete || !o.Complete)
		if !ok {
			failed++
		}
		if o.JSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		printResult(env.Stdout, snippets[i], r)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d snippets failed", failed, len(results))
	}
	return nil
}

// readSnippets reads one FILE argument.
func readSnippets(env *Env, path, header string) ([]lean.Snippet, error) {
	var r io.Reader
	if path == "-" {
		r = env.stdin()
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	if !strings.HasSuffix(path, ".jsonl") {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		id := path
		if path == "-" {
			id = "stdin"
		}
		return []lean.Snippet{{ID: id, Header: header, Code: string(b)}}, nil
	}
	var out []lean.Snippet
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s struct {
			ID     string  `json:"id"`
			Header *string `json:"header"`
			Code   *string `json:"code"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: want a JSON object {\"id\", \"header\", \"code\"}: %v", path, n, err)
		}
		if s.Code == nil {
			return nil, fmt.Errorf("%s:%d: no \"code\"", path, n)
		}
		sn := lean.Snippet{ID: s.ID, Header: header, Code: *s.Code}
		if s.Header != nil {
			sn.Header = *s.Header
		}
		if sn.ID == "" {
			sn.ID = fmt.Sprintf("%s:%d", path, n)
		}
		out = append(out, sn)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func printResult(w io.Writer, s lean.Snippet, r lean.Result) {
	verdict := "PASS"
	switch {
	case r.Error != "":
		verdict = "ERROR"
	case !r.Pass:
		verdict = "FAIL"
	case !r.Complete:
		verdict = "SORRY"
	}
	fmt.Fprintf(w, "%-6s %s  %.2fs", verdict, r.ID, r.Time.Seconds())
	if r.Wait > 10*time.Millisecond {
		fmt.Fprintf(w, " (+%.2fs queued)", r.Wait.Seconds())
	}
	fmt.Fprintf(w, "  %s\n", r.Backend)
	if r.Error != "" {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(r.Error, "\n", "\n  "))
	}
	for _, m := range r.Messages {
		line := r.CodeLine(m.Pos.Line)
		where := fmt.Sprintf("%s:%d:%d", s.ID, line, m.Pos.Column)
		if line < 1 {
			where = fmt.Sprintf("%s (header):%d:%d", s.ID, m.Pos.Line, m.Pos.Column)
		}
		fmt.Fprintf(w, "  %s: %s: %s\n", where, m.Severity, strings.ReplaceAll(m.Data, "\n", "\n    "))
	}
}

// leanBEqOptions are the flags of `driftkit lean beq`.
type leanBEqOptions struct {
	Lean         lean.Options
	header       headerFlags
	Ref, Cand    string
	RefFile      string
	CandFile     string
	RefHeader    string
	CandHeader   string
	Pairs        string
	JSON         bool
	TryTimeout   time.Duration
	ApplyTactics string
	HaveTactics  string
	Parallel     int
}

func (o *leanBEqOptions) AddFlags(fs *flag.FlagSet) {
	o.Lean.AddFlags(fs)
	fs.StringVar(&o.Ref, "ref", "", "reference statement (Lean text; the last theorem in it counts)")
	fs.StringVar(&o.Cand, "cand", "", "candidate statement")
	fs.StringVar(&o.RefFile, "ref-file", "", "read --ref from this file")
	fs.StringVar(&o.CandFile, "cand-file", "", "read --cand from this file")
	o.header.AddFlags(fs, "header both statements need (imports, opens, definitions)")
	fs.StringVar(&o.RefHeader, "ref-header", "", "header of the reference only (merged with --header)")
	fs.StringVar(&o.CandHeader, "cand-header", "", "header of the candidate only (merged with --header)")
	fs.StringVar(&o.Pairs, "pairs", "", "JSONL file of pairs to decide")
	fs.BoolVar(&o.JSON, "json", false, "print one JSON result per pair")
	fs.DurationVar(&o.TryTimeout, "try-timeout", 60*time.Second, "timeout of each BEq+ try (the reference's 60 s)")
	fs.StringVar(&o.ApplyTactics, "apply-tactics", strings.Join(lean.DefaultApplyTactics(), ","), "comma-separated closing tactics after apply/convert")
	fs.StringVar(&o.HaveTactics, "have-tactics", strings.Join(lean.DefaultHaveTactics(), ","), "comma-separated closing tactics after have")
	fs.IntVar(&o.Parallel, "parallel", 4, "pairs decided at once (--pairs)")
}

func (o *leanBEqOptions) Validate(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, args)
	}
	return nil
}

// readPairs is the pairs to decide: --pairs, or the one pair of --ref and
// --cand (each possibly read from its file).
func (o *leanBEqOptions) readPairs() ([]lean.BEqPair, error) {
	hdr, err := o.header.read()
	if err != nil {
		return nil, err
	}
	for _, rf := range []struct {
		flag string
		text *string
		file string
	}{{"--ref", &o.Ref, o.RefFile}, {"--cand", &o.Cand, o.CandFile}} {
		if rf.file == "" {
			continue
		}
		if *rf.text != "" {
			return nil, fmt.Errorf("%w: %s and %s-file exclude each other", errUsage, rf.flag, rf.flag)
		}
		b, err := os.ReadFile(rf.file)
		if err != nil {
			return nil, err
		}
		*rf.text = string(b)
	}
	switch {
	case o.Pairs != "" && (o.Ref != "" || o.Cand != ""):
		return nil, fmt.Errorf("%w: --pairs excludes --ref and --cand", errUsage)
	case o.Pairs != "":
		return readPairs(o.Pairs, hdr)
	case o.Ref == "" || o.Cand == "":
		return nil, usagef("--ref and --cand (or --pairs) are required")
	}
	return []lean.BEqPair{{ID: "pair", Ref: o.Ref, Cand: o.Cand, Header: hdr, RefHeader: o.RefHeader, CandHeader: o.CandHeader}}, nil
}

func runLeanBEq(ctx context.Context, o *leanBEqOptions, env *Env, args []string) error {
	pairs, err := o.readPairs()
	if err != nil {
		return err
	}
	bo := lean.BEqOptions{Timeout: o.TryTimeout, ApplyTactics: splitList(o.ApplyTactics), HaveTactics: splitList(o.HaveTactics), Parallel: o.Parallel}
	if len(pairs) == 1 { // a statement that does not parse is bad usage, found before a backend starts
		if _, err := lean.NewBEqTask(pairs[0], bo); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	c, err := openLean(ctx, env, o.Lean)
	if err != nil {
		return err
	}
	defer c.Close()
	results, perr, err := lean.BEqPlusAll(ctx, c, pairs, bo)
	if err != nil {
		return err
	}
	notEq := 0
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	for i, r := range results {
		if r.Outcome != lean.Equivalent {
			notEq++
		}
		if o.JSON {
			v := struct {
				lean.BEqResult
				Error string `json:"error,omitempty"`
			}{BEqResult: r}
			if perr[i] != nil {
				v.Error = perr[i].Error()
			}
			if err := enc.Encode(v); err != nil {
				return err
			}
			continue
		}
		printBEqResult(env.Stdout, r, perr[i])
	}
	if notEq > 0 {
		return fmt.Errorf("%d of %d pairs not proved equivalent", notEq, len(results))
	}
	return nil
}

// printBEqResult prints a pair's outcome and, for each direction, the
// tactic that proved it with Lean's messages.
func printBEqResult(w io.Writer, r lean.BEqResult, perr error) {
	fmt.Fprintf(w, "%-14s %s  %.1fs\n", r.Outcome, r.ID, r.Time.Seconds())
	if perr != nil {
		fmt.Fprintf(w, "  %v\n", perr)
		return
	}
	for _, d := range []struct {
		name string
		d    lean.BEqDirection
	}{{"ref → cand", r.RefToCand}, {"cand → ref", r.CandToRef}} {
		fmt.Fprintf(w, "  %s: %s (%d checks)\n", d.name, d.d.Strategy, d.d.Checks)
		for _, m := range d.d.Messages {
			fmt.Fprintf(w, "    %d:%d: %s\n", m.Pos.Line, m.Pos.Column, strings.ReplaceAll(m.Data, "\n", "\n      "))
		}
		for _, e := range d.d.Errors {
			fmt.Fprintf(w, "    unchecked: %s\n", firstLineOf(e))
		}
	}
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func readPairs(path, header string) ([]lean.BEqPair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []lean.BEqPair
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var p struct {
			ID         string `json:"id"`
			Ref        string `json:"ref"`
			Cand       string `json:"cand"`
			Header     string `json:"header"`
			RefHeader  string `json:"ref_header"`
			CandHeader string `json:"cand_header"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: want a JSON object {\"id\", \"ref\", \"cand\", …}: %v", path, n, err)
		}
		if p.Ref == "" || p.Cand == "" {
			return nil, fmt.Errorf("%s:%d: \"ref\" and \"cand\" are required", path, n)
		}
		if p.ID == "" {
			p.ID = fmt.Sprintf("%s:%d", path, n)
		}
		if p.Header == "" {
			p.Header = header
		}
		out = append(out, lean.BEqPair{ID: p.ID, Ref: p.Ref, Cand: p.Cand, Header: p.Header, RefHeader: p.RefHeader, CandHeader: p.CandHeader})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no pairs", path)
	}
	return out, nil
}
