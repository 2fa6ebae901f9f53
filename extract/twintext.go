package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A to_additive/to_dual twin's signature text is its source's text
// translated as the attribute translates the term, token by token:
//
//   - an identifier that resolves (in the source's scope) to a constant with
//     a translation is replaced by the translation, written with as many
//     components as the source wrote (MulLeftMono → AddLeftMono,
//     Finset.prod_congr → Finset.sum_congr); bound variables stay;
//   - a notation whose constant translates is replaced by the translated
//     constant's notation when both notations have the same shape (a * b →
//     a + b, ∏ x ∈ s, f x → ∑ x ∈ s, f x, |a|ₘ → |a|): twinNotations;
//   - a⁻¹ (postfix) becomes -a (prefix; parenthesized as an argument), a ^ n
//     becomes n • a (to_additive's reorder of HPow.hPow's arguments);
//   - the numeral 1 (One.one) becomes 0 where its type is the translated
//     one: see oneContext.
//
// Where a case cannot be translated exactly (an operand the token walk
// cannot delimit, a 1 whose type it cannot tell) the whole text stays the
// source's and the twin is counted as kept (Result.TwinSigsKept).

// twinNotations are notations the translation needs that the notation
// table does not hold (core Lean's operators, Mathlib's big operators and
// mabs, written as `syntax` + `macro_rules`): a pattern (parameters are
// lower-case single letters, atoms everything else) and the constant it
// stands for. A symbol is replaced only when its constant has a
// translation in the library's dictionary and the translation's notation
// has the same shape: the table says how each constant is written, the
// library which constant translates to which.
var twinNotations = [][2]string{
	{"a * b", "HMul.hMul"}, {"a + b", "HAdd.hAdd"}, {"a / b", "HDiv.hDiv"}, {"a - b", "HSub.hSub"},
	{"a • b", "HSMul.hSMul"}, {"a +ᵥ b", "HVAdd.hVAdd"},
	{"∏ x , b", "Finset.prod"}, {"∑ x , b", "Finset.sum"},
	{"∏ᶠ x , b", "finprod"}, {"∑ᶠ x , b", "finsum"},
	{"∏' x , b", "tprod"}, {"∑' x , b", "tsum"},
	{"| a |ₘ", "mabs"}, {"| a |", "abs"},
}

// twinAtoms are multi-token atoms the lexer splits (⁻¹ is ⁻ ¹; ⁻¹' is
// the preimage), longest first; the notation table's atoms are joined too.
var twinAtoms = []string{"⁻¹'", "⁻¹", "|ₘ", "∏ᶠ", "∑ᶠ", "∏'", "∑'", "+ᵥ"}

// twinDict is one attribute's translation dictionary: constant → twin.
type twinDict map[string]string

// tableNotation is a notation of the library's table as symbolMap reads
// it: its atoms, command and constant.
type tableNotation struct {
	atoms []string
	kind  string
	c     string
}

// symbolMap derives the symbol translations from twinNotations, the
// library's notation table (→* → →+: MonoidHom translates to
// AddMonoidHom, whose notation has the same shape) and d: an atom maps to
// the atom at the same place of the translated constant's notation, when
// the shapes agree. fail lists the atoms of notations whose constant
// translates to one with no notation of that shape (Mˣ: AddUnits M has
// none): a text with one is kept.
func (d twinDict) symbolMap(table []tableNotation) (out map[string]string, fail map[string]bool) {
	isParam := func(s string) bool { return len(s) == 1 && s[0] >= 'a' && s[0] <= 'z' }
	var all []tableNotation
	for _, n := range twinNotations {
		all = append(all, tableNotation{atoms: strings.Fields(n[0]), kind: "builtin", c: n[1]})
	}
	all = append(all, table...)
	shape := func(n tableNotation) string {
		var b strings.Builder
		b.WriteString(n.kind)
		for _, a := range n.atoms {
			if isParam(a) {
				b.WriteString(" _")
			} else {
				b.WriteString(" a")
			}
		}
		return b.String()
	}
	byConst := map[string][]tableNotation{}
	for _, n := range all {
		byConst[n.c] = append(byConst[n.c], n)
	}
	out, fail = map[string]string{}, map[string]bool{}
	bad := map[string]bool{}
	builtin := map[string]bool{}
	for _, n := range all {
		if n.kind == "builtin" {
			for _, a := range n.atoms {
				builtin[a] = !isParam(a)
			}
		} else if i := slices.IndexFunc(n.atoms, func(a string) bool { return !isParam(a) }); i >= 0 && builtin[n.atoms[i]] {
			continue // core's reading of the symbol wins (* is HMul.hMul)
		}
		to, ok := d[n.c]
		if !ok {
			continue
		}
		var tgt []string
		for _, m := range byConst[to] {
			if shape(m) == shape(n) {
				tgt = m.atoms
				break
			}
		}
		if tgt == nil {
			for _, a := range n.atoms {
				if !isParam(a) {
					fail[a] = true
				}
			}
			continue
		}
		for i := range n.atoms {
			if isParam(n.atoms[i]) {
				continue
			}
			if prev, ok := out[n.atoms[i]]; ok && prev != tgt[i] {
				bad[n.atoms[i]] = true
			}
			out[n.atoms[i]] = tgt[i]
		}
	}
	for s := range bad {
		delete(out, s)
	}
	for s, t := range out {
		delete(fail, s) // an atom other notations translate (|)
		if s == t {
			delete(out, s)
		}
	}
	return out, fail
}

// fieldMap is the translation of last components every constant with
// that last component agrees on (field notation's names); a last
// component some constants translate and others keep (MonoidHom.prod ↦
// AddMonoidHom.prod, List.prod ↦ List.sum) maps to "" (ambiguous).
func (d twinDict) fieldMap() map[string]string {
	out := map[string]string{}
	same := map[string]bool{}
	for src, tw := range d {
		a, b := lastComponent(src), lastComponent(tw)
		if a == b {
			same[a] = true
			continue
		}
		if prev, ok := out[a]; ok && prev != b {
			b = ""
		}
		out[a] = b
	}
	for a := range out {
		if same[a] {
			out[a] = ""
		}
	}
	return out
}

