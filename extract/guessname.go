package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// guessDict is one attribute's name-guessing data as Mathlib declares it
// (Mathlib.Tactic.GuessName.GuessNameData): nameDict translates a word
// (looked up lower-cased) to words, abbreviationDict fixes runs of
// translated words (["Comm", "Add"] → AddComm). Read from the library's
// own sources, so twins follow the dictionary the library compiled with
// (haar → AddHaar: `prod.instIsHaarMeasure` has the twin
// `prod.instIsAddHaarMeasure`), not a copy that drifts from it.
type guessDict struct {
	names map[string][]string
	abbrs map[string]string
}

// guessName is Mathlib's GuessName.guessName: each token between primes
// split by capitalisation and at '_' (splitCase), each word translated
// (applyNameDict), then abbreviations fixed (fixAbbreviation).
func (g *guessDict) guessName(s string) string {
	toks := strings.Split(s, "'")
	for i, t := range toks {
		toks[i] = g.fixAbbreviation(g.applyNameDict(splitCase(t)))
	}
	return strings.Join(toks, "'")
}

// asciiUpper is Lean's Char.isUpper (ASCII only).
func asciiUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// firstUpper is `(String.Pos.Raw.get s 0).isUpper`: an empty string reads
// Lean's default character 'A'.
func firstUpper(s string) bool { return s == "" || asciiUpper(s[0]) }

// endCapitalNames is GuessName.endCapitalNames: words that end in capitals
// (LE, CoeTC) and are not split after them.
var endCapitalNames = map[string][]string{"LE": {""}, "LT": {""}, "GE": {""}, "GT": {""}, "WF": {""}, "Coe": {"TC", "T", "HTCT"}}

// splitCase is GuessName's String.splitCase: split on both sides of '_',
// after a word of endCapitalNames, and between a character that is not an
// upper-case letter and one that is ("InvHMulLE_ne" → Inv HMul LE _ ne).
func splitCase(s string) []string {
	var out []string
	i0 := 0
	for {
		if i0 >= len(s) {
			return append(out, s)
		}
		i1 := i0 + 1
		for i1 < len(s) && s[i1]&0xC0 == 0x80 { // next rune
			i1++
		}
		if i1 >= len(s) {
			return append(out, s)
		}
		if s[i0] == '_' || s[i1] == '_' {
			out = append(out, s[:i1])
			s, i0 = s[i1:], 0
			continue
		}
		if asciiUpper(s[i1]) {
			if strs, ok := endCapitalNames[s[:i1]]; ok {
				done := false
				for _, x := range strs {
					if strings.HasPrefix(s[i1:], x) {
						out = append(out, s[:i1]+x)
						s, i0 = s[i1+len(x):], 0
						done = true
						break
					}
				}
				if done {
					continue
				}
			}
			if !asciiUpper(s[i0]) {
				out = append(out, s[:i1])
				s, i0 = s[i1:], 0
				continue
			}
		}
		i0 = i1
	}
}

// decapitalizeSeq lower-cases the leading run of upper-case letters.
func decapitalizeSeq(s string) string {
	i := 0
	for i < len(s) && asciiUpper(s[i]) {
		i++
	}
	return strings.ToLower(s[:i]) + s[i:]
}

// decapitalizeLike returns s, with its leading capitals lower-cased unless
// r starts with an upper-case letter.
func decapitalizeLike(r, s string) string {
	if firstUpper(r) {
		return s
	}
	return decapitalizeSeq(s)
}

// applyNameDict is GuessName.applyNameDict.
func (g *guessDict) applyNameDict(ws []string) []string {
	out := make([]string, 0, len(ws)+2)
	for _, x := range ws {
		y, ok := g.names[asciiLower(x)]
		if !ok {
			out = append(out, x)
			continue
		}
		for i, w := range y {
			if i == 0 {
				w = decapitalizeLike(x, w)
			}
			out = append(out, w)
		}
	}
	return out
}

