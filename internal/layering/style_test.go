package layering

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a product function may be, braces included:
// one that parses, validates, wires and prints is split where those meet.
const maxFuncLines = 150

// longFuncs are the product functions still over maxFuncLines, each with
// who splits it. It is empty (the last two, extract's fileParser.decl and
// index.Build, were split into their steps) and only shrinks: an entry that
// is no longer too long fails the test.
var longFuncs = map[string]string{}

// funcName is "Recv.Name" or "Name".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestFunctionLength fails on a function (or method) of a product package
// longer than maxFuncLines (go/ast over the non-test files; test kits and
// tools are support, not product).
func TestFunctionLength(t *testing.T) {
	type long struct {
		where string
		n     int
	}
	var over []long
	seen := map[string]bool{}
	productFiles(t, func(rel string, file *ast.File, lines func(ast.Node) int) {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := lines(fd); n > maxFuncLines {
				key := rel + ":" + funcName(fd)
				seen[key] = true
				if longFuncs[key] == "" {
					over = append(over, long{key, n})
				}
			}
		}
	})
	sort.Slice(over, func(i, j int) bool { return over[i].n > over[j].n })
	for _, l := range over {
		t.Errorf("%s is %d lines (at most %d): split it where parsing, validation, wiring and output meet", l.where, l.n, maxFuncLines)
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("%s is in longFuncs but no longer over %d lines: remove it from the list", key, maxFuncLines)
		}
	}
}

// TestPackageDocs: every package has a doc comment saying what it is (go
// list's Doc: the package clause's comment in a non-test file).
func TestPackageDocs(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Doc", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var p struct{ ImportPath, Doc string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package doc comment (say what it is, who uses it, and its rules)", p.ImportPath)
		}
	}
	if n < 10 {
		t.Fatalf("go list found only %d packages", n)
	}
}

// TestNoCommittedBinaries fails when a tracked file is a compiled program
// (ELF, Mach-O or PE): a `go build` run at the root once committed a 15 MB
// binary that every clone then downloads. Skipped outside a git checkout.
func TestNoCommittedBinaries(t *testing.T) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {'M', 'Z'}}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		head := make([]byte, 4)
		f, err := os.Open("../../" + name)
		if err != nil {
			continue // deleted in the work tree
		}
		n, _ := io.ReadFull(f, head)
		f.Close()
		for _, m := range magics {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is a compiled binary; build into bin/ (ignored) instead of committing it", name)
			}
		}
	}
}