// ttok is a token of a signature text: its kind, text and byte span.
type ttok struct {
	kind       TokKind
	text       string
	start, end int
}

// twinTokens lexes text, joining the atoms of twinAtoms written without
// space inside.
func twinTokens(text string, atoms []string) []ttok {
	toks, err := Lex([]byte(text))
	if err != nil {
		return nil
	}
	var out []ttok
	for i := 0; i < len(toks) && toks[i].Kind != TokEOF; i++ {
		t := toks[i]
		tk := ttok{kind: t.Kind, text: text[t.Start:t.End], start: int(t.Start), end: int(t.End)}
		if t.Kind == TokSymbol {
			for _, a := range atoms {
				if !strings.HasPrefix(a, tk.text) || a == tk.text {
					continue
				}
				j, e := i, int(t.End)
				for j+1 < len(toks) && toks[j+1].Kind != TokEOF && int(toks[j+1].Start) == e && e-tk.start < len(a) {
					j++
					e = int(toks[j].End)
				}
				if text[tk.start:e] == a {
					tk.text, tk.end, i = a, e, j
					break
				}
			}
		}
		out = append(out, tk)
	}
	return out
}

// twinText translates one signature text.
type twinText struct {
	text   string
	toks   []ttok
	ids    map[string]string // identifier as written → its translation as written
	consts map[string]bool   // identifiers (as written) that are constants
	// results: a constant (as written) → its signature's result head
	results map[string]string
	// fields: a field name → its translation, for x.f with x a variable
	fields   map[string]string
	varTypes map[string]string // section variables' types (resultHead)
	varElems map[string]string // section variables' element types (elemHead)
	varHeads map[string]string // section variables' type heads (typeHead)
	atoms    []string          // multi-token atoms, longest first (twinAtoms if nil)
	failSyms map[string]bool   // symbols that cannot be translated (symbolMap)
	// types: a name bound in the text → its type's head when the binder
	// writes it as one identifier ((a b : α))
	types map[string]string
	// elems: a name bound in the text → X when its type is `C X` (Set α)
	elems map[string]string
	// heads: a name bound in the text → its type's head constant as written
	// (Finset for s : Finset ι), for its fields
	heads map[string]string
	dict  twinDict
	// constResult: a constant's signature's result head (sigResult), ""
	// when it is not a row
	constResult func(full string) string
	syms        map[string]string
	locals      map[string]bool // bound names (binders, ∀, fun, big operators)
	match       []int           // matching bracket of each bracket token, -1
	fail        string          // why the text cannot be translated ("": it can)
	pow         bool            // ^ translates (HPow.hPow → HSMul.hSMul)
	inv         bool            // ⁻¹ translates (Inv.inv → Neg.neg)
	one         bool            // 1 translates (One.one → Zero.zero)
}

var openers = map[string]string{"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄"}

// translate returns x.text translated; ok false when some part cannot be
// translated exactly (the text is then returned unchanged, x.fail says
// why).
func (x *twinText) translate() (string, bool) {
	text := x.text
	if x.atoms == nil {
		x.atoms = twinAtoms
	}
	x.toks = twinTokens(text, x.atoms)
	if x.toks == nil && strings.TrimSpace(text) != "" {
		x.bad("lex")
		return text, false
	}
	x.match = make([]int, len(x.toks))
	var stack []int
	for i, t := range x.toks {
		x.match[i] = -1
		if t.kind != TokSymbol {
			continue
		}
		if _, ok := openers[t.text]; ok {
			stack = append(stack, i)
			continue
		}
		for _, c := range openers {
			if t.text == c {
				if len(stack) == 0 || openers[x.toks[stack[len(stack)-1]].text] != c {
					x.bad("brackets")
					return text, false
				}
				o := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				x.match[o], x.match[i] = i, o
			}
		}
	}
	if len(stack) > 0 {
		x.bad("brackets")
		return text, false
	}
	x.bindLocals()
	var b strings.Builder
	if len(x.toks) > 0 {
		b.WriteString(text[:x.toks[0].start])
	}
	b.WriteString(x.render(0, len(x.toks)))
	if len(x.toks) > 0 {
		b.WriteString(text[x.toks[len(x.toks)-1].end:])
	}
	if x.fail != "" {
		return text, false
	}
	return b.String(), true
}

// bad marks the text untranslatable, for the first reason found.
func (x *twinText) bad(reason string) {
	if x.fail == "" {
		x.fail = reason
	}
}

// bindLocals collects the names bound in the text: binder groups' names
// (before the colon of ( { [ ⦃), and the names after ∀ ∃ fun λ and the big
// operators up to the comma or arrow.
func (x *twinText) bindLocals() {
	x.locals, x.types, x.elems, x.heads = map[string]bool{}, map[string]string{}, map[string]string{}, map[string]string{}
	for v, h := range x.varHeads {
		x.heads[v] = h
	}
	for v, ty := range x.varTypes {
		x.types[v] = ty
	}
	for v, el := range x.varElems {
		x.elems[v] = el
	}
	// the signature's own colon: binder groups before it at the top level
	// are binders, (e : T) after it an ascription unless a binder keyword,
	// another binder or a dependent arrow goes with it
	top, depth := len(x.toks), 0
	for i, t := range x.toks {
		if x.match[i] > i {
			depth++
		} else if x.match[i] >= 0 {
			depth--
		}
		if depth == 0 && t.text == ":" {
			top = i
			break
		}
	}
	binder := make([]bool, len(x.toks))
	depth = 0
	for i, t := range x.toks {
		if x.match[i] >= 0 && x.match[i] < i {
			depth--
		}
		if x.match[i] > i {
			prev, next := "", ""
			if i > 0 {
				prev = x.toks[i-1].text
			}
			if e := x.match[i] + 1; e < len(x.toks) {
				next = x.toks[e].text
			}
			binder[i] = depth == 0 && i < top || binderKeyword[prev] || next == "→" ||
				i > 0 && x.match[i-1] >= 0 && x.match[i-1] < i-1 && binder[x.match[i-1]]
			depth++
		}
		_ = t
	}
	for i, t := range x.toks {
		if t.kind == TokSymbol && x.match[i] > i && t.text != "⟨" && binder[i] {
			// (a b : α): the names before the colon
			j := i + 1
			for j < x.match[i] && x.toks[j].kind == TokIdent {
				j++
			}
			if j > i+1 && j < x.match[i] && x.toks[j].text == ":" {
				var tt []string
				for k := j + 1; k < x.match[i]; k++ {
					tt = append(tt, x.toks[k].text)
				}
				ty, el, hd := resultHead(tt), elemHead(tt), typeHead(tt)
				for k := i + 1; k < j; k++ {
					x.locals[x.toks[k].text] = true
					x.types[x.toks[k].text] = ty
					x.elems[x.toks[k].text] = el
					x.heads[x.toks[k].text] = hd
				}
			}
		}
		switch t.text {
		case "∀", "∃", "∃!", "fun", "λ", "∏", "∑", "∏ᶠ", "∑ᶠ", "∏'", "∑'", "⋃", "⋂", "⨆", "⨅":
			for j := i + 1; j < len(x.toks); j++ {
				u := x.toks[j]
				if u.text == "," || u.text == "=>" || u.text == "↦" || u.text == ":" || u.text == "∈" {
					break
				}
				if u.kind == TokIdent {
					x.locals[u.text] = true
				}
			}
		}
	}
}

