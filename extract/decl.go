package extract

import (
	"strings"
	"sync/atomic"

	"github.com/driftkit/driftkit/internal/leantext"
)

// countDeltas makes depthDelta count its calls in deltaCalls: a test sets it
// (never concurrently with a parse) to check that the bracket scans stay
// linear in the nesting depth without timing them.
var (
	countDeltas bool
	deltaCalls  atomic.Int64
)

// attrSyntax is one entry of an @[…] list: its name and token range.
type attrSyntax struct {
	name       string
	start, end int
}

// auxSyntax is a `where` auxiliary definition or a structure field or an
// inductive constructor: a name and the token ranges of its signature and body.
type auxSyntax struct {
	name               string
	nameIdx            int
	sigStart, sigEnd   int
	valStart, valEnd   int
	doc                *string
	protected          bool
	private            bool     // written `private`: Lean mangles its name (applyVisibility)
	binderNames        []string // for fields declared in one group: all names
	lineStart, lineEnd int32
}

// declSyntax is the parsed shape of a declaration command.
type declSyntax struct {
	start, end int
	doc        *string
	attrs      []attrSyntax
	mods       []string
	keyword    string
	kwIdx      int
	name       string // as written; "" for anonymous instances and examples
	nameIdx    int
	sigStart   int
	sigEnd     int
	colonIdx   int // top-level ':' of the signature, -1 if none
	valStart   int
	valEnd     int
	extends    [][2]int // parent type token ranges (structure/class)
	ctorName   string   // custom structure constructor (mk ::)
	ctorPriv   bool     // the constructor is written `private mk ::`
	fields     []auxSyntax
	ctors      []auxSyntax
	aux        []auxSyntax // where-auxiliaries
	aliasNames []string    // alias ⟨a, b⟩ := t
	aliasOf    int         // token index of the alias target, -1
	aliasIff   bool
}

func (d *declSyntax) has(mod string) bool {
	for _, m := range d.mods {
		if m == mod {
			return true
		}
	}
	return false
}

func (f *file) docText(i int) *string {
	s := f.text(i)
	if strings.HasPrefix(s, "/--") {
		s = s[3:]
	} else if strings.HasPrefix(s, "/-!") {
		s = s[3:]
	}
	s = strings.TrimSuffix(s, "-/")
	s = strings.TrimSpace(s)
	return &s
}

// depthDelta returns +1 for an opener token, -1 for a closer, else 0.
func (f *file) depthDelta(i int) int {
	if countDeltas {
		deltaCalls.Add(1)
	}
	t := f.toks[i]
	if t.Kind != TokSymbol {
		return 0
	}
	s := f.text(i)
	if isOpener(s) {
		return 1
	}
	if isCloser(s) {
		return -1
	}
	return 0
}

// parseAttrs parses @[a, b c, d] at i and returns the index after it.
func (f *file) parseAttrs(i, end int, out *[]attrSyntax) int {
	close := f.matchBracket(i)
	if close >= end {
		close = end - 1
	}
	j := i + 1
	for j < close {
		k := j
		depth := 0
		for k < close {
			if d := f.depthDelta(k); d != 0 {
				depth += d
			} else if depth == 0 && f.is(k, ",") {
				break
			}
			k++
		}
		// name: first identifier, skipping scoped/local
		name := ""
		for m := j; m < k; m++ {
			if f.toks[m].Kind == TokIdent {
				s := f.text(m)
				if s == "local" || s == "scoped" {
					continue
				}
				name = s
				break
			}
			if f.toks[m].Kind == TokSymbol && (f.is(m, "-") || f.is(m, "←")) {
				continue
			}
			break
		}
		if name != "" {
			*out = append(*out, attrSyntax{name: name, start: j, end: k})
		}
		j = k + 1
	}
	return close + 1
}

var kindOfKeyword = map[string]string{
	"theorem": "theorem", "lemma": "theorem", "def": "definition", "irreducible_def": "definition",
	"abbrev": "abbrev", "instance": "instance", "structure": "structure", "class": "class",
	"class inductive": "class", "class abbrev": "class", "inductive": "inductive", "coinductive": "inductive",
	"axiom": "axiom", "opaque": "opaque", "alias": "theorem", "proof_wanted": "theorem",
}

