package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/driftkit/driftkit/internal/leanname"
)

// Identifier-aware tokenization shared by the hash encoder and the BM25
// analyzer. A "word" is a maximal run of letters, digits, '.', '_' and '\''
// (Lean identifiers such as ConNF.StructApprox.completeAtomMap); each word
// yields its parts split on '.', '_' and camelCase boundaries, lowercased, and,
// when it has more than one part, the whole word lowercased too.

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '\'' || r == '!' || r == '?'
}

// Words returns the raw identifier-like words of s, in order, with their byte
// offsets, trimmed of leading and trailing punctuation ('.', '\”).
func Words(s string, fn func(word string, start, end int)) {
	i := 0
	for i < len(s) {
		r, n := decodeRune(s, i)
		if !isWordRuneAt(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, n2 := decodeRune(s, j)
			if !isWordRuneAt(r2) {
				break
			}
			j += n2
		}
		w, st := s[i:j], i
		for len(w) > 0 && strings.ContainsRune(".'_!?", rune(w[0])) {
			w, st = w[1:], st+1
		}
		for len(w) > 0 && strings.ContainsRune(".'_!?", rune(w[len(w)-1])) {
			w = w[:len(w)-1]
		}
		if w != "" {
			fn(w, st, st+len(w))
		}
		i = j
	}
}

// decodeRune is utf8.DecodeRuneInString(s[i:]) with a fast path for ASCII
// (an index build tokenizes the corpus three times, #29).
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// asciiWord[c] is isWordRune(c) for ASCII c.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// isWordRuneAt is isWordRune with a table for ASCII.
func isWordRuneAt(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return isWordRune(r)
}

// SubTokens splits an identifier on '.', '_', '\” and camelCase boundaries
// (also letter/digit boundaries), lowercased: "ConNF.toNearLitter_mem" →
// [con, nf, to, near, litter, mem]. Acronym runs stay together ("NF" in
// "ConNF", "HTTPServer" → http, server).
func SubTokens(ident string, fn func(tok string)) { subTokens(ident, nil, fn) }

// SubTokensBuf is SubTokens for callers that do not keep the tokens (the
// hash encoder, the BM25 analyzer: millions of calls when an index is
// built): a token that must be lower-cased is written into *buf, valid only
// until fn returns, instead of allocating a string.
func SubTokensBuf(ident string, buf *[]byte, fn func(tok string)) { subTokens(ident, buf, fn) }

// isSubSep is a separator of SubTokens (all ASCII, so bytes are runes).
func isSubSep(c byte) bool { return c == '.' || c == '_' || c == '\'' || c == '!' || c == '?' }

func subTokens(ident string, buf *[]byte, fn func(tok string)) {
	start := 0
	for i := 0; i <= len(ident); i++ {
		if i < len(ident) && !isSubSep(ident[i]) {
			continue
		}
		if i > start {
			splitCamel(ident[start:i], buf, fn)
		}
		start = i + 1
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiClass: 1 upper, 2 digit, 3 lower/other letter, 4 other.
func asciiClass(c byte) int { return int(asciiClasses[c]) }

var asciiClasses = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c >= 'A' && c <= 'Z':
			t[c] = 1
		case c >= '0' && c <= '9':
			t[c] = 2
		case c >= 'a' && c <= 'z':
			t[c] = 3
		default:
			t[c] = 4
		}
	}
	return t
}()

