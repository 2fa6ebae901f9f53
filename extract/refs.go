package extract

import "strings"

// ref is one occurrence of a name to resolve: an identifier as written, a
// field of a local whose type head is known (recv), or a notation symbol.
type ref struct {
	name string
	// recv is the type head (as written) of the receiver of field notation,
	// name then being the field path; "?" for an unknown receiver type and
	// "=f" for the result type of the function f.
	recv string
	sym  bool // a symbol or identifier that may be notation
	asc  bool // inside the type of an ascription (e : T): absent from elaborated statements
}

// localInfo describes a locally bound name.
type localInfo struct {
	head   string // type head identifier as written ("" if unknown)
	varIdx int    // index of the section variable it names, or -1
}

// locals is the set of locally bound names while collecting references.
type locals struct {
	// base holds the universes and section variables (shared between the
	// declarations of a scope, never written); m the names bound on top of
	// them, which shadow base (nil until the first). Copying the section
	// variables into a new map for every declaration was a sixth of
	// extract's allocations.
	base map[string]localInfo
	m    map[string]localInfo
	used []bool // section variables mentioned
	// binderEnd: parenthesised groups before this token index are binders,
	// not ascriptions (the binders of a signature).
	binderEnd int
	// skip holds token indices that are pattern syntax, not references
	// (rfl in rcases patterns)
	skip map[int]bool
}

func (l *locals) skipTok(k int) {
	if l.skip == nil {
		l.skip = map[int]bool{}
	}
	l.skip[k] = true
}

// newLocals is the locals of nvars section variables over base (read only).
func newLocals(nvars int, base map[string]localInfo) *locals {
	return &locals{base: base, used: make([]bool, nvars), binderEnd: -1}
}

// get looks a name up: bound here, else a universe or section variable.
func (l *locals) get(name string) (localInfo, bool) {
	if li, ok := l.m[name]; ok {
		return li, true
	}
	li, ok := l.base[name]
	return li, ok
}

// set binds name to li here.
func (l *locals) set(name string, li localInfo) {
	if l.m == nil {
		l.m = make(map[string]localInfo, 8)
	}
	l.m[name] = li
}

func (l *locals) add(name, head string) {
	if name == "" || name == "_" {
		return
	}
	l.set(name, localInfo{head: head, varIdx: -1})
}

// termKeywords are never references.
var termKeywords = map[string]bool{
	"fun": true, "let": true, "have": true, "show": true, "from": true, "by": true, "at": true, "with": true,
	"match": true, "if": true, "then": true, "else": true, "do": true, "return": true, "calc": true, "in": true,
	"using": true, "Type": true, "Sort": true, "Prop": true, "where": true, "deriving": true, "this": true,
	"haveI": true, "letI": true, "suffices": true, "obtain": true, "for": true, "unless": true, "mut": true,
	"termination_by": true, "decreasing_by": true, "only": true, "generalizing": true, "extends": true,
	"structure": true, "class": true, "instance": true, "Type*": true, "Sort*": true, "_": true, "to": true,
	"open": true, "set_option": true, "says": true, "try": true, "at?": true, "mod_cast": true, "hiding": true,
	"using!": true, "sorry": true, "admit": true, "protected": true, "private": true,
}

// tacticWords are tactic names that coincide with declarations; they are
// skipped at the start of a tactic.
var tacticWords = map[string]bool{
	"trivial": true, "decide": true, "congr": true, "symm": true, "trans": true, "absurd": true, "rfl": true,
	"constructor": true, "ext": true, "exact": true, "apply": true, "simp": true, "rw": true, "intro": true,
	"cases": true, "induction": true, "refine": true, "use": true, "exists": true, "left": true, "right": true,
	"subst": true, "contradiction": true, "exfalso": true, "assumption": true, "split": true, "norm_num": true,
	"ring": true, "linarith": true, "omega": true, "positivity": true, "aesop": true, "tauto": true,
	"unfold": true, "change": true, "convert": true, "specialize": true, "refine'": true, "infer_instance": true,
	"funext": true, "push_cast": true, "exact_mod_cast": true, "nlinarith": true, "field_simp": true,
	"continuity": true, "measurability": true, "mono": true, "gcongr": true, "injection": true, "simpa": true,
	"dsimp": true, "show_term": true, "group": true, "abel": true, "noncomm_ring": true, "clear": true,
	"classical": true, "inhabit": true, "lift": true, "rename": true, "revert": true, "iterate": true,
	"repeat": true, "first": true, "all_goals": true, "any_goals": true, "norm_cast": true, "rwa": true,
	"erw": true, "simp_rw": true, "nth_rewrite": true, "nth_rw": true, "apply_fun": true, "filter_upwards": true,
	"convert!": true, "using!": true, "grind": true, "replace": true, "cat_disch": true, "fun_prop": true,
	"lia": true, "exacts": true, "grw": true, "split_ifs": true, "simp_all": true, "conv_lhs": true, "conv_rhs": true,
	"contextual": true, "by_cases!": true, "contrapose": true, "ext1": true, "conv": true, "norm_num1": true,
	"simpa!": true, "aesop_cat": true, "bound": true, "wlog": true, "rcongr": true, "subsingleton": true,
	"exact?": true, "apply?": true, "decide!": true, "native_decide": true, "rfl'": true, "interval_cases": true,
	"fin_cases": true, "module": true, "linear_combination": true, "compute_degree": true, "monicity": true,
}

