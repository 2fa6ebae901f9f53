package extract

import (
	"strings"
)

// This file is the small term parser the instance namer (instnames.go)
// reads an anonymous instance's binders and type with: applications,
// arrows, ∀/fun binders, sorts, literals, parentheses and ascriptions,
// anonymous constructors, subtypes, coercions (↥), and notation — the
// library's (notations.parquet's rows) and a few of core Lean's — expanded
// into the constants it stands for.

// tnode is a parsed term.
type tnode struct {
	// op: 'c' constant (name as written), 'v' local (name), 'a' application
	// (fn, args), 'p' ∀ (bname, dom, body), 'l' fun (body), 's' sort (name
	// Prop, Type or Sort), 'n' numeric literal, 'x' anything else, 'o' a
	// coercion to a type (↥ args[0]).
	op        byte
	name      string
	fn        *tnode
	args      []*tnode
	dom, body *tnode
	inst      bool   // a ∀ over an instance binder [C α]
	recv      string // a constant x.f: the local x whose type's namespace has f
	asc       *tnode // the type ascribed to it ((e : T)), if any
	res       bool   // a constant whose name is already resolved (a signature's)
	// recvTerm: a constant (e).f, generalized field notation on a term:
	// f in the namespace of e's type
	recvTerm *tnode
	// scope: a constant written in a notation's expansion, resolved where
	// the notation is declared
	scope *scopeCtx
	// parentProj: an application of a parent projection to the term it
	// projects (Lean's namer names the term: getParentProjArg)
	parentProj bool
	// bkind: a ∀'s binder bracket ("(", "{", "[", "⦃")
	bkind string
	// written: x.f.g as written, named as a constant by its last component
	// when (x.f).g cannot be resolved
	written string
}

// tokSeq is the text of a token range, kept after the file is parsed.
type tokSeq struct {
	text  []string
	kinds []TokKind
	space []bool // whitespace before the token
}

func (f *file) tokSeq(i, end int) tokSeq {
	// A header cut short by the end of the file (`instance(priority`
	// then EOF) can leave its signature's end before its start: an empty
	// signature, not a panic.
	end = max(end, i)
	s := tokSeq{text: make([]string, 0, end-i), kinds: make([]TokKind, 0, end-i), space: make([]bool, 0, end-i)}
	for j := i; j < end; j++ {
		s.text = append(s.text, f.text(j))
		s.kinds = append(s.kinds, f.toks[j].Kind)
		s.space = append(s.space, f.toks[j].Flags&FlagSpaceBefore != 0)
	}
	return s
}

// topToken is the index of the first token tok outside any bracket
// ((), [], {}, ⦃⦄, ⟨⟩) in ts, or -1: a signature's colon, a definition's :=.
func topToken(ts []string, tok string) int {
	depth := 0
	for i, t := range ts {
		switch t {
		case "(", "[", "{", "⦃", "⟨":
			depth++
		case ")", "]", "}", "⦄", "⟩":
			depth--
		}
		if depth == 0 && t == tok {
			return i
		}
	}
	return -1
}

func lexSeq(src string) tokSeq {
	toks, _ := Lex([]byte(src))
	s := tokSeq{}
	for _, t := range toks {
		if t.Kind == TokEOF {
			break
		}
		s.text = append(s.text, src[t.Start:t.End])
		s.kinds = append(s.kinds, t.Kind)
		s.space = append(s.space, t.Flags&FlagSpaceBefore != 0)
	}
	return s
}

// notn is a notation as the term parser uses it: its items (atoms and
// parameters, in order) and its expansion.
type notn struct {
	items     []notItem
	expansion tokSeq
	params    []string
	scopedNs  string
	localPath string // a local notation's file ("" for others)
	apply     bool   // infix/prefix/postfix: the expansion is applied to the parameters
	// ctx is where the notation is declared: its expansion's identifiers
	// are resolved there (Lean's notations are hygienic: `⥤` declared in
	// namespace CategoryTheory means CategoryTheory.Functor, also where
	// the root Functor is visible); nil for core notations
	ctx *scopeCtx
	// head: the first constant of the expansion, as written (resolved in
	// ctx)
	head string
	// scopedBody: notation3's `r:(scoped f => DFinsupp f)` parameters, the
	// term f stands in (its one parameter the scoped variable)
	scopedBody map[string]*notn
}

