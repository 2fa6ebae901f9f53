package informalize

import (
	"context"
	"github.com/driftkit/driftkit/internal/leantext"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/workspace"
)

// TemplateVersion is the prompt_version recorded for template rows.
const TemplateVersion = "template-v1"

// Template is the offline fallback: an informal name from the humanised
// declaration name and an informal statement from the docstring or a
// notation-aware reading of the signature. No model, no network; every row
// says provider=template. Safe for concurrent use.
type Template struct {
	// Vocabulary reads names, namespaces, classes and types (nil:
	// Mathlib's, DefaultVocabulary). Another vocabulary changes the prompt
	// version, so rows made with the old one are redone.
	Vocabulary *Vocabulary
}

func (Template) Name() string { return "template" }

// PromptVersion is TemplateVersion, with the vocabulary's hash when it is
// not Mathlib's.
func (t Template) PromptVersion() string {
	if sum := t.Vocabulary.SHA256(); sum != mathlibVocabulary().SHA256() {
		return TemplateVersion + "+vocabulary-" + sum[:12]
	}
	return TemplateVersion
}

func (Template) UsesDeps() bool { return false }

func (t Template) Informalize(_ context.Context, in *Input) (Result, error) {
	v := t.Vocabulary.orDefault()
	return Result{InformalName: v.HumanizeName(in.Name), InformalStatement: v.Statement(in), Attempts: 1}, nil
}

// words maps common Mathlib name parts to English (Vocabulary.Words'
// default; read-only).
var words = map[string]string{
	"le": "less than or equal", "lt": "less than", "ge": "greater than or equal", "gt": "greater than",
	"eq": "equals", "ne": "not equal", "iff": "if and only if", "imp": "implies", "not": "not",
	"and": "and", "or": "or", "of": "of", "to": "to", "add": "addition", "mul": "multiplication",
	"sub": "subtraction", "div": "division", "neg": "negation", "inv": "inverse", "pow": "power",
	"zpow": "integer power", "npow": "natural power", "smul": "scalar multiplication", "vadd": "vector addition",
	"dvd": "divides", "mod": "modulo", "gcd": "greatest common divisor", "lcm": "least common multiple",
	"succ": "successor", "pred": "predecessor", "zero": "zero", "one": "one", "two": "two",
	"pos": "positive", "neg'": "negative", "nonneg": "nonnegative", "nonpos": "nonpositive",
	"mem": "membership", "subset": "subset", "ssubset": "strict subset", "inter": "intersection",
	"union": "union", "compl": "complement", "sdiff": "set difference", "empty": "empty", "univ": "universe",
	"inj": "injective", "surj": "surjective", "bij": "bijective", "comp": "composition", "id": "identity",
	"comm": "commutativity", "assoc": "associativity", "refl": "reflexivity", "symm": "symmetry",
	"trans": "transitivity", "antisymm": "antisymmetry", "irrefl": "irreflexivity", "ext": "extensionality",
	"congr": "congruence", "cancel": "cancellation", "mono": "monotonicity", "monotone": "monotone",
	"antitone": "antitone", "strict": "strict", "abs": "absolute value", "norm": "norm", "nnnorm": "nonnegative norm",
	"sq": "square", "sqrt": "square root", "exp": "exponential", "log": "logarithm", "deriv": "derivative",
	"fderiv": "Fréchet derivative", "integral": "integral", "sum": "sum", "prod": "product", "card": "cardinality",
	"ncard": "cardinality", "max": "maximum", "min": "minimum", "sup": "supremum", "inf": "infimum",
	"bot": "bottom", "top": "top", "coe": "coercion", "cast": "cast", "fst": "first component",
	"snd": "second component", "map": "map", "image": "image", "preimage": "preimage", "range": "range",
	"ker": "kernel", "span": "span", "det": "determinant", "tr": "trace", "transpose": "transpose",
	"eval": "evaluation", "deg": "degree", "degree": "degree", "nat": "natural number", "int": "integer",
	"rat": "rational number", "real": "real number", "complex": "complex number", "finset": "finite set",
	"fintype": "finite type", "fin": "finite ordinal", "def": "definition", "apply": "application",
	"self": "itself", "left": "left", "right": "right", "zsmul": "integer scalar multiplication",
	"nsmul": "natural scalar multiplication", "nhds": "neighbourhoods", "tendsto": "tends to",
	"continuous": "continuous", "measurable": "measurable", "iso": "isomorphism", "hom": "homomorphism",
	"equiv": "equivalence", "lim": "limit", "antidiagonal": "antidiagonal", "dist": "distance",
	"factorial": "factorial", "choose": "binomial coefficient", "prime": "prime", "even": "even", "odd": "odd",
	"symmdiff": "symmetric difference", "finrank": "finite rank", "rank": "rank", "dim": "dimension",
	"is": "is", "has": "has", "at": "at", "within": "within", "on": "on", "self'": "itself",
}