// binderKeyword are the tokens binder groups follow (∀ (x : α), …).
var binderKeyword = map[string]bool{"∀": true, "∃": true, "∃!": true, "fun": true, "λ": true, "Π": true,
	"Σ": true, "Σ'": true, "⋃": true, "⋂": true, "⨆": true, "⨅": true, "∏": true, "∑": true, "∏ᶠ": true,
	"∑ᶠ": true, "∏'": true, "∑'": true}

// atomEnd reports whether token i ends an argument-like term (so that what
// follows it is applied to it).
func (x *twinText) endsTerm(i int) bool {
	if i < 0 {
		return false
	}
	t := x.toks[i]
	switch t.kind {
	case TokIdent:
		switch t.text {
		case "fun", "λ", "at", "with", "then", "else", "if", "in", "by":
			return false
		}
		return true
	case TokNumber, TokString, TokChar:
		return true
	}
	if x.match[i] >= 0 && x.match[i] < i {
		return true
	}
	return t.text == "⁻¹" || t.text == "|ₘ" || t.text == "|"
}

// atomStart returns where the single argument ending at token i starts
// (a bracket group, an identifier, a number, with a ↑ before it), -1 if
// none.
func (x *twinText) atomStart(i int) int {
	if i < 0 {
		return -1
	}
	t := x.toks[i]
	s := -1
	switch {
	case t.kind == TokIdent && x.endsTerm(i), t.kind == TokNumber:
		s = i
	case x.match[i] >= 0 && x.match[i] < i:
		s = x.match[i]
	default:
		return -1
	}
	for s >= 2 && x.isProj(s-1) {
		// x.1, (f x).2: a projection continues the atom before it
		p := x.atomStart(s - 2)
		if p < 0 {
			break
		}
		s = p
	}
	if s > 0 && x.toks[s-1].text == "↑" {
		s--
	}
	return s
}

// isProj reports whether token j is the dot of a projection written
// without spaces (x.1, (f x).snd: the lexer reads x . 1).
func (x *twinText) isProj(j int) bool {
	return j > 0 && j+1 < len(x.toks) && x.toks[j].text == "." && x.toks[j-1].end == x.toks[j].start &&
		x.toks[j].end == x.toks[j+1].start && (x.toks[j+1].kind == TokNumber || x.toks[j+1].kind == TokIdent)
}

// runStart returns the start of the application run ending at token i:
// arguments applied one after another (f x y, g (a b)⁻¹).
func (x *twinText) runStart(i int) int {
	s := -1
	for i >= 0 {
		if x.toks[i].text == "⁻¹" {
			i--
			continue
		}
		a := x.atomStart(i)
		if a < 0 {
			break
		}
		s = a
		i = a - 1
	}
	return s
}

// runEnd returns the end (exclusive) of the application run starting at
// token i.
func (x *twinText) runEnd(i int) int {
	e := i
	for e < len(x.toks) {
		t := x.toks[e]
		switch {
		case t.text == "↑" || t.text == "⁻¹":
			e++
		case e > i && x.isProj(e):
			e += 2
		case t.kind == TokIdent && x.endsTerm(e), t.kind == TokNumber:
			e++
		case x.match[e] > e:
			e = x.match[e] + 1
		default:
			return e
		}
	}
	return e
}

// render translates tokens [lo, hi) with the whitespace between them.
func (x *twinText) render(lo, hi int) string {
	var b strings.Builder
	// the left operands of ^ in [lo, hi): start → the ^ token
	powAt := map[int]int{}
	if x.pow {
		for i := lo; i < hi; i++ {
			if x.match[i] > i {
				i = x.match[i]
				continue
			}
			if x.toks[i].text != "^" || x.iterate(i) {
				continue
			}
			s := x.runStart(i - 1)
			if s >= lo && (x.numeric(s) || x.toks[s].kind == TokNumber && s == i-1 ||
				s == i-1 && numberTypes[x.types[x.toks[s].text]]) {
				continue // t.card ^ 2, 2 ^ n: a power of numbers
			}
			if s < lo || s > 0 && x.toks[s-1].text == "-" || s > 0 && x.toks[s-1].text == "^" {
				x.bad("pow")
				return ""
			}
			powAt[s] = i
		}
	}
	for i := lo; i < hi; {
		if i > lo {
			b.WriteString(x.text[x.toks[i-1].end:x.toks[i].start])
		}
		if p, ok := powAt[i]; ok {
			e := x.runEnd(p + 1)
			if e == p+1 || e > hi || e < len(x.toks) && x.toks[e].text == "^" {
				x.bad("pow")
				return ""
			}
			b.WriteString(x.renderExp(p+1, e))
			b.WriteString(" • ")
			b.WriteString(x.render(i, p))
			i = e
			continue
		}
		if x.inv {
			// an operand followed by ⁻¹: -operand
			if e := x.invEnd(i); e > 0 && e <= hi {
				paren := x.endsTerm(i-1) || e < len(x.toks) && (x.atomStart(e) == e ||
					x.toks[e].text == "." && x.toks[e].start == x.toks[e-1].end) // (-s).Nonempty
				op := x.render(i, e-1)
				if m := x.match[i]; m == e-2 && m > i+1 && x.runEnd(i+1) == m && x.toks[i].text == "(" {
					op = x.render(i+1, m) // (f x)⁻¹ is -f x
				}
				if paren {
					b.WriteString("(-" + op + ")")
				} else {
					b.WriteString("-" + op)
				}
				i = e
				continue
			}
		}
		if x.match[i] > i {
			b.WriteString(x.toks[i].text)
			inner := x.render(i+1, x.match[i])
			if x.match[i] > i+1 {
				b.WriteString(x.text[x.toks[i].end:x.toks[i+1].start])
				b.WriteString(inner)
				b.WriteString(x.text[x.toks[x.match[i]-1].end:x.toks[x.match[i]].start])
			}
			b.WriteString(x.toks[x.match[i]].text)
			i = x.match[i] + 1
			continue
		}
		b.WriteString(x.token(i))
		i++
	}
	return b.String()
}

