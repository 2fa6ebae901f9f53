package retrieval

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A small reader of data-driven test files in the style of pebble's
// datadriven package (not a dependency: it is not among the served
// modules). A file is a list of cases:
//
//	# comment
//	command arg=value arg=value
//	input lines
//	----
//	expected output lines
//	<blank line>
//
// go test -rewrite writes the actual output back into the file.

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of data-driven test files")

// ddCase is one case of a data-driven file.
type ddCase struct {
	Pos   string // file:line of the command
	Cmd   string
	Args  map[string]string
	Input string
	// Expected is the output the file expects.
	Expected string
}

// Arg returns an argument or a default.
func (c *ddCase) Arg(name, def string) string {
	if v, ok := c.Args[name]; ok {
		return v
	}
	return def
}

// runDataDriven runs every case of path through fn and compares (or, with
// -rewrite, replaces) the expected output.
func runDataDriven(t *testing.T, path string, fn func(t *testing.T, c *ddCase) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out strings.Builder
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l)
			if i < len(lines)-1 {
				out.WriteByte('\n')
			}
			i++
			continue
		}
		c := &ddCase{Pos: fmt.Sprintf("%s:%d", path, i+1), Args: map[string]string{}}
		f := strings.Fields(l)
		c.Cmd = f[0]
		for _, a := range f[1:] {
			k, v, _ := strings.Cut(a, "=")
			c.Args[k] = v
		}
		out.WriteString(l + "\n")
		i++
		var in []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		if i == len(lines) {
			t.Fatalf("%s: no ---- after the input", c.Pos)
		}
		i++
		var exp []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			exp = append(exp, lines[i])
			i++
		}
		c.Input, c.Expected = strings.Join(in, "\n"), strings.Join(exp, "\n")
		for _, x := range in {
			out.WriteString(x + "\n")
		}
		out.WriteString("----\n")
		var got string
		t.Run(fmt.Sprintf("%s_line%d", c.Cmd, strings.Count(strings.Join(lines[:i], "\n"), "\n")), func(t *testing.T) {
			got = strings.TrimRight(fn(t, c), "\n")
			if !*rewrite && got != c.Expected {
				t.Errorf("%s: %s %v\n%s\ngot:\n%s\nwant:\n%s", c.Pos, c.Cmd, c.Args, c.Input, got, c.Expected)
			}
		})
		if got != "" {
			out.WriteString(got + "\n")
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// corpusFrom reads a corpus block: one declaration per line,
//
//	kind name [library=L] [module=M] [uses dep dep …]
//
// and makes the usage graph from the "uses" lists.
func corpusFrom(t *testing.T, input string) *Table {
	t.Helper()
	var entries []Entry
	sc := bufio.NewScanner(strings.NewReader(input))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		e := Entry{Kind: f[0], Name: f[1], Library: "lib", Module: "M"}
		deps := false
		for _, w := range f[2:] {
			switch {
			case w == "uses":
				deps = true
			case deps:
				e.StatementDeps = append(e.StatementDeps, w)
			case strings.HasPrefix(w, "library="):
				e.Library = strings.TrimPrefix(w, "library=")
			case strings.HasPrefix(w, "module="):
				e.Module = strings.TrimPrefix(w, "module=")
			default:
				t.Fatalf("corpus line %q: unknown word %q", sc.Text(), w)
			}
		}
		entries = append(entries, e)
	}
	used := map[string][]string{}
	for _, e := range entries {
		for _, d := range e.StatementDeps {
			used[d] = append(used[d], e.Name)
		}
	}
	for _, u := range used {
		sortStrings(u)
	}
	return NewTable(entries, used)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