// parseDecl parses a declaration command [start, end). It returns nil when the
// command is not a declaration.
func (f *file) parseDecl(start, end int) *declSyntax {
	d := &declSyntax{start: start, end: end, colonIdx: -1, aliasOf: -1, nameIdx: -1}
	i := start
	for i < end {
		t := f.toks[i]
		switch {
		case t.Kind == TokDoc:
			d.doc = f.docText(i)
			i++
			continue
		case t.Kind == TokSymbol && f.is(i, "@["):
			i = f.parseAttrs(i, end, &d.attrs)
			continue
		case t.Kind == TokIdent && leantext.Is(f.text(i), leantext.Modifier):
			d.mods = append(d.mods, f.text(i))
			i++
			if f.is(i, "[") && f.is(i-1, "scoped") {
				i = f.matchBracket(i) + 1
			}
			continue
		}
		break
	}
	if i >= end || f.toks[i].Kind != TokIdent || !leantext.Is(f.text(i), leantext.Decl) {
		return nil
	}
	d.kwIdx = i
	d.keyword = f.text(i)
	i++
	if d.keyword == "class" && (f.is(i, "inductive") || f.is(i, "abbrev")) {
		d.keyword += " " + f.text(i)
		i++
	}
	switch d.keyword {
	case "alias":
		return f.parseAlias(d, i)
	case "example":
		d.sigStart = i
	case "instance":
		if f.is(i, "(") && f.is(i+1, "priority") {
			i = f.matchBracket(i) + 1
		}
		if i < end && f.toks[i].Kind == TokIdent && !f.is(i, "where") {
			d.name, d.nameIdx = f.text(i), i
			i++
		}
	default:
		if i < end && f.toks[i].Kind == TokIdent {
			d.name, d.nameIdx = f.text(i), i
			i++
		}
	}
	// universe parameters foo.{u, v}
	if f.is(i, ".") && f.is(i+1, "{") && f.toks[i].Start == f.toks[i-1].End {
		i = f.matchBracket(i+1) + 1
	}
	d.sigStart = i
	switch d.keyword {
	case "structure", "class":
		f.parseStructure(d, i)
	case "inductive", "class inductive", "coinductive":
		f.parseInductive(d, i)
	default:
		f.parseDef(d, i)
	}
	return d
}

// parseDef parses signature and value of a def-like declaration from i.
func (f *file) parseDef(d *declSyntax, i int) {
	end := d.end
	depth := 0
	d.sigEnd, d.valStart, d.valEnd = end, end, end
	for ; i < end; i++ {
		if dd := f.depthDelta(i); dd != 0 {
			depth += dd
			if depth < 0 {
				depth = 0
			}
			continue
		}
		if depth != 0 {
			continue
		}
		t := f.toks[i]
		if t.Kind == TokSymbol && f.is(i, ":") && d.colonIdx < 0 {
			d.colonIdx = i
		}
		if (t.Kind == TokSymbol && f.is(i, ":=")) ||
			(t.Kind == TokIdent && (f.is(i, "where") || f.is(i, "deriving"))) ||
			(t.Kind == TokSymbol && f.is(i, "|") && t.Flags&FlagLineStart != 0) {
			d.sigEnd = i
			if f.is(i, "|") {
				d.valStart = i
			} else {
				d.valStart = i + 1
			}
			if f.is(i, "where") {
				// structure-instance body: fields are the value
				d.valEnd = end
				return
			}
			break
		}
	}
	if d.valStart >= end {
		return
	}
	// a `where` at depth 0 after the value starts auxiliary definitions
	depth = 0
	for j := d.valStart; j < end; j++ {
		if dd := f.depthDelta(j); dd != 0 {
			depth += dd
			if depth < 0 {
				depth = 0
			}
			continue
		}
		if depth == 0 && f.toks[j].Kind == TokIdent && f.is(j, "where") {
			d.valEnd = j
			d.aux = f.parseAux(j+1, end)
			return
		}
	}
}

