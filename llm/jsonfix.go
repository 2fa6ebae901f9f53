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
//   - \b, \f, \n, \r, \t followed by an ASCII lower-case letter (\beta,
//     \frac, \neq, \rho, \times) are LaTeX commands, not control
//     characters, and become a literal backslash too;
//   - \", \\, \/, \uXXXX, and the control escapes before anything but a
//     lower-case letter ("x\n", "\n1", "\nThe") are kept.
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
		return len(rest) > 1 && rest[1] >= 'a' && rest[1] <= 'z'
	}
	return true
}