// binderSymbols introduce bound variables up to the next ',' (or =>/↦).
var binderSymbols = map[string]bool{
	"λ": true, "∀": true, "∃": true, "∃!": true, "Π": true, "Σ": true, "Σ'": true, "∑": true, "∏": true,
	"⋃": true, "⋂": true, "⨆": true, "⨅": true, "∫": true, "∮": true, "⨁": true, "∐": true, "∫⁻": true,
	"⋃₀": true, "∑ᶠ": true, "∏ᶠ": true, "∀ᶠ": true, "∃ᶠ": true, "∀ᵐ": true, "∃ᵐ": true,
}

// nameIntro tactics/terms bind the identifiers that follow them up to the end
// of the line (or := / : / using).
var nameIntro = map[string]bool{
	"intro": true, "intros": true, "rintro": true, "ext": true, "introv": true, "choose": true,
	"by_contra": true, "by_contra!": true, "rename_i": true, "next": true, "case": true, "obtain": true,
	"rcases": true, "funext": true, "by_cases": true, "generalize": true, "set": true, "lift": true,
	"induction'": true, "cases'": true, "with": true, "have": true, "haveI": true, "let": true, "letI": true,
	"suffices": true, "refine_lift": true, "peel": true, "contrapose!": true, "push_neg": false, "filter_upwards": false,
	"replace": true, "observe": true, "choose!": true, "obtain!": false,
}

// anywhereIntro bind names wherever they occur (terms, not only tactics).
var anywhereIntro = map[string]bool{"have": true, "haveI": true, "let": true, "letI": true, "obtain": true,
	"suffices": true, "with": true}

// plainSymbols are never notation worth resolving.
var plainSymbols = map[string]bool{
	"→": true, "↔": true, "∧": true, "∨": true, "¬": true, "≠": true, "≤": true, "≥": true, "⟨": true, "⟩": true,
	"↦": true, "∈": true, "∉": true, "⊆": true, "∘": true, "•": true, "·": true, "▸": true, "⁻¹": true, "⊢": true,
	"←": true, "⦃": true, "⦄": true, "×": true, "‹": true, "›": true, "∣": true, "⊂": true, "∩": true, "∪": true,
	"⁻": true, "¹": true, "↑": true, "⇑": true, "↥": true, "≃": true, "≅": true, "≪": true, "≫": true, "⊤": true, "⊥": true,
	"⊔": true, "⊓": true, "∅": true, "≈": true, "≡": true, "∑": true, "∏": true, "∀": true, "∃": true, "λ": true,
	"⋃": true, "⋂": true, "⨆": true, "⨅": true, "Π": true, "Σ": true, "ᶜ": true, "∞": true, "√": true,
}

func isNotationCandidate(s string) bool {
	if s == "#" {
		return true
	}
	if len(s) == 0 || s[0] < 0x80 {
		return false
	}
	return !plainSymbols[s]
}