// fixedOperand reports whether the operator at i has an operand of a
// fixed type: a variable whose type is a number type (C : ℝ≥0) or a norm
// ‖x‖ (to_additive translates only the translated type's operations).
func (x *twinText) fixedOperand(i int) bool {
	fixed := func(j int) bool {
		if j < 0 || j >= len(x.toks) {
			return false
		}
		t := x.toks[j]
		return t.text == "‖" || t.text == "‖₊" || t.kind == TokIdent && numberTypes[x.types[t.text]]
	}
	left := fixed(i-1) && x.toks[i-1].text != "‖" && x.runStart(i-1) == i-1 && (i < 2 || x.toks[i-2].text != "^")
	if left || x.toks[i-1].text == "‖" || fixed(i+1) {
		return true
	}
	if s := x.runStart(i - 1); s >= 0 {
		if s >= 2 && x.toks[s-1].text == "^" {
			// K ^ 3 * #A: the power's base decides
			if b := x.runStart(s - 2); b >= 0 && (x.numeric(b) || b == s-2 && fixed(b)) {
				return true
			}
		} else if x.numeric(s) {
			return true
		}
	}
	return x.numeric(i + 1)
}

// numeric reports whether the term headed by token h is a number: a
// constant, or a field of a variable, whose result is a number type
// (H.index * Nat.card H: ℕ).
func (x *twinText) numeric(h int) bool {
	if h < 0 || h >= len(x.toks) || x.toks[h].kind != TokIdent {
		return false
	}
	w := x.toks[h].text
	if r, ok := x.results[w]; ok {
		return numberTypes[r]
	}
	if parts := strings.SplitN(w, ".", 2); len(parts) == 2 && x.heads[parts[0]] != "" && x.constResult != nil {
		return numberTypes[x.constResult(x.heads[parts[0]]+"."+parts[1])]
	}
	return false
}

// midPrec are operators whose precedence lies between + - (65) and * /
// (70): a * b ⊔ c is (a * b) ⊔ c, a + b ⊔ c is a + (b ⊔ c).
var midPrec = map[string]bool{"⊔": true, "⊓": true, "∩": true, "∪": true, "\\": true, "∆": true, "⊻": true}

// looserNeighbour reports whether the operand chain of the operator at i
// (up to a bracket, a comma or a relation) has an operator of midPrec,
// whose grouping with + - differs from its grouping with * /.
func (x *twinText) looserNeighbour(i int) bool {
	stop := func(s string) bool {
		switch s {
		case ",", ":", "=", "≠", "≤", "<", "≥", ">", "↔", "→", "∧", "∨", "∈", "∉", "⊆", "=>", "↦":
			return true
		}
		return false
	}
	for _, step := range []int{-1, 1} {
		for j := i + step; j >= 0 && j < len(x.toks); j += step {
			m := x.match[j]
			if m >= 0 {
				if (step < 0) != (m < j) {
					break // left the group
				}
				j = m
				continue
			}
			if stop(x.toks[j].text) {
				break
			}
			if midPrec[x.toks[j].text] {
				return true
			}
		}
	}
	return false
}

// hasSym reports whether the text has one of the symbols.
func (x *twinText) hasSym(syms ...string) bool {
	for _, t := range x.toks {
		if t.kind == TokSymbol && slices.Contains(syms, t.text) {
			return true
		}
	}
	return false
}

// iterate reports whether the ^ at i is f^[n] (Nat.iterate), not a power.
func (x *twinText) iterate(i int) bool {
	return i+1 < len(x.toks) && x.toks[i+1].text == "[" && x.toks[i+1].start == x.toks[i].end
}

// renderExp renders an exponent: its numerals are natural numbers (HPow's
// exponent type is not translated), the rest as usual.
func (x *twinText) renderExp(lo, hi int) string {
	one := x.one
	x.one = false
	s := x.render(lo, hi)
	x.one = one
	return s
}

// invEnd returns, when the atom starting at i is followed by ⁻¹, the end
// of the ⁻¹ token (exclusive), else -1.
func (x *twinText) invEnd(i int) int {
	e := i
	if x.toks[e].text == "↑" {
		return -1
	}
	switch {
	case x.match[e] > e:
		e = x.match[e] + 1
	case x.toks[e].kind == TokIdent && x.endsTerm(e), x.toks[e].kind == TokNumber:
		e++
	default:
		return -1
	}
	for x.isProj(e) {
		e += 2 // x.1⁻¹
	}
	if e < len(x.toks) && x.toks[e].text == "⁻¹" {
		if e+1 < len(x.toks) && (x.toks[e+1].text == "⁻¹" || x.toks[e+1].text == "]" && x.toks[e+1].start == x.toks[e].end) {
			x.bad("inv") // a⁻¹⁻¹; R[S⁻¹] (OreLocalization's notation)
		}
		if i > 0 && x.toks[i-1].text == "↑" {
			x.bad("inv")
		}
		return e + 1
	}
	return -1
}

