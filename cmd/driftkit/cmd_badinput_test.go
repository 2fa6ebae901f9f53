package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/app"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/workspace"
)

// TestBadInput runs the commands on bad input: each must exit 1 (error) or 2
// (usage) with a message that names the file (and line) and says what was
// expected, and must not create a workspace it was not asked to write.
func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	for _, args := range [][]string{
		{"import", "rauto", "--library", lib, "--ws", ws},
		{"index", "--ws", ws, "--dim", "32"},
	} {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			t.Fatalf("driftkit %v: exit %d", args, code)
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	emptyBench := write("empty.jsonl", "\n")
	emptyFile := write("empty0.jsonl", "")
	badLine := write("badline.jsonl", `{"informal_stmt": "a bar", "mathlib_dependencies": ["Foo.Bar"], "full_name": "a"}`+"\n"+`{"informal_stmt": "b", "mathlib_dependencies": [1]}`+"\n")
	notArray := write("array.jsonl", "[1, 2]\n")
	foreign := write("foreign.jsonl", `{"informal_stmt": "a group", "mathlib_dependencies": ["Mathlib.Group"], "full_name": "g"}`+"\n")
	noGold := write("nogold.jsonl", `{"informal_stmt": "a group", "mathlib_dependencies": [], "full_name": "g"}`+"\n")
	noFullName := write("nofull.jsonl", `{"informal_stmt": "a bar", "mathlib_dependencies": ["Foo.Bar"], "full_name": "a"}`+"\n"+`{"informal_stmt": "a bar", "mathlib_dependencies": ["Foo.Bar"]}`+"\n")
	dupLib := write("dup.jsonl", `{"full_name": "A.b", "ptype": "def", "def_path": "A.lean"}`+"\n"+`{"full_name": "A.c", "ptype": "def", "def_path": "A.lean"}`+"\n"+`{"full_name": "A.b", "ptype": "theorem", "def_path": "A.lean"}`+"\n")
	noDir := filepath.Join(tmp, "nodir")
	// A workspace whose manifest a newer driftkit wrote.
	newerWS := filepath.Join(tmp, "newer")
	os.MkdirAll(newerWS, 0o755)
	newerManifest := `{"format": 99, "runs": []}` + "\n"
	os.WriteFile(filepath.Join(newerWS, workspace.ManifestFile), []byte(newerManifest), 0o644)
	// A library outside any git checkout, without a .revision file.
	norev := filepath.Join(tmp, "norev")
	os.MkdirAll(filepath.Join(norev, "Lib"), 0o755)
	os.WriteFile(filepath.Join(norev, "Lib", "A.lean"), []byte("def a : Nat := 0\n"), 0o644)
	missing := filepath.Join(tmp, "nows")
	emptyWS := filepath.Join(tmp, "emptyws")
	os.MkdirAll(emptyWS, 0o755)
	truncWS := filepath.Join(tmp, "trunc")
	os.MkdirAll(truncWS, 0o755)
	b, err := os.ReadFile(filepath.Join(ws, workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(truncWS, workspace.DeclarationsFile), b[:len(b)/2], 0o644)

	// A run holding the tables' lock makes a second writer fail at once.
	busy, err := workspace.Open(filepath.Join(tmp, "busy"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := busy.TryLock(tablesLock)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, c := range []struct {
		args   []string
		code   int
		want   []string // substrings of stderr
		prefix string   // stderr starts with it (the reason before the usage)
		not    []string // not in stderr
	}{
		// A missing argument: the reason, then the usage, on stderr, exit 2.
		{args: []string{}, code: 2, prefix: "driftkit turns a Lean 4 library", want: []string{"Usage: driftkit <command>", "Commands:"}},
		{args: []string{"--help"}, code: 0, prefix: "driftkit turns a Lean 4 library", want: []string{"Usage: driftkit <command>", "Commands:"}},
		{args: []string{"index"}, code: 2, prefix: "driftkit index: --ws is required\n\nUsage: driftkit index"},
		{args: []string{"search", "--ws", ws}, code: 2, prefix: "driftkit search: --ws and a statement are required\n\nUsage: driftkit search"},
		{args: []string{"eval", "retrieval", "--ws", ws}, code: 2, prefix: "driftkit eval retrieval: --ws and --bench are required\n\nUsage: driftkit eval retrieval"},
		{args: []string{"extract", "--ws", ws}, code: 2, prefix: "driftkit extract: --src and --ws are required\n\nUsage: driftkit extract"},
		{args: []string{"import", "rauto", "--ws", ws}, code: 2, prefix: "driftkit import rauto: --library and --ws are required\n\nUsage: driftkit import rauto"},
		{args: []string{"mine"}, code: 2, prefix: "driftkit mine: --ws is required\n\nUsage: driftkit mine"},
		{args: []string{"export", "flagembedding"}, code: 2, prefix: "driftkit export flagembedding: --ws is required\n\nUsage: driftkit export flagembedding"},
		{args: []string{"export", "hf", "--ws", ws}, code: 2, prefix: "driftkit export hf: a licence identifier is required", want: []string{"Usage: driftkit export hf"}},
		{args: []string{"export", "embeddings"}, code: 2, prefix: "driftkit export embeddings: --ws is required\n\nUsage: driftkit export embeddings"},
		{args: []string{"export", "embeddings", "--ws", ws, "--row-group-rows", "-1"}, code: 2, prefix: "driftkit export embeddings: --row-group-rows -1 (want 0 or more)\n\nUsage: driftkit export embeddings"},
		{args: []string{"export", "embeddings", "--ws", emptyWS}, code: 1, want: []string{filepath.Join(emptyWS, workspace.DeclarationsFile), "run `driftkit extract --ws " + emptyWS}},
		{args: []string{"export", "embeddings", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"train", "head"}, code: 2, prefix: "driftkit train head: --ws is required\n\nUsage: driftkit train head"},
		{args: []string{"informalize"}, code: 2, prefix: "driftkit informalize: --ws is required\n\nUsage: driftkit informalize"},
		{args: []string{"cache", "stats"}, code: 2, prefix: "driftkit cache stats: --ws is required\n\nUsage: driftkit cache stats"},
		{args: []string{"cache", "prune", "--ws", ws, "x"}, code: 2, prefix: "driftkit cache prune: unexpected argument \"x\"\n\nUsage: driftkit cache prune"},
		{args: []string{"eval"}, code: 2, prefix: "driftkit eval: a subcommand is required\n\nUsage: driftkit eval <subcommand>", want: []string{"retrieval", "coverage"}},
		// A typo of a subcommand lists the valid ones.
		{args: []string{"eval", "retrieve"}, code: 2, prefix: `driftkit eval: unknown subcommand "retrieve"`, want: []string{"Subcommands:", "retrieval ", "extract ", "coverage "}},
		// Bad values are rejected naming the value.
		{args: []string{"index", "--ws", ws, "--dim", "0"}, code: 2, want: []string{"driftkit index: --dim 0 (want at least 1)"}},
		{args: []string{"index", "--ws", ws, "--dim", "-8"}, code: 2, want: []string{"driftkit index: --dim -8 (want at least 1)"}},
		{args: []string{"search", "--ws", ws, "--weights", `{"bm25": 1, "dense_weight": 2}`, "x"}, code: 2, want: []string{`--weights: unknown field "dense_weight"`, "known: bm25, dense"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench, "--k", "0,x"}, code: 2, want: []string{`--k "0,x": "0" is not a cutoff`}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench, "--k", "5,x"}, code: 2, want: []string{`--k "5,x": "x" is not a cutoff`}},
		// index --help lists the embedding client's flags, none of the chat's.
		{args: []string{"index", "--help"}, code: 0, want: []string{"-base-url", "-rpm"}, not: []string{"price-completion", "no-json-mode"}},
		// A source without a revision is warned about and recorded as unknown.
		{args: []string{"extract", "--src", filepath.Join(norev, "Lib"), "--library", "lib", "--ws", filepath.Join(tmp, "norevws"), "--quiet"}, code: 0,
			want: []string{"is not in a git checkout and has no .revision file", `recorded as "unknown"`}},
		// --per-item into a folder that does not exist: an error, no folder made.
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench, "--per-item", filepath.Join(noDir, "items.jsonl")}, code: 1,
			want: []string{"--per-item " + filepath.Join(noDir, "items.jsonl"), "the folder " + noDir + " does not exist"}},
		// A manifest from a newer driftkit is refused, not rewritten without its fields.
		{args: []string{"import", "rauto", "--library", lib, "--ws", newerWS}, code: 1,
			want: []string{filepath.Join(newerWS, workspace.ManifestFile), "written by a newer driftkit", "format 99"}},
		// Duplicate full_names in a library are reported.
		{args: []string{"import", "rauto", "--library", dupLib, "--ws", filepath.Join(tmp, "dupws")}, code: 0,
			want: []string{"warning: " + dupLib + `:3: `, `duplicate full_name "A.b" (first on line 1)`}},
		// A benchmark line without full_name is reported.
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", noFullName}, code: 1, want: []string{noFullName + ":2:", "no full_name"}},

		{args: []string{"index", "--ws", ws, "--encoder", "bogus"}, code: 2, want: []string{`driftkit index: --encoder "bogus" (` + app.OrList(index.EncoderKinds()) + ")"}},
		{args: []string{"index", "--ws", ws, "extra"}, code: 2, want: []string{`unexpected argument "extra"`}},
		{args: []string{"search", "--ws", ws}, code: 2, want: []string{"--ws and a statement are required"}},
		{args: []string{"search", "--ws", ws, "--bm25-engine", "lucene", "x"}, code: 2, want: []string{`--bm25-engine "lucene"`}},
		{args: []string{"search", "--ws", ws, "--weights", "{", "x"}, code: 2, want: []string{"--weights"}},
		{args: []string{"search", "--ws", ws, "  "}, code: 2, want: []string{"the statement is empty"}},
		{args: []string{"search", "--ws", ws, "--k", "0", "x"}, code: 2, want: []string{"--k 0"}},
		{args: []string{"search", "--ws", ws, "--kinds", "lemma", "x"}, code: 2, want: []string{`unknown kind "lemma"`}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench, "--k", "0"}, code: 2, want: []string{`driftkit eval retrieval: --k "0"`}},
		{args: []string{"informalize", "--ws", ws, "--kinds", "lemma"}, code: 2, want: []string{`unknown kind "lemma"`}},
		{args: []string{"index", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"informalize", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"eval", "extract", "--ws", missing, "--reference", lib}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		// The stages that read a workspace never make one for a mistyped
		// --ws (they made it, with lock files, and then said "no index").
		{args: []string{"mine", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"mine", "--ws", missing, "--no-index"}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"train", "head", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"train", "head", "--ws", missing, "--eval-only", "--bench", emptyBench}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"export", "flagembedding", "--ws", missing}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"export", "hf", "--ws", missing, "--license", "apache-2.0"}, code: 1, want: []string{missing, "workspace folder does not exist"}},
		{args: []string{"search", "--ws", missing, "x"}, code: 1, want: []string{missing, "no index"}},
		{args: []string{"import", "rauto", "--library", filepath.Join(tmp, "none.jsonl"), "--ws", missing}, code: 1, want: []string{"none.jsonl"}},
		{args: []string{"extract", "--src", filepath.Join(tmp, "nosrc"), "--ws", missing}, code: 1, want: []string{"nosrc"}},
		{args: []string{"index", "--ws", truncWS}, code: 1, want: []string{filepath.Join(truncWS, workspace.DeclarationsFile), "corrupt parquet file"}},
		{args: []string{"informalize", "--ws", truncWS}, code: 1, want: []string{filepath.Join(truncWS, workspace.DeclarationsFile), "corrupt parquet file"}},
		{args: []string{"informalize", "--ws", emptyWS}, code: 1, want: []string{filepath.Join(emptyWS, workspace.DeclarationsFile), "run `driftkit extract --ws " + emptyWS}},
		{args: []string{"index", "--ws", emptyWS}, code: 1, want: []string{filepath.Join(emptyWS, workspace.DeclarationsFile), "driftkit extract"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench}, code: 1, want: []string{emptyBench + ":1:", "no items"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", badLine}, code: 1, want: []string{badLine + ":2:", "want one JSON object per line"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", notArray}, code: 1, want: []string{notArray + ":1:"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", foreign}, code: 1, want: []string{foreign, "none of its 1 gold premises"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", noGold}, code: 1, want: []string{noGold, "no item has gold premises"}},
		{args: []string{"eval", "retrieval", "--ws", ws, "--bench", filepath.Join(tmp, "none.jsonl")}, code: 1, want: []string{"none.jsonl"}},
		{args: []string{"extract", "--src", filepath.Join("..", "..", "testdata", "lean"), "--ws", busy.Dir}, code: 1, want: []string{busy.Dir, "another run holds its lock"}},
		{args: []string{"import", "rauto", "--library", lib, "--ws", busy.Dir}, code: 1, want: []string{busy.Dir, "another run holds its lock"}},
		{args: []string{"import", "rauto", "--library", emptyFile, "--ws", filepath.Join(tmp, "ws2")}, code: 1, want: []string{emptyFile + ":1:", "no rows"}},
		{args: []string{"eval", "extract", "--ws", ws, "--reference", emptyFile}, code: 1, want: []string{emptyFile + ":1:", "no rows"}},
	} {
		var stderr bytes.Buffer
		code := run(c.args, io.Discard, &stderr)
		if code != c.code {
			t.Errorf("driftkit %v: exit %d, want %d\n%s", c.args, code, c.code, stderr.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("driftkit %v: stderr %q lacks %q", c.args, stderr.String(), w)
			}
		}
		if !strings.HasPrefix(stderr.String(), c.prefix) {
			t.Errorf("driftkit %v: stderr %q does not start with %q", c.args, stderr.String(), c.prefix)
		}
		for _, w := range c.not {
			if strings.Contains(stderr.String(), w) {
				t.Errorf("driftkit %v: stderr %q has %q", c.args, stderr.String(), w)
			}
		}
		for _, d := range []string{missing, noDir} {
			if _, err := os.Stat(d); err == nil {
				t.Fatalf("driftkit %v created the missing folder %s", c.args, d)
			}
		}
	}
	// The refused manifest is left as the newer driftkit wrote it; the
	// duplicate row is not imported; the unknown revision is in the rows.
	if b, _ := os.ReadFile(filepath.Join(newerWS, workspace.ManifestFile)); string(b) != newerManifest {
		t.Errorf("the newer manifest was rewritten: %s", b)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](filepath.Join(tmp, "dupws", workspace.DeclarationsFile))
	if err != nil || len(decls) != 2 {
		t.Errorf("import of a library with a duplicate: %d declarations, %v; want 2", len(decls), err)
	}
	decls, err = workspace.ReadTable[workspace.Declaration](filepath.Join(tmp, "norevws", workspace.DeclarationsFile))
	if err != nil || len(decls) == 0 || decls[0].Revision != "unknown" {
		t.Errorf("extract without a revision: rows %+v, %v; want revision unknown", decls, err)
	}
}
