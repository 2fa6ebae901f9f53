package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/dataset"
)

// TestBadInput runs the commands on bad input: each must exit 1 (error) or 2
// (usage) with a message that names the file (and line) and says what was
// expected, and must not create a workspace it was not asked to write.
func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	lib := filepath.Join("..", "..", "dataset", "rauto", "testdata", "small.jsonl")
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
	badLine := write("badline.jsonl", `{"informal_stmt": "a bar", "mathlib_dependencies": ["Foo.Bar"]}`+"\n"+`{"informal_stmt": "b", "mathlib_dependencies": [1]}`+"\n")
	notArray := write("array.jsonl", "[1, 2]\n")
	foreign := write("foreign.jsonl", `{"informal_stmt": "a group", "mathlib_dependencies": ["Mathlib.Group"]}`+"\n")
	noGold := write("nogold.jsonl", `{"informal_stmt": "a group", "mathlib_dependencies": []}`+"\n")
	missing := filepath.Join(tmp, "nows")
	emptyWS := filepath.Join(tmp, "emptyws")
	os.MkdirAll(emptyWS, 0o755)
	truncWS := filepath.Join(tmp, "trunc")
	os.MkdirAll(truncWS, 0o755)
	b, err := os.ReadFile(filepath.Join(ws, dataset.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(truncWS, dataset.DeclarationsFile), b[:len(b)/2], 0o644)

	// A run holding the tables' lock makes a second writer fail at once.
	busy, err := dataset.Open(filepath.Join(tmp, "busy"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := busy.TryLock(tablesLock)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, c := range []struct {
		args []string
		code int
		want []string // substrings of stderr
	}{
		{[]string{"index"}, 2, []string{"driftkit index: --ws is required"}},
		{[]string{"index", "--ws", ws, "--encoder", "bogus"}, 2, []string{`driftkit index: --encoder "bogus" (hash or openai)`}},
		{[]string{"index", "--ws", ws, "extra"}, 2, []string{`unexpected argument "extra"`}},
		{[]string{"search", "--ws", ws}, 2, []string{"--ws and a statement are required"}},
		{[]string{"search", "--ws", ws, "--bm25-engine", "lucene", "x"}, 2, []string{`--bm25-engine "lucene"`}},
		{[]string{"search", "--ws", ws, "--weights", "{", "x"}, 2, []string{"--weights"}},
		{[]string{"search", "--ws", ws, "  "}, 2, []string{"the statement is empty"}},
		{[]string{"search", "--ws", ws, "--k", "0", "x"}, 2, []string{"--k 0"}},
		{[]string{"search", "--ws", ws, "--kinds", "lemma", "x"}, 2, []string{`unknown kind "lemma"`}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench, "--k", "0"}, 2, []string{`driftkit eval retrieval: --k "0"`}},
		{[]string{"informalize", "--ws", ws, "--kinds", "lemma"}, 2, []string{`unknown kind "lemma"`}},
		{[]string{"index", "--ws", missing}, 1, []string{missing, "workspace folder does not exist"}},
		{[]string{"informalize", "--ws", missing}, 1, []string{missing, "workspace folder does not exist"}},
		{[]string{"eval", "extract", "--ws", missing, "--reference", lib}, 1, []string{missing, "workspace folder does not exist"}},
		{[]string{"search", "--ws", missing, "x"}, 1, []string{missing, "no index"}},
		{[]string{"import", "rauto", "--library", filepath.Join(tmp, "none.jsonl"), "--ws", missing}, 1, []string{"none.jsonl"}},
		{[]string{"extract", "--src", filepath.Join(tmp, "nosrc"), "--ws", missing}, 1, []string{"nosrc"}},
		{[]string{"index", "--ws", truncWS}, 1, []string{filepath.Join(truncWS, dataset.DeclarationsFile), "corrupt parquet file"}},
		{[]string{"informalize", "--ws", truncWS}, 1, []string{filepath.Join(truncWS, dataset.DeclarationsFile), "corrupt parquet file"}},
		{[]string{"informalize", "--ws", emptyWS}, 1, []string{filepath.Join(emptyWS, dataset.DeclarationsFile), "run `driftkit extract --ws " + emptyWS}},
		{[]string{"index", "--ws", emptyWS}, 1, []string{filepath.Join(emptyWS, dataset.DeclarationsFile), "driftkit extract"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", emptyBench}, 1, []string{emptyBench + ":1:", "no items"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", badLine}, 1, []string{badLine + ":2:", "want one JSON object per line"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", notArray}, 1, []string{notArray + ":1:"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", foreign}, 1, []string{foreign, "none of its 1 gold premises"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", noGold}, 1, []string{noGold, "no item has gold premises"}},
		{[]string{"eval", "retrieval", "--ws", ws, "--bench", filepath.Join(tmp, "none.jsonl")}, 1, []string{"none.jsonl"}},
		{[]string{"extract", "--src", filepath.Join("..", "..", "testdata", "lean"), "--ws", busy.Dir}, 1, []string{busy.Dir, "another run holds its lock"}},
		{[]string{"import", "rauto", "--library", lib, "--ws", busy.Dir}, 1, []string{busy.Dir, "another run holds its lock"}},
		{[]string{"import", "rauto", "--library", emptyFile, "--ws", filepath.Join(tmp, "ws2")}, 1, []string{emptyFile + ":1:", "no rows"}},
		{[]string{"eval", "extract", "--ws", ws, "--reference", emptyFile}, 1, []string{emptyFile + ":1:", "no rows"}},
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
		if _, err := os.Stat(missing); err == nil {
			t.Fatalf("driftkit %v created the missing workspace %s", c.args, missing)
		}
	}
}