// token translates one token.
func (x *twinText) token(i int) string {
	t := x.toks[i]
	switch t.kind {
	case TokIdent:
		if x.locals[t.text] {
			return t.text
		}
		if to, ok := x.ids[t.text]; ok {
			return to
		}
		if to, ok := x.field(i); ok {
			return to
		}
		if to, ok := x.syms[t.text+"["]; ok && i+1 < len(x.toks) && x.toks[i+1].text == "[" &&
			x.toks[i+1].start == t.end && strings.HasSuffix(to, "[") {
			return strings.TrimSuffix(to, "[") // Eₘ[s, t] → E[s, t] (the lexer reads Eₘ [)
		}
		if !x.consts[t.text] {
			for a := range x.failSyms {
				if len(t.text) > len(a) && strings.HasSuffix(t.text, a) && !isASCIIAlpha(rune(a[0])) {
					x.bad("notation") // Mˣ: the lexer reads a letter-like atom with its operand
				}
			}
		}
	case TokSymbol:
		if t.text == "⁻¹" && x.inv {
			x.bad("inv") // an operand invEnd did not take
			return t.text
		}
		if x.failSyms[t.text] {
			x.bad("notation")
		}
		if t.text == "*" && i > 0 && x.toks[i-1].end == t.start && (x.toks[i-1].text == "Type" || x.toks[i-1].text == "Sort") {
			return t.text // Type*
		}
		if (t.text == "*" || t.text == "/") && x.fixedOperand(i) {
			return t.text // C * ‖x‖: a product of real numbers
		}
		if to, ok := x.syms[t.text]; ok {
			if (t.text == "*" || t.text == "/") && x.looserNeighbour(i) {
				x.bad("precedence")
			}
			if t.text == "•" && x.hasSym("*", "/") {
				// r • x * y is (r • x) * y, r +ᵥ x + y is r +ᵥ (x + y):
				// the precedences differ (73 vs 65)
				x.bad("smul")
			}
			return to
		}
	case TokNumber:
		if i > 0 && x.isProj(i-1) {
			return t.text // x.1: a projection
		}
		if t.text == "1" && x.one {
			switch x.oneContext(i) {
			case oneTranslated:
				return "0"
			case oneUnknown:
				x.bad("one")
			}
		}
	}
	return t.text
}

const (
	oneKept = iota
	oneTranslated
	oneUnknown
)

// oneContext tells whether the numeral 1 at token i is the translated
// type's One.one (to_additive writes 0) or a fixed type's (ℕ: exponents,
// n + 1, Fin (n + 1)):
//   - next to a translated operator (*, /, ⁻¹, as ^'s base): translated;
//   - next to + or - (written additive: a fixed type): kept;
//   - ascribed, (1 : T): translated when T is a bound name (a type
//     variable), kept when T is a constant (ℕ);
//   - a side of = ≠ ≤ < ≥ >: translated when the other side's application
//     run has a translated token or is headed by a bound name;
//
// anything else is unknown (the text is kept).
func (x *twinText) oneContext(i int) int {
	prev, next := "", ""
	if i > 0 {
		prev = x.toks[i-1].text
	}
	if i+1 < len(x.toks) {
		next = x.toks[i+1].text
	}
	mulOp := func(s string) bool { return s == "*" || s == "/" }
	arg := x.endsTerm(i - 1) // f 1 * x: 1 is f's argument, not an operand
	switch {
	case arg && (mulOp(next) || next == "^" || next == "+" || next == "-"):
		return oneUnknown
	case mulOp(prev), mulOp(next), next == "⁻¹", next == "^":
		return oneTranslated
	case prev == "+" || prev == "-" || next == "+" || next == "-":
		return oneKept
	}
	switch {
	case prev == "(" && next == ":":
		if i+2 < len(x.toks) && x.toks[i+2].kind == TokIdent && x.match[i-1] == i+3 {
			return x.typeVar(x.toks[i+2].text)
		}
		// (1 : Set α): a type applied to type variables
		if e := x.match[i-1]; e > i+3 && !numberTypes[x.toks[i+2].text] {
			for j := i + 2; j < e; j++ {
				if x.toks[j].kind != TokIdent {
					return oneUnknown
				}
			}
			if x.typeVar(x.toks[e-1].text) == oneTranslated {
				return oneTranslated
			}
		}
		return oneUnknown
	case next == "∈" || next == "∉":
		// 1 ∈ s, s : Set α
		if i+2 < len(x.toks) && x.toks[i+2].kind == TokIdent && x.runEnd(i+2) == i+3 {
			if el := x.elems[x.toks[i+2].text]; el != "" {
				return x.typeVar(el)
			}
		}
		return oneUnknown
	}
	rel := func(s string) bool {
		switch s {
		case "=", "≠", "≤", "<", "≥", ">":
			return true
		}
		return false
	}
	var lo, hi int
	switch {
	case prev == "else" || prev == "then":
		// if c then a else 1: the other branch's type
		other := "then"
		if prev == "then" {
			other = "else"
		}
		j := x.sameLevel(i-1, other)
		if j < 0 {
			return oneUnknown
		}
		if prev == "else" {
			lo, hi = j+1, i-1
		} else {
			lo = j + 1
			hi = max(x.runEnd(lo), lo+1)
		}
	case rel(next) && (prev == "" || prev == "," || prev == ":" || prev == "(" || prev == "↔" || prev == "∧" || prev == "∨" || prev == "→"):
		lo = i + 2
		hi = x.runEnd(lo)
		if _, ok := x.syms[x.at(lo)]; ok && hi == lo {
			hi = lo + 1 // 1 ≤ ∏ᶠ i, f i
		}
	case rel(prev) && i >= 2:
		hi = i - 1
		lo = x.runStart(hi - 1)
		if lo < 0 {
			return oneUnknown
		}
		if lo > 0 && x.toks[lo-1].text == "," {
			// the body of a big operator: (∏ x ∈ s, f x) = 1
			for j := lo - 2; j >= 0; j-- {
				if x.match[j] >= 0 && x.match[j] < j {
					j = x.match[j]
					continue
				}
				if x.match[j] > j {
					break
				}
				if _, ok := x.syms[x.toks[j].text]; ok && x.bigOp(x.toks[j].text) {
					return oneTranslated
				}
			}
		}
		// the other side ends an application run: it may be an operand of an
		// operator (a * b = 1): take the whole side back to a boundary
		for lo > 0 && x.sideOp(x.toks[lo-1].text) {
			if s := x.runStart(lo - 2); s >= 0 {
				lo = s
			} else {
				break
			}
		}
	default:
		return oneUnknown
	}
	if hi <= lo {
		return oneUnknown
	}
	if x.toks[lo].text == "(" && x.match[lo] == hi-1 && hi-lo >= 5 && x.toks[hi-3].text == ":" && x.toks[hi-2].kind == TokIdent {
		return x.typeVar(x.toks[hi-2].text) // (e : T)
	}
	for x.toks[lo].text == "(" && x.match[lo] == hi-1 && hi-lo > 2 {
		lo, hi = lo+1, hi-1 // (∏ x ∈ s, f x) = 1
	}
	// the side's own operators (not its arguments': norm (a * b) is ℕ)
	for j := lo; j < hi; j++ {
		t := x.toks[j]
		if x.match[j] > j {
			j = x.match[j]
			continue
		}
		if _, ok := x.syms[t.text]; ok && t.kind == TokSymbol {
			return oneTranslated
		}
		if t.text == "⁻¹" || t.text == "^" {
			return oneTranslated
		}
	}
	h := x.toks[lo]
	if h.kind != TokIdent {
		return oneUnknown
	}
	if x.consts[h.text] {
		// a constant applied: its result type (orderOf x : ℕ, mulIndicator
		// s f a : M)
		if r := x.results[h.text]; r != "" {
			return x.typeVar(r)
		}
		return oneUnknown
	}
	// a variable, or one applied (f x: its type's result)
	if ty, ok := x.types[h.text]; ok && ty != "" {
		return x.typeVar(ty)
	}
	return oneUnknown
}