// splitCamelASCII is splitCamel without rune decoding or allocation beyond
// the lower-cased parts (most Lean identifiers are ASCII); with buf, not
// even those (see SubTokensBuf).
func splitCamelASCII(s string, buf *[]byte, fn func(string)) {
	start := 0
	emit := func(part string) {
		for i := 0; i < len(part); i++ {
			if c := part[i]; c >= 'A' && c <= 'Z' {
				if buf == nil {
					fn(strings.ToLower(part))
					return
				}
				b := append((*buf)[:0], part...)
				for j := i; j < len(b); j++ {
					if c := b[j]; c >= 'A' && c <= 'Z' {
						b[j] = c + 'a' - 'A'
					}
				}
				*buf = b
				fn(unsafe.String(unsafe.SliceData(b), len(b)))
				return
			}
		}
		fn(part)
	}
	b := 0
	if len(s) > 0 {
		b = asciiClass(s[0])
	}
	for i := 1; i < len(s); i++ {
		a := b
		b = asciiClass(s[i])
		cut := false
		switch {
		case a == 3 && b == 1:
			cut = true
		case a == 1 && b == 1 && i+1 < len(s) && asciiClass(s[i+1]) == 3:
			cut = true
		case (a == 2) != (b == 2):
			cut = true
		case a == 4 || b == 4:
			cut = a != b
		}
		if cut {
			emit(s[start:i])
			start = i
		}
	}
	if start < len(s) {
		emit(s[start:])
	}
}

func splitCamel(s string, buf *[]byte, fn func(string)) {
	if isASCII(s) {
		splitCamelASCII(s, buf, fn)
		return
	}
	rs := []rune(s)
	start := 0
	class := func(r rune) int {
		switch {
		case unicode.IsUpper(r):
			return 1
		case unicode.IsDigit(r):
			return 2
		case unicode.IsLetter(r):
			return 3
		}
		return 4
	}
	for i := 1; i < len(rs); i++ {
		a, b := class(rs[i-1]), class(rs[i])
		cut := false
		switch {
		case a == 3 && b == 1: // fooBar
			cut = true
		case a == 1 && b == 1 && i+1 < len(rs) && class(rs[i+1]) == 3: // HTTPServer → HTTP|Server
			cut = true
		case (a == 2) != (b == 2): // x2, 2x
			cut = true
		case a == 4 || b == 4:
			cut = a != b
		}
		if cut {
			fn(strings.ToLower(string(rs[start:i])))
			start = i
		}
	}
	if start < len(rs) {
		fn(strings.ToLower(string(rs[start:])))
	}
}

// Tokens returns the identifier-aware tokens of s: for every word its
// sub-tokens, then the whole word lowercased when it splits into several.
func Tokens(s string) []string {
	var out []string
	Words(s, func(w string, _, _ int) {
		n := len(out)
		SubTokens(w, func(t string) { out = append(out, t) })
		if len(out)-n > 1 {
			out = append(out, strings.ToLower(w))
		}
	})
	return out
}

// LeanIdents calls fn with each identifier of s as Lean's scanner reads it
// (dotted components, each an IsIdFirst rune then IsIdRest runes — primes,
// ! ?, subscripts and Greek letters included, `«…»` not), with its byte
// offsets. Words, the analyzer's tokenizer, trims a final ' ! ? and breaks
// at subscripts: a name lookup that must find `Filter.tendsto_const_div_iff'`
// or `forall₂_comm` as written reads the query through this instead.
func LeanIdents(s string, fn func(id string, start, end int)) {
	i := 0
	for i < len(s) {
		r, n := decodeRune(s, i)
		// An identifier starts at an IsIdFirst rune not preceded by an
		// IsIdRest one (not inside a word such as "2x").
		if !leanname.IsIdFirst(r) || i > 0 && prevIdRest(s, i) {
			i += n
			continue
		}
		start, j := i, i+n
		for j < len(s) {
			r2, n2 := decodeRune(s, j)
			if leanname.IsIdRest(r2) {
				j += n2
				continue
			}
			// A dot continues the name when a component follows it.
			if r2 == '.' && j+1 < len(s) {
				if r3, _ := decodeRune(s, j+1); leanname.IsIdFirst(r3) {
					j++
					continue
				}
			}
			break
		}
		fn(s[start:j], start, j)
		i = j
	}
}

// prevIdRest reports whether the rune before byte i of s continues an
// identifier.
func prevIdRest(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return leanname.IsIdRest(r)
}

// wordsAlter reports whether Words reads id otherwise than as the one word
// id: it trims a final ' ! ? and breaks at subscripts.
func wordsAlter(id string) bool {
	n, same := 0, false
	Words(id, func(w string, _, _ int) { n, same = n+1, w == id })
	return n != 1 || !same
}