// firstComponent returns the part of a dotted name before the first dot.
func firstComponent(s string) (head, rest string) {
	if i := strings.IndexByte(s, '.'); i > 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// collectRefs walks tokens [i, j) and appends the references found. Names
// bound inside the range (fun, ∀, ∃, intro, have, match patterns, set-builder)
// are added to loc and not reported; mentions of section variables are
// recorded in loc.used.
//
// With out nil, the references are gathered in the file's recycled buffer
// and returned in a slice of their exact length (nil if none): growing a
// fresh slice by append for each of Mathlib's declarations allocated about
// twice the references' size, and the spare capacity stayed live until
// resolution.
func (f *file) collectRefs(i, j int, loc *locals, out []ref) []ref {
	if out == nil {
		refs := f.scanRefs(i, j, loc, f.refsBuf[:0])
		f.refsBuf = refs[:0]
		if len(refs) == 0 {
			return nil
		}
		return append(make([]ref, 0, len(refs)), refs...)
	}
	return f.scanRefs(i, j, loc, out)
}

// scanRefs is collectRefs appending to out.
func (f *file) scanRefs(i, j int, loc *locals, out []ref) []ref {
	if j > len(f.toks) {
		j = len(f.toks)
	}
	rs := refScan{f: f, i: i, j: j, loc: loc, out: out, binderEnd: loc.binderEnd, pendAt: -1,
		tactic: f.tacticSkips(i, j)} // tactic names and options (tactics.go)
	marked, prevAsc := len(out), false
	for k := i; k < j; k++ {
		// references appended in the previous step get its ascription flag
		for ; marked < len(rs.out); marked++ {
			rs.out[marked].asc = prevAsc
		}
		t := f.toks[k]
		for len(rs.ascRanges) > 0 && k >= rs.ascRanges[len(rs.ascRanges)-1][1] {
			rs.ascRanges = rs.ascRanges[:len(rs.ascRanges)-1]
			rs.ascMin = rs.ascMin[:len(rs.ascMin)-1]
		}
		inAsc := len(rs.ascMin) > 0 && k > rs.ascMin[len(rs.ascMin)-1]
		prevAsc = inAsc
		switch t.Kind {
		case TokSymbol:
			rs.symbol(k, t)
		case TokIdent:
			rs.ident(k, t, inAsc)
		}
	}
	return rs.out
}

// refScan is collectRefs' state over the tokens [i, j).
type refScan struct {
	f    *file
	i, j int
	loc  *locals
	out  []ref
	// pattern: inside a `| pat =>` pattern.
	pattern bool
	// binderEnd: binder groups of the signature, ∀/∃/fun end here.
	binderEnd int
	groups    []int    // open '(' / '{' indices
	ascRanges [][2]int // (colon, close) of ascriptions (e : T)
	// ascMin[n] is the least colon of ascRanges[:n+1]: a token is inside an
	// ascription's type when some open range's colon is before it, and
	// scanning the whole stack for every token was quadratic in the
	// nesting depth ((x : (x : … Nat)) 40,000 deep took 30 s).
	ascMin []int
	// pendRecv is the receiver of the field at pendAt, after `(…).`.
	pendRecv string
	pendAt   int
	tactic   []bool
}

// symbol handles the symbol at k: brackets (ascriptions, set-builder,
// the receiver of a field after `(…).`), binders, patterns and notation.
func (rs *refScan) symbol(k int, t Token) {
	f, j, loc := rs.f, rs.j, rs.loc
	s := f.text(k)
	switch {
	case s == "(" || s == "{":
		rs.groups = append(rs.groups, k)
		if s == "(" && k > rs.binderEnd {
			if c, colon := f.groupColon(k, j); colon > 0 {
				rs.ascRanges = append(rs.ascRanges, [2]int{colon, c})
				m := colon
				if n := len(rs.ascMin); n > 0 && rs.ascMin[n-1] < m {
					m = rs.ascMin[n-1]
				}
				rs.ascMin = append(rs.ascMin, m)
			}
		}
		if s == "{" {
			f.setBuilder(k, j, loc)
		}
	case s == ")" || s == "}":
		if len(rs.groups) > 0 {
			o := rs.groups[len(rs.groups)-1]
			rs.groups = rs.groups[:len(rs.groups)-1]
			if k+2 < j && f.is(k+1, ".") && f.toks[k+1].Start == t.End && f.toks[k+2].Kind == TokIdent && f.toks[k+2].Start == f.toks[k+1].End {
				rs.pendRecv, rs.pendAt = f.groupReceiver(o, k, loc), k+2
			}
		}
	case s == "[" && k+1 < j && f.toks[k+1].Kind == TokIdent && f.toks[k+1].Start == t.End:
		// notation led by a bracket and a word: a ≡ b [ZMOD n]; the word
		// is read on its own only if no such notation resolves
		rs.out = append(rs.out, ref{name: "[" + f.text(k+1), sym: true, recv: symLong})
	case binderSymbols[s]:
		if e := f.scanBinders(k+1, j, loc); e > rs.binderEnd {
			rs.binderEnd = e
		}
	case s == "|":
		if t.Flags&FlagLineStart != 0 || f.is(k-1, "with") || f.is(k-1, "fun") {
			rs.pattern = true
		}
	case s == "=>":
		rs.pattern = false
	case len(s) > 0 && (s[0] >= 0x80 || s == "#"):
		// notation may span adjacent tokens (≃L[): try the longer form first
		long := false
		if e := f.adjacentEnd(k, j, 3); e > k+1 {
			rs.out = append(rs.out, ref{name: f.span(k, e), sym: true, recv: symLong})
			long = true
		}
		if isNotationCandidate(s) {
			rs.out = append(rs.out, ref{name: s, sym: true})
		} else if long {
			rs.out = append(rs.out, ref{name: "", sym: true}) // placeholder keeps skip logic aligned
		}
	}
}

// ident handles the identifier at k: binders and local introductions,
// keywords and tactics (skipped), fields, locals, pattern variables, and
// the references it makes (a word-led notation first).
func (rs *refScan) ident(k int, t Token, inAsc bool) {
	f, i, j, loc := rs.f, rs.i, rs.j, rs.loc
	s := f.text(k)
	if s == "fun" {
		if e := f.scanBinders(k+1, j, loc); e > rs.binderEnd {
			rs.binderEnd = e
		}
		return
	}
	if nameIntro[s] && (anywhereIntro[s] || t.Flags&FlagLineStart != 0 || f.is(k-1, "by") || f.is(k-1, "·") ||
		f.is(k-1, ";") || f.is(k-1, "<;>") || f.is(k-1, "=>") || f.is(k-1, "(")) {
		f.scanIntro(k, j, loc)
		return
	}
	if termKeywords[s] || rs.tactic != nil && rs.tactic[k-i] || loc.skip[k] {
		return
	}
	if k > i && rs.afterSymbol(k, t, s, inAsc) {
		return
	}
	if f.is(k+1, ":=") && (f.is(k-1, "(") || f.is(k-1, ",") || f.is(k-1, "{") || t.Flags&FlagLineStart != 0) {
		return // named argument or structure-instance field
	}
	if t.Flags&FlagLineStart != 0 || f.is(k-1, "{") || f.is(k-1, ",") {
		// fieldBinders first: fieldPosition scans back through the
		// declaration, so it runs only for a `C args :=` shape.
		if names, ok := f.fieldBinders(k+1, j); ok && f.fieldPosition(i, k) {
			// `map_add' x y := …`, `{ toFun p := …`, `map_rel_iff' {a b} :=` in
			// a structure instance: the field, and binders of its value
			for _, n := range names {
				loc.add(n, "")
			}
			return
		}
	}
	if tacticWords[s] && (t.Flags&FlagLineStart != 0 || f.is(k-1, "by") || f.is(k-1, "·") || f.is(k-1, ";") || f.is(k-1, "<;>") || f.is(k-1, "=>")) {
		return
	}
	head, rest := firstComponent(s)
	if head == "this" && rest != "" {
		return // a field of the anonymous `have :`: a local of unknown type
	}
	if li, ok := loc.get(head); ok {
		if li.varIdx >= 0 {
			loc.used[li.varIdx] = true
		}
		if rest != "" {
			recv := li.head
			if recv == "" {
				recv = "?"
			}
			rs.out = append(rs.out, ref{name: rest, recv: recv})
		}
		return
	}
	if rs.pattern && rest == "" {
		// pattern variable (or constructor/tag: constructors written
		// with a namespace still resolve)
		loc.add(s, "")
		return
	}
	if k > i && k+1 < j && f.is(k+1, "[") && f.toks[k+1].Start == t.End && f.toks[k-1].End == t.Start &&
		f.toks[k-1].Kind == TokSymbol && f.text(k - 1)[0] >= 0x80 {
		return // E →SL[σ] F: the word inside a symbol-led notation, read with it
	}
	if k+1 < j && (f.is(k+1, "[") || f.is(k+1, "(")) && f.toks[k+1].Start == t.End {
		// notation that starts with a word: H[X ; μ], 𝓝[s] x, SL(2, ℤ)
		// (application needs a space); the word is read on its own only
		// if no such notation resolves
		rs.out = append(rs.out, ref{name: s + f.text(k+1), sym: true, recv: symLong})
	}
	rs.out = append(rs.out, ref{name: s})
}

// afterSymbol handles an identifier s at k written right after a symbol:
// ?mvar and `name are no references; after a dot it is a field of an
// expression (of the receiver after `(…).`, else of unknown type). It
// reports whether s is done with.
func (rs *refScan) afterSymbol(k int, t Token, s string, inAsc bool) bool {
	f := rs.f
	p := f.toks[k-1]
	if p.End != t.Start || p.Kind != TokSymbol {
		return false
	}
	switch f.text(k - 1) {
	case "?", "`":
		return true // ?mvar
	case ".":
		// (e).field, x.1.field: field of an expression of unknown
		// type; .ctor (anonymous constructor) is not resolvable here
		if rs.pendAt == k && rs.pendRecv != "" {
			rs.out = append(rs.out, ref{name: s, recv: rs.pendRecv, asc: inAsc})
		} else if k >= 2 && f.toks[k-2].End == p.Start {
			q := f.toks[k-2]
			if q.Kind == TokNumber || q.Kind == TokIdent || (q.Kind == TokSymbol && isCloser(f.text(k-2))) {
				field, _ := firstComponent(s)
				rs.out = append(rs.out, ref{name: field, recv: "?"})
			}
		}
		return true
	}
	return false
}

// setBuilder registers the names a set-builder or subtype brace at k binds:
// {x | …}, {x : T // …}, {x ∈ s | …}, {(x, y) | …}. (It was a second
// `case "{"` after the one for groups, which Go never reached.)
func (f *file) setBuilder(k, j int, loc *locals) {
	if k <= loc.binderEnd {
		return // {x : α} binder groups of the signature
	}
	if k+2 < j && f.toks[k+1].Kind == TokIdent && (f.is(k+2, "|") || f.is(k+2, "//") || f.is(k+2, "∈") ||
		f.is(k+2, ":") && f.braceHasBar(k, j)) {
		// {x : α} alone is an implicit binder, not a set: only with a `|` or `//`
		if n := f.text(k + 1); !strings.Contains(n, ".") {
			if _, bound := loc.get(n); !bound {
				loc.add(n, "")
			}
		}
	} else if f.is(k+1, "(") || f.is(k+1, "⟨") {
		c := f.matchBracket(k + 1)
		if c+1 < j && f.is(c+1, "|") {
			for m := k + 2; m < c; m++ {
				if f.toks[m].Kind == TokIdent {
					loc.add(f.text(m), "")
				}
			}
		}
	}
}

// braceHasBar reports whether the brace group opened at k has a `|` or `//`
// at its top level (a set-builder or subtype, not a binder group).
func (f *file) braceHasBar(k, j int) bool {
	c := f.matchBracket(k)
	if c <= k || c > j {
		c = j
	}
	depth := 0
	for m := k + 1; m < c; m++ {
		s := f.text(m)
		switch {
		case f.toks[m].Kind != TokSymbol:
		case isOpener(s):
			depth++
		case isCloser(s):
			depth--
		case depth == 0 && (s == "|" || s == "//"):
			return true
		}
	}
	return false
}

// isNameIntroStop: a token that ends an intro form rather than continuing
// its names on the next line.
func isNameIntroStop(s string) bool {
	return s == ":=" || s == "·" || s == "|" || s == "=>" || s == "}" || s == ")"
}

// fieldBinders reads the binders of a structure-instance field written with
// arguments: tokens from k on the same line that are binder names (or `_`)
// and bracketed binder groups (`{a b}`, `(x : T)`, `⦃i⦄`, `[inst : C]`),
// followed by ':='. It returns the names they bind (Lean's structInstField
// binders: binderIdent or bracketedBinder).
func (f *file) fieldBinders(k, j int) ([]string, bool) {
	if k >= j {
		return nil, false
	}
	var names []string
	line := f.toks[k].Line
	for m := k; m < j && f.toks[m].Line == line; m++ {
		s := f.text(m)
		switch {
		case s == ":=":
			return names, m > k
		case s == "(" || s == "{" || s == "⦃" || s == "[":
			c := f.matchBracket(m)
			if c <= m || c >= j || f.toks[c].Line != line {
				return nil, false
			}
			if s == "[" && !f.hasTopColon(m, c) {
				m = c // [C α]: an anonymous instance binder
				continue
			}
			for q := m + 1; q < c && !f.is(q, ":"); q++ {
				if f.toks[q].Kind != TokIdent || strings.Contains(f.text(q), ".") || termKeywords[f.text(q)] && f.text(q) != "_" {
					return nil, false
				}
				names = append(names, f.text(q))
			}
			m = c
		case s == "_":
		case f.toks[m].Kind != TokIdent || strings.Contains(s, ".") || termKeywords[s]:
			return nil, false
		default:
			names = append(names, s)
		}
	}
	return nil, false
}

// fieldPosition reports whether token k can start a structure-instance
// field: its innermost open bracket (from i) is none or `{`, and it does not
// continue a type (`(x : ∀ i, C (f i) := d)`, `have h : ∀ x, P (g x) :=`, a
// field type continued after `:`): there `C (f i) :=` is a term and its
// default value or proof, and binding f and i as locals hid real references
// (578b22e: 469 edges in 324 Mathlib declarations, e.g. Metric.cthickening).
// The scans are bounded by the declaration (from i).
func (f *file) fieldPosition(i, k int) bool {
	depth := 0
	for m := k - 1; m >= i; m-- {
		if f.toks[m].Kind != TokSymbol {
			continue
		}
		s := f.text(m)
		if isCloser(s) {
			depth++
		} else if isOpener(s) {
			if depth == 0 {
				if s != "{" {
					return false
				}
				break
			}
			depth--
		}
	}
	if f.is(k-1, ",") {
		// `{ a := 1, b x := 2 }` but not `∀ x, C (f x) :=`: the comma must
		// follow a field's value, i.e. a `:=` at this depth before it
		d := 0
		for m := k - 2; m >= i; m-- {
			s := f.text(m)
			if f.toks[m].Kind == TokSymbol && isCloser(s) {
				d++
			} else if f.toks[m].Kind == TokSymbol && isOpener(s) {
				if d == 0 {
					return false
				}
				d--
			} else if d == 0 && s == ":=" {
				return true
			} else if d == 0 && (s == "∀" || s == "∃" || s == ":") {
				return false
			}
		}
		return false
	}
	if k > i && (f.is(k-1, ":") || f.is(k-1, "→") || f.is(k-1, "×") || f.is(k-1, "⥤")) {
		return false
	}
	return true
}

// hasTopColon reports whether the group (o, c) has a ':' at its top level.
func (f *file) hasTopColon(o, c int) bool {
	depth := 0
	for m := o + 1; m < c; m++ {
		switch s := f.text(m); {
		case f.toks[m].Kind != TokSymbol:
		case isOpener(s):
			depth++
		case isCloser(s):
			depth--
		case depth == 0 && s == ":":
			return true
		}
	}
	return false
}

// symLong marks the multi-token form of a notation candidate; the single
// token after it is skipped when it resolves.
const symLong = "+"

// adjacentEnd returns the end of up to n tokens from k written without
// spaces between them.
func (f *file) adjacentEnd(k, j, n int) int {
	e := k + 1
	for e < j && e < k+n && f.toks[e].Start == f.toks[e-1].End {
		e++
	}
	return e
}

// groupColon returns the closer of the group opened at k and the index of a
// ':' at its top level (-1 if none); for a named argument (x := e), the
// ':=' and -1; for a group not closed before j, j and -1.
//
// It is called for every '(' of a statement, so it must not rescan the
// group: nested parentheses would make extraction quadratic (40,000 nested
// '(' took 19.5 s). The file's groups are matched once, in one pass
// (groupTable), and each call is a lookup.
func (f *file) groupColon(k, j int) (int, int) {
	if f.groups == nil {
		f.groups = f.groupTable()
	}
	g := f.groups[k]
	if int(g.end) >= j || g.end < 0 {
		return j, -1
	}
	return int(g.end), int(g.colon)
}

// groupEnd is where the scan of a group stops: its closer (depth back to 0,
// counting every kind of bracket as depthDelta does) or a ':=' at its top
// level, whichever comes first (-1: neither in the file), and the first ':'
// at its top level before that (-1 if none, or when the scan stops at ':=').
type groupEnd struct{ end, colon int32 }

// groupTable matches every opener of the file with one stack.
func (f *file) groupTable() []groupEnd {
	t := f.groupsBuf[:0]
	if cap(t) < len(f.toks) {
		t = make([]groupEnd, len(f.toks))
	}
	t = t[:len(f.toks)] // every entry is written below
	type frame struct {
		k     int
		colon int32
		done  bool // the scan from k stopped at a ':='
	}
	var stack []frame
	for m := range f.toks {
		t[m] = groupEnd{-1, -1}
		switch f.depthDelta(m) {
		case 1:
			stack = append(stack, frame{k: m, colon: -1})
		case -1:
			if len(stack) == 0 {
				continue
			}
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !fr.done {
				t[fr.k] = groupEnd{int32(m), fr.colon}
			}
		default:
			if len(stack) == 0 {
				continue
			}
			top := &stack[len(stack)-1]
			if top.done {
				continue
			}
			if top.colon < 0 && f.is(m, ":") {
				top.colon = int32(m)
			}
			if f.is(m, ":=") {
				top.done = true
				t[top.k] = groupEnd{int32(m), -1}
			}
		}
	}
	return t
}

// groupReceiver guesses the type of the parenthesised expression [o, c] for
// field notation after it: an ascription's type, a local's type (with its
// field path), a function's result type; "?" if unknown.
func (f *file) groupReceiver(o, c int, loc *locals) string {
	if f.is(o, "{") {
		for m := o + 1; m < c; m++ {
			if f.is(m, "|") {
				return "Set"
			}
			if f.is(m, "//") {
				return "Subtype"
			}
		}
		return "?"
	}
	if _, colon := f.groupColon(o, c+1); colon > 0 {
		if h := f.typeHead(colon+1, c); h != "" {
			return h
		}
		return "?"
	}
	if o+1 < c && f.toks[o+1].Kind == TokIdent {
		s := f.text(o + 1)
		if termKeywords[s] {
			return "?"
		}
		head, rest := firstComponent(s)
		if li, ok := loc.get(head); ok {
			if li.head != "" && rest == "" {
				return li.head
			}
			if li.head != "" {
				return "=" + li.head + "." + rest
			}
			return "?"
		}
		return "=" + s
	}
	return "?"
}

// scanBinders registers the names bound by a binder list starting at k (after
// fun/∀/∃/…), up to ',' / '=>' / '↦' at depth 0, and returns where it ends.
func (f *file) scanBinders(k, j int, loc *locals) int {
	depth := 0
	colon := make([]bool, 1, 4)
	var pending []string // names of the current group awaiting their type
	for m := k; m < j; m++ {
		t := f.toks[m]
		s := f.text(m)
		if t.Kind == TokSymbol {
			if isOpener(s) {
				depth++
				// [C α] binds no names (only [inst : C α] does, rarely used)
				colon = append(colon, s == "[")
				pending = pending[:0]
				continue
			}
			if isCloser(s) {
				if depth == 0 {
					return m
				}
				depth--
				colon = colon[:len(colon)-1]
				pending = pending[:0]
				continue
			}
			if depth == 0 && (s == "," || s == "=>" || s == "↦") {
				return m
			}
			switch s {
			case ":":
				if !colon[len(colon)-1] && len(pending) > 0 {
					if h := f.typeHead(m+1, j); h != "" {
						for _, n := range pending {
							if li, ok := loc.get(n); ok && li.varIdx < 0 {
								loc.set(n, localInfo{head: h, varIdx: -1})
							}
						}
					}
				}
				colon[len(colon)-1] = true
				pending = pending[:0]
			case "∈", "<", "≤", "⊆", "≠", ">", "≥", "⊂", "∉", "|", ":=":
				colon[len(colon)-1] = true
				pending = pending[:0]
			}
			continue
		}
		if t.Kind == TokIdent && !colon[len(colon)-1] && !termKeywords[s] && !strings.Contains(s, ".") {
			loc.add(s, "")
			pending = append(pending, s)
		}
		if depth == 0 && t.Flags&FlagLineStart != 0 && m > k {
			return m
		}
	}
	return j
}

// scanIntro registers names introduced by intro-like tactics and have/let/
// obtain/with: identifiers up to the end of the line, or to ':' / ':=' /
// 'using' at depth 0.
func (f *file) scanIntro(k, j int, loc *locals) {
	f.scanIntroIn(k, j, loc, false)
}

// rcasesPatterns are the intro forms whose patterns have alternatives
// (rcases h with rfl | hx, obtain ⟨x, hx⟩ | h := …).
var rcasesPatterns = map[string]bool{"rcases": true, "obtain": true, "rintro": true}

// continuedIntro are the intro tactics whose names may start on the next,
// more indented line (not `with` of a structure instance or a match, not
// have/let, whose next line is a value).
var continuedIntro = map[string]bool{"intro": true, "intros": true, "rintro": true, "obtain": true, "rcases": true,
	"choose": true, "ext": true, "funext": true, "cases'": true, "induction'": true, "rename_i": true, "introv": true}

func (f *file) scanIntroIn(k, j int, loc *locals, pattern bool) {
	kw := f.text(k)
	pattern = pattern || rcasesPatterns[kw]
	line := f.toks[k].Line
	if (pattern || continuedIntro[kw]) && k+1 < j && f.toks[k+1].Line != line && !isNameIntroStop(f.text(k+1)) &&
		f.charCol(k+1) > f.lineIndent(k) {
		// the names continue on a more indented next line (rcases h with
		// ⟨x, hx⟩ broken after `with`); a line at the same indentation is
		// the next tactic
		line = f.toks[k+1].Line
	}
	depth := 0
	colon := false
	for m := k + 1; m < j; m++ {
		t := f.toks[m]
		if t.Line != line && depth == 0 {
			return
		}
		s := f.text(m)
		if t.Kind == TokSymbol {
			if isOpener(s) {
				depth++
				if (kw == "have" || kw == "let" || kw == "haveI" || kw == "letI" || kw == "suffices") && depth == 1 && !f.is(m, "⟨") {
					// have h (x : α) : …: binder group: names before ':'
					c := f.matchBracket(m)
					for q := m + 1; q < c && !f.is(q, ":"); q++ {
						if f.toks[q].Kind == TokIdent {
							loc.add(f.text(q), "")
						}
					}
					m = c
					depth--
				}
				continue
			}
			if isCloser(s) {
				depth--
				if depth < 0 {
					return
				}
				colon = false // ⟨e : T, he⟩: the ascription ends with its component
				continue
			}
			if depth == 0 && (s == ":=" || s == ":" || s == "=>" || s == "|" && !pattern || s == ";" || s == "<;>") {
				return
			}
			if s == ":" {
				colon = true
			}
			if s == "," || s == "|" {
				colon = false
			}
			continue
		}
		if t.Kind != TokIdent {
			continue
		}
		if s == "using" || s == "with" || s == "at" || s == "generalizing" {
			if kw == "rcases" || kw == "obtain" || kw == "cases'" || kw == "induction'" || kw == "set" {
				if s == "with" {
					f.scanIntroIn(m, j, loc, true)
				}
			}
			return
		}
		switch kw {
		case "rcases", "cases'", "induction'", "set", "by_cases", "generalize", "lift", "case", "next":
			// rcases h with pat, cases' e with x y: the names come after
			// `with` (handled there), e is a term; set x := e with h: x is bound
			if kw == "rcases" || kw == "cases'" || kw == "induction'" {
				continue
			}
			if kw == "case" && m == k+1 {
				loc.skipTok(m) // the tag: not a reference
				continue
			}
			if kw == "by_cases" || kw == "set" || kw == "generalize" {
				if !colon && !strings.Contains(s, ".") {
					loc.add(s, "")
				}
				if kw == "set" {
					// only the first identifier before :=
				}
				continue
			}
		}
		if s == "rfl" && !colon {
			// rfl in a pattern substitutes: it binds nothing, and it is no
			// reference to the constant rfl either
			loc.skipTok(m)
			continue
		}
		if !colon && !strings.Contains(s, ".") && !termKeywords[s] {
			loc.add(s, "")
		}
	}
}

// lineIndent is the character column of the first token on token k's line.
func (f *file) lineIndent(k int) int32 {
	for k > 0 && f.toks[k].Flags&FlagLineStart == 0 && f.toks[k-1].Line == f.toks[k].Line {
		k--
	}
	return f.charCol(k)
}