// sigResult is the result type's head of a signature text (resultHead of
// what follows its top-level colon), "" if none.
func sigResult(sig string) string {
	ts := lexSeq(sig).text
	if i := topToken(ts, ":"); i >= 0 {
		return resultHead(ts[i+1:])
	}
	return ""
}

// field translates an identifier x.f (x a variable: not a constant) or
// .f after a closing bracket ((l.map f).prod): field notation, whose
// constant Lean translates; f is translated when every constant of the
// dictionary whose last component is f translates it alike (prod → sum for
// List.prod, Multiset.prod, Finset.prod).
func (x *twinText) field(i int) (string, bool) {
	t := x.toks[i]
	if t.kind != TokIdent || x.fields == nil {
		return "", false
	}
	if i >= 2 && x.toks[i-1].text == "." && x.toks[i-1].start == x.toks[i-2].end && x.toks[i-1].end == t.start &&
		x.match[i-2] >= 0 && x.match[i-2] < i-2 {
		return x.fieldName(t.text)
	}
	parts := strings.Split(t.text, ".")
	if len(parts) < 2 || x.consts[t.text] || x.consts[parts[0]] {
		return "", false
	}
	if !x.locals[parts[0]] {
		if _, ok := x.types[parts[0]]; !ok {
			return "", false
		}
	}
	changed := false
	for k := 1; k < len(parts); k++ {
		if k == 1 {
			// s.prod for s : Finset ι: the constant Finset.prod's translation
			if h := x.heads[parts[0]]; h != "" {
				if tw, ok := x.dict[h+"."+parts[1]]; ok {
					if to := lastComponent(tw); to != parts[1] {
						parts[1], changed = to, true
					}
					continue
				}
			}
		}
		if to, ok := x.fieldName(parts[k]); ok {
			parts[k], changed = to, true
		}
	}
	return strings.Join(parts, "."), changed
}

// fieldName translates a field name (fields); an ambiguous one fails the
// text.
func (x *twinText) fieldName(f string) (string, bool) {
	to, ok := x.fields[f]
	if ok && to == "" {
		x.bad("field")
		return f, false
	}
	return to, ok
}

// resultHead is the head a type's values have, as written: the type
// itself when it is one identifier (α), the codomain when it is a
// function or bundled map ending in one (ι → M, G →* M); "" otherwise.
func resultHead(ty []string) string {
	depth, last := 0, -1
	for i, s := range ty {
		switch s {
		case "(", "[", "{", "⟨":
			depth++
		case ")", "]", "}", "⟩":
			depth--
		}
		if depth == 0 && (strings.HasPrefix(s, "→") || strings.HasPrefix(s, "≃")) {
			last = i
		}
	}
	rest := ty[last+1:]
	if len(rest) == 1 {
		return rest[0]
	}
	return ""
}

// elemHead is X for a type written `C X` (Set α, Finset M): the type of
// the elements 1 ∈ s compares; "" otherwise.
func elemHead(ty []string) string {
	if len(ty) == 2 {
		return ty[1]
	}
	return ""
}

// typeHead is the head of a type written `C a b` (C an identifier), ""
// otherwise (a function type, a bracket).
func typeHead(ty []string) string {
	if len(ty) == 0 || strings.ContainsAny(ty[0], "()[]{}⟨⟩") {
		return ""
	}
	letter := func(s string) bool {
		r, _ := utf8.DecodeRuneInString(s)
		return isLetterLike(r) || unicode.IsLetter(r)
	}
	// C a (b c): arguments only, no operator at the top level (X ≅ Y)
	depth := 0
	for _, s := range ty {
		switch {
		case strings.ContainsAny(s, "([{⟨"):
			depth++
		case strings.ContainsAny(s, ")]}⟩"):
			depth--
		case depth == 0 && !letter(s):
			return ""
		}
	}
	if !letter(ty[0]) {
		return ""
	}
	return ty[0]
}

// numberTypes are constants Mathlib writes as notation that a section
// variable's type may be (its signature text then does not resolve them).
var numberTypes = map[string]bool{"ℕ": true, "ℤ": true, "ℚ": true, "ℝ": true, "ℂ": true, "ℕ+": true, "ℝ≥0": true,
	"ℝ≥0∞": true, "Nat": true, "Int": true, "Prop": true}

