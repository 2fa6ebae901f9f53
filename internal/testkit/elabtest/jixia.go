package elabtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// JixiaModule is one module's jixia output written by WriteJixia.
type JixiaModule struct {
	Module, Decl, Sym string
}

func nameArray(n string) []any {
	var out []any
	for _, c := range strings.Split(n, ".") {
		out = append(out, c)
	}
	return out
}

// jixiaKind is the declaration plugin's kind of a written row.
func jixiaKind(d *workspace.Declaration) string {
	switch d.Kind {
	case workspace.KindTheorem:
		if d.Keyword == "proof_wanted" {
			return "proofWanted"
		}
		return "theorem"
	case workspace.KindDefinition:
		return "definition"
	case workspace.KindAbbrev:
		return "abbrev"
	case workspace.KindInstance:
		return "instance"
	case workspace.KindStructure, workspace.KindClass:
		if d.Keyword == "class inductive" {
			return "classInductive"
		}
		return "structure"
	case workspace.KindInductive:
		return "inductive"
	case workspace.KindOpaque:
		return "opaque"
	case workspace.KindAxiom:
		return "axiom"
	}
	return ""
}

// symKind is the symbol plugin's kind of a row.
func symKind(d *workspace.Declaration) string {
	switch d.Kind {
	case workspace.KindTheorem:
		return "theorem"
	case workspace.KindStructure, workspace.KindClass, workspace.KindInductive:
		return "inductive"
	case workspace.KindConstructor:
		return "constructor"
	case workspace.KindAxiom:
		return "axiom"
	case workspace.KindOpaque:
		return "opaque"
	}
	return "definition"
}

