package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// openers are the functions that open a part from its configuration: an
// index with its query encoder, an encoder, a chat or embeddings client, a
// Lean backend. app is the one place that calls them (README "Code
// layout"), so that every command and the server open a part alike.
var openers = map[string][]string{
	module + "/index": {"Open", "NewEncoder", "NewOpenAIEncoder"},
	module + "/lean":  {"Open"},
	module + "/llm":   {"New"},
}

// openerExceptions are the product files allowed to call an opener, each
// with why.
var openerExceptions = map[string]string{
	"index/embeddings/embeddings.go": "the export reads the stored vectors only (VectorsOnly): no encoder, no endpoint",
	"serve/tomap/flags.go":           "AgentFlags.Build makes one client per role endpoint, from the shared configuration app validated",
}

// productFiles calls f for every non-test Go file of a product package
// (support and testdata excluded), with its path relative to the module
// and a function counting the lines a node spans.
func productFiles(t *testing.T, f func(rel string, file *ast.File, lines func(ast.Node) int)) {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || isSupport(module+"/"+rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		f(rel, file, func(n ast.Node) int { return fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1 })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOneOpeningPlace: outside app, no product code calls an opener
// (index.Open, index.NewEncoder, lean.Open, llm.New, …) but the files
// openerExceptions names.
func TestOneOpeningPlace(t *testing.T) {
	used := map[string]bool{}
	productFiles(t, func(rel string, file *ast.File, _ func(ast.Node) int) {
		if strings.HasPrefix(rel, "app/") {
			return
		}
		names := map[string][]string{} // local import name → openers
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if fns, ok := openers[path]; ok {
				name := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = fns
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, fn := range names[pkg.Name] {
				if sel.Sel.Name != fn {
					continue
				}
				if openerExceptions[rel] != "" {
					used[rel] = true
					continue
				}
				t.Errorf("%s calls %s.%s: open it through app (app.OpenIndex, app.NewEncoder, app.OpenChat, app.OpenLean)", rel, pkg.Name, fn)
			}
			return true
		})
	})
	for rel := range openerExceptions {
		if !used[rel] {
			t.Errorf("%s is an opener exception but calls no opener: remove it", rel)
		}
	}
}