// asciiLower is Lean's String.toLower (ASCII letters only).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if asciiUpper(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if asciiUpper(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// fixAbbreviation is GuessName.fixAbbreviation (fixAbbreviationAux
// unrolled): from each word, the shortest run of words whose join, its
// leading capitals lower-cased, is in abbreviationDict is replaced; a run
// that reaches a '_' after a capitalised start gives up its first word.
func (g *guessDict) fixAbbreviation(l []string) string {
	var b strings.Builder
	var s []string
	for {
		if len(l) == 0 {
			if len(s) == 0 {
				return b.String()
			}
			b.WriteString(s[0])
			l, s = s[1:], nil
			continue
		}
		pre := l[0]
		l = l[1:]
		s = append(s[:len(s):len(s)], pre)
		t := strings.Join(s, "")
		if pre == "_" && firstUpper(t) {
			b.WriteString(s[0])
			l = append(append([]string(nil), s[1:]...), l...)
			s = nil
			continue
		}
		if post, ok := g.abbrs[decapitalizeSeq(t)]; ok {
			b.WriteString(decapitalizeLike(t, post))
			s = nil
		}
	}
}

var (
	commentRe   = regexp.MustCompile(`--[^\n]*`)
	nameDictRe  = regexp.MustCompile(`(?s)def nameDict\s*:\s*Std\.HashMap String \(List String\)\s*:=\s*\.ofList\s*\[(.*?)\]\s*\n\s*\n`)
	abbrDictRe  = regexp.MustCompile(`(?s)def abbreviationDict\s*:\s*Std\.HashMap String String\s*:=\s*\.ofList\s*\[(.*?)\]\s*\n\s*\n`)
	nameEntryRe = regexp.MustCompile(`\(\s*"([^"]*)"\s*,\s*\[([^\]]*)\]\s*\)`)
	abbrEntryRe = regexp.MustCompile(`\(\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)`)
	strLitRe    = regexp.MustCompile(`"([^"]*)"`)
)

// parseGuessDict reads nameDict and abbreviationDict from a Mathlib
// Translate/ToAdditive.lean or ToDual.lean (the `.ofList [...]` form of
// Mathlib since the Translate framework); nil when the file declares
// neither in that form (older Mathlib spells them as pattern matches, and
// the built-in word tables stay in force).
func parseGuessDict(src string) *guessDict {
	src = commentRe.ReplaceAllString(src, "")
	nm := nameDictRe.FindStringSubmatch(src)
	am := abbrDictRe.FindStringSubmatch(src)
	if nm == nil || am == nil {
		return nil
	}
	g := &guessDict{names: map[string][]string{}, abbrs: map[string]string{}}
	for _, e := range nameEntryRe.FindAllStringSubmatch(nm[1], -1) {
		var ws []string
		for _, w := range strLitRe.FindAllStringSubmatch(e[2], -1) {
			ws = append(ws, w[1])
		}
		g.names[e[1]] = ws
	}
	for _, e := range abbrEntryRe.FindAllStringSubmatch(am[1], -1) {
		g.abbrs[e[1]] = e[2]
	}
	if len(g.names) == 0 {
		return nil
	}
	return g
}

// libraryNaming returns Mathlib's tables with the guessName dictionaries
// of the first source that holds Mathlib's Tactic/Translate/ToAdditive.lean
// and ToDual.lean (a source that is Mathlib's folder or a checkout
// containing it), and the files' paths and content hash for the manifest;
// nil when no source has both in the form parseGuessDict reads.
func libraryNaming(sources []Source) (*Naming, []string, string) {
	for _, s := range sources {
		for _, base := range []string{filepath.Join(s.Dir, "Tactic", "Translate"), filepath.Join(s.Dir, "Mathlib", "Tactic", "Translate")} {
			add, errA := os.ReadFile(filepath.Join(base, "ToAdditive.lean"))
			dual, errD := os.ReadFile(filepath.Join(base, "ToDual.lean"))
			if errA != nil || errD != nil {
				continue
			}
			ga, gd := parseGuessDict(string(add)), parseGuessDict(string(dual))
			if ga == nil || gd == nil {
				continue
			}
			n := mathlibNaming().clone()
			n.additiveDict, n.dualDict = ga, gd
			h := sha256.New()
			h.Write(add)
			h.Write(dual)
			return n, []string{filepath.Join(base, "ToAdditive.lean"), filepath.Join(base, "ToDual.lean")}, hex.EncodeToString(h.Sum(nil))
		}
	}
	return nil, nil, ""
}
