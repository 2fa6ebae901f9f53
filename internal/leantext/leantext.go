// Package leantext holds what several packages know about Lean's text: small
// scans over signatures (a symbol at bracket depth 0: the extractor and the
// template informalizer) and the one table of Lean's keywords (Is: the
// extractor's command splitter, the Lean header merger, DRIFT's statement
// finder, ToMap's lemma ids). It has no state but that read-only table.
package leantext

import "strings"

// TopIndex returns the byte offset of the first r outside any bracket
// ((), {}, [], ⦃⦄, ⟨⟩), or -1. A colon that starts ":=" does not count.
func TopIndex(s string, r rune) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '{', '[', '⦃', '⟨':
			depth++
		case ')', '}', ']', '⦄', '⟩':
			depth--
		case r:
			if depth == 0 && !(r == ':' && strings.HasPrefix(s[i:], ":=")) {
				return i
			}
		}
	}
	return -1
}

// TopColon is TopIndex(s, ':'): where the binders of a signature end and its
// type begins.
func TopColon(s string) int { return TopIndex(s, ':') }
