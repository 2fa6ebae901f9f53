package extract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unresolvedUse is one identifier that did not resolve, in the declaration
// whose references it is part of.
type unresolvedUse struct {
	name string
	decl *pdecl
}

// Classes of unresolved identifiers, from what a porting team can do about
// each: give the missing package as a --src, fix the reader (binders,
// syntax), or look at the name.
const (
	// UnresolvedMissingPackage: the module imports a package that was not
	// given as --src (AddCombi for PFR, Batteries for Mathlib); the name is
	// most likely one of its declarations.
	UnresolvedMissingPackage = "missing_package"
	// UnresolvedBinder: a local binder the reader took for a constant.
	UnresolvedBinder = "binder"
	// UnresolvedSyntax: syntax the reader does not understand (a tactic,
	// option or notation argument read as a name).
	UnresolvedSyntax = "syntax"
	// UnresolvedUnknown: none of the above — a declaration of Lean core the
	// reader's core list lacks, a declaration made by a macro the reader
	// does not expand, or a genuine typo.
	UnresolvedUnknown = "unknown"
)

// unresolvedClasses lists the classes in report order.
var unresolvedClasses = []string{UnresolvedMissingPackage, UnresolvedBinder, UnresolvedSyntax, UnresolvedUnknown}

// IdentifierCount is an unresolved identifier with how often it occurs.
type IdentifierCount struct {
	Name    string `json:"name"`
	Class   string `json:"class"`
	Package string `json:"package,omitempty"` // for missing_package: the package(s) the module imports
	Count   int64  `json:"count"`
	Example string `json:"example"` // a declaration using it
	Module  string `json:"module"`
}

// LibraryUnresolved sums a library's unresolved identifiers.
type LibraryUnresolved struct {
	Library        string            `json:"library"`
	Modules        int               `json:"modules"`
	Declarations   int64             `json:"declarations"`
	Unresolved     int64             `json:"unresolved"`
	PerDeclaration float64           `json:"per_declaration"`
	ByClass        map[string]int64  `json:"by_class"`
	Top            []IdentifierCount `json:"top"`
}

// ModuleUnresolved is one module's unresolved identifiers.
type ModuleUnresolved struct {
	Module       string            `json:"module"`
	Library      string            `json:"library"`
	Path         string            `json:"path"`
	Declarations int               `json:"declarations"`
	Unresolved   int64             `json:"unresolved"`
	ByClass      map[string]int64  `json:"by_class"`
	Missing      []string          `json:"missing_packages,omitempty"` // packages the module (transitively) imports that were not given
	Identifiers  []IdentifierCount `json:"identifiers"`
}

// MissingPackage is a package some module imports that no --src provides.
type MissingPackage struct {
	Package string `json:"package"`
	// Modules are the modules of the package that are imported (a sample).
	Modules []string `json:"imported_modules"`
	// ImportedBy counts the modules that import it directly; Reach the
	// modules that see it through imports of their own library.
	ImportedBy int   `json:"imported_by"`
	Reach      int   `json:"reach"`
	Unresolved int64 `json:"unresolved"` // identifiers attributed to it
	// Libraries whose modules import it.
	Libraries []string `json:"libraries"`
}

// UnresolvedReport is what `extract --report FILE` writes: every identifier
// the reader could not resolve, per library and module, classified.
type UnresolvedReport struct {
	Libraries       []LibraryUnresolved `json:"libraries"`
	MissingPackages []MissingPackage    `json:"missing_packages"`
	Modules         []ModuleUnresolved  `json:"modules"`
}

// coreRoots are module roots of Lean's own packages, which have no sources
// to give: names from them resolve through the built-in core list.
var coreRoots = map[string]bool{"Init": true, "Lean": true, "Std": false, "Lake": true}