// at is token i's text, "" past the end.
func (x *twinText) at(i int) string {
	if i < 0 || i >= len(x.toks) {
		return ""
	}
	return x.toks[i].text
}

// sameLevel finds the token s from i (then: backward, else: forward) at
// i's bracket level, -1 if none.
func (x *twinText) sameLevel(i int, s string) int {
	step := 1
	if s == "then" {
		step = -1
	}
	for j := i + step; j >= 0 && j < len(x.toks); j += step {
		m := x.match[j]
		switch {
		case m >= 0 && (step < 0) == (m < j):
			j = m // skip a bracket group
		case m >= 0:
			return -1 // left the group
		case x.toks[j].text == s:
			return j
		}
	}
	return -1
}

// typeVar tells whether 1 : ty is translated: ty a type variable (not a
// constant: α, M), or kept: a constant (ℕ, ℤ).
func (x *twinText) typeVar(ty string) int {
	if x.consts[ty] || numberTypes[ty] {
		return oneKept
	}
	if x.locals[ty] || isAutoBound(ty) {
		return oneTranslated
	}
	if _, ok := x.varTypes[ty]; ok {
		return oneTranslated // a section variable (M : Type*)
	}
	return oneUnknown
}

// bigOp reports whether s opens a big operator (∏ x ∈ s, b).
func (x *twinText) bigOp(s string) bool {
	for _, n := range twinNotations {
		if strings.HasPrefix(n[0], s+" x ") {
			return true
		}
	}
	return false
}

// sideOp reports whether s is an operator that binds tighter than the
// relations (its operands belong to the relation's side).
func (x *twinText) sideOp(s string) bool {
	switch s {
	case "*", "/", "+", "-", "•", "^", "∘":
		return true
	}
	_, ok := x.syms[s]
	return ok
}

// writtenTwin is the translation of an identifier written w that resolves
// to full, whose twin is tw: as many trailing components of tw as w has
// (the source's qualification).
func writtenTwin(w, full, tw string) string {
	if strings.HasPrefix(w, "_root_.") {
		return "_root_." + tw
	}
	k := strings.Count(w, ".") + 1
	parts := strings.Split(tw, ".")
	if k >= len(parts) {
		return tw
	}
	_ = full
	return strings.Join(parts[len(parts)-k:], ".")
}

// twinDicts returns, per attribute, the translation dictionary twins'
// texts are translated with: the sources' twins (written and from
// attribute commands, as statement dependencies are translated), the
// namespace translations (`attribute [to_additive existing] MulLeftMono`),
// and translations of constants the sources do not declare (core Lean's
// `attribute [to_additive existing] Inv Mul HMul …` in
// Mathlib/Tactic/ToAdditive.lean), named as the attribute names them, with
// the fields of such a structure (HMul.hMul → HAdd.hAdd: Lean translates a
// structure's projections with it).
func twinDicts(t *Table, files []*fileResult, naming *Naming) map[string]twinDict {
	out := map[string]twinDict{"to_additive": {}, "to_dual": {}}
	core := map[string]twinDict{"to_additive": {}, "to_dual": {}}
	for _, fr := range files {
		for _, ac := range fr.attrCmds {
			if out[ac.attr] == nil {
				continue
			}
			for _, n := range ac.names {
				full := strings.TrimPrefix(n, "_root_.")
				if t.sourceDecl(ac.ctx, n) {
					continue
				}
				explicit := ac.name
				if len(ac.names) > 1 {
					explicit = ""
				}
				if tw := naming.twinName(ac.attr, explicit, full); tw != full && tw != "" {
					core[ac.attr][full] = tw
				}
			}
		}
	}
	if t.twins != nil {
		for attr, m := range t.twins.tr {
			for src, tw := range m {
				if t.names[src] != nil && t.names[tw] != nil && out[attr] != nil {
					out[attr][src] = tw
				}
			}
		}
	}
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.twinOf != nil && d.sigAttr != "" {
				out[d.sigAttr][d.twinOf.row.Name] = d.row.Name
			}
		}
	}
	for attr, m := range core {
		guess := naming.GuessAdditive
		if attr == "to_dual" {
			guess = naming.GuessDual
		}
		for src, tw := range m {
			if _, ok := out[attr][src]; !ok {
				out[attr][src] = tw
			}
		}
		// the fields of a core structure with a translation
		for _, c := range append([]string{"One.one", "Inv.inv", "HPow.hPow"}, twinNotationConsts()...) {
			if _, ok := out[attr][c]; ok {
				continue
			}
			if s, ok := m[parentNs(c)]; ok {
				out[attr][c] = s + "." + guess(lastComponent(c))
			}
		}
	}
	// a structure's constructor and fields translate with it (Lean's
	// translation of a structure: MulEquiv.mk → AddEquiv.mk)
	for attr, m := range out {
		guess := naming.GuessAdditive
		if attr == "to_dual" {
			guess = naming.GuessDual
		}
		for c, e := range t.names {
			if e.kind != "constructor" && e.kind != "projection" {
				continue
			}
			if _, ok := m[c]; ok {
				continue
			}
			if s, ok := m[parentNs(c)]; ok {
				if tw := s + "." + guess(lastComponent(c)); t.names[tw] != nil {
					m[c] = tw
				}
			}
		}
	}
	return out
}

// sourceDecl reports whether n, written in ctx's namespace, names a
// declaration of the sources (or may: a name written relative to a
// namespace that one of the sources declares).
func (t *Table) sourceDecl(ctx *scopeCtx, n string) bool {
	isDecl := func(c string) bool { e := t.names[c]; return e != nil && e.decl != nil }
	if full, ok := strings.CutPrefix(n, "_root_."); ok {
		return isDecl(full)
	}
	ns := ""
	if ctx != nil {
		ns = ctx.ns
	}
	for p := ns; ; p = parentNs(p) {
		if isDecl(joinNs(p, n)) {
			return true
		}
		if p == "" {
			return ns != ""
		}
	}
}