// entryStarts splits [i, end) into entries starting at line-start tokens at
// depth 0 whose column is at most col (or, if col < 0, the column of the first
// line-start token).
func (f *file) entryStarts(i, end int, accept func(k int) bool) []int {
	var starts []int
	depth := 0
	col := int32(-1)
	for k := i; k < end; k++ {
		t := f.toks[k]
		if depth == 0 && (k == i || t.Flags&FlagLineStart != 0) {
			if col < 0 && t.Flags&FlagLineStart != 0 {
				col = t.Col
			}
			if k == i || t.Col <= col {
				if accept == nil || accept(k) {
					starts = append(starts, k)
				}
			}
		}
		if dd := f.depthDelta(k); dd != 0 {
			depth += dd
			if depth < 0 {
				depth = 0
			}
		}
	}
	return starts
}

// parseAux parses where-auxiliaries in [i, end).
func (f *file) parseAux(i, end int) []auxSyntax {
	var out []auxSyntax
	starts := f.entryStarts(i, end, func(k int) bool {
		t := f.toks[k]
		return t.Kind == TokIdent || t.Kind == TokDoc || f.is(k, "@[")
	})
	for n, s := range starts {
		e := end
		if n+1 < len(starts) {
			e = starts[n+1]
		}
		a := auxSyntax{nameIdx: -1}
		k := s
		for k < e {
			if f.toks[k].Kind == TokDoc {
				a.doc = f.docText(k)
				k++
			} else if f.is(k, "@[") {
				k = f.matchBracket(k) + 1
			} else if f.toks[k].Kind == TokIdent && leantext.Is(f.text(k), leantext.Modifier) {
				k++
			} else {
				break
			}
		}
		if k >= e || f.toks[k].Kind != TokIdent {
			continue
		}
		a.name, a.nameIdx = f.text(k), k
		a.sigStart = k + 1
		a.sigEnd, a.valStart, a.valEnd = e, e, e
		depth := 0
		for j := k + 1; j < e; j++ {
			if dd := f.depthDelta(j); dd != 0 {
				depth += dd
				continue
			}
			if depth == 0 && (f.is(j, ":=") || f.is(j, "|")) {
				a.sigEnd = j
				a.valStart = j
				if f.is(j, ":=") {
					a.valStart = j + 1
				}
				break
			}
		}
		a.lineStart = f.toks[s].Line
		a.lineEnd = f.toks[e-1].Line
		out = append(out, a)
	}
	return out
}

// parseStructure parses structure/class binders, extends, type and fields.
func (f *file) parseStructure(d *declSyntax, i int) {
	end := d.end
	depth := 0
	d.sigEnd, d.valStart, d.valEnd = end, end, end
	extStart := -1
	var bodyStart = -1
	for ; i < end; i++ {
		if dd := f.depthDelta(i); dd != 0 {
			depth += dd
			if depth < 0 {
				depth = 0
			}
			continue
		}
		if depth != 0 {
			continue
		}
		t := f.toks[i]
		if t.Kind == TokIdent && f.is(i, "extends") {
			extStart = i + 1
			continue
		}
		if t.Kind == TokSymbol && f.is(i, ":") && d.colonIdx < 0 {
			if extStart >= 0 {
				f.splitExtends(d, extStart, i)
				extStart = -1
			}
			d.colonIdx = i
		}
		if (t.Kind == TokIdent && (f.is(i, "where") || f.is(i, "deriving"))) || (t.Kind == TokSymbol && f.is(i, ":=")) {
			if extStart >= 0 {
				f.splitExtends(d, extStart, i)
				extStart = -1
			}
			d.sigEnd = i
			if !f.is(i, "deriving") {
				bodyStart = i + 1
			}
			break
		}
	}
	if extStart >= 0 {
		f.splitExtends(d, extStart, end)
		d.sigEnd = end
	}
	if bodyStart < 0 {
		return
	}
	d.valStart = bodyStart
	// body ends at `deriving` at depth 0
	depth = 0
	for j := bodyStart; j < end; j++ {
		if dd := f.depthDelta(j); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && f.is(j, "deriving") && f.toks[j].Flags&FlagLineStart != 0 {
			d.valEnd = j
			break
		}
	}
	// the constructor: declModifiers ident " :: " (Lean's structCtor), e.g.
	// `private mk ::`
	k, priv := bodyStart, false
	j := k
	for j < d.valEnd && (f.toks[j].Kind == TokDoc || f.toks[j].Kind == TokIdent && leantext.Is(f.text(j), leantext.Modifier)) {
		priv = priv || f.is(j, "private")
		j++
	}
	if j+1 < d.valEnd && f.toks[j].Kind == TokIdent && f.is(j+1, "::") {
		d.ctorName, d.ctorPriv = f.text(j), priv
		k = j + 2
	}
	f.parseFields(d, k, d.valEnd)
}