type notItem struct {
	atom  string // "" for a parameter
	param string
	// binders: notation3's `(...)`, binders up to the next atom, bound in
	// the parameters after it
	binders bool
	// scopedVar, scopedBody: notation3's `r:(scoped f => DFinsupp f)`: r
	// is the term after the binders, its value scopedBody with f := fun
	// binder => r, once per binder from the innermost out
	scopedVar, scopedBody string
}

// notationSet indexes notations by their first atom (leading) or by the
// atom after a leading parameter (trailing).
type notationSet struct {
	leading, trailing map[string][]*notn
}

func (s *notationSet) add(n *notn) {
	if len(n.items) == 0 {
		return
	}
	if n.items[0].atom != "" {
		s.leading[firstTok(n.items[0].atom)] = append(s.leading[firstTok(n.items[0].atom)], n)
	} else if len(n.items) > 1 && n.items[1].atom != "" {
		s.trailing[firstTok(n.items[1].atom)] = append(s.trailing[firstTok(n.items[1].atom)], n)
	}
}

func firstTok(atom string) string {
	s := lexSeq(atom)
	if len(s.text) == 0 {
		return atom
	}
	return s.text[0]
}

// coreNotations are core Lean's notations an instance type uses (the
// library's own table overrides them). Implicit type arguments that Lean's
// namer visits are written out (ℕ for arithmetic, _ where unknown).
var coreNotations = [][2]string{
	{"a × b", "Prod a b"}, {"a ⊕ b", "Sum a b"}, {"a ×' b", "PProd a b"}, {"a ⊕' b", "PSum a b"},
	{"a ∘ b", "Function.comp a b"}, {"a + b", "HAdd.hAdd ℕ ℕ ℕ a b"}, {"a * b", "HMul.hMul ℕ ℕ ℕ a b"},
	{"a - b", "HSub.hSub ℕ ℕ ℕ a b"}, {"a / b", "HDiv.hDiv ℕ ℕ ℕ a b"}, {"a % b", "HMod.hMod ℕ ℕ ℕ a b"},
	{"a ^ b", "HPow.hPow ℕ ℕ ℕ a b"}, {"a ∈ b", "Membership.mem _ _ b a"}, {"a = b", "Eq a b"},
	{"a ≠ b", "Ne a b"}, {"a ≤ b", "LE.le a b"}, {"a < b", "LT.lt a b"}, {"a ≥ b", "GE.ge a b"}, {"a > b", "GT.gt a b"},
	{"a ∧ b", "And a b"}, {"a ∨ b", "Or a b"}, {"a ↔ b", "Iff a b"}, {"a ∣ b", "Dvd.dvd a b"},
	{"a • b", "HSMul.hSMul a b"}, {"¬ a", "Not a"}, {"a ⁻¹", "Inv.inv a"},
	{"ℕ", "Nat"}, {"ℤ", "Int"}, {"ℚ", "Rat"}, {"ℝ", "Real"}, {"ℂ", "Complex"},
}

// parseNotationSpec turns "a × b" (parameters are lower-case words, atoms
// everything else) into items.
func parseNotationSpec(spec string) []notItem {
	var items []notItem
	for _, w := range strings.Fields(spec) {
		if len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' {
			items = append(items, notItem{param: w})
		} else {
			items = append(items, notItem{atom: w})
		}
	}
	return items
}

func newNotationSet() *notationSet {
	s := &notationSet{leading: map[string][]*notn{}, trailing: map[string][]*notn{}}
	for _, c := range coreNotations {
		items := parseNotationSpec(c[0])
		n := &notn{items: items, expansion: lexSeq(c[1])}
		for _, it := range items {
			if it.param != "" {
				n.params = append(n.params, it.param)
			}
		}
		s.add(n)
	}
	return s
}