// buildUnresolvedReport classifies the unresolved identifiers of every file.
func buildUnresolvedReport(t *Table, files []*fileResult, topN int) *UnresolvedReport {
	known := make(map[string]bool, len(files))
	for _, fr := range files {
		known[fr.mod.Name] = true
	}
	// missing imports, direct and transitive
	idx := make(map[string]int, len(files))
	for i, fr := range files {
		if _, dup := idx[fr.mod.Name]; !dup {
			idx[fr.mod.Name] = i
		}
	}
	pkgs := map[string]*MissingPackage{}
	direct := make([][]string, len(files))
	for i, fr := range files {
		for _, imp := range fr.mod.Imports {
			if known[imp] {
				continue
			}
			root, _, _ := strings.Cut(imp, ".")
			if coreRoots[root] {
				continue
			}
			p := pkgs[root]
			if p == nil {
				p = &MissingPackage{Package: root}
				pkgs[root] = p
			}
			if !slices.Contains(p.Modules, imp) && len(p.Modules) < 20 {
				p.Modules = append(p.Modules, imp)
			}
			if !slices.Contains(direct[i], root) {
				direct[i] = append(direct[i], root)
				p.ImportedBy++
				if !slices.Contains(p.Libraries, fr.mod.Library) {
					p.Libraries = append(p.Libraries, fr.mod.Library)
				}
			}
		}
	}
	reach := make([][]string, len(files))
	state := make([]uint8, len(files))
	var visit func(i int) []string
	visit = func(i int) []string {
		switch state[i] {
		case 1:
			return nil // cycle
		case 2:
			return reach[i]
		}
		state[i] = 1
		out := slices.Clone(direct[i])
		for _, imp := range files[i].mod.Imports {
			// through the module's own library only: Mathlib importing
			// Batteries says nothing about the names a PFR file uses
			if j, ok := idx[imp]; ok && files[j].mod.Library == files[i].mod.Library {
				for _, p := range visit(j) {
					if !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
		}
		sort.Strings(out)
		reach[i], state[i] = out, 2
		return out
	}
	for i := range files {
		for _, p := range visit(i) {
			pkgs[p].Reach++
		}
	}

	rep := &UnresolvedReport{}
	libs := map[string]*LibraryUnresolved{}
	libIDs := map[string]map[string]*IdentifierCount{}
	var libOrder []string
	for i, fr := range files {
		lib := fr.mod.Library
		l := libs[lib]
		if l == nil {
			l = &LibraryUnresolved{Library: lib, ByClass: map[string]int64{}}
			libs[lib] = l
			libIDs[lib] = map[string]*IdentifierCount{}
			libOrder = append(libOrder, lib)
		}
		l.Modules++
		l.Declarations += int64(len(fr.decls))
		if len(fr.unres) == 0 {
			continue
		}
		mu := ModuleUnresolved{Module: fr.mod.Name, Library: lib, Path: fr.mod.Path, Declarations: len(fr.decls),
			ByClass: map[string]int64{}, Missing: reach[i]}
		ids := map[string]*IdentifierCount{}
		for _, u := range fr.unres {
			class, pkg := classifyUnresolved(u, reach[i])
			mu.Unresolved++
			mu.ByClass[class]++
			l.Unresolved++
			l.ByClass[class]++
			if class == UnresolvedMissingPackage {
				for _, p := range strings.Split(pkg, ",") {
					pkgs[p].Unresolved++
				}
			}
			key := u.name + "\x00" + class
			for _, m := range []map[string]*IdentifierCount{ids, libIDs[lib]} {
				c := m[key]
				if c == nil {
					c = &IdentifierCount{Name: u.name, Class: class, Package: pkg, Module: fr.mod.Name}
					if u.decl != nil {
						c.Example = u.decl.row.Name
					}
					m[key] = c
				}
				c.Count++
			}
		}
		mu.Identifiers = topCounts(ids, topN)
		rep.Modules = append(rep.Modules, mu)
	}
	for _, lib := range libOrder {
		l := libs[lib]
		if l.Declarations > 0 {
			l.PerDeclaration = float64(l.Unresolved) / float64(l.Declarations)
		}
		l.Top = topCounts(libIDs[lib], 4*topN)
		rep.Libraries = append(rep.Libraries, *l)
	}
	for _, p := range pkgs {
		sort.Strings(p.Modules)
		sort.Strings(p.Libraries)
		rep.MissingPackages = append(rep.MissingPackages, *p)
	}
	slices.SortFunc(rep.MissingPackages, func(a, b MissingPackage) int {
		return cmp.Or(cmp.Compare(b.Reach, a.Reach), cmp.Compare(a.Package, b.Package))
	})
	slices.SortStableFunc(rep.Modules, func(a, b ModuleUnresolved) int {
		return cmp.Or(cmp.Compare(b.Unresolved, a.Unresolved), cmp.Compare(a.Module, b.Module))
	})
	return rep
}

func topCounts(m map[string]*IdentifierCount, n int) []IdentifierCount {
	out := make([]IdentifierCount, 0, len(m))
	for _, c := range m {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b IdentifierCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Class, b.Class))
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// classifyUnresolved decides the class of one unresolved identifier from
// the declaration's text and the packages its module cannot see.
func classifyUnresolved(u unresolvedUse, missing []string) (class, pkg string) {
	code := ""
	if u.decl != nil {
		code = u.decl.row.Code
	}
	if !strings.Contains(u.name, ".") && (bindsIn(code, u.name) || looksLocal(u.name)) {
		return UnresolvedBinder, ""
	}
	if syntaxWord(code, u.name) {
		return UnresolvedSyntax, ""
	}
	if len(missing) > 0 {
		return UnresolvedMissingPackage, strings.Join(missing, ",")
	}
	return UnresolvedUnknown, ""
}

// looksLocal reports hypothesis names (h, hx, h₁, hab', h_card): Mathlib's
// naming convention keeps them for local hypotheses, so an unresolved one is
// a binder the reader lost, whatever packages are missing.
func looksLocal(name string) bool {
	rs := []rune(name)
	if len(rs) == 0 || rs[0] != 'h' || len(rs) > 8 {
		return false
	}
	for _, r := range rs[1:] {
		if !(r == '_' || r == '\'' || unicode.IsLetter(r) && r < 0x80 || unicode.IsDigit(r) || isSubScriptAlnum(r)) {
			return false
		}
	}
	// hom, hash, head, hyp… are words, not hypothesis names: h plus a word
	// longer than three letters is left to the other rules
	return len(rs) <= 4 || strings.ContainsAny(name, "_'₀₁₂₃₄₅₆₇₈₉0123456789")
}

// syntaxKeywords are words of Lean syntax that are never constants.
var syntaxKeywords = map[string]bool{"unsafe": true, "partial": true, "mutual": true, "noncomputable": true,
	"private": true, "protected": true, "deriving": true, "instance": true, "termination_by": true,
	"decreasing_by": true, "nofun": true, "nomatch": true}

// syntaxWord reports whether name is syntax rather than a reference: a
// tactic name the reader knows (left where its block tracking lost the
// tactic position), a keyword, or the word of a bracket-led notation such
// as [ZMOD n] (written right after the bracket).
func syntaxWord(code, name string) bool {
	if tacticWords[name] || nameIntro[name] || syntaxKeywords[name] || tacticCombinators[name] {
		return true
	}
	for off := 0; ; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(name)
		if wordAt(code, i, len(name)) && i > 0 && code[i-1] == '[' && strings.ToUpper(name) == name {
			return true // [ZMOD n], [PMOD p]: notation words are upper case (simp [foo] lists are not)
		}
	}
}

// binderOpeners introduce names bound up to the next ',' '↦' '=>' or ':'.
var binderOpeners = map[string]bool{
	"fun": true, "λ": true, "∀": true, "∃": true, "∃!": true, "Π": true, "Σ": true, "∑": true, "∏": true,
	"⋃": true, "⋂": true, "⨆": true, "⨅": true, "∫": true, "∫⁻": true, "intro": true, "intros": true,
	"rintro": true, "obtain": true, "rcases": true, "with": true, "let": true, "have": true, "set": true,
	"choose": true, "ext": true, "funext": true, "cases'": true, "induction'": true, "generalize": true,
	"by_cases": true, "by_contra": true, "by_contra!": true, "rename_i": true, "next": true, "case": true,
	"∀ᶠ": true, "∃ᶠ": true, "∀ᵐ": true, "∑ᶠ": true, "∏ᶠ": true, "peel": true, "lift": true, "use": false,
	"haveI": true, "letI": true, "suffices": true, "filter_upwards": true, "refine": false, "calc": false,
}

// bindsIn reports whether code binds name somewhere: after a binder opener
// (fun x y ↦, ∑ i ∈ s, obtain ⟨x, hx⟩ :=, intro a b), before a binder
// separator ((x y : α), x ↦, | x, y =>), or in a set-builder {x | …}.
func bindsIn(code, name string) bool {
	if code == "" || name == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(name)
		if !wordAt(code, i, len(name)) {
			continue
		}
		if boundAt(code, i, len(name)) {
			return true
		}
	}
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '\'' || r == '!' || r == '?' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) ||
		isSubScriptAlnum(r)
}