func (f *file) splitExtends(d *declSyntax, i, end int) {
	depth := 0
	s := i
	for j := i; j <= end; j++ {
		if j < end {
			if dd := f.depthDelta(j); dd != 0 {
				depth += dd
				continue
			}
		}
		if j == end || (depth == 0 && f.is(j, ",")) {
			if j > s {
				d.extends = append(d.extends, [2]int{s, j})
			}
			s = j + 1
		}
	}
}

// parseFields parses structure fields in [i, end).
func (f *file) parseFields(d *declSyntax, i, end int) {
	starts := f.entryStarts(i, end, nil)
	var doc *string // a doc comment on its own line belongs to the next field
	for n, s := range starts {
		e := end
		if n+1 < len(starts) {
			e = starts[n+1]
		}
		k := s
		prot, priv := false, false
		for k < e {
			if f.toks[k].Kind == TokDoc {
				doc = f.docText(k)
				k++
			} else if f.is(k, "@[") {
				k = f.matchBracket(k) + 1
			} else if f.toks[k].Kind == TokIdent && leantext.Is(f.text(k), leantext.Modifier) {
				prot = prot || f.is(k, "protected")
				priv = priv || f.is(k, "private")
				k++
			} else {
				break
			}
		}
		for k < e {
			if f.toks[k].Kind == TokSymbol && (f.is(k, "(") || f.is(k, "{") || f.is(k, "[") || f.is(k, "⦃")) {
				// (a b : T := v) groups, possibly several on a line
				c := f.matchBracket(k)
				if c >= e {
					c = e - 1
				}
				f.fieldGroup(d, k+1, c, doc, prot, priv, false)
				doc = nil
				k = c + 1
				continue
			}
			if f.toks[k].Kind == TokIdent {
				// a field without brackets is one name; identifiers after it
				// are its binders (Lean's structSimpleBinder: ident optDeclSig)
				f.fieldGroup(d, k, e, doc, prot, priv, true)
				doc = nil
			}
			break
		}
	}
}

// fieldGroup parses `a b (x : α) : T := v` in [i, e) as fields a and b
// (within brackets), or `a x y : T` as the field a with binders x y
// (simple: written without brackets).
func (f *file) fieldGroup(d *declSyntax, i, e int, doc *string, prot, priv, simple bool) {
	var names []int
	k := i
	for k < e && f.toks[k].Kind == TokIdent && (!simple || len(names) == 0) {
		names = append(names, k)
		k++
	}
	if len(names) == 0 {
		return
	}
	// find ':' and ':=' at depth 0
	depth := 0
	colon, assign := -1, -1
	for j := k; j < e; j++ {
		if dd := f.depthDelta(j); dd != 0 {
			depth += dd
			continue
		}
		if depth == 0 && colon < 0 && assign < 0 && f.is(j, ":") {
			colon = j
		}
		if depth == 0 && assign < 0 && f.is(j, ":=") {
			assign = j
		}
	}
	if colon < 0 && k == names[len(names)-1]+1 && (assign >= 0 || k >= e) {
		// `x := v` overrides a parent default; not a new field
		if assign >= 0 {
			return
		}
	}
	var all []string
	for _, ni := range names {
		all = append(all, f.text(ni))
	}
	for _, ni := range names {
		a := auxSyntax{name: f.text(ni), nameIdx: ni, sigStart: k, sigEnd: e, valStart: e, valEnd: e, doc: doc,
			protected: prot, private: priv, binderNames: all, lineStart: f.toks[ni].Line, lineEnd: f.toks[e-1].Line}
		if assign >= 0 {
			a.sigEnd = assign
			a.valStart = assign + 1
		}
		d.fields = append(d.fields, a)
	}
}

