// Command wordnames derives a word → name-token table from a library's own
// declarations: the words of each declaration's docstring (code and LaTeX
// spans left out) against the components of its name (split on '.', '_'
// and camelCase). A word w is mapped to a name token t when declarations
// whose docstring says w have t in their name far more often than chance
// ("divides" → dvd, "product" → mul, "derivative" → deriv). It writes the
// table in the vocabulary file format (retrieval.LoadVocabulary), so that
// theorem search reads everyday words as the names the library uses,
// learnt from the library rather than written for a benchmark (#25).
//
// Only declarations of the tune half's module groups are read by default
// (-half tune; the parity of sha1 of the module's first three components,
// as the dev benchmark splits), so the held-out half never reaches it.
//
//	go run ./internal/tools/wordnames -ws WS -out words.json
package main

import (
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

type row struct {
	Name      string  `parquet:"name"`
	Kind      string  `parquet:"kind,dict"`
	Module    string  `parquet:"module,dict"`
	Docstring *string `parquet:"docstring,optional"`
	Signature string  `parquet:"signature"`
}

func main() {
	ws := flag.String("ws", "", "workspace (declarations.parquet)")
	half := flag.String("half", "tune", "module groups read: tune, held-out or all")
	out := flag.String("out", "", "vocabulary JSON to write")
	minDocs := flag.Int("min-docs", 20, "a word is mapped only if this many docstrings say it")
	minPair := flag.Int("min-pair", 8, "a pair needs this many declarations")
	minCond := flag.Float64("min-cond", 0.1, "P(token | word) at least")
	minLift := flag.Float64("min-lift", 4, "P(token | word) / P(token) at least")
	symLift := flag.Float64("symbol-lift", 2, "with -symbols: a symbol's lift at least")
	symTop := flag.Int("symbol-top", 1, "with -symbols: tokens per symbol at most")
	top := flag.Int("top", 3, "tokens per word at most")
	minLen := flag.Int("min-len", 4, "letters of a mapped word at least (three-letter words are mostly abbreviations: lhs, gcd, nat)")
	symbols := flag.Bool("symbols", false, "also map the symbols of theorem statements (non-ASCII, not letters) to name tokens, as the table's notation")
	bigrams := flag.Bool("bigrams", false, "map two-word phrases too (\"greatest common\" → gcd)")
	flag.Parse()
	if *ws == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: wordnames -ws WS -out FILE [-half tune|held-out|all]")
		os.Exit(2)
	}
	t, st := newTable(), newTable()
	n := 0
	err := workspace.EachRow(filepath.Join(*ws, "declarations.parquet"), func(r *row) error {
		if *half != "all" && halfOf(r.Module) != *half {
			return nil
		}
		if *symbols && r.Kind == "theorem" {
			st.addSymbols(r.Signature, r.Name)
		}
		if r.Docstring == nil {
			return nil
		}
		n++
		t.add(*r.Docstring, r.Name, *bigrams)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	phrases := t.table(*minDocs, *minPair, *minCond, *minLift, *top)
	maps.DeleteFunc(phrases, func(w string, _ []string) bool { return !strings.Contains(w, " ") && len(w) < *minLen })
	f := struct {
		About    string              `json:"about"`
		Phrases  map[string][]string `json:"phrases"`
		Notation map[string][]string `json:"notation"`
	}{
		About: fmt.Sprintf("word → name-token table derived by internal/tools/wordnames from %d docstrings of %s (module groups: %s): word w (≥ %d letters) → token t when ≥ %d declarations pair them, P(t|w) ≥ %g, lift ≥ %g, at most %d tokens per word",
			n, filepath.Base(filepath.Clean(*ws)), *half, *minLen, *minPair, *minCond, *minLift, *top),
		Phrases:  phrases,
		Notation: map[string][]string{},
	}
	if *symbols {
		f.Notation = st.table(*minDocs*10, *minPair*10, *minCond, *symLift, *symTop)
		f.About += fmt.Sprintf("; notation: symbols of %d theorem statements → name tokens (≥ %d statements per pair, same P(t|symbol), lift ≥ %g)", st.docs, *minPair*10, *symLift)
	}
	b, _ := json.MarshalIndent(f, "", " ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d docstrings, %d words mapped, %d symbols\n", n, len(phrases), len(f.Notation))
}

// halfOf is the half of a module's group (devbench's split).
func halfOf(module string) string {
	parts := strings.Split(module, ".")
	group := strings.Join(parts[:min(3, len(parts))], ".")
	if sha1.Sum([]byte(group))[sha1.Size-1]&1 == 0 {
		return "tune"
	}
	return "held-out"
}

type table struct {
	docs     int
	wordDocs map[string]int
	tokDocs  map[string]int
	pair     map[[2]string]int
}

func newTable() *table {
	return &table{wordDocs: map[string]int{}, tokDocs: map[string]int{}, pair: map[[2]string]int{}}
}

// add counts one declaration: its docstring's plain words against its
// name's tokens.
func (t *table) add(doc, name string, bigrams bool) {
	t.docs++
	toks := map[string]bool{}
	retrieval.SubTokens(name, func(tok string) { toks[norm(tok)] = true })
	words := map[string]bool{}
	pw := plainWords(doc)
	for i, w := range pw {
		words[w] = true
		if bigrams && i > 0 && pw[i-1] != "" && w != "" {
			words[pw[i-1]+" "+w] = true
		}
	}
	for tok := range toks {
		t.tokDocs[tok]++
	}
	for w := range words {
		t.wordDocs[w]++
		for tok := range toks {
			t.pair[[2]string{w, tok}]++
		}
	}
}

// addSymbols counts one theorem: the symbols of its statement against its
// name's tokens.
func (t *table) addSymbols(sig, name string) {
	syms := map[string]bool{}
	for _, r := range sig {
		// Greek letters and sub/superscript digits are variables' names
		// and indices (x₁, α), ⦃ ⦄ Lean's strict-implicit binders.
		if r >= 0x80 && !unicode.Is(unicode.Greek, r) && !unicode.Is(unicode.No, r) && !unicode.IsSpace(r) && !strings.ContainsRune("⦃⦄", r) &&
			(!unicode.IsLetter(r) || strings.ContainsRune("ℝℕℤℚℂ", r)) {
			syms[string(r)] = true
		}
	}
	if len(syms) == 0 {
		return
	}
	t.docs++
	toks := map[string]bool{}
	retrieval.SubTokens(name, func(tok string) { toks[norm(tok)] = true })
	for tok := range toks {
		t.tokDocs[tok]++
	}
	for sym := range syms {
		t.wordDocs[sym]++
		for tok := range toks {
			t.pair[[2]string{sym, tok}]++
		}
	}
}

// norm is a name token or word as the name signal reads it: lower case, a
// plural s dropped (retrieval's nameToken rule).
func norm(s string) string {
	s = strings.ToLower(s)
	if len(s) > 3 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && !strings.HasSuffix(s, "us") && !strings.HasSuffix(s, "is") {
		s = s[:len(s)-1]
	}
	return s
}

// plainWords are the lower-cased words of a docstring outside `code` and
// $LaTeX$ spans: three ASCII letters or more (Erdős, Über are left out).
func plainWords(doc string) []string {
	var b strings.Builder
	inCode, inMath := false, false
	for _, r := range doc {
		switch {
		case r == '`' && !inMath:
			inCode = !inCode
			b.WriteByte(' ')
		case r == '$' && !inCode:
			inMath = !inMath
			b.WriteByte(' ')
		case inCode || inMath:
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r)) // words with other letters are dropped below
		default:
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, w := range strings.Fields(b.String()) {
		if len(w) >= 3 && isASCII(w) {
			out = append(out, w)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// table keeps, per word, the tokens most associated with it.
func (t *table) table(minDocs, minPair int, minCond, minLift float64, top int) map[string][]string {
	type cand struct {
		tok   string
		score float64
	}
	by := map[string][]cand{}
	for p, c := range t.pair {
		w, tok := p[0], p[1]
		nw := t.wordDocs[w]
		if nw < minDocs || c < minPair || tok == norm(w) || len(tok) < 2 {
			continue
		}
		cond := float64(c) / float64(nw)
		lift := cond / (float64(t.tokDocs[tok]) / float64(t.docs))
		if cond < minCond || lift < minLift {
			continue
		}
		by[w] = append(by[w], cand{tok, cond * math.Log(lift)})
	}
	out := map[string][]string{}
	for w, cs := range by {
		if stop[w] || tooStop(w) {
			continue
		}
		slices.SortFunc(cs, func(a, b cand) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return strings.Compare(a.tok, b.tok)
		})
		for _, c := range cs[:min(top, len(cs))] {
			out[w] = append(out[w], c.tok)
		}
	}
	return out
}

// stop are words a vocabulary key may not be (retrieval's query stopwords).
var stop = map[string]bool{"the": true, "are": true, "for": true, "with": true, "its": true, "that": true, "this": true,
	"every": true, "any": true, "all": true, "some": true, "each": true, "then": true, "has": true,
	"have": true, "their": true, "them": true, "one": true, "two": true, "always": true}

// tooStop: a phrase whose words are all stopwords cannot be a key.
func tooStop(w string) bool {
	if !strings.Contains(w, " ") {
		return false
	}
	for _, x := range strings.Fields(w) {
		if !stop[x] && len(x) > 3 {
			return false
		}
	}
	return true
}