// tparser parses a token sequence.
type tparser struct {
	s      tokSeq
	pos    int
	end    int
	locals map[string]bool
	nots   *notationSet
	visNs  func(ns string) bool // whether a scoped namespace is open
	path   string               // the file (local notations are seen there only)
	subst  map[string]*tnode    // notation parameters while expanding
	depth  int
	active map[*notn]bool // notations being expanded (never inside themselves)
	budget *int           // tokens left to parse (expansions included)
	// choose picks one of notations spelt alike as elaboration would (nil:
	// it cannot tell); nil keeps the later one
	choose func(alike []*notn) *notn
}

func (p *tparser) at(i int) string {
	if i < p.end {
		return p.s.text[i]
	}
	return ""
}

// matchAtom reports how many tokens from i spell atom (adjacent, no
// whitespace inside), or 0.
func (p *tparser) matchAtom(i int, atom string) int {
	rest := atom
	for k := i; k < p.end && rest != ""; k++ {
		if k > i && p.s.space[k] {
			return 0
		}
		t := p.s.text[k]
		if !strings.HasPrefix(rest, t) {
			return 0
		}
		rest = rest[len(t):]
		if rest == "" {
			return k - i + 1
		}
	}
	return 0
}

// pick returns the notation of cands that matches at i with the longest
// atom (at item ai), among visible ones. Notations spelt alike (`X →ₑ[φ] Y`
// for MulActionHom and for AddActionHom) both parse: Lean's parser makes a
// choice node and elaboration keeps the alternative that elaborates; the
// namer's choose decides where it can without elaborating, else the later
// one is kept.
func (p *tparser) pick(cands []*notn, i, ai int) (*notn, int) {
	var best *notn
	bestN := 0
	visible := func(n *notn) bool {
		return !(n.scopedNs != "" && p.visNs != nil && !p.visNs(n.scopedNs) || n.localPath != "" && n.localPath != p.path)
	}
	for _, n := range cands {
		if !visible(n) {
			continue
		}
		if k := p.matchAtom(i, n.items[ai].atom); k > 0 && len(n.items[ai].atom) >= lenAtom(best, ai) {
			best, bestN = n, k
		}
	}
	if best == nil || p.choose == nil {
		return best, bestN
	}
	var alike []*notn // best and the others spelt as it is
	for _, n := range cands {
		if visible(n) && n.items[ai].atom == best.items[ai].atom && sameItems(n, best) {
			alike = append(alike, n)
		}
	}
	if len(alike) > 1 {
		if c := p.choose(alike); c != nil {
			best = c
		}
	}
	return best, bestN
}

// sameItems tells whether two notations are spelt alike: the same atoms
// and parameters in the same places.
func sameItems(a, b *notn) bool {
	if len(a.items) != len(b.items) {
		return false
	}
	for i, x := range a.items {
		y := b.items[i]
		if x.atom != y.atom || (x.param == "") != (y.param == "") || x.binders != y.binders {
			return false
		}
	}
	return true
}

func lenAtom(n *notn, ai int) int {
	if n == nil {
		return 0
	}
	return len(n.items[ai].atom)
}

// stops end an argument list.
var stops = map[string]bool{")": true, "]": true, "}": true, "⟩": true, ",": true, ":": true, ":=": true,
	"=>": true, "↦": true, "|": true, "→": true, "where": true, "with": true, "//": true, "deriving": true}

