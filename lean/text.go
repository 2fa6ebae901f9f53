package lean

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// mask returns s with comments (`-- …`, nested `/- … -/`) and string
// literals replaced by spaces, byte for byte, so that scans for keywords,
// brackets and `:=` see only code and their offsets index s. Newlines are
// kept so line numbers stay right.
func mask(s string) string { return maskWith(s, true) }

// stripComments blanks the comments of s but keeps its strings.
func stripComments(s string) string { return maskWith(s, false) }

func maskWith(s string, maskStrings bool) string {
	b := []byte(s)
	depth := 0 // block comment nesting
	for i := 0; i < len(b); {
		switch {
		case depth > 0:
			if b[i] == '/' && i+1 < len(b) && b[i+1] == '-' {
				depth++
				blank(b, i, i+2)
				i += 2
			} else if b[i] == '-' && i+1 < len(b) && b[i+1] == '/' {
				depth--
				blank(b, i, i+2)
				i += 2
			} else {
				blank(b, i, i+1)
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '-':
			depth = 1
			blank(b, i, i+2)
			i += 2
		case b[i] == '-' && i+1 < len(b) && b[i+1] == '-':
			j := i
			for j < len(b) && b[j] != '\n' {
				j++
			}
			blank(b, i, j)
			i = j
		case b[i] == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' && j+1 < len(b) {
					j++
				}
				j++
			}
			if j < len(b) {
				j++
			}
			if maskStrings {
				blank(b, i, j)
			}
			i = j
		default:
			i++
		}
	}
	return string(b)
}

func blank(b []byte, from, to int) {
	for k := from; k < to && k < len(b); k++ {
		if b[k] != '\n' {
			b[k] = ' '
		}
	}
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '\'' || r == '!' || r == '?' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) ||
		(r >= 0x2080 && r <= 0x209C) // subscripts, as in x₁
}

// wordAt reports whether s[i:] starts with the word w standing alone
// (not part of a longer identifier).
func wordAt(s string, i int, w string) bool {
	if !strings.HasPrefix(s[i:], w) {
		return false
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if isIdentRune(r) {
			return false
		}
	}
	if j := i + len(w); j < len(s) {
		r, _ := utf8.DecodeRuneInString(s[j:])
		if isIdentRune(r) {
			return false
		}
	}
	return true
}

// containsWord reports whether w occurs in s as a whole identifier.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		if wordAt(s, i+j, w) {
			return true
		}
		i += j + 1
	}
}

func isOpen(r rune) bool  { return strings.ContainsRune("([{⦃⟨", r) }
func isClose(r rune) bool { return strings.ContainsRune(")]}⦄⟩", r) }

// lines counts the lines of s as Lean numbers them: the line after the
// last "\n" counts even when empty.
func lines(s string) int { return strings.Count(s, "\n") + 1 }

// indent prefixes every line of s with n spaces (empty lines too, as the
// BEq+ reference does).
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	parts := strings.Split(s, "\n")
	for i := range parts {
		parts[i] = pad + parts[i]
	}
	return strings.Join(parts, "\n")
}