// parseInductive parses an inductive's signature and constructors.
func (f *file) parseInductive(d *declSyntax, i int) {
	end := d.end
	depth := 0
	d.sigEnd, d.valStart, d.valEnd = end, end, end
	for ; i < end; i++ {
		if dd := f.depthDelta(i); dd != 0 {
			depth += dd
			if depth < 0 {
				depth = 0
			}
			continue
		}
		if depth != 0 {
			continue
		}
		if f.is(i, ":") && d.colonIdx < 0 {
			d.colonIdx = i
		}
		if f.is(i, "where") || f.is(i, "|") || f.is(i, ":=") || f.toks[i].Kind == TokDoc {
			d.sigEnd = i
			d.valStart = i
			if f.is(i, "where") || f.is(i, ":=") {
				d.valStart = i + 1
			}
			break
		}
	}
	// constructors: `| name binders : type`, optionally preceded by a doc comment
	depth = 0
	var doc *string
	for j := d.valStart; j < end; j++ {
		if dd := f.depthDelta(j); dd != 0 {
			depth += dd
			continue
		}
		if depth != 0 {
			continue
		}
		if f.toks[j].Kind == TokDoc {
			doc = f.docText(j)
			continue
		}
		if f.is(j, "deriving") && f.toks[j].Flags&FlagLineStart != 0 {
			d.valEnd = j
			break
		}
		if !f.is(j, "|") {
			continue
		}
		k := j + 1
		prot, priv := false, false
		for k < end && f.toks[k].Kind == TokIdent && leantext.Is(f.text(k), leantext.Modifier) {
			prot = prot || f.is(k, "protected")
			priv = priv || f.is(k, "private")
			k++
		}
		if k >= end || f.toks[k].Kind != TokIdent {
			continue
		}
		a := auxSyntax{name: f.text(k), nameIdx: k, sigStart: k + 1, doc: doc, protected: prot, private: priv, lineStart: f.toks[j].Line}
		doc = nil
		// ends at next | or doc at depth 0
		dep := 0
		e := end
		for m := k + 1; m < end; m++ {
			if dd := f.depthDelta(m); dd != 0 {
				dep += dd
				continue
			}
			if dep == 0 && (f.is(m, "|") || f.toks[m].Kind == TokDoc || (f.is(m, "deriving") && f.toks[m].Flags&FlagLineStart != 0)) {
				e = m
				break
			}
		}
		a.sigEnd, a.valStart, a.valEnd = e, e, e
		a.lineEnd = f.toks[e-1].Line
		d.ctors = append(d.ctors, a)
		j = e - 1
	}
}

// parseAlias parses `alias a := b`, `alias ⟨a, b⟩ := c` and `alias c ↔ a b`.
func (f *file) parseAlias(d *declSyntax, i int) *declSyntax {
	end := d.end
	d.sigStart, d.sigEnd, d.valStart, d.valEnd = i, i, end, end
	if f.is(i, "⟨") {
		c := f.matchBracket(i)
		for k := i + 1; k < c && k < end; k++ {
			if f.toks[k].Kind == TokIdent {
				d.aliasNames = append(d.aliasNames, f.text(k))
			} else if f.is(k, "_") {
				d.aliasNames = append(d.aliasNames, "_")
			}
		}
		d.aliasIff = true
		if f.is(c+1, ":=") && c+2 < end {
			d.aliasOf = c + 2
		}
		return d
	}
	if i < end && f.toks[i].Kind == TokIdent {
		if f.is(i+1, ":=") && i+2 < end {
			d.aliasNames = []string{f.text(i)}
			d.aliasOf = i + 2
			d.name, d.nameIdx = f.text(i), i
			return d
		}
		if f.is(i+1, "↔") || f.is(i+1, "←") || f.is(i+1, "→") {
			d.aliasOf = i
			d.aliasIff = f.is(i+1, "↔")
			for k := i + 2; k < end; k++ {
				if f.toks[k].Kind == TokIdent {
					d.aliasNames = append(d.aliasNames, f.text(k))
				} else if f.is(k, "_") {
					d.aliasNames = append(d.aliasNames, "_")
				} else {
					break
				}
			}
			return d
		}
	}
	return d
}
