package retrieval

import (
	"strings"
	"unicode/utf8"
)

// Theorem search meets a vocabulary gap: a mathematician writes "the
// product of two primes", "at most", "number of elements", "n!", while a
// Lean library names the same things mul, prod, le, card, factorial, and
// the template informalizer words them "multiplication", "times", "less
// than or equal", "cardinality". Expand bridges it with a fixed table,
// written from Mathlib's naming conventions (the name components the naming
// guide lists for each operation, relation and notation) and the words of
// the template informalizer, not from any benchmark: each everyday word,
// phrase or symbol lists the name components and template words that say
// the same. The table is a default a library with other conventions may
// extend (Vocabulary).

// Vocabulary maps lower-cased everyday words, phrases (several words
// separated by single spaces) and notation to the words a Lean library and
// its informalizations use for them. A phrase is matched before the words it
// contains. Read-only after init.
var Vocabulary = map[string][]string{
	// operations
	"product":                 {"mul", "prod", "multiplication", "times"},
	"products":                {"mul", "prod", "multiplication", "times"},
	"multiply":                {"mul", "multiplication"},
	"multiplication":          {"mul"},
	"times":                   {"mul", "multiplication"},
	"sum":                     {"add", "sum", "addition", "plus"},
	"sums":                    {"add", "sum", "addition", "plus"},
	"plus":                    {"add", "addition"},
	"addition":                {"add"},
	"difference":              {"sub", "subtraction", "minus"},
	"minus":                   {"sub", "subtraction", "neg"},
	"subtract":                {"sub", "subtraction"},
	"quotient":                {"div", "division", "quotient"},
	"divided":                 {"div", "division"},
	"ratio":                   {"div", "division"},
	"power":                   {"pow", "power"},
	"powers":                  {"pow", "power"},
	"exponent":                {"pow", "power"},
	"squared":                 {"sq", "square", "pow"},
	"square":                  {"sq", "square"},
	"squares":                 {"sq", "square"},
	"cube":                    {"pow", "three"},
	"square root":             {"sqrt", "square root"},
	"root":                    {"root", "isRoot", "roots"},
	"roots":                   {"root", "isRoot", "roots"},
	"inverse":                 {"inv", "inverse"},
	"reciprocal":              {"inv", "inverse", "one_div"},
	"negative":                {"neg", "negation", "nonpos"},
	"opposite":                {"neg", "negation"},
	"absolute value":          {"abs", "absolute value"},
	"modulus":                 {"abs", "norm", "normSq"},
	"length":                  {"norm", "length"},
	"distance":                {"dist", "distance"},
	"composition":             {"comp", "composition"},
	"compose":                 {"comp", "composition"},
	"composite":               {"comp", "composition"},
	"identity":                {"id", "identity", "one"},
	"conjugate":               {"conj", "star"},
	"exponential":             {"exp", "exponential"},
	"logarithm":               {"log", "logarithm"},
	"logarithms":              {"log", "logarithm"},
	"logs":                    {"log", "logarithm"},
	"log":                     {"log", "logarithm"},
	"exp":                     {"exp", "exponential"},
	"exps":                    {"exp", "exponential"},
	"sine":                    {"sin"},
	"cosine":                  {"cos"},
	"tangent":                 {"tan"},
	"factorial":               {"factorial"},
	"binomial":                {"choose", "binomial coefficient"},
	"choose":                  {"choose", "binomial coefficient"},
	"gcd":                     {"gcd", "greatest common divisor"},
	"lcm":                     {"lcm", "least common multiple"},
	"greatest common divisor": {"gcd"},
	"least common multiple":   {"lcm"},
	"totient":                 {"totient", "φ"},
	"determinant":             {"det", "determinant"},
	"trace":                   {"trace", "tr"},
	"transpose":               {"transpose"},
	"dimension":               {"finrank", "rank", "finite rank", "dim"},
	"dim":                     {"finrank", "rank", "finite rank"},
	"rank":                    {"rank", "finrank"},
	"kernel":                  {"ker", "kernel"},
	"image":                   {"image"},
	"images":                  {"image"},
	"preimage":                {"preimage", "comap"},
	"range":                   {"range"},
	"derivative":              {"deriv", "derivative", "hasDerivAt", "fderiv"},
	"derivatives":             {"deriv", "derivative", "hasDerivAt"},
	"differentiable":          {"differentiable", "differentiableAt"},
	"integral":                {"integral", "lintegral"},
	"integrals":               {"integral", "lintegral"},
	"integrate":               {"integral"},
	"integration":             {"integral"},
	"limit":                   {"tendsto", "lim", "limit", "nhds"},
	"limits":                  {"tendsto", "lim", "limit", "nhds"},
	"converges":               {"tendsto", "converges", "cauchySeq"},
	"convergent":              {"tendsto", "converges"},
	"converge":                {"tendsto", "converges"},
	"tends":                   {"tendsto"},
	"series":                  {"tsum", "hasSum", "summable", "sum", "series"},
	"sequence":                {"seq", "sequence", "atTop"},
	"sequences":               {"seq", "sequence", "atTop"},
	"subsequence":             {"subseq", "subsequence", "strictMono"},
	"cardinality":             {"card", "cardinality"},
	"size":                    {"card", "cardinality"},
	"number of":               {"card", "cardinality", "count"},
	"count":                   {"card", "count"},
	"member":                  {"mem", "membership"},
	"belongs":                 {"mem", "membership"},
	"subsets":                 {"powerset", "subset"},
	"power set":               {"powerset"},
	"subset":                  {"subset"},
	"intersection":            {"inter", "intersected"},
	"intersections":           {"inter", "intersected"},
	"complement":              {"compl", "complement"},
	"complements":             {"compl", "complement"},
	"cartesian":               {"prod", "product"},
	"pairs":                   {"prod", "product"},
	"permutation":             {"perm", "permutation"},
	"permutations":            {"perm", "permutation"},
	"bijection":               {"bijective", "equiv"},
	"injection":               {"injective", "embedding"},
	"surjection":              {"surjective"},
	"onto":                    {"surjective"},
	"isomorphism":             {"equiv", "iso", "isomorphism"},
	"isomorphic":              {"equiv", "iso", "nonempty"},
	"homomorphism":            {"hom", "homomorphism", "monoidHom", "ringHom"},
	"homomorphisms":           {"hom", "homomorphism"},
	"homeomorphism":           {"homeomorph", "homeomorphism"},
	"supremum":                {"sup", "iSup", "sSup", "supremum"},
	"infimum":                 {"inf", "iInf", "sInf", "infimum"},
	"least upper bound":       {"isLUB", "sSup", "supremum"},
	"maximum":                 {"max", "isMaxOn", "maximum"},
	"minimum":                 {"min", "isMinOn", "minimum"},
	"fixed point":             {"fixedPoint", "isFixedPt", "fixed point"},
	"eigenvalue":              {"eigenvalue", "hasEigenvalue", "eigenspace"},
	"eigenvalues":             {"eigenvalue", "hasEigenvalue", "eigenspace"},
	"eigenvector":             {"eigenvector", "hasEigenvector"},
	"eigenvectors":            {"eigenvector", "eigenvectors", "hasEigenvector"},
	"matrix":                  {"matrix"},
	"matrices":                {"matrix"},
	"polynomial":              {"polynomial"},
	"polynomials":             {"polynomial"},
	"degree":                  {"degree", "natDegree"},
	"expectation":             {"integral", "expectation"},
	"variance":                {"variance", "evariance"},
	"probability":             {"measure", "probability"},
	// relations and logic
	"divides":              {"dvd", "divides"},
	"divide":               {"dvd", "divides"},
	"divisible":            {"dvd", "divides"},
	"divisibility":         {"dvd", "divides"},
	"divisor":              {"dvd", "divisors"},
	"divisors":             {"dvd", "divisors"},
	"factor":               {"dvd", "factors"},
	"factors":              {"dvd", "factors"},
	"multiple":             {"dvd"},
	"congruent":            {"modEq", "mod", "modulo"},
	"congruence":           {"modEq", "mod"},
	"modulo":               {"mod", "modEq", "zmod"},
	"mod":                  {"mod", "modEq", "zmod"},
	"at most":              {"le", "less than or equal"},
	"at least":             {"le", "less than or equal"},
	"less than":            {"lt", "le", "less than"},
	"smaller than":         {"lt", "less than"},
	"greater than":         {"lt", "less than"},
	"bigger than":          {"lt", "less than"},
	"larger than":          {"lt", "less than"},
	"more than":            {"lt", "less than"},
	"exceeds":              {"lt", "less than"},
	"bounded by":           {"le", "less than or equal"},
	"inequality":           {"le", "less than or equal"},
	"nonzero":              {"ne_zero", "not equal"},
	"distinct":             {"ne", "injective", "not equal"},
	"positive":             {"pos", "positive"},
	"nonnegative":          {"nonneg", "nonnegative"},
	"negative number":      {"neg", "nonpos"},
	"empty":                {"empty", "bot"},
	"nonempty":             {"nonempty"},
	"exists":               {"exists"},
	"there is":             {"exists"},
	"there exists":         {"exists"},
	"unique":               {"unique", "existsUnique", "eq_of"},
	"implies":              {"of", "imp"},
	"if and only if":       {"iff"},
	"exactly when":         {"iff"},
	"equivalent":           {"iff", "equiv"},
	"infinitely many":      {"infinite"},
	"infinite":             {"infinite"},
	"finite":               {"finite", "fintype", "finset"},
	"countable":            {"countable"},
	"uncountable":          {"countable", "uncountable", "not_countable"},
	"increasing":           {"monotone", "mono", "strictMono"},
	"decreasing":           {"antitone", "strictAnti"},
	"strictly increasing":  {"strictMono"},
	"monotonic":            {"monotone"},
	"bounded":              {"bounded", "bddAbove", "bddBelow", "isBounded"},
	"commutative":          {"comm", "commutative"},
	"commute":              {"comm", "commute"},
	"abelian":              {"comm", "commGroup", "commutative"},
	"associative":          {"assoc", "associativity"},
	"cancel":               {"cancel", "cancellation"},
	"cancellation":         {"cancel"},
	"consecutive":          {"succ", "add_one"},
	"successor":            {"succ"},
	"next":                 {"succ"},
	"coprime":              {"coprime", "isCoprime"},
	"relatively prime":     {"coprime", "isCoprime"},
	"irrational":           {"irrational"},
	"rational":             {"rat"},
	"integer":              {"int"},
	"integers":             {"int"},
	"natural number":       {"nat"},
	"natural numbers":      {"nat"},
	"real number":          {"real"},
	"real numbers":         {"real"},
	"reals":                {"real"},
	"complex number":       {"complex"},
	"complex numbers":      {"complex"},
	"vector space":         {"module", "vectorSpace"},
	"subspace":             {"submodule", "subspace"},
	"subspaces":            {"submodule", "subspace"},
	"linear map":           {"linearMap"},
	"linearly independent": {"linearIndependent"},
	"invertible":           {"isUnit", "invertible", "unit"},
	"compact":              {"isCompact", "compact"},
	"closed":               {"isClosed", "closed"},
	"open":                 {"isOpen", "open"},
	"connected":            {"isConnected", "isPreconnected", "connected"},
	"dense":                {"dense"},
	"hausdorff":            {"t2Space", "hausdorff"},
	"continuous":           {"continuous", "continuousOn"},
	"uniformly continuous": {"uniformContinuous"},
	"interval":             {"icc", "ioo", "interval"},
	"closed interval":      {"icc"},
	"open interval":        {"ioo"},
	"cyclic":               {"isCyclic", "cyclic"},
	"normal":               {"normal"},
	"order of":             {"orderOf", "card"},
	"maximal":              {"isMaximal", "maximal"},
	"prime ideal":          {"isPrime"},
	"irreducible":          {"irreducible"},
	"even":                 {"even"},
	"odd":                  {"odd"},
	"prime":                {"prime"},
	"primes":               {"prime"},
	"measure":              {"measure"},
	"measurable":           {"measurable"},
	"almost everywhere":    {"ae"},
	"converse":             {"iff"},
	"theorem":              {},
}