// wordAt: code[i:i+n] is a whole identifier.
func wordAt(code string, i, n int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(code[:i])
		if isIdentRune(r) {
			return false
		}
	}
	if i+n < len(code) {
		r, _ := utf8.DecodeRuneInString(code[i+n:])
		if isIdentRune(r) && r != '.' {
			return false
		}
	}
	return true
}

// boundAt looks around one occurrence.
func boundAt(code string, i, n int) bool {
	// forward: skip other binder names and spaces to the separator
	after := code[i+n:]
	j := 0
	for j < len(after) && j < 200 {
		r, w := utf8.DecodeRuneInString(after[j:])
		if r == ' ' || r == '\t' {
			j += w
			continue
		}
		if isIdentRune(r) {
			// another name of the same group; a keyword (fun, by) ends it
			e := j
			for e < len(after) {
				r2, w2 := utf8.DecodeRuneInString(after[e:])
				if !isIdentRune(r2) {
					break
				}
				e += w2
			}
			if termKeywords[after[j:e]] {
				return false
			}
			j = e
			continue
		}
		break
	}
	rest := after[j:]
	for _, sep := range []string{"↦", "=>", " :", ":", "∈", "∉", "⊆", "⊂"} {
		if strings.HasPrefix(rest, sep) && !strings.HasPrefix(rest, ":=") && !strings.HasPrefix(rest, "::") {
			// a separator after name (and maybe other names): binder if an
			// opener or bracket starts the group
			if sep == "↦" || sep == "=>" || groupOpened(code, i) {
				return true
			}
		}
	}
	// backward: the word before the group of names is an opener
	k := i
	for k > 0 {
		r, w := utf8.DecodeLastRuneInString(code[:k])
		if r == ' ' || r == '\t' || r == ',' || r == '⟨' || r == '(' || r == '[' || r == '|' || r == '{' || isIdentRune(r) {
			if isIdentRune(r) {
				// a whole previous word: is it an opener?
				e := k
				for k > 0 {
					r2, w2 := utf8.DecodeLastRuneInString(code[:k])
					if !isIdentRune(r2) {
						break
					}
					k -= w2
				}
				if binderOpeners[code[k:e]] {
					return true
				}
				continue
			}
			k -= w
			if i-k > 200 {
				return false
			}
			continue
		}
		// a symbol: an opener such as ∑, ∀, λ
		e := k
		k -= w
		if binderOpeners[code[k:e]] {
			return true
		}
		if k > 0 {
			r2, w2 := utf8.DecodeLastRuneInString(code[:k])
			_ = r2
			if binderOpeners[code[k-w2:e]] {
				return true
			}
		}
		return false
	}
	return false
}

