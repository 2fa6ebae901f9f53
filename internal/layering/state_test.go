package layering

import (
	"go/ast"
	"go/token"
	"testing"
)

// mutableExceptions are exported package variables of a mutable type that
// stay for now, each with who changes it.
var mutableExceptions = map[string]string{}

// TestNoExportedMutableState: no product package exports a variable of a
// map, slice or pointer type (a table another package could change while
// searches read it): a read-only list is an accessor returning a copy
// (workspace.Kinds), a lookup a function (workspace.StageAccess). Errors
// and other values are not tables.
func TestNoExportedMutableState(t *testing.T) {
	seen := map[string]bool{}
	productFiles(t, func(rel string, file *ast.File, _ func(ast.Node) int) {
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || !mutableValue(vs, i) {
						continue
					}
					key := rel + ":" + name.Name
					if mutableExceptions[key] != "" {
						seen[key] = true
						continue
					}
					t.Errorf("%s exports a mutable %s: unexport it behind an accessor (or pass it in as a value)", rel, name.Name)
				}
			}
		}
	})
	for key := range mutableExceptions {
		if !seen[key] {
			t.Errorf("%s is listed in mutableExceptions but is not an exported mutable variable any more: remove it", key)
		}
	}
}

// mutableValue reports whether the i-th name of vs is declared with a map,
// slice or pointer type, or initialised with a map or slice literal or
// make.
func mutableValue(vs *ast.ValueSpec, i int) bool {
	switch vs.Type.(type) {
	case *ast.MapType, *ast.ArrayType, *ast.StarExpr:
		if at, ok := vs.Type.(*ast.ArrayType); !ok || at.Len == nil {
			return true
		}
	}
	if i >= len(vs.Values) {
		return false
	}
	switch v := vs.Values[i].(type) {
	case *ast.CompositeLit:
		switch tt := v.Type.(type) {
		case *ast.MapType:
			return true
		case *ast.ArrayType:
			return tt.Len == nil
		}
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "make" {
			return true
		}
	}
	return false
}
