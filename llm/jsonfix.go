package llm

import "strings"

// RepairJSONEscapes fixes the backslashes a model writes inside JSON
// strings when it means LaTeX, before the JSON is decoded, and returns the
// text and how many escapes it changed. Models write "\frac", "\neq",
// "\times", "\beta" or "\sum" with one backslash: JSON reads the first
// four as a form feed, a newline, a tab and a backspace followed by
// letters (silently wrong text), and the last as an error. Inside strings
// (text outside them is left alone):
//   - an escape JSON does not have (\s, \a, \{, \(, \,, \u not followed by
//     four hex digits) becomes a literal backslash;
//   - \b, \f, \n, \r, \t that begin a known LaTeX command (the whole
//     letter run after the backslash is in latexCommands: \beta, \frac,
//     \neq, \rho, \times) become a literal backslash too;
//   - \", \\, \/, \uXXXX, and the control escapes before anything else
//     ("x\n", "\n1", "\nThe", "\nlemma" in Lean code) are kept.
//
// It never makes valid JSON invalid: every change turns "\" into "\\".
func RepairJSONEscapes(s string) (string, int) {
	if !strings.Contains(s, `\`) {
		return s, 0
	}
	var b strings.Builder
	n, inString := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !inString {
			inString = c == '"'
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			inString = false
			b.WriteByte(c)
			continue
		case '\\':
		default:
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			b.WriteString(`\\`)
			n++
			continue
		}
		if latexEscape(s[i+1:]) {
			b.WriteString(`\\`)
			n++
			continue
		}
		// A valid escape: copy it whole (so that "\\" is not read again).
		b.WriteByte(c)
		b.WriteByte(s[i+1])
		i++
	}
	return b.String(), n
}

// latexEscape reports whether the text after a backslash inside a JSON
// string (rest, not empty) is no JSON escape or is a LaTeX command that
// happens to start like one.
func latexEscape(rest string) bool {
	switch rest[0] {
	case '"', '\\', '/':
		return false
	case 'u':
		if len(rest) < 5 {
			return true
		}
		for _, h := range []byte(rest[1:5]) {
			if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
				return true
			}
		}
		return false
	case 'b', 'f', 'n', 'r', 't':
		end := 1
		for end < len(rest) && (rest[end] >= 'a' && rest[end] <= 'z' || rest[end] >= 'A' && rest[end] <= 'Z') {
			end++
		}
		return latexCommands[rest[:end]]
	}
	return true
}

// latexCommands are the LaTeX commands that begin with a letter of a JSON
// control escape (b, f, n, r, t): "\neq" in a model's JSON is LaTeX, while
// "\nlemma" (Lean code after a newline) is a newline. A command is matched
// as the whole run of letters, as TeX reads it.
var latexCommands = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`
		backslash bar beta begin bf big bigcap bigcirc bigcup bigg biggl biggr bigl bigodot bigoplus bigotimes bigr
		bigsqcup bigstar bigtriangledown bigtriangleup biguplus bigvee bigwedge binom blacksquare bm bmod boldsymbol
		bot bowtie boxed boxplus boxtimes breve bullet
		fbox flat footnote forall frac frak frown
		natural nabla ne nearrow neg neq newline nexists ngeq ngtr ni nleq nless nmid noindent nolimits normalsize
		not notin nparallel nprec nsubseteq nsucc nsupseteq nu nwarrow
		rangle rbrace rbrack rceil restriction rfloor rho right rightarrow rightharpoonup rightleftharpoons rm root
		rtimes rvert
		tan tanh tau tbinom text textbf textit textrm textsf texttt textstyle tfrac therefore theta thinspace tilde
		times tiny to top triangle triangleleft triangleq triangleright`) {
		m[c] = true
	}
	return m
}()