// namespaceWords maps namespace parts to the structure they live in
// (Vocabulary.Namespaces' default; read-only).
var namespaceWords = map[string]string{
	"Nat": "natural numbers", "Int": "integers", "Rat": "rational numbers", "Real": "real numbers",
	"Complex": "complex numbers", "ENNReal": "extended nonnegative reals", "NNReal": "nonnegative reals",
	"EReal": "extended reals", "Finset": "finite sets", "Set": "sets", "List": "lists", "Multiset": "multisets",
	"Fin": "finite ordinals", "ZMod": "integers modulo n", "Polynomial": "polynomials", "Matrix": "matrices",
	"Function": "functions", "Equiv": "equivalences", "Filter": "filters", "MeasureTheory": "measure theory",
	"Submodule": "submodules", "Subgroup": "subgroups", "Ideal": "ideals", "LinearMap": "linear maps",
	"MonoidHom": "monoid homomorphisms", "RingHom": "ring homomorphisms", "Prod": "pairs", "Option": "options",
	"Finsupp": "finitely supported functions", "Fintype": "finite types", "Cardinal": "cardinals", "Ordinal": "ordinals",
}

// splitIdent splits one name component on underscores and camelCase.
func splitIdent(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '\'' }) {
		rs := []rune(part)
		start := 0
		for i := 1; i < len(rs); i++ {
			prev, cur := rs[i-1], rs[i]
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			boundary := unicode.IsLower(prev) && unicode.IsUpper(cur) ||
				unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next) ||
				unicode.IsLetter(prev) && unicode.IsDigit(cur) || unicode.IsDigit(prev) && unicode.IsLetter(cur)
			if boundary {
				out = append(out, string(rs[start:i]))
				start = i
			}
		}
		out = append(out, string(rs[start:]))
	}
	return out
}

// humanWords turns a name component into English words.
func (v *Vocabulary) humanWords(comp string) string {
	var ws []string
	for _, w := range splitIdent(comp) {
		lw := strings.ToLower(w)
		if m, ok := v.Words[lw]; ok {
			ws = append(ws, m)
		} else if isAcronym(w) {
			ws = append(ws, w)
		} else {
			ws = append(ws, lw)
		}
	}
	return strings.Join(ws, " ")
}

func isAcronym(w string) bool {
	n := 0
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
		n++
	}
	return n > 1
}

// HumanizeName turns a Lean name into a readable informal name with
// Mathlib's vocabulary: Nat.Prime.two_le → "Two less than or equal (natural
// numbers, prime)".
func HumanizeName(name string) string { return mathlibVocabulary().HumanizeName(name) }