// Notation maps symbols (and ASCII spellings of notation) to the name
// components and template words that say them.
var Notation = map[string][]string{
	"∣": {"dvd", "divides"}, "|": {"abs", "card"}, "‖": {"norm"},
	"+": {"add", "plus"}, "-": {"sub", "neg", "minus"}, "*": {"mul", "times"}, "·": {"mul", "times"},
	"/": {"div", "division"}, "^": {"pow", "power"}, "√": {"sqrt", "square root"},
	"!": {"factorial"}, "⁻¹": {"inv", "inverse"}, "∘": {"comp", "composition"},
	"≤": {"le", "less than or equal"}, "≥": {"le", "less than or equal"}, "<": {"lt", "less than"}, ">": {"lt", "less than"},
	"≠": {"ne", "not equal"}, "=": {"eq", "equals"}, "≡": {"modEq", "mod"},
	"∑": {"sum", "finset sum"}, "∏": {"prod", "finset prod"}, "∫": {"integral"},
	"∪": {"union"}, "∩": {"inter", "intersection"}, "ᶜ": {"compl", "complement"}, "⊆": {"subset"},
	"∈": {"mem", "membership"}, "∉": {"not_mem"}, "∅": {"empty"},
	"∃": {"exists"}, "∀": {"forall"}, "↔": {"iff"}, "¬": {"not"}, "∧": {"and"}, "∨": {"or"},
	"π": {"pi"}, "φ": {"totient"}, "∞": {"top", "infinity"},
	"e^": {"exp", "exponential"}, "^2": {"sq", "square"}, "²": {"sq", "square"},
}