// WriteJixia writes, for every module of rows, the jixia declaration and
// symbol files into dir (dir/Module.decl.json, dir/Module.sym.json), with
// byte ranges into the module's source under srcRoot (the sources the rows
// were extracted from). Written rows become declarations; every row becomes
// a symbol whose type and value references are the row's statement and
// proof dependencies. With aux, the proofs of rows with two or more proof
// dependencies go through an auxiliary name.match_1 symbol.
func WriteJixia(dir, srcRoot string, rows []workspace.Declaration, aux bool) ([]JixiaModule, error) {
	byModule := map[string][]*workspace.Declaration{}
	var order []string
	for i := range rows {
		d := &rows[i]
		if _, ok := byModule[d.Module]; !ok {
			order = append(order, d.Module)
		}
		byModule[d.Module] = append(byModule[d.Module], d)
	}
	var out []JixiaModule
	for _, mod := range order {
		ds := byModule[mod]
		src, err := os.ReadFile(filepath.Join(srcRoot, ds[0].Path))
		if err != nil {
			return nil, err
		}
		lineOff := []int{0}
		for i, c := range src {
			if c == '\n' {
				lineOff = append(lineOff, i+1)
			}
		}
		ctorsOf := map[string][]*workspace.Declaration{}
		for _, d := range ds {
			if d.Kind == workspace.KindConstructor && d.GeneratedFrom != nil {
				ctorsOf[*d.GeneratedFrom] = append(ctorsOf[*d.GeneratedFrom], d)
			}
		}
		// locate returns the byte range of text starting at or after line.
		locate := func(line int32, text string) ([]int, bool) {
			if line < 1 || int(line) > len(lineOff) || text == "" {
				return nil, false
			}
			from := lineOff[line-1]
			i := strings.Index(string(src[from:]), text)
			if i < 0 {
				return nil, false
			}
			return []int{from + i, from + i + len(text)}, true
		}
		declOf := func(d *workspace.Declaration, kind string) map[string]any {
			rng, ok := locate(d.LineStart, d.Code)
			if !ok {
				return nil
			}
			ref := map[string]any{"original": true, "range": rng, "pp": d.Code}
			if d.Docstring != nil {
				// the command's range starts at its doc comment
				if j := strings.LastIndex(string(src[:rng[0]]), "/--"); j >= 0 {
					ref["range"] = []int{j, rng[1]}
				}
			}
			sig := map[string]any{"original": true, "pp": " " + d.Signature, "range": nil}
			if d.Signature != "" {
				if k := strings.Index(d.Code, d.Signature); k >= 0 {
					sig["range"] = []int{rng[0] + k, rng[0] + k + len(d.Signature)}
				}
			}
			mods := map[string]any{"attrs": []any{}, "computeKind": "regular", "isProtected": false, "isUnsafe": false,
				"recKind": "default", "stx": nil, "visibility": "regular"}
			var attrs []any
			for _, a := range d.Attributes {
				attrs = append(attrs, map[string]any{"kind": "global", "name": nameArray(a), "stx": nil})
			}
			if attrs != nil {
				mods["attrs"] = attrs
			}
			name := d.Name
			for _, m := range d.Modifiers {
				switch m {
				case "private":
					mods["visibility"] = "private"
					name = "_private." + mod + ".0." + d.Name
				case "protected":
					mods["isProtected"] = true
				case "noncomputable":
					mods["computeKind"] = "noncomputable"
				}
			}
			if d.Docstring != nil {
				mods["docString"] = []any{*d.Docstring + " ", false}
			}
			var opens []any
			for _, o := range d.Opens {
				opens = append(opens, map[string]any{"simple": map[string]any{"except": []any{}, "namespace": nameArray(o)}})
			}
			if opens == nil {
				opens = []any{}
			}
			var ns any = []any{}
			if d.Namespace != "" {
				ns = nameArray(d.Namespace)
			}
			return map[string]any{"kind": kind, "name": nameArray(name), "modifiers": mods, "ref": ref, "signature": sig,
				"params": []any{}, "type": nil, "value": nil, "id": map[string]any{"original": true, "range": rng},
				"scopeInfo": map[string]any{"currNamespace": ns, "openDecl": opens, "includeVars": []any{}, "levelNames": []any{},
					"omitVars": []any{}, "scopedOpenDecl": []any{}, "varDecls": []any{}}}
		}
		var decls, syms []any
		for _, d := range ds {
			if d.GeneratedFrom != nil {
				continue
			}
			kind := jixiaKind(d)
			if kind == "" {
				continue
			}
			j := declOf(d, kind)
			if j == nil {
				continue
			}
			if kind == "inductive" || kind == "classInductive" {
				var cs []any
				for _, c := range ctorsOf[d.Name] {
					cj := declOf(c, "constructor")
					if cj == nil {
						cj = map[string]any{"kind": "constructor", "name": nameArray(c.Name), "modifiers": map[string]any{},
							"ref":       map[string]any{"original": true, "range": nil, "pp": c.Code},
							"signature": map[string]any{"original": true, "range": nil, "pp": c.Signature}, "scopeInfo": map[string]any{}}
					}
					// jixia names constructors with the namespace twice
					cj["name"] = nameArray(d.Namespace + "." + c.Name)
					cs = append(cs, cj)
				}
				if cs == nil {
					cs = []any{}
				}
				j["constructors"] = cs
			}
			decls = append(decls, j)
		}
		for _, d := range ds {
			name := d.Name
			for _, m := range d.Modifiers {
				if m == "private" {
					name = "_private." + mod + ".0." + d.Name
				}
			}
			s := map[string]any{"kind": symKind(d), "name": nameArray(name), "isProp": d.Kind == workspace.KindTheorem,
				"typeFallback": d.Signature, "typeFull": d.Signature, "typeReadable": nil,
				"typeReferences": refs(d.StatementDeps)}
			switch d.Kind {
			case workspace.KindStructure, workspace.KindClass, workspace.KindInductive, workspace.KindConstructor, workspace.KindAxiom:
				s["valueReferences"] = nil
			default:
				proof := d.ProofDeps
				if aux && len(proof) >= 2 {
					half := len(proof) / 2
					an := name + ".match_1"
					syms = append(syms, map[string]any{"kind": "definition", "name": nameArray(an), "isProp": false,
						"typeFallback": "", "typeFull": nil, "typeReadable": nil, "typeReferences": []any{},
						"valueReferences": refs(proof[half:])})
					proof = append(append([]string(nil), proof[:half]...), an)
				}
				if d.Kind == workspace.KindProjection {
					proof = nil // fun self => self.i
					if d.Keyword == "class" {
						s["typeFull"] = "[self : " + *d.GeneratedFrom + "] → " + d.Signature
					}
				}
				s["valueReferences"] = refs(proof)
			}
			syms = append(syms, s)
		}
		if decls == nil {
			decls = []any{}
		}
		jm := JixiaModule{Module: mod, Decl: filepath.Join(dir, mod+".decl.json"), Sym: filepath.Join(dir, mod+".sym.json")}
		for _, f := range []struct {
			path string
			v    any
		}{{jm.Decl, decls}, {jm.Sym, syms}} {
			b, err := json.Marshal(f.v)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(f.path, b, 0o644); err != nil {
				return nil, fmt.Errorf("write %s: %w", f.path, err)
			}
		}
		out = append(out, jm)
	}
	return out, nil
}

func refs(names []string) []any {
	out := []any{}
	for _, n := range names {
		out = append(out, nameArray(n))
	}
	return out
}
