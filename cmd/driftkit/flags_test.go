package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/countflag"
	"github.com/driftkit/driftkit/serve/tomap"
	"github.com/driftkit/driftkit/workspace"
)

// TestCommonFlags: every stage that writes has --ws, --force and --quiet,
// spelt and explained alike; --quiet silences the progress display; --json
// prints the report as JSON.
func TestCommonFlags(t *testing.T) {
	for _, args := range [][]string{
		{"extract"}, {"import", "rauto"}, {"import", "jixia"}, {"import", "lean4export"}, {"index"}, {"informalize"},
		{"mine"}, {"train", "head"}, {"export", "hf"}, {"export", "flagembedding"},
	} {
		var stderr bytes.Buffer
		if code := run(append(args, "--help"), io.Discard, &stderr); code != 0 {
			t.Fatalf("driftkit %v --help: exit %d", args, code)
		}
		for _, want := range []string{"-ws string\n    \tworkspace folder", "-quiet\n    \tno progress display", "-force\n    \treplace "} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("driftkit %v --help lacks %q", args, want)
			}
		}
		if !regexp.MustCompile(`-force\n    \treplace [^\n]* the workspace's manifest does not know`).MatchString(stderr.String()) {
			t.Errorf("driftkit %v --help: --force is not explained as the others are", args)
		}
	}

	ws := filepath.Join(t.TempDir(), "ws")
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	if code := run([]string{"import", "rauto", "--library", lib, "--ws", ws}, io.Discard, io.Discard); code != 0 {
		t.Fatal("import")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"index", "--ws", ws, "--dim", "32"}, &stdout, &stderr); code != 0 {
		t.Fatalf("index: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "finished") || !strings.Contains(stdout.String(), "indexed 4 documents (3 premise candidates), encoder hash (offline fallback encoder), 32 dims") {
		t.Errorf("index without --quiet: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"index", "--ws", ws, "--dim", "32", "--quiet", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("index --quiet --json: %s", stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("index --quiet wrote %q", stderr.String())
	}
	var rep struct {
		Docs            int                `json:"docs"`
		PremiseDocs     int                `json:"premise_docs"`
		Encoder         string             `json:"encoder"`
		EncoderFallback bool               `json:"encoder_fallback"`
		Dims            int                `json:"dims"`
		Phases          map[string]float64 `json:"phase_seconds"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("index --json: %v\n%s", err, stdout.String())
	}
	if rep.Docs != 4 || rep.PremiseDocs != 3 || rep.Encoder != "hash" || !rep.EncoderFallback || rep.Dims != 32 || len(rep.Phases) == 0 {
		t.Errorf("index --json: %+v", rep)
	}
}

// TestExtractJSON: extract --json reports what it wrote.
func TestExtractJSON(t *testing.T) {
	ws := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"extract", "--src", filepath.Join("..", "..", "testdata", "lean"), "--library", "driftlib", "--ws", ws, "--quiet", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Files        int   `json:"files"`
		Declarations int64 `json:"declarations"`
		Sources      []struct {
			Library, Revision string
		} `json:"sources"`
		Phases map[string]float64 `json:"phase_seconds"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("extract --json: %v\n%s", err, stdout.String())
	}
	decls, err := workspace.ReadTable[workspace.Declaration](filepath.Join(ws, workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files == 0 || rep.Declarations != int64(len(decls)) || len(rep.Sources) != 1 || rep.Sources[0].Library != "driftlib" ||
		rep.Sources[0].Revision == "" || rep.Phases["parse"] <= 0 {
		t.Errorf("extract --json: %+v (table has %d rows)", rep, len(decls))
	}
}

// TestQueryFlagsShared: search and eval retrieval take the same ranking
// flags with the same defaults and help.
func TestQueryFlagsShared(t *testing.T) {
	help := func(args ...string) map[string]string {
		var stderr bytes.Buffer
		run(append(args, "--help"), io.Discard, &stderr)
		out := map[string]string{}
		// A flag's entry: "  -name type\n    \thelp…" up to the next flag.
		for _, e := range regexp.MustCompile(`(?m)^  -`).Split(stderr.String(), -1)[1:] {
			name, _, _ := strings.Cut(strings.Fields(e)[0], " ")
			out[name] = e
		}
		return out
	}
	s, e := help("search"), help("eval", "retrieval")
	for _, f := range []string{"mode", "all-kinds", "weights", "bm25-engine", "no-head", "ws", "json"} {
		if s[f] == "" || s[f] != e[f] {
			t.Errorf("--%s: search %q, eval retrieval %q", f, s[f], e[f])
		}
	}
}

// TestHelpStreams: `driftkit help` is output (stdout); --help and a bare
// driftkit print the same text to stderr, as every command's --help does.
func TestHelpStreams(t *testing.T) {
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr bool
	}{
		{[]string{"help"}, 0, true, false},
		{[]string{"--help"}, 0, false, true},
		{[]string{"-h"}, 0, false, true},
		{[]string{}, 2, false, true},
		{[]string{"index", "--help"}, 0, false, true},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || strings.Contains(stdout.String(), "Usage: driftkit") != c.stdout || strings.Contains(stderr.String(), "Usage: driftkit") != c.stderr {
			t.Errorf("driftkit %v: exit %d, stdout %q, stderr %q", c.args, code, stdout.String(), stderr.String())
		}
	}
}

// TestCountFlagsZeroMeansZero: a count flag given 0 reaches the library as
// its "none", never as "the default".
func TestCountFlagsZeroMeansZero(t *testing.T) {
	parse := func(o interface{ AddFlags(*flag.FlagSet) }, args ...string) {
		t.Helper()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
	}
	var tm tomapOptions
	parse(&tm, "--decompose-retries", "0", "--formalizer-retries", "0", "--prover-retries", "0", "--end2end-retries", "0")
	tc := tomap.Config{DecomposeRetries: tm.DecRetries, FormalizerRetries: tm.FormRetries, ProverRetries: tm.ProveRetries, E2ERetries: tm.E2ERetries}.WithDefaults()
	if tc.DecomposeRetries != 0 || tc.FormalizerRetries != 0 || tc.ProverRetries != 0 || tc.E2ERetries != 0 {
		t.Errorf("tomap retries 0 became %d %d %d %d", tc.DecomposeRetries, tc.FormalizerRetries, tc.ProverRetries, tc.E2ERetries)
	}
	var mo mineOptions
	parse(&mo, "--negatives", "0")
	var fo exportFlagEmbeddingOptions
	parse(&fo, "--min-negatives", "0")
	if mo.Negatives != countflag.None || fo.MinNegatives != countflag.None {
		t.Errorf("--negatives 0 → %d, --min-negatives 0 → %d", mo.Negatives, fo.MinNegatives)
	}
}