// groupOpened reports whether the names before position i start right after
// an opening bracket or a binder opener: (x y : α), {x : α}, ∀ x y : α.
func groupOpened(code string, i int) bool {
	k := i
	for k > 0 {
		r, w := utf8.DecodeLastRuneInString(code[:k])
		switch {
		case r == '(' || r == '{' || r == '⦃' || r == '[' || r == '⟨':
			return true
		case r == ' ' || r == '\t' || isIdentRune(r):
			k -= w
			if i-k > 120 {
				return false
			}
			continue
		}
		e := k
		k -= w
		return binderOpeners[code[k:e]]
	}
	return false
}

// WriteJSON writes the report.
func (rep *UnresolvedReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteSummary prints the report for people: per library, the classes and
// the most frequent identifiers; the missing packages; the worst modules of
// the first library.
func (rep *UnresolvedReport) WriteSummary(w io.Writer, modules, idents int) {
	fmt.Fprintf(w, "unresolved identifiers by library (per declaration; classes: %s)\n", strings.Join(unresolvedClasses, ", "))
	for _, l := range rep.Libraries {
		fmt.Fprintf(w, "  %-12s %7d in %d declarations (%.2f per declaration):", l.Library, l.Unresolved, l.Declarations, l.PerDeclaration)
		for _, c := range unresolvedClasses {
			fmt.Fprintf(w, " %s %d", c, l.ByClass[c])
		}
		fmt.Fprintln(w)
	}
	if len(rep.MissingPackages) > 0 {
		fmt.Fprintf(w, "packages imported but not given as --src\n")
		for _, p := range rep.MissingPackages {
			fmt.Fprintf(w, "  %-14s imported by %d modules (seen by %d) of %s, e.g. %s; %d identifiers attributed\n",
				p.Package, p.ImportedBy, p.Reach, strings.Join(p.Libraries, ","), strings.Join(p.Modules[:min(3, len(p.Modules))], ", "), p.Unresolved)
		}
	}
	if len(rep.Libraries) == 0 {
		return
	}
	first := rep.Libraries[0]
	fmt.Fprintf(w, "most frequent in %s\n", first.Library)
	for _, c := range first.Top[:min(idents, len(first.Top))] {
		extra := ""
		if c.Package != "" {
			extra = " (" + c.Package + ")"
		}
		fmt.Fprintf(w, "  %6d  %-32s %s%s  e.g. %s\n", c.Count, c.Name, c.Class, extra, c.Example)
	}
	n := 0
	for _, m := range rep.Modules {
		if m.Library != first.Library {
			continue
		}
		if n == 0 {
			fmt.Fprintf(w, "modules of %s with the most\n", first.Library)
		}
		if n++; n > modules {
			break
		}
		var parts []string
		for _, c := range unresolvedClasses {
			if m.ByClass[c] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c, m.ByClass[c]))
			}
		}
		fmt.Fprintf(w, "  %5d  %s (%s)\n", m.Unresolved, m.Module, strings.Join(parts, ", "))
	}
}