// HumanizeName turns a Lean name into a readable informal name.
func (v *Vocabulary) HumanizeName(name string) string {
	parts := strings.Split(strings.TrimPrefix(name, "_root_."), ".")
	// Hygienic or numeric parts (_private, _hyg, 1) say nothing.
	var keep []string
	for _, p := range parts {
		if p == "" || strings.HasPrefix(p, "_") || isNumber(p) {
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) == 0 {
		return name
	}
	last := capitalize(v.humanWords(keep[len(keep)-1]))
	var ctx []string
	for _, p := range keep[:len(keep)-1] {
		if m, ok := v.Namespaces[p]; ok {
			ctx = append(ctx, m)
		} else {
			ctx = append(ctx, v.humanWords(p))
		}
	}
	if len(ctx) == 0 {
		return last
	}
	return last + " (" + strings.Join(ctx, ", ") + ")"
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// notation maps symbols to words, longest first; symbols are replaced
// wherever they occur, ASCII operators only between spaces.
var notation = []struct{ sym, word string }{
	{"∃!", "there exists a unique"}, {"→+*", "ring homomorphism to"}, {"→*", "monoid homomorphism to"},
	{"→+", "additive homomorphism to"}, {"→ₗ", "linear map to"}, {"≃+*", "ring isomorphic to"}, {"≃", "equivalent to"},
	{"≅", "isomorphic to"}, {"↔", "if and only if"}, {"→", "implies"}, {"∀", "for all"}, {"∃", "there exists"},
	{"∣", "divides"}, {"≤", "is at most"}, {"≥", "is at least"}, {"≠", "is not equal to"}, {"∉", "is not in"},
	{"∈", "is in"}, {"⊆", "is a subset of"}, {"⊂", "is a proper subset of"}, {"⊇", "is a superset of"},
	{"∩", "intersected with"}, {"∪", "union"}, {"∘", "composed with"}, {"∧", "and"}, {"∨", "or"},
	{"¬", "not"}, {"∑", "the sum over"}, {"∏", "the product over"}, {"⁻¹", " inverse"}, {"•", "scaled by"},
	{"∞", "infinity"}, {"√", "the square root of"}, {"∅", "the empty set"}, {"⊤", "top"}, {"⊥", "bottom"},
	{"ℕ", "ℕ"}, {"↑", ""}, {"⇑", ""}, {"fun ", "the function "}, {"λ ", "the function "}, {"=>", "↦"},
	{"×", "times"}, {"⟨", "("}, {"⟩", ")"}, {"‖", "|"},
}

var asciiOps = map[string]string{
	"=": "equals", "<": "is less than", ">": "is greater than", "<=": "is at most", ">=": "is at least",
	"*": "times", "+": "plus", "-": "minus", "/": "divided by", "%": "modulo", "^": "to the power",
	"->": "implies", "<->": "if and only if", "!=": "is not equal to", "∣": "divides", "/\\": "and", "\\/": "or",
}

// isSubscript reports Unicode subscript letters and digits (₀…₉, ₐ…ₜ).
func isSubscript(r rune) bool { return r >= 0x2080 && r <= 0x209C }

// dropSymbolSubscripts removes subscripts glued to a symbol (a scoped
// notation such as ∣ₙ reads as ∣), keeping those of identifiers (h₁).
func dropSymbolSubscripts(e string) string {
	var b strings.Builder
	prev := ' '
	for _, r := range e {
		if isSubscript(r) && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) && !isSubscript(prev) && !unicode.IsSpace(prev) && prev != '\'' {
			continue
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// RenderExpr reads a Lean expression aloud, symbol by symbol.
func RenderExpr(e string) string {
	e = dropSymbolSubscripts(e)
	for _, n := range notation {
		if strings.Contains(e, n.sym) {
			w := n.word
			if w != "" && !strings.HasSuffix(n.sym, " ") {
				w = " " + w + " "
			}
			e = strings.ReplaceAll(e, n.sym, w)
		}
	}
	f := strings.Fields(e)
	for i, t := range f {
		if w, ok := asciiOps[t]; ok {
			f[i] = w
		}
	}
	s := strings.Join(f, " ")
	s = strings.ReplaceAll(s, " ,", ",")
	s = strings.ReplaceAll(s, "( ", "(")
	s = strings.ReplaceAll(s, " )", ")")
	return s
}

// binder is one binder group of a signature.
type binder struct {
	open  rune // ( { [ ⦃
	names []string
	typ   string
}

// splitSignature separates the binders of a signature from its type (after
// the top-level colon). A leading declaration name is skipped.
func splitSignature(sig string) (bs []binder, typ string) {
	rs := []rune(sig)
	i := 0
	for i < len(rs) {
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
		if i >= len(rs) {
			break
		}
		c := rs[i]
		if c == ':' && (i+1 >= len(rs) || rs[i+1] != '=') {
			return bs, strings.TrimSpace(string(rs[i+1:]))
		}
		closeR, ok := map[rune]rune{'(': ')', '{': '}', '[': ']', '⦃': '⦄'}[c]
		if !ok {
			// A word before the binders (the name), a := or something
			// unexpected: skip a token, always moving forward.
			from := i
			for i < len(rs) && !unicode.IsSpace(rs[i]) && !strings.ContainsRune("({[⦃:", rs[i]) {
				i++
			}
			if i == from {
				i++
			}
			continue
		}
		depth, j := 0, i
		for ; j < len(rs); j++ {
			switch rs[j] {
			case '(', '{', '[', '⦃':
				depth++
			case ')', '}', ']', '⦄':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j >= len(rs) {
			return bs, strings.TrimSpace(string(rs[i:]))
		}
		inner := strings.TrimSpace(string(rs[i+1 : j]))
		b := binder{open: c}
		if k := leantext.TopColon(inner); k >= 0 {
			b.names = strings.Fields(inner[:k])
			b.typ = strings.TrimSpace(inner[k+1:])
		} else {
			b.typ = inner
		}
		_ = closeR
		bs = append(bs, b)
		i = j + 1
	}
	return bs, ""
}

// typeWords name types: ℕ reads "natural number" (Vocabulary.Types'
// default; read-only).
var typeWords = map[string][2]string{
	"ℕ": {"natural number", "natural numbers"}, "ℤ": {"integer", "integers"}, "ℚ": {"rational number", "rational numbers"},
	"ℝ": {"real number", "real numbers"}, "ℂ": {"complex number", "complex numbers"}, "Nat": {"natural number", "natural numbers"},
	"Int": {"integer", "integers"}, "Real": {"real number", "real numbers"}, "Prop": {"proposition", "propositions"},
}

// typeHeads name collections: `Set α` reads "set of α"
// (Vocabulary.Collections' default; read-only).
var typeHeads = map[string][2]string{
	"Set": {"set", "sets"}, "Finset": {"finite set", "finite sets"}, "List": {"list", "lists"},
	"Multiset": {"multiset", "multisets"}, "Filter": {"filter", "filters"}, "Polynomial": {"polynomial", "polynomials"},
}

// classWords read class names: AddCommMonoid is an "additive commutative
// monoid" (Vocabulary.ClassWords' default; read-only).
var classWords = map[string]string{
	"add": "additive", "comm": "commutative", "mul": "multiplicative", "with": "with", "zero": "zero", "one": "one",
	"ordered": "ordered", "linear": "linear", "order": "order", "normed": "normed", "inv": "inverse", "div": "division",
	"sub": "subtraction", "semi": "semi", "topological": "topological", "space": "space", "metric": "metric",
	"is": "is", "fin": "finite", "t2": "Hausdorff",
}

func isSortType(t string) bool {
	return strings.HasPrefix(t, "Type") || strings.HasPrefix(t, "Sort")
}

// classPhrase reads a class name: AddCommMonoid → "additive commutative monoid".
func (v *Vocabulary) classPhrase(c string) string {
	var ws []string
	for _, w := range splitIdent(c) {
		lw := strings.ToLower(w)
		if m, ok := v.ClassWords[lw]; ok {
			ws = append(ws, m)
		} else {
			ws = append(ws, lw)
		}
	}
	return strings.Join(ws, " ")
}

// binderRole classifies a binder for the sentence: a type parameter, an
// instance, a hypothesis or an object.
type binderRole int

const (
	roleType binderRole = iota
	roleInstance
	roleHyp
	roleObject
)

func roleOf(b binder) binderRole {
	t := strings.TrimSpace(b.typ)
	switch {
	case b.open == '[':
		return roleInstance
	case isSortType(t):
		return roleType
	case len(b.names) == 0 || isHypothesis(b.names, t):
		return roleHyp
	}
	return roleObject
}

// objectPhrase renders an object binder: "a natural number n", "sets s, t of
// α", "a function f from α to β", "x in G".
func (v *Vocabulary) objectPhrase(b binder) string {
	t := strings.TrimSpace(b.typ)
	names := strings.Join(b.names, ", ")
	plural := len(b.names) > 1
	pick := func(w [2]string) string {
		if plural {
			return w[1] + " " + names
		}
		return article(w[0]) + " " + w[0] + " " + names
	}
	if w, ok := v.Types[t]; ok {
		return pick(w)
	}
	if f := strings.Fields(t); len(f) >= 2 {
		if w, ok := v.Collections[f[0]]; ok {
			return pick(w) + " of " + RenderExpr(strings.Join(f[1:], " "))
		}
	}
	if i := strings.Index(t, "→"); i > 0 && topLevel(t, i) {
		kind := "a function"
		if plural {
			kind = "functions"
		}
		return kind + " " + names + " from " + RenderExpr(t[:i]) + " to " + strings.ReplaceAll(RenderExpr(t[i+len("→"):]), " implies ", " to ")
	}
	return names + " in " + RenderExpr(t)
}

func topLevel(s string, at int) bool {
	depth := 0
	for i, r := range s[:at] {
		_ = i
		switch r {
		case '(', '{', '[', '⦃', '⟨':
			depth++
		case ')', '}', ']', '⦄', '⟩':
			depth--
		}
	}
	return depth == 0
}

func (v *Vocabulary) instancePhrase(b binder) string {
	fs := strings.Fields(strings.TrimSpace(b.typ))
	if len(fs) >= 2 {
		c := v.classPhrase(fs[0])
		return strings.Join(fs[1:], " ") + " is " + article(c) + " " + c
	}
	return "a " + v.classPhrase(b.typ) + " instance"
}

func isHypothesis(names []string, t string) bool {
	hyp := true
	for _, n := range names {
		if !strings.HasPrefix(n, "h") && n != "_" {
			hyp = false
		}
	}
	if hyp {
		return true
	}
	if strings.ContainsAny(t, "=≤<≥>≠∣∈∉⊆↔¬∧∨∀∃") {
		return true
	}
	// p.Prime: a predicate applied with dot notation to a variable.
	if i := strings.IndexByte(t, '.'); i > 0 && !strings.ContainsAny(t[:i], " ()") {
		r, _ := utf8.DecodeRuneInString(t[i+1:])
		first, _ := utf8.DecodeRuneInString(t)
		return unicode.IsUpper(r) && unicode.IsLower(first)
	}
	return false
}

func article(w string) string {
	if w != "" && strings.ContainsRune("aeiouAEIOU", rune(w[0])) {
		return "an"
	}
	return "a"
}

// renderProp reads a proposition, turning dot-notation predicates into
// words: p.Prime → "p is prime".
func (v *Vocabulary) renderProp(t string) string {
	f := strings.Fields(t)
	for i, w := range f {
		j := strings.IndexByte(w, '.')
		if j <= 0 || j == len(w)-1 {
			continue
		}
		first, _ := utf8.DecodeRuneInString(w)
		r, _ := utf8.DecodeRuneInString(w[j+1:])
		if unicode.IsLower(first) && unicode.IsUpper(r) && !strings.ContainsAny(w[j+1:], ".()") {
			f[i] = w[:j] + " is " + v.humanWords(w[j+1:])
		}
	}
	return RenderExpr(strings.Join(f, " "))
}

// TemplateStatement builds the informal statement of the template provider
// with Mathlib's vocabulary.
func TemplateStatement(in *Input) string { return mathlibVocabulary().Statement(in) }

// Statement builds the informal statement of the template provider.
func (v *Vocabulary) Statement(in *Input) string {
	if d := firstParagraph(in.Docstring); d != "" {
		return d
	}
	bs, typ := splitSignature(in.Signature)
	var objects, insts, hyps []string
	for _, b := range bs {
		switch roleOf(b) {
		case roleObject:
			objects = append(objects, v.objectPhrase(b))
		case roleInstance:
			insts = append(insts, v.instancePhrase(b))
		case roleHyp:
			hyps = append(hyps, v.renderProp(b.typ))
		}
	}
	where := ""
	if len(insts) > 0 {
		where = ", where " + strings.Join(insts, " and ")
	}
	human := v.HumanizeName(in.Name)
	switch in.Kind {
	case workspace.KindTheorem, workspace.KindAxiom, "":
		body := v.renderProp(typ)
		if body == "" {
			body = v.renderProp(in.Signature)
		}
		var s string
		switch {
		case len(objects) > 0:
			s = "For " + joinAnd(objects) + where
			if len(hyps) > 0 {
				s += ", if " + joinAnd(hyps) + ", then "
			} else {
				s += ", "
			}
		case len(hyps) > 0:
			s = "If " + joinAnd(hyps) + where + ", then "
		case where != "":
			s = "For any setting" + where + ", "
		default:
			body = capitalize(body)
		}
		return strings.TrimSpace(s+body) + "."
	case workspace.KindInstance:
		return "Instance: " + v.renderProp(typ) + where + "."
	case workspace.KindStructure, workspace.KindClass, workspace.KindInductive:
		s := "The " + in.Kind + " " + lastComponent(in.Name) + " (" + strings.ToLower(human) + ")"
		if len(objects) > 0 {
			s += " of " + joinAnd(objects)
		}
		return s + where + "."
	case workspace.KindConstructor, workspace.KindProjection:
		role := "constructor"
		if in.Kind == workspace.KindProjection {
			role = "field"
		}
		s := "The " + role + " " + lastComponent(in.Name) + " of " + parentName(in.Name)
		if typ != "" {
			s += ", of type " + RenderExpr(typ)
		}
		return s + "."
	default: // definition, abbrev, opaque
		s := "The " + strings.ToLower(human)
		if len(objects) > 0 {
			s += " of " + joinAnd(objects)
		}
		if len(hyps) > 0 {
			s += ", given " + joinAnd(hyps)
		}
		s += where
		if typ != "" {
			t := RenderExpr(typ)
			if w, ok := v.Types[strings.TrimSpace(typ)]; ok {
				t = w[0]
			}
			s += "; it is " + article(t) + " " + t
		}
		return s + "."
	}
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func lastComponent(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func parentName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// firstParagraph returns the docstring's first paragraph on one line.
func firstParagraph(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	return strings.Join(strings.Fields(doc), " ")
}