// queryStopwords are dropped before the vocabulary is looked up.
var queryStopwords = map[string]bool{"a": true, "an": true, "the": true, "is": true, "are": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "its": true, "it": true, "that": true, "this": true, "as": true, "by": true,
	"every": true, "any": true, "all": true, "some": true, "each": true, "then": true, "if": true, "be": true, "has": true,
	"have": true, "their": true, "them": true, "one": true, "two": true, "always": true}

// maxPhrase is the longest key of Vocabulary, in words.
var maxPhrase = func() int {
	n := 1
	for k := range Vocabulary {
		n = max(n, strings.Count(k, " ")+1)
	}
	return n
}()

// Expand returns the vocabulary words of text (Vocabulary and Notation) that
// text does not already contain, space-separated, each once: what theorem
// search adds to a query so that everyday wording meets the library's.
func Expand(text string) string {
	lower := strings.ToLower(text)
	var words []string
	Words(lower, func(w string, _, _ int) { words = append(words, strings.Trim(w, "'")) })
	have := map[string]bool{}
	for _, w := range words {
		have[w] = true
	}
	var out []string
	add := func(xs []string) {
		for _, x := range xs {
			if !have[strings.ToLower(x)] {
				have[strings.ToLower(x)] = true
				out = append(out, x)
			}
		}
	}
	for i := 0; i < len(words); {
		n := 0
		for l := min(maxPhrase, len(words)-i); l >= 1; l-- {
			if l == 1 && queryStopwords[words[i]] {
				break
			}
			if xs, ok := Vocabulary[strings.Join(words[i:i+l], " ")]; ok {
				add(xs)
				n = l
				break
			}
		}
		i += max(n, 1)
	}
	for _, e := range notationList {
		if strings.Contains(text, e.sym) {
			add(e.words)
		}
	}
	return strings.Join(out, " ")
}

type notationEntry struct {
	sym   string
	words []string
}

// notationList is Notation in a fixed order (longest symbols first), so
// that Expand's output does not depend on map order.
var notationList = func() []notationEntry {
	var l []notationEntry
	for s, w := range Notation {
		l = append(l, notationEntry{s, w})
	}
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && less(l[j], l[j-1]); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
	return l
}()

func less(a, b notationEntry) bool {
	if la, lb := utf8.RuneCountInString(a.sym), utf8.RuneCountInString(b.sym); la != lb {
		return la > lb
	}
	return a.sym < b.sym
}
