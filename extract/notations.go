package extract

import (
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// notationKeywords are the commands whose notations the table records.
var notationKeywords = map[string]bool{
	"notation": true, "notation3": true, "infix": true, "infixl": true, "infixr": true,
	"prefix": true, "postfix": true, "macro_rules": true,
}

// notationScope reads the modifiers before a notation command: scoped (with
// scoped[NS] naming the namespace) or local.
func (p *fileParser) notationScope(c Command, k int) (scopedNs string, local bool) {
	f := p.f
	for j := c.Start; j < k; j++ {
		if f.is(j, "scoped") {
			scopedNs = p.ns
			if f.is(j+1, "[") && j+2 < k && f.toks[j+2].Kind == TokIdent {
				scopedNs = f.text(j + 2) // scoped[NS]
			}
		}
		if f.is(j, "local") {
			local = true
		}
	}
	return scopedNs, local
}

// notation reads `notation`, `notation3`, `infix…`, `prefix` and `postfix`:
// the atoms (string literals before =>), the expansion after => and the
// identifiers of the expansion that are not the notation's parameters.
// Only a notation whose first atom is one to three tokens without spaces is
// looked up when resolving (lookup); every one goes into the table.
func (p *fileParser) notation(c Command, k int) {
	f := p.f
	d := &notationDef{ctx: p.context(), path: p.path, kind: f.text(k), line: f.toks[k].Line}
	d.scopedNs, d.local = p.notationScope(c, k)
	arrow := -1
	params := map[string]bool{}
	for j := k + 1; j < c.End; j++ {
		if f.is(j, "=>") {
			arrow = j
			break
		}
		if f.toks[j].Kind == TokString {
			atom := strings.TrimSpace(unquote(f.text(j)))
			if atom == "" {
				continue
			}
			d.atoms = append(d.atoms, atom)
			if len(d.atoms) == 1 {
				// one token, or up to three adjacent ones (≃L[)
				toks, _ := Lex([]byte(atom))
				if len(toks) >= 1 && len(toks) <= 3 && int(toks[len(toks)-1].End) == len(atom) && !strings.ContainsAny(atom, " \t") {
					d.sym = atom
					d.lookup = true
				}
			}
		}
		if f.toks[j].Kind == TokIdent {
			params[f.text(j)] = true
		}
	}
	if arrow < 0 || len(d.atoms) == 0 {
		return
	}
	if d.sym == "" {
		d.sym = d.atoms[0]
	}
	d.pattern = f.notationPattern(d.kind, k+1, arrow)
	d.expansion = f.span(arrow+1, c.End)
	if d.pattern == nil && d.kind == "notation3" {
		d.pattern, d.namerExpansion = f.binderPattern(k+1, c.End)
	}
	d.targets = f.expansionIdents(arrow+1, c.End, params)
	if len(d.targets) > 0 {
		d.target = d.targets[0]
		p.res.notations = append(p.res.notations, d)
	}
}

// notationPattern reads the atoms and parameters of a notation's left-hand
// side in [i, arrow): nil if it has anything else (notation3's binders).
// infix/prefix/postfix have one atom; their parameters are implicit.
func (f *file) notationPattern(kind string, i, arrow int) []notItem {
	var pat []notItem
	for j := i; j < arrow; j++ {
		switch {
		case f.toks[j].Kind == TokString:
			if a := strings.TrimSpace(unquote(f.text(j))); a != "" {
				pat = append(pat, notItem{atom: a})
			}
		case f.is(j, ":") && j+1 < arrow: // precedence: :65, :max, :arg
			j++
			if f.is(j, "(") {
				j = f.matchBracket(j)
			}
		case f.is(j, "(") && j+2 < arrow && f.toks[j+1].Kind == TokIdent && f.is(j+2, ":="): // (name := x), (priority := p)
			j = f.matchBracket(j)
		case f.toks[j].Kind == TokIdent && len(pat) >= 0:
			pat = append(pat, notItem{param: f.text(j)})
		default:
			return nil
		}
	}
	if len(pat) == 0 {
		return nil
	}
	switch kind {
	case "infix", "infixl", "infixr":
		if len(pat) != 1 || pat[0].atom == "" {
			return nil
		}
		return []notItem{{param: "a"}, pat[0], {param: "b"}}
	case "prefix":
		return []notItem{pat[0], {param: "a"}}
	case "postfix":
		return []notItem{{param: "a"}, pat[0]}
	}
	return pat
}

// binderPattern reads a notation3 over binders whose term is scoped,
// `notation3 "Π₀ "(...)", "r:(scoped f => DFinsupp f) => r`, in [i, end):
// its items (the atoms, the binders, r with its scoped term) and the
// expansion after the `=>` outside brackets; nil if it has anything else.
// The first `=>` is the scoped term's, so notation's arrow, expansion and
// targets (the table's row: DFinsupp) are not the namer's.
func (f *file) binderPattern(i, end int) ([]notItem, string) {
	var pat []notItem
	binders, scoped := false, false
	for j := i; j < end; j++ {
		switch {
		case f.toks[j].Kind == TokString:
			if a := strings.TrimSpace(unquote(f.text(j))); a != "" {
				pat = append(pat, notItem{atom: a})
			}
		case f.is(j, "(") && f.is(j+1, "...") && f.is(j+2, ")"):
			if binders {
				return nil, ""
			}
			binders = true
			pat = append(pat, notItem{binders: true})
			j += 2
		case f.toks[j].Kind == TokIdent:
			it := notItem{param: f.text(j)}
			for j+1 < end && f.is(j+1, ":") {
				if j+5 < end && f.is(j+2, "(") && f.is(j+3, "scoped") && f.toks[j+4].Kind == TokIdent && f.is(j+5, "=>") {
					c := f.matchBracket(j + 2)
					if c <= j+6 || c >= end || !binders || scoped {
						return nil, ""
					}
					it.scopedVar, it.scopedBody = f.text(j+4), f.span(j+6, c)
					scoped = true
					j = c
					break
				}
				j += 2 // precedence: r:67
			}
			pat = append(pat, it)
		case f.is(j, "=>"):
			// the binders need an atom after them (the separator, ", ")
			for k, it := range pat {
				if it.binders && (k+1 >= len(pat) || pat[k+1].atom == "") {
					return nil, ""
				}
			}
			if !scoped || len(pat) == 0 || pat[0].atom == "" || j+1 >= end {
				return nil, ""
			}
			return pat, f.span(j+1, end)
		default:
			return nil, ""
		}
	}
	return nil, ""
}

// unquote strips the quotes of a Lean string literal and its simple escapes.
func unquote(s string) string {
	s = strings.TrimPrefix(strings.TrimSuffix(s, "\""), "\"")
	if !strings.Contains(s, "\\") {
		return s
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, " ", `\t`, " ").Replace(s)
}

// expansionIdents returns the identifiers of [i, end) that are neither
// parameters, antiquotations ($x), binders of fun/λ nor term keywords, in
// order of first use.
func (f *file) expansionIdents(i, end int, params map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	bound := map[string]bool{}
	for j := i; j < end; j++ {
		t := f.toks[j]
		if t.Kind != TokIdent {
			continue
		}
		s := f.text(j)
		if s == "fun" || s == "λ" {
			for b := j + 1; b < end && !f.is(b, "=>") && !f.is(b, "↦"); b++ {
				if f.toks[b].Kind == TokIdent {
					bound[f.text(b)] = true
				}
			}
			continue
		}
		if j > i && f.is(j-1, "$") || params[s] || bound[s] || termKeywords[s] || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// macroRules reads the simple alternatives of `macro_rules`:
// | `(pattern) => `(expansion), where the pattern has at least one atom
// (a token that is not an antiquotation or a bracket) and the expansion
// is a quotation. Each alternative is one table row; none is looked up
// when resolving.
func (p *fileParser) macroRules(c Command, k int) {
	f := p.f
	scopedNs, local := p.notationScope(c, k)
	for j := k + 1; j < c.End; j++ {
		if !f.is(j, "`(") {
			continue
		}
		pend := f.matchBracket(j)
		if pend <= j || pend+2 >= c.End || !f.is(pend+1, "=>") || !f.is(pend+2, "`(") {
			continue
		}
		rhs := pend + 2
		rend := f.matchBracket(rhs)
		if rend <= rhs || rend > c.End {
			continue
		}
		d := &notationDef{ctx: p.context(), path: p.path, kind: "macro_rules", line: f.toks[j].Line, scopedNs: scopedNs, local: local}
		params := map[string]bool{}
		for q := j + 1; q < pend; q++ {
			s := f.text(q)
			switch {
			case f.is(q, "$"):
				if q+1 < pend && f.toks[q+1].Kind == TokIdent {
					params[f.text(q+1)] = true
					q++
				}
				for q+2 < pend && f.is(q+1, ":") && f.toks[q+2].Kind == TokIdent { // $x:ident
					q += 2
				}
			case f.toks[q].Kind == TokIdent && params[s]:
			case f.toks[q].Kind == TokString:
				d.atoms = append(d.atoms, strings.TrimSpace(unquote(s)))
			case s == "(" || s == ")" || s == "," || s == "*" || s == "]" && len(d.atoms) == 0:
			default:
				d.atoms = append(d.atoms, s)
			}
		}
		d.targets = f.expansionIdents(rhs+1, rend, params)
		if len(d.atoms) == 0 || len(d.targets) == 0 {
			j = rend
			continue
		}
		d.sym, d.target = d.atoms[0], d.targets[0]
		d.expansion = f.span(rhs, rend+1)
		p.res.notations = append(p.res.notations, d)
		j = rend
	}
}

// notationRows returns the notation table: one row per notation of every
// file, its expansion's identifiers resolved where the notation is
// declared (as written when they do not resolve).
func (t *Table) notationRows(files []*fileResult) []workspace.Notation {
	var rows []workspace.Notation
	for mi, fr := range files {
		for _, nd := range fr.notations {
			rc := rctx{ns: nd.ctx.ns, opens: t.opensOf(nd.ctx), path: nd.path, vis: t.vis[mi]}
			heads := make([]string, 0, len(nd.targets))
			for _, id := range nd.targets {
				if n := t.resolve(id, &rc); n != "" {
					id = n
				}
				heads = append(heads, id)
			}
			scope := ""
			switch {
			case nd.local:
				scope = "local"
			case nd.scopedNs != "":
				scope = "scoped"
			}
			rows = append(rows, workspace.Notation{
				Library: fr.mod.Library, Revision: fr.mod.Revision, Symbol: nd.sym, Atoms: nd.atoms, Kind: nd.kind,
				Heads: heads, Expansion: nd.expansion, Scope: scope, Namespace: nd.scopedNs,
				Module: fr.mod.Name, Path: fr.mod.Path, Line: nd.line,
			})
		}
	}
	return rows
}

// ReadNotations reads the notation table extract wrote into ws
// (workspace.NotationsFile); a workspace extracted before the table existed
// reports a *workspace.MissingError.
func ReadNotations(ws *workspace.Workspace) ([]workspace.Notation, error) {
	if !ws.Has(workspace.NotationsFile) {
		return nil, ws.Missing(workspace.NotationsFile, "notations")
	}
	return workspace.ReadTable[workspace.Notation](ws.Path(workspace.NotationsFile))
}

// NotationHeads maps each notation symbol of rows to its head constants
// (the first head of each row, in table order, without repeats): ℝ≥0∞ →
// [ENNReal], + → [HAdd.hAdd].
func NotationHeads(rows []workspace.Notation) map[string][]string {
	out := map[string][]string{}
	for _, r := range rows {
		if len(r.Heads) == 0 {
			continue
		}
		h := r.Heads[0]
		if !contains(out[r.Symbol], h) {
			out[r.Symbol] = append(out[r.Symbol], h)
		}
	}
	return out
}
