// Package jixia imports the output of jixia (github.com/frenzymath/jixia),
// a static analyser that runs Lean on one module and writes what it saw: the
// declaration plugin (-d FILE.decl.json) lists the declaration commands as
// written — kind, name, modifiers, docstring, signature, byte ranges — and
// the symbol plugin (-s FILE.sym.json) lists every constant the module
// defines after elaboration with the constants its type and its value
// reference. The importer joins both: one row per declaration with
// statement dependencies from the type references and proof dependencies
// from the value references, plus rows for the constants Lean generated that
// are declarations in their own right (constructors, projections,
// to_additive twins, aliases). Compiler auxiliaries (match_1, proof_1, …) are
// not rows; their references are inlined into the declarations that use them.
//
// jixia writes byte ranges, not lines: with the module's source (Options.Src)
// rows get lines, verbatim code and the module's imports and docstring;
// without it, lines are 0 and code is jixia's pretty-printed command.
package jixia

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
)

// Pair is the output of one jixia run: the declaration and symbol files of a
// module.
type Pair struct {
	Decl, Sym string
	// Module is the Lean module name (default: from the file name, see
	// ModuleFromFile).
	Module string
}

// Options configure an import.
type Options struct {
	Library, Revision string
	// Src is the source root the modules live under (Mathlib.Data.Nat.Basic
	// at Src/Mathlib/Data/Nat/Basic.lean); "" = no source text.
	Src string
	// Force replaces tables the manifest does not know.
	Force bool
	// MaxWarnings bounds Stats.Warnings (0 = 100).
	MaxWarnings int
}

// Stats summarises an import.
type Stats struct {
	Modules      int
	Declarations int64 // rows written
	Written      int64 // rows from declaration commands (and their constructors)
	Generated    int64 // rows for constants only the symbol table has
	Auxiliary    int64 // auxiliary constants inlined, not rows
	NoSource     int   // modules whose source was not found
	Duplicates   int
	Warnings     []error
	WarningCount int
	Elapsed      time.Duration
}

// ModuleFromFile derives a module name from a jixia output file: the path
// relative to root (if root is given and contains it) or the base name,
// without .decl.json/.sym.json, slashes turned into dots
// (out/Mathlib/Logic/Basic.decl.json → Mathlib.Logic.Basic with root out).
func ModuleFromFile(path, root string) string {
	p := filepath.ToSlash(path)
	if root != "" {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			p = filepath.ToSlash(rel)
		} else {
			p = filepath.Base(path)
		}
	} else {
		p = filepath.Base(path)
	}
	for _, suf := range []string{".decl.json", ".sym.json", ".json"} {
		p = strings.TrimSuffix(p, suf)
	}
	return strings.ReplaceAll(p, "/", ".")
}

// PairsInDir finds every X.decl.json under dir with its X.sym.json; module
// names are paths relative to dir.
func PairsInDir(dir string) ([]Pair, error) {
	var out []Pair
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".decl.json") {
			return nil
		}
		sym := strings.TrimSuffix(path, ".decl.json") + ".sym.json"
		if _, err := os.Stat(sym); err != nil {
			return fmt.Errorf("%s has no symbol file %s (run jixia with -s too)", path, filepath.Base(sym))
		}
		out = append(out, Pair{Decl: path, Sym: sym, Module: ModuleFromFile(path, dir)})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Module < out[j].Module })
	return out, err
}