func twinNotationConsts() []string {
	var out []string
	for _, n := range twinNotations {
		out = append(out, n[1])
	}
	return out
}

// dualOrder are the symbols a to_dual translation rewrites by swapping
// operands or notations the token walk does not (a ≤ b → b ≤ a): a to_dual
// twin whose text has one is kept.
var dualOrder = map[string]bool{"≤": true, "<": true, "≥": true, ">": true, "⊔": true, "⊓": true, "⊤": true,
	"⊥": true, "⋃": true, "⋂": true, "⨆": true, "⨅": true}

// TwinSigStats counts twins' signature translation (Result.TwinSigs).
type TwinSigStats struct {
	Twins      int // twin rows
	Translated int // texts changed by the translation
	Unchanged  int // texts with nothing to translate
	Kept       int // texts left as the source's: some part could not be translated exactly
	// KeptBy counts the kept texts by the first reason found: dont_translate
	// (the attribute keeps a type's operations), dual_order (to_dual's
	// swapped orders), one (a 1 of unknown type), inv and pow (an operand
	// the token walk cannot delimit), notation (a translated constant's
	// notation the translation has none of: Mˣ), smul (• next to * or /:
	// the precedences of +ᵥ and • differ), field (x.f with f translated by
	// some constants and not others), brackets, lex.
	KeptBy map[string]int
}

func (st *TwinSigStats) keep(reason string) {
	st.Kept++
	if st.KeptBy == nil {
		st.KeptBy = map[string]int{}
	}
	st.KeptBy[reason]++
}

// translateTwinSigs writes each twin's signature as its attribute
// translates its source's (see twinText) with the dictionaries fixups
// translated their dependencies with (twinDicts).
func translateTwinSigs(t *Table, files []*fileResult, dicts map[string]twinDict) TwinSigStats {
	var st TwinSigStats
	syms := map[string]map[string]string{}
	fields := map[string]map[string]string{}
	fails := map[string]map[string]bool{}
	var table []tableNotation
	atoms := append([]string(nil), twinAtoms...)
	for _, defs := range t.notations {
		for _, nd := range defs {
			if nd.resolved == "" || len(nd.atoms) == 0 {
				continue
			}
			tn := tableNotation{kind: nd.kind, c: nd.resolved}
			if nd.pattern != nil {
				for _, it := range nd.pattern {
					if it.atom != "" {
						tn.atoms = append(tn.atoms, it.atom)
					} else {
						tn.atoms = append(tn.atoms, "x")
					}
				}
			} else {
				tn.atoms = nd.atoms
			}
			table = append(table, tn)
			for _, a := range nd.atoms {
				if len(twinTokens(a, nil)) > 1 && !strings.ContainsAny(a, "()[]{}⟨⟩⦃⦄") {
					atoms = append(atoms, a)
				}
			}
		}
	}
	slices.SortStableFunc(table, func(a, b tableNotation) int {
		return strings.Compare(a.c+" "+strings.Join(a.atoms, " "), b.c+" "+strings.Join(b.atoms, " "))
	})
	slices.SortStableFunc(atoms, func(a, b string) int { return len(b) - len(a) })
	others := map[string]bool{}
	{
		inDict := map[string]bool{}
		for _, d := range dicts {
			for src, tw := range d {
				inDict[src], inDict[tw] = true, true
			}
		}
		for n := range t.names {
			if !inDict[n] {
				others[lastComponent(n)] = true
			}
		}
	}
	for attr, d := range dicts {
		syms[attr], fails[attr] = d.symbolMap(table)
		fields[attr] = d.fieldMap()
		// a last component some constant outside the dictionary has too
		// (Iso.inv, not translated, beside Units.inv ↦ Units.neg) is ambiguous
		for f := range fields[attr] {
			if others[f] {
				fields[attr][f] = ""
			}
		}
	}
	sigResults := map[string]string{}
	constResult := func(full string) string {
		if r, ok := sigResults[full]; ok {
			return r
		}
		r := ""
		if e := t.names[full]; e != nil && e.decl != nil {
			r = sigResult(e.decl.row.Signature)
		}
		sigResults[full] = r
		return r
	}
	for _, fr := range files {
		for _, d := range fr.decls {
			if d.twinOf == nil || d.sigAttr == "" {
				continue
			}
			st.Twins++
			dict := dicts[d.sigAttr]
			ids, consts, results := map[string]string{}, map[string]bool{}, map[string]string{}
			for w, full := range d.twinOf.sigNames {
				consts[w] = true
				if e := t.names[full]; e != nil && e.decl != nil {
					if r, ok := sigResults[full]; ok {
						results[w] = r
					} else {
						results[w] = sigResult(e.decl.row.Signature)
						sigResults[full] = results[w]
					}
				}
				if tw, ok := dict[full]; ok {
					ids[w] = writtenTwin(w, full, tw)
				}
			}
			src := d.twinOf.row.Signature
			if d.dontTranslate {
				// (dont_translate := R): the operations of R stay, which the
				// text does not tell apart (MonoidAlgebra's r * y g)
				st.keep("dont_translate")
				continue
			}
			if d.sigAttr == "to_dual" {
				dual := false
				for _, tk := range twinTokens(src, atoms) {
					dual = dual || tk.kind == TokSymbol && dualOrder[tk.text]
				}
				if dual {
					st.keep("dual_order")
					continue
				}
			}
			_, inv := dict["Inv.inv"]
			_, pow := dict["HPow.hPow"]
			_, one := dict["One.one"]
			x := &twinText{text: src, ids: ids, consts: consts, results: results, constResult: constResult, syms: syms[d.sigAttr], inv: inv, pow: pow, one: one,
				fields: fields[d.sigAttr], varTypes: d.twinOf.varTypes, varElems: d.twinOf.varElems, varHeads: d.twinOf.varHeads, dict: dict, atoms: atoms, failSyms: fails[d.sigAttr]}
			out, ok := x.translate()
			switch {
			case !ok:
				st.keep(x.fail)
			case out == src:
				st.Unchanged++
			default:
				st.Translated++
				d.row.Signature = out
			}
		}
	}
	return st
}