// expr parses an arrow-level term.
func (p *tparser) expr() *tnode {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 200 {
		p.pos = p.end
		return &tnode{op: 'x'}
	}
	lhs := p.ops()
	if lhs == nil {
		return nil
	}
	if t := p.at(p.pos); t == "<|" || t == "$" {
		// f <| x: x is f's last argument
		p.pos++
		if rhs := p.expr(); rhs != nil {
			if lhs.op == 'a' {
				return &tnode{op: 'a', fn: lhs.fn, args: append(append([]*tnode(nil), lhs.args...), rhs)}
			}
			return &tnode{op: 'a', fn: lhs, args: []*tnode{rhs}}
		}
		return lhs
	}
	if p.at(p.pos) == "→" {
		p.pos++
		rhs := p.expr()
		if rhs == nil {
			rhs = &tnode{op: 'x'}
		}
		return &tnode{op: 'p', dom: lhs, body: rhs}
	}
	return lhs
}

// ops parses an application followed by trailing notations.
func (p *tparser) ops() *tnode {
	lhs := p.app()
	for lhs != nil && p.pos < p.end {
		n, k := p.pick(p.nots.trailing[p.at(p.pos)], p.pos, 1)
		if n == nil {
			break
		}
		p.pos += k
		args := map[string]*tnode{n.items[0].param: lhs}
		if !p.items(n, 2, args) {
			break
		}
		lhs = p.expand(n, args)
	}
	return lhs
}

// items parses a notation's items from index from on into args.
func (p *tparser) items(n *notn, from int, args map[string]*tnode) bool {
	var binders []string // notation3's (...), bound until the notation ends
	var saved map[string]bool
	defer func() {
		if binders != nil {
			p.unbind(binders, saved)
		}
	}()
	for ii := from; ii < len(n.items); ii++ {
		it := n.items[ii]
		if it.binders {
			// (...): binders up to the next atom (Π₀ i j, …; Π₀ (i : ι), …)
			sep := map[string]bool{}
			if ii+1 < len(n.items) && n.items[ii+1].atom != "" {
				sep[firstTok(n.items[ii+1].atom)] = true
			}
			binders = []string{}
			for _, b := range p.binderList(sep) {
				binders = append(binders, b.name)
			}
			saved = p.bind(binders)
			continue
		}
		if it.atom != "" {
			k := p.matchAtom(p.pos, it.atom)
			if k == 0 {
				return false
			}
			p.pos += k
			continue
		}
		var a *tnode
		if ii+1 < len(n.items) || n.scopedBody[it.param] != nil {
			a = p.expr() // up to the next atom; a binder's body as far as it goes
		} else {
			a = p.app()
		}
		if a == nil {
			a = &tnode{op: 'x'}
		}
		if body := n.scopedBody[it.param]; body != nil {
			// Π₀ i j, γ i j is DFinsupp fun i => DFinsupp fun j => γ i j
			for range max(len(binders), 1) {
				a = p.expand(body, map[string]*tnode{it.scopedVar: {op: 'l', body: a}})
			}
		}
		args[it.param] = a
	}
	return true
}

// expand parses a notation's expansion with its parameters bound to args.
func (p *tparser) expand(n *notn, args map[string]*tnode) *tnode {
	if p.active[n] || p.spend(len(n.expansion.text)) {
		return &tnode{op: 'x'}
	}
	active := map[*notn]bool{n: true}
	for m := range p.active {
		active[m] = true
	}
	sub := &tparser{s: n.expansion, end: len(n.expansion.text), locals: p.locals, nots: p.nots, visNs: p.visNs, path: p.path, subst: args,
		depth: p.depth + 10, active: active, budget: p.budget, choose: p.choose}
	e := sub.expr()
	if e == nil {
		return &tnode{op: 'x'}
	}
	if n.ctx != nil {
		e = scoped(e, n.ctx, args)
	}
	if n.apply {
		a := &tnode{op: 'a', fn: e}
		for _, pn := range n.params {
			if v := args[pn]; v != nil {
				a.args = append(a.args, v)
			}
		}
		return a
	}
	return e
}