// Import reads every pair and writes declarations.parquet and
// modules.parquet into ws, replacing both atomically, and records the run.
func Import(ctx context.Context, ws *workspace.Workspace, pairs []Pair, opts Options) (*Stats, error) {
	if len(pairs) == 0 {
		return nil, fmt.Errorf("no jixia output given")
	}
	if opts.MaxWarnings <= 0 {
		opts.MaxWarnings = 100
	}
	params := map[string]any{"library": opts.Library, "revision": opts.Revision, "modules": len(pairs)}
	if opts.Src != "" {
		params["src"] = opts.Src
	}
	sink, err := elab.NewSink(ws, "import jixia", opts.Force, params)
	if err != nil {
		return nil, err
	}
	defer sink.Abort()
	st := &Stats{}
	t0 := time.Now()
	bar := progress.Start(ctx, "import jixia", int64(len(pairs)))
	seenMod := map[string]bool{}
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.Module == "" {
			p.Module = ModuleFromFile(p.Decl, "")
		}
		if seenMod[p.Module] {
			return nil, fmt.Errorf("module %s given twice (%s)", p.Module, p.Decl)
		}
		seenMod[p.Module] = true
		m := &module{pair: p, opts: &opts, st: st, sink: sink}
		if err := m.run(); err != nil {
			return nil, err
		}
		for _, in := range []string{p.Decl, p.Sym} {
			if err := sink.Run().Input(absPath(in)); err != nil {
				return nil, err
			}
		}
		if m.srcRef != nil {
			sink.Run().InputRef(*m.srcRef)
		}
		st.Modules++
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	st.Duplicates = sink.Duplicates()
	st.Declarations = sink.Rows()
	st.Elapsed = time.Since(t0)
	run := sink.Run()
	run.Phase("read", st.Elapsed)
	run.Count("written_rows", st.Written)
	run.Count("generated_rows", st.Generated)
	run.Count("auxiliary_constants_inlined", st.Auxiliary)
	run.Count("modules_without_source", int64(st.NoSource))
	run.Count("malformed_records_skipped", int64(st.WarningCount))
	run.Note("imported from jixia output: elaborated dependencies (symbol plugin) on declarations as written (declaration plugin)")
	if err := sink.Commit(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// symEntry is what the import keeps of a symbol.
type symEntry struct {
	kind      string
	typeRefs  []string
	valueRefs []string
	hasValue  bool
	typeText  string
	order     int
	private   bool
}

// module is one jixia run being imported.
type module struct {
	pair    Pair
	opts    *Options
	st      *Stats
	sink    *elab.Sink
	syms    map[string]*symEntry
	order   []string
	src     []byte
	nl      []int // newline offsets of src
	srcRel  string
	srcRef  *workspace.FileRef
	written map[string]*workspace.Declaration // rows of this module, by name
	kinds   map[string]string                 // row kinds of this module
	rows    []*workspace.Declaration
}

func (m *module) warn(err error) {
	m.st.WarningCount++
	if len(m.st.Warnings) < m.opts.MaxWarnings {
		m.st.Warnings = append(m.st.Warnings, err)
	}
}

// parse reads the module's files into rows.
func (m *module) parse() error {
	m.written = map[string]*workspace.Declaration{}
	m.kinds = map[string]string{}
	if err := m.readSymbols(); err != nil {
		return err
	}
	m.readSource()
	if err := m.readDeclarations(); err != nil {
		return err
	}
	m.generated()
	return nil
}

func (m *module) run() error {
	if err := m.parse(); err != nil {
		return err
	}
	for _, d := range m.rows {
		if err := m.sink.Add(*d); err != nil {
			return err
		}
	}
	mod := workspace.Module{Library: m.opts.Library, Revision: m.opts.Revision, Name: m.pair.Module, Path: m.srcRel,
		Declarations: int32(len(m.rows))}
	if m.src != nil {
		mod.Imports, mod.Docstring = header(m.src)
	}
	return m.sink.AddModule(mod)
}

func (m *module) readSymbols() error {
	f, err := os.Open(m.pair.Sym)
	if err != nil {
		return err
	}
	defer f.Close()
	m.syms = map[string]*symEntry{}
	norm := func(ns []leanName) []string {
		out := make([]string, 0, len(ns))
		for _, n := range ns {
			s, _ := elab.Normalize(string(n))
			out = append(out, s)
		}
		return out
	}
	return eachElement(f, m.pair.Sym, func(raw json.RawMessage, line, i int) error {
		var s symbol
		if err := json.Unmarshal(raw, &s); err != nil {
			m.warn(elab.Errorf(m.pair.Sym, line, i, "%v", err))
			return nil
		}
		if s.Name == "" {
			m.warn(elab.Errorf(m.pair.Sym, line, i, "symbol without a name"))
			return nil
		}
		name, private := elab.Normalize(string(s.Name))
		e := &symEntry{kind: s.Kind, typeRefs: norm(s.TypeReferences), order: i, private: private}
		if s.ValueReferences != nil {
			e.hasValue = true
			e.valueRefs = norm(*s.ValueReferences)
		}
		switch {
		case s.TypeReadable != nil && *s.TypeReadable != "":
			e.typeText = *s.TypeReadable
		case s.TypeFull != nil && *s.TypeFull != "":
			e.typeText = *s.TypeFull
		default:
			e.typeText = s.TypeFallback
		}
		if _, dup := m.syms[name]; !dup {
			m.order = append(m.order, name)
		}
		m.syms[name] = e
		return nil
	})
}

// readSource loads the module's source file when a source root is given.
func (m *module) readSource() {
	if m.opts.Src == "" {
		return
	}
	rel := strings.ReplaceAll(m.pair.Module, ".", "/") + ".lean"
	b, err := os.ReadFile(filepath.Join(m.opts.Src, rel))
	if err != nil {
		m.st.NoSource++
		m.warn(fmt.Errorf("%s: no source for module %s: %v (rows get no lines)", m.pair.Decl, m.pair.Module, err))
		return
	}
	m.src, m.srcRel = b, rel
	for i, c := range b {
		if c == '\n' {
			m.nl = append(m.nl, i)
		}
	}
	h := sha256.Sum256(b)
	m.srcRef = &workspace.FileRef{Path: absPath(filepath.Join(m.opts.Src, rel)), SHA256: hex.EncodeToString(h[:]), Bytes: int64(len(b))}
}

// lineOf is the 1-based line of a byte offset of the source.
func (m *module) lineOf(off int64) int32 {
	return int32(1 + sort.SearchInts(m.nl, int(off)))
}

// text returns the source text of a range, or "" without source or when the
// range does not fit it (the source is not the one jixia read).
func (m *module) text(r *syntaxRef) (string, int64, bool) {
	a, b, ok := r.span()
	if !ok || m.src == nil || b > int64(len(m.src)) {
		return "", 0, false
	}
	return string(m.src[a:b]), a, true
}

func (m *module) readDeclarations() error {
	f, err := os.Open(m.pair.Decl)
	if err != nil {
		return err
	}
	defer f.Close()
	return eachElement(f, m.pair.Decl, func(raw json.RawMessage, line, i int) error {
		var d declaration
		if err := json.Unmarshal(raw, &d); err != nil {
			m.warn(elab.Errorf(m.pair.Decl, line, i, "%v", err))
			return nil
		}
		if d.Name == "" || d.Kind == "" {
			m.warn(elab.Errorf(m.pair.Decl, line, i, "declaration without kind or name"))
			return nil
		}
		if err := m.declaration(&d, line, i); err != nil {
			m.warn(err)
		}
		return nil
	})
}

// kindOf maps jixia's declaration kind (the syntax kind's last component)
// to a row kind and the keyword as usually written.
func kindOf(k string) (kind, keyword string, ok bool) {
	switch k {
	case "definition":
		return workspace.KindDefinition, "def", true
	case "theorem":
		return workspace.KindTheorem, "theorem", true
	case "abbrev":
		return workspace.KindAbbrev, "abbrev", true
	case "instance":
		return workspace.KindInstance, "instance", true
	case "structure":
		return workspace.KindStructure, "structure", true
	case "inductive":
		return workspace.KindInductive, "inductive", true
	case "classInductive":
		return workspace.KindClass, "class inductive", true
	case "opaque":
		return workspace.KindOpaque, "opaque", true
	case "axiom":
		return workspace.KindAxiom, "axiom", true
	case "proofWanted":
		return workspace.KindTheorem, "proof_wanted", true
	}
	return "", "", false
}

// writtenKeywords are the keywords whose spelling the source can refine.
var writtenKeywords = map[string]bool{"lemma": true, "theorem": true, "def": true, "abbrev": true, "instance": true,
	"structure": true, "class": true, "inductive": true, "opaque": true, "axiom": true, "irreducible_def": true}

func (m *module) declaration(d *declaration, line, index int) error {
	if d.Kind == "example" {
		return nil
	}
	kind, keyword, ok := kindOf(d.Kind)
	if !ok {
		return elab.Errorf(m.pair.Decl, line, index, "unknown declaration kind %q", d.Kind)
	}
	if !d.Ref.Original {
		// made by a macro (notation, macro_rules, …): the constants it
		// produced, if they are declarations, come from the symbol table
		return nil
	}
	name, private := elab.Normalize(string(d.Name))
	row := &workspace.Declaration{Library: m.opts.Library, Revision: m.opts.Revision, Name: name, Kind: kind,
		Keyword: keyword, Module: m.pair.Module, Path: m.srcRel, Namespace: string(d.ScopeInfo.CurrNamespace)}
	doc, err := d.Modifiers.docstring()
	if err != nil {
		return elab.Errorf(m.pair.Decl, line, index, "%v", err)
	}
	row.Docstring = doc
	code, start, haveSrc := m.text(&d.Ref)
	if haveSrc {
		// lines span the doc comment too (as extract's do); code does not
		t := strings.TrimLeft(code, " \t\r\n")
		row.LineStart = m.lineOf(start + int64(len(code)-len(t)))
		code, start = stripDoc(code, start)
		row.LineEnd = m.lineOf(start + int64(len(strings.TrimRight(code, " \t\r\n"))) - 1)
	} else if d.Ref.PP != nil {
		code, _ = stripDoc(*d.Ref.PP, 0)
	}
	row.Code = strings.TrimRight(code, " \t\r\n")
	if sig, _, ok := m.text(&d.Signature); ok {
		row.Signature = strings.TrimSpace(sig)
	} else if d.Signature.PP != nil {
		row.Signature = strings.TrimSpace(*d.Signature.PP)
	}
	if kw := keywordIn(row.Code, name); kw != "" {
		row.Keyword = kw
		if kw == "class" && kind == workspace.KindStructure {
			row.Kind = workspace.KindClass
		}
	}
	if private || d.Modifiers.Visibility == "private" {
		row.Modifiers = append(row.Modifiers, "private")
	}
	if d.Modifiers.IsProtected || d.Modifiers.Visibility == "protected" {
		row.Modifiers = append(row.Modifiers, "protected")
	}
	if d.Modifiers.ComputeKind == "noncomputable" || d.Modifiers.IsNoncomputable {
		row.Modifiers = append(row.Modifiers, "noncomputable")
	}
	if d.Modifiers.IsUnsafe {
		row.Modifiers = append(row.Modifiers, "unsafe")
	}
	if d.Modifiers.RecKind == "partial" {
		row.Modifiers = append(row.Modifiers, "partial")
	}
	for _, a := range d.Modifiers.Attrs {
		if a.Name != "" {
			row.Attributes = append(row.Attributes, string(a.Name))
		}
	}
	for _, o := range d.ScopeInfo.OpenDecl {
		if o.Simple != nil && o.Simple.Namespace != "" {
			row.Opens = append(row.Opens, string(o.Simple.Namespace))
		}
	}
	m.depsAt(row, line, index)
	m.add(row)
	m.st.Written++
	for ci := range d.Constructors {
		c := &d.Constructors[ci]
		// jixia prefixes constructor names with the namespace twice
		// (["Option","Option","IsSome","of_some"]); a constructor's own name
		// is its last component.
		short := string(c.Name)
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			short = short[i+1:]
		}
		cr := &workspace.Declaration{Library: row.Library, Revision: row.Revision, Name: name + "." + short,
			Kind: workspace.KindConstructor, Keyword: row.Keyword, Module: row.Module, Path: row.Path,
			Namespace: name, Opens: row.Opens, GeneratedFrom: strp(name)}
		if doc, err := c.Modifiers.docstring(); err == nil {
			cr.Docstring = doc
		}
		if code, start, ok := m.text(&c.Ref); ok {
			code = strings.TrimSpace(code)
			cr.Code = code
			cr.LineStart = m.lineOf(start + int64(strings.Index(string(m.src[start:]), code)))
			cr.LineEnd = cr.LineStart + int32(strings.Count(code, "\n"))
		} else if c.Ref.PP != nil {
			cr.Code = strings.TrimSpace(*c.Ref.PP)
		}
		if sig, _, ok := m.text(&c.Signature); ok {
			cr.Signature = strings.TrimSpace(sig)
		} else if c.Signature.PP != nil {
			cr.Signature = strings.TrimSpace(*c.Signature.PP)
		}
		m.depsAt(cr, line, index)
		m.add(cr)
		m.st.Written++
	}
	return nil
}

func (m *module) add(d *workspace.Declaration) {
	if m.written[d.Name] != nil {
		return
	}
	m.written[d.Name] = d
	m.kinds[d.Name] = d.Kind
	m.rows = append(m.rows, d)
}

// deps fills a row's dependencies from its symbol.
func (m *module) deps(d *workspace.Declaration) { m.depsAt(d, 0, -1) }

// depsAt is deps for a row from the declaration file's element at line and
// index, which a missing symbol is reported against.
func (m *module) depsAt(d *workspace.Declaration, line, index int) {
	s := m.syms[d.Name]
	if s == nil {
		if line > 0 {
			m.warn(&elab.RecordError{Path: m.pair.Decl, Line: line, Record: index,
				Err: fmt.Errorf("declaration %s has no symbol in %s (no dependencies)", d.Name, m.pair.Sym)})
		} else {
			m.warn(fmt.Errorf("%s: declaration %s has no symbol in %s (no dependencies)", m.pair.Decl, d.Name, m.pair.Sym))
		}
		d.StatementDeps, d.ProofDeps = []string{}, []string{}
		return
	}
	d.StatementDeps = m.resolve(d.Name, s.typeRefs)
	d.ProofDeps = m.resolve(d.Name, s.valueRefs)
}

// resolve drops self references and auxiliary constants, inlining the
// references of this module's auxiliaries (a proof's match_1 and proof_1
// stand for what they use).
func (m *module) resolve(self string, refs []string) []string {
	out := make([]string, 0, len(refs))
	seen := map[string]bool{self: true}
	var add func(n string, depth int)
	add = func(n string, depth int) {
		if seen[n] {
			return
		}
		seen[n] = true
		if !elab.IsAuxiliary(n) {
			out = append(out, n)
			return
		}
		m.st.Auxiliary++
		if s := m.syms[n]; s != nil && depth < 16 {
			for _, r := range s.typeRefs {
				add(r, depth+1)
			}
			for _, r := range s.valueRefs {
				add(r, depth+1)
			}
		}
	}
	for _, r := range refs {
		add(r, 0)
	}
	return out
}

// syntaxTypes mark symbols that implement syntax (notation parsers,
// unexpanders), not mathematics.
var syntaxTypes = map[string]bool{"Lean.ParserDescr": true, "Lean.TrailingParserDescr": true,
	"Lean.Parser.Parser": true, "Lean.Parser.TrailingParser": true, "Lean.PrettyPrinter.Unexpander": true,
	"Lean.Macro": true, "Lean.Elab.Term.TermElab": true, "Lean.Elab.Command.CommandElab": true,
	"Lean.Elab.Tactic.Tactic": true}

// generated adds rows for constants of the symbol table that no declaration
// command names: constructors and projections of structures, and what
// attributes and macros declared (to_additive twins, aliases, simps lemmas).
func (m *module) generated() {
	type cand struct {
		name string
		s    *symEntry
		row  *workspace.Declaration
	}
	var cands []cand
	for _, n := range m.order {
		s := m.syms[n]
		if m.written[n] != nil || elab.IsAuxiliary(n) || s.kind == "recursor" || s.kind == "quotient" {
			continue
		}
		syntax := false
		for _, r := range s.typeRefs {
			if syntaxTypes[r] {
				syntax = true
			}
		}
		if syntax {
			continue
		}
		cands = append(cands, cand{name: n, s: s})
	}
	// structures: a parent with a constructor, and a field constant whose
	// type mentions the parent and whose value references no constant
	// (fun params self => self.i). Field names cannot be read off the
	// constructor's printed type: Lean prints non-dependent fields as arrows.
	hasCtor := map[string]bool{}
	for _, n := range m.order {
		if s := m.syms[n]; s.kind == "constructor" {
			hasCtor[elab.Namespace(n)] = true
		}
	}
	isField := func(n string, s *symEntry) bool {
		parent := elab.Namespace(n)
		if !hasCtor[parent] || !s.hasValue || len(s.valueRefs) != 0 || (s.kind != "definition" && s.kind != "theorem") {
			return false
		}
		for _, r := range s.typeRefs {
			if r == parent {
				return true
			}
		}
		return false
	}
	hasFields := map[string]bool{}
	classes := map[string]bool{}
	for i := range cands {
		c := &cands[i]
		d := &workspace.Declaration{Library: m.opts.Library, Revision: m.opts.Revision, Name: c.name,
			Module: m.pair.Module, Path: m.srcRel, Namespace: elab.Namespace(c.name), Signature: ": " + c.s.typeText}
		if c.s.private {
			d.Modifiers = []string{"private"}
		}
		parent := elab.Namespace(c.name)
		switch c.s.kind {
		case "constructor":
			d.Kind, d.Keyword, d.GeneratedFrom = workspace.KindConstructor, "inductive", strp(parent)
		case "inductive":
			d.Kind, d.Keyword = workspace.KindInductive, "inductive"
		case "axiom":
			d.Kind, d.Keyword = workspace.KindAxiom, "axiom"
		case "opaque":
			d.Kind, d.Keyword = workspace.KindOpaque, "opaque"
		case "theorem", "definition":
			switch {
			case isField(c.name, c.s):
				d.Kind, d.Keyword, d.GeneratedFrom = workspace.KindProjection, "structure", strp(parent)
				hasFields[parent] = true
				if strings.Contains(c.s.typeText, "[self : ") || m.kinds[parent] == workspace.KindClass {
					classes[parent] = true
					d.Keyword = "class"
				}
			case elab.IsInstanceName(c.name):
				d.Kind, d.Keyword = workspace.KindInstance, "instance"
			case c.s.kind == "theorem":
				d.Kind, d.Keyword = workspace.KindTheorem, "theorem"
			default:
				d.Kind, d.Keyword = workspace.KindDefinition, "def"
			}
		default:
			continue
		}
		if p := m.written[parent]; p != nil && d.GeneratedFrom != nil {
			d.LineStart, d.LineEnd, d.Keyword = p.LineStart, p.LineEnd, p.Keyword
		}
		m.deps(d)
		c.row = d
	}
	for _, c := range cands {
		if c.row == nil {
			continue
		}
		if c.row.Kind == workspace.KindInductive && hasFields[c.name] {
			c.row.Kind, c.row.Keyword = workspace.KindStructure, "structure"
			if classes[c.name] {
				c.row.Kind, c.row.Keyword = workspace.KindClass, "class"
			}
		}
		m.add(c.row)
		m.st.Generated++
	}
}

// stripDoc drops a leading /-- … -/ comment (the docstring is a column of
// its own; extract's code starts after it).
func stripDoc(code string, start int64) (string, int64) {
	t := strings.TrimLeft(code, " \t\r\n")
	start += int64(len(code) - len(t))
	if strings.HasPrefix(t, "/--") {
		if i := strings.Index(t, "-/"); i >= 0 {
			rest := t[i+2:]
			u := strings.TrimLeft(rest, " \t\r\n")
			return u, start + int64(len(t)-len(u))
		}
	}
	return t, start
}

// keywordIn finds the declaration keyword as written before the name.
func keywordIn(code, name string) string {
	short := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		short = name[i+1:]
	}
	head := code
	if i := strings.Index(code, short); i > 0 {
		head = code[:i]
	}
	if len(head) > 400 {
		head = head[:400]
	}
	kw := ""
	for _, w := range strings.Fields(head) {
		if writtenKeywords[w] {
			kw = w
		}
	}
	return kw
}

// header reads a module's imports and module docstring (the first /-! -/).
func header(src []byte) ([]string, *string) {
	var imports []string
	var doc *string
	s := string(src)
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "import "); ok {
			for _, f := range strings.Fields(rest) {
				imports = append(imports, f)
			}
		}
	}
	if i := strings.Index(s, "/-!"); i >= 0 {
		if j := strings.Index(s[i:], "-/"); j >= 0 {
			d := strings.TrimSpace(s[i+3 : i+j])
			doc = &d
		}
	}
	return imports, doc
}

func strp(s string) *string { return &s }