// app parses a head and its arguments.
func (p *tparser) app() *tnode {
	fn := p.leading()
	if fn == nil {
		return nil
	}
	var args []*tnode
	for p.pos < p.end && !stops[p.at(p.pos)] {
		if n, k := p.pick(p.nots.trailing[p.at(p.pos)], p.pos, 1); n != nil {
			if len(n.items) != 2 || p.s.space[p.pos] {
				break
			}
			// a postfix notation (αᵐᵒᵖ) applies to the argument before it
			p.pos += k
			if len(args) == 0 {
				fn = p.expand(n, map[string]*tnode{n.items[0].param: fn})
			} else {
				args[len(args)-1] = p.expand(n, map[string]*tnode{n.items[0].param: args[len(args)-1]})
			}
			continue
		}
		a := p.leading()
		if a == nil {
			break
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		return fn
	}
	if fn.op == 'a' {
		return &tnode{op: 'a', fn: fn.fn, args: append(append([]*tnode(nil), fn.args...), args...)}
	}
	return &tnode{op: 'a', fn: fn, args: args}
}

// closeOf returns the index of the bracket closing the one at i.
func (p *tparser) closeOf(i int) int {
	depth := 0
	for k := i; k < p.end; k++ {
		switch p.s.text[k] {
		case "(", "[", "{", "⟨", "⦃", "`(":
			depth++
		case ")", "]", "}", "⟩", "⦄":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return p.end
}

// sub parses [i, j) on its own.
func (p *tparser) sub(i, j int) *tnode {
	if p.spend(j - i) {
		return &tnode{op: 'x'}
	}
	q := &tparser{s: p.s, pos: i, end: j, locals: p.locals, nots: p.nots, visNs: p.visNs, path: p.path, subst: p.subst, depth: p.depth,
		active: p.active, budget: p.budget, choose: p.choose}
	return q.expr()
}

// spend takes n tokens from the parse's budget and reports whether it is
// exhausted (a pathological notation or signature is not worth more).
func (p *tparser) spend(n int) bool {
	if p.budget == nil {
		b := 20000
		p.budget = &b
	}
	*p.budget -= n
	return *p.budget < 0
}

// leading parses one argument-level term.
func (p *tparser) leading() *tnode {
	if p.pos >= p.end {
		return nil
	}
	t := p.at(p.pos)
	kind := p.s.kinds[p.pos]
	if _, sub := p.subst[t]; sub || p.locals[t] {
		return p.ident() // a variable, not notation spelt like it
	}
	if n, k := p.pick(p.nots.leading[t], p.pos, 0); n != nil {
		p.pos += k
		args := map[string]*tnode{}
		if p.items(n, 1, args) {
			return p.expand(n, args)
		}
		return &tnode{op: 'x'}
	}
	switch {
	case t == "(":
		e := p.paren()
		// (e).f: generalized field notation
		for p.pos+1 < p.end && p.at(p.pos) == "." && !p.s.space[p.pos] && !p.s.space[p.pos+1] && p.s.kinds[p.pos+1] == TokIdent {
			field := p.at(p.pos + 1)
			p.pos += 2
			e = &tnode{op: 'a', fn: &tnode{op: 'c', name: field, recvTerm: e}, args: []*tnode{e}}
		}
		return e
	}
	return p.leading2(t, kind)
}

// paren parses a parenthesised term: (e), (e : T), (x := e).
func (p *tparser) paren() *tnode {
	{
		c := p.closeOf(p.pos)
		i := p.pos + 1
		p.pos = c + 1
		if i+1 < c && p.s.kinds[i] == TokIdent && p.s.text[i+1] == ":=" { // (x := e)
			return p.sub(i+2, c)
		}
		for k, depth := i, 0; k < c; k++ { // (e : T)
			switch p.s.text[k] {
			case "(", "[", "{", "⟨":
				depth++
			case ")", "]", "}", "⟩":
				depth--
			case ":":
				if depth == 0 {
					e := p.sub(i, k)
					if e == nil {
						return &tnode{op: 'x'}
					}
					ascribed := *e
					ascribed.asc = p.sub(k+1, c)
					return &ascribed
				}
			}
		}
		if e := p.sub(i, c); e != nil {
			return e
		}
		return &tnode{op: 'x'}
	}
}

// leading2 is leading for terms other than parentheses.
func (p *tparser) leading2(t string, kind TokKind) *tnode {
	switch {
	case t == "{":
		return p.braces()
	case t == "⟨" || t == "[" || t == "`(" || t == "⦃":
		p.pos = p.closeOf(p.pos) + 1
		return &tnode{op: 'x'}
	case t == "↥" || t == "↑" || t == "⇑":
		p.pos++
		e := p.leading()
		if e == nil {
			return &tnode{op: 'x'}
		}
		if t == "↥" {
			return &tnode{op: 'o', args: []*tnode{e}}
		}
		return e
	case t == "@":
		p.pos++
		return p.leading()
	case t == "∀" || t == "Π" || t == "∃" || t == "fun" || t == "λ" || t == "Σ" || t == "Σ'":
		return p.binder(t)
	case kind == TokNumber:
		p.pos++
		return &tnode{op: 'n'}
	case kind == TokString || kind == TokChar || t == "_" || t == "·" || t == "?_":
		p.pos++
		return &tnode{op: 'x'}
	case kind == TokIdent:
		return p.ident()
	}
	return nil
}

// ident parses an identifier: a sort, a local, a notation parameter or a
// constant, skipping explicit universes (.{u}).
func (p *tparser) ident() *tnode {
	t := p.at(p.pos)
	p.pos++
	switch t {
	case "Prop":
		return &tnode{op: 's', name: "Prop"}
	case "Type", "Type*", "Sort", "Sort*":
		name := "Type"
		if strings.HasPrefix(t, "Sort") {
			name = "Sort"
		}
		if p.pos < p.end && !p.s.space[p.pos] && p.at(p.pos) == "*" {
			p.pos++
		} else if p.at(p.pos) == "max" || p.at(p.pos) == "imax" {
			// Type max u v: Lean's level parser takes `max` and the level
			// atoms after it (a universe expression, never a term: read
			// as one it named `Type max u v` …TypeMax…)
			p.pos++
			for p.pos < p.end && p.levelAtom() {
			}
		} else if p.pos < p.end && (p.at(p.pos) == "_" || p.s.kinds[p.pos] == TokNumber || p.s.kinds[p.pos] == TokIdent && p.isUniverse(p.at(p.pos)) && !strings.Contains(p.at(p.pos), ".") && p.subst[p.at(p.pos)] == nil) {
			p.pos++
		} else if p.at(p.pos) == "(" && p.s.space[p.pos] {
			// Type (max u v), Sort (u + 1): a level in parentheses
			c := p.closeOf(p.pos)
			if name == "Sort" && c > p.pos+2 && strings.Contains(strings.Join(p.s.text[p.pos:c], " "), "+") {
				name = "Type" // Sort (u + 1)
			}
			p.pos = c + 1
		}
		return &tnode{op: 's', name: name}
	}
	if p.at(p.pos) == "." && p.at(p.pos+1) == "{" && !p.s.space[p.pos] {
		p.pos = p.closeOf(p.pos+1) + 1
	}
	if v, ok := p.subst[t]; ok {
		return v
	}
	head, rest, dotted := strings.Cut(t, ".")
	if p.locals[t] || dotted && p.locals[head] {
		if dotted {
			// x.f: generalized field notation, T.f x for x : T; x.f.g is
			// (x.f).g
			fields := strings.Split(rest, ".")
			e := &tnode{op: 'a', fn: &tnode{op: 'c', name: fields[0], recv: head}, args: []*tnode{{op: 'v', name: head}}}
			for _, f := range fields[1:] {
				e = &tnode{op: 'a', fn: &tnode{op: 'c', name: f, recvTerm: e, written: t}, args: []*tnode{e}}
			}
			return e
		}
		return &tnode{op: 'v', name: t}
	}
	return &tnode{op: 'c', name: strings.TrimPrefix(t, "_root_.")}
}

// levelAtom consumes one argument of a level's max/imax (a universe
// name, a number, _ or a parenthesised level); false at anything else.
// Every plain identifier there is a universe name, as Lean's level parser
// reads it — the namer has universes among its locals too.
func (p *tparser) levelAtom() bool {
	switch t := p.at(p.pos); {
	case t == "(":
		p.pos = p.closeOf(p.pos) + 1
	case t == "_" || p.s.kinds[p.pos] == TokNumber:
		p.pos++
	case p.s.kinds[p.pos] == TokIdent && !strings.Contains(t, ".") && p.subst[t] == nil:
		p.pos++
	default:
		return false
	}
	return true
}

// isUniverse is set by the namer: universe names are locals too.
func (p *tparser) isUniverse(s string) bool {
	return len(s) <= 2 || strings.HasPrefix(s, "u") || strings.HasPrefix(s, "v")
}

// braces parses {x // p}, {x : α // p} (Subtype), {x | p} (setOf) or an
// implicit binder-like group.
func (p *tparser) braces() *tnode {
	c := p.closeOf(p.pos)
	i := p.pos + 1
	p.pos = c + 1
	sep := -1
	for k := i; k < c; k++ {
		if t := p.s.text[k]; t == "//" || t == "|" {
			sep = k
			break
		}
	}
	if sep < 0 {
		return &tnode{op: 'x'}
	}
	var ty *tnode
	names := []string{}
	for k := i; k < sep; k++ {
		if p.s.text[k] == ":" {
			ty = p.sub(k+1, sep)
			break
		}
		if p.s.kinds[k] == TokIdent {
			names = append(names, p.s.text[k])
		}
	}
	saved := p.bind(names)
	body := p.sub(sep+1, c)
	p.unbind(names, saved)
	if body == nil {
		body = &tnode{op: 'x'}
	}
	fn, lam := "Subtype", &tnode{op: 'l', body: body}
	if p.s.text[sep] == "|" {
		fn = "setOf"
	}
	args := []*tnode{}
	if ty != nil {
		args = append(args, ty)
	} else {
		args = append(args, &tnode{op: 'x'})
	}
	return &tnode{op: 'a', fn: &tnode{op: 'c', name: fn}, args: append(args, lam)}
}

func (p *tparser) bind(names []string) map[string]bool {
	saved := map[string]bool{}
	for _, n := range names {
		saved[n] = p.locals[n]
		p.locals[n] = true
	}
	return saved
}

func (p *tparser) unbind(names []string, saved map[string]bool) {
	for _, n := range names {
		p.locals[n] = saved[n]
	}
}

// bnd is one bound variable of a binder list.
type bnd struct {
	name string
	ty   *tnode
	inst bool
	kind string // the bracket: "(", "{", "[", "⦃" ("(" for a bare name)
}

// binderList parses binders up to a separator of sep (or the end).
func (p *tparser) binderList(sep map[string]bool) []bnd {
	var bs []bnd
	for p.pos < p.end && !sep[p.at(p.pos)] {
		t := p.at(p.pos)
		switch {
		case t == "(" || t == "{" || t == "[" || t == "⦃" || t == "{{":
			c := p.closeOf(p.pos)
			bs = append(bs, p.group(p.pos+1, c, t)...)
			p.pos = c + 1
		case t == ":":
			e := p.nextSep(p.pos+1, sep)
			ty := p.sub(p.pos+1, e)
			for k := range bs {
				if bs[k].ty == nil {
					bs[k].ty = ty
				}
			}
			p.pos = e
		case p.s.kinds[p.pos] == TokIdent || t == "_":
			bs = append(bs, bnd{name: t, kind: "("})
			p.pos++
		default:
			p.pos++
		}
	}
	return bs
}

// pis wraps body in the ∀s of bs.
func pis(bs []bnd, body *tnode) *tnode {
	for k := len(bs) - 1; k >= 0; k-- {
		dom := bs[k].ty
		if dom == nil {
			dom = &tnode{op: 'x'}
		}
		body = &tnode{op: 'p', name: bs[k].name, dom: dom, body: body, inst: bs[k].inst, bkind: bs[k].kind}
	}
	return body
}

// binder parses ∀/Π/∃/fun binders and the body.
func (p *tparser) binder(kw string) *tnode {
	p.pos++
	bs := p.binderList(map[string]bool{",": true, "=>": true, "↦": true})
	p.pos++ // the separator
	names := []string{}
	for _, x := range bs {
		names = append(names, x.name)
	}
	saved := p.bind(names)
	body := p.expr()
	p.unbind(names, saved)
	if body == nil {
		body = &tnode{op: 'x'}
	}
	switch kw {
	case "fun", "λ":
		l := &tnode{op: 'l', body: body}
		if len(bs) == 1 {
			l.name = bs[0].name // (a coercion's fun X => X.toTop is applied: coeSortOf)
		}
		return l
	case "∃", "Σ", "Σ'":
		fn := map[string]string{"∃": "Exists", "Σ": "Sigma", "Σ'": "PSigma"}[kw]
		a := &tnode{op: 'a', fn: &tnode{op: 'c', name: fn}}
		if kw != "∃" { // Sigma {α} β: the binder's type is a type argument
			ty := &tnode{op: 'x'}
			if len(bs) > 0 && bs[0].ty != nil {
				ty = bs[0].ty
			}
			a.args = append(a.args, ty)
		}
		a.args = append(a.args, &tnode{op: 'l', body: body})
		return a
	}
	return pis(bs, body)
}

func (p *tparser) nextSep(i int, sep map[string]bool) int {
	for k := i; k < p.end; k++ {
		if sep[p.s.text[k]] {
			return k
		}
		if t := p.s.text[k]; t == "(" || t == "[" || t == "{" || t == "⟨" {
			k = p.closeOf(k)
		}
	}
	return p.end
}

// group parses the inside of one binder bracket: names and a type, or an
// anonymous instance binder's class.
func (p *tparser) group(i, c int, open string) []bnd {
	inst := open == "["
	if open == "{{" {
		open = "⦃"
	}
	colon := -1
	for k, depth := i, 0; k < c; k++ {
		switch p.s.text[k] {
		case "(", "[", "{", "⟨":
			depth++
		case ")", "]", "}", "⟩":
			depth--
		case ":":
			if depth == 0 && colon < 0 {
				colon = k
			}
		}
	}
	if colon < 0 {
		if inst {
			return []bnd{{ty: p.sub(i, c), inst: true, kind: open}}
		}
		var out []bnd
		for k := i; k < c; k++ {
			if p.s.kinds[k] == TokIdent {
				out = append(out, bnd{name: p.s.text[k], kind: open})
			}
		}
		return out
	}
	tyEnd := c
	for k := colon + 1; k < c; k++ {
		if p.s.text[k] == ":=" {
			tyEnd = k
			break
		}
	}
	ty := p.sub(colon+1, tyEnd)
	var out []bnd
	for k := i; k < colon; k++ {
		if p.s.kinds[k] == TokIdent || p.s.text[k] == "_" {
			out = append(out, bnd{name: p.s.text[k], ty: ty, inst: inst, kind: open})
		}
	}
	return out
}

// scoped marks the constants of an expansion (not those of its arguments,
// args) as resolved in the notation's scope (copies: args are shared).
func scoped(t *tnode, ctx *scopeCtx, args map[string]*tnode) *tnode {
	if t == nil {
		return nil
	}
	for _, a := range args {
		if a == t {
			return t
		}
	}
	c := *t
	if c.op == 'c' && !c.res && c.recv == "" && c.recvTerm == nil {
		c.scope = ctx
	}
	c.fn = scoped(t.fn, ctx, args)
	c.dom = scoped(t.dom, ctx, args)
	c.body = scoped(t.body, ctx, args)
	if len(t.args) > 0 {
		c.args = make([]*tnode, len(t.args))
		for i, a := range t.args {
			c.args[i] = scoped(a, ctx, args)
		}
	}
	return &c
}
