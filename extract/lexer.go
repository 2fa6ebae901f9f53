// Package extract reads Lean 4 sources without elaborating them: a lexer, a
// command splitter, a declaration parser, scope tracking and name resolution
// against every declaration of the given source roots. Its output is the
// declarations and modules tables of package workspace.
package extract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/driftkit/driftkit/internal/leanname"
)

// TokKind is the kind of a lexical token.
type TokKind uint8

// Token kinds. Keywords are lexed as TokIdent and recognised by their text.
const (
	TokEOF     TokKind = iota
	TokIdent           // foo, Foo.bar, «weird name», x₁, α'
	TokNumber          // 42, 0x1F, 1.5e3
	TokString          // "…" (with escapes), s!"…" is TokIdent s! then TokString
	TokChar            // 'a', '\n'
	TokSymbol          // punctuation and operators
	TokDoc             // /-- doc -/
	TokModDoc          // /-! module doc -/
	TokNameLit         // `foo or ``foo
)

func (k TokKind) String() string {
	return [...]string{"EOF", "ident", "number", "string", "char", "symbol", "doc", "moddoc", "name"}[k]
}

// Token flags.
const (
	// FlagLineStart marks the first token on its line.
	FlagLineStart uint8 = 1 << iota
	// FlagSpaceBefore marks a token preceded by whitespace or a comment.
	FlagSpaceBefore
)

// Token is one lexical token: its kind and where it is in the source. Text is
// src[Start:End]. Line is 1-based; Col is the 0-based byte column.
type Token struct {
	Kind  TokKind
	Flags uint8
	Start int32
	End   int32
	Line  int32
	Col   int32
}

// Text returns the token's source text.
func (t Token) Text(src []byte) string { return string(src[t.Start:t.End]) }

// Sentinel errors of the lexer, wrapped in *LexError.
var (
	ErrUnterminatedComment = errors.New("unterminated comment")
	ErrUnterminatedString  = errors.New("unterminated string literal")
	ErrInvalidUTF8         = errors.New("invalid UTF-8")
)

// LexError is a lexical error at a position (1-based line, 0-based byte column).
type LexError struct {
	Line, Col int
	Err       error
}

func (e *LexError) Error() string { return fmt.Sprintf("%d:%d: %v", e.Line, e.Col, e.Err) }
func (e *LexError) Unwrap() error { return e.Err }

// isLetterLike follows Lean 4's isLetterLike.
func isLetterLike(c rune) bool { return leanname.IsLetterLike(c) }

func isSubScriptAlnum(c rune) bool { return leanname.IsSubScriptAlnum(c) }

func isASCIIAlpha(c rune) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// IsIdFirst reports whether c can start a Lean identifier.
func IsIdFirst(c rune) bool { return leanname.IsIdFirst(c) }

// IsIdRest reports whether c can continue a Lean identifier.
func IsIdRest(c rune) bool { return leanname.IsIdRest(c) }

// multi-character ASCII symbols, longest first.
var asciiSymbols = []string{"...", "<;>", ":=", "::", "=>", "->", "<-", "..", "@[", "%[", "<|", "|>", "||", "&&",
	"<=", ">=", "!=", "==", "++", "^^", "//", "$("}

// symbolsByFirst indexes asciiSymbols by their first byte.
var symbolsByFirst = func() (m [128][]string) {
	for _, s := range asciiSymbols {
		m[s[0]] = append(m[s[0]], s)
	}
	return m
}()

// asciiSymbolLen returns the length of the multi-character ASCII symbol at
// src[i], or 0.
func asciiSymbolLen(src []byte, i int) int {
	best := 0
	for _, s := range symbolsByFirst[src[i]&0x7f] {
		if len(s) > best && i+len(s) <= len(src) && string(src[i:i+len(s)]) == s {
			best = len(s)
		}
	}
	return best
}

// Lexer state is local to Lex; Lex is safe for concurrent use on different inputs.

// Lex splits src into tokens. Ordinary comments are dropped; doc comments are
// kept as TokDoc/TokModDoc. Lexing never stops at an error: the errors are
// returned alongside the tokens of everything that could be read.
func Lex(src []byte) (toks []Token, errs []error) {
	return lex(src, nil)
}

// lex is Lex appending to buf[:0] when it is large enough for the usual
// number of tokens (parseFile recycles one buffer per worker).
func lex(src []byte, buf []Token) (toks []Token, errs []error) {
	if cap(buf) < len(src)/5+16 {
		buf = make([]Token, 0, len(src)/5+16)
	}
	lx := lexer{src: src, toks: buf[:0], line: 1, lineStartPending: true, space: true}
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '\n':
			lx.line++
			i++
			lx.lineStart = i
			lx.lineStartPending = true
			lx.space = true
		case c == ' ' || c == '\t' || c == '\r':
			i++
			lx.space = true
		case c == '-' && i+1 < n && src[i+1] == '-':
			for i < n && src[i] != '\n' {
				i++
			}
			lx.space = true
		case c == '/' && i+1 < n && src[i+1] == '-':
			i = lx.blockComment(i)
		case c == '"':
			i = lx.stringLit(i)
		case c == '\'':
			if j, ok := charLit(src, i); ok {
				lx.emit(TokChar, i, j, lx.line, lx.lineStart)
				i = j
			} else {
				lx.emit(TokSymbol, i, i+1, lx.line, lx.lineStart)
				i++
			}
		case c == '`':
			i = lx.backquote(i)
		case '0' <= c && c <= '9':
			i = lx.number(i)
		case c == 'r' && i+1 < n && (src[i+1] == '"' || src[i+1] == '#') && lx.rawStringAt(i):
			i = lx.rawString(i)
		case c < utf8.RuneSelf:
			i = lx.ascii(i)
		default:
			i = lx.unicode(i)
		}
	}
	return lx.toks, lx.errs
}

// lexer is Lex's state: the tokens so far, where the current line starts,
// and whether the next token starts a line or follows space.
type lexer struct {
	src              []byte
	toks             []Token
	errs             []error
	line             int32
	lineStart        int
	lineStartPending bool
	space            bool
}

func (lx *lexer) errAt(pos int, err error) {
	lx.errs = append(lx.errs, &LexError{Line: int(lx.line), Col: pos - lx.lineStart, Err: err})
}

// newlines advances line counters over src[from:to].
func (lx *lexer) newlines(from, to int) {
	for k := from; k < to; k++ {
		if lx.src[k] == '\n' {
			lx.line++
			lx.lineStart = k + 1
			lx.lineStartPending = true
		}
	}
}

func (lx *lexer) emit(kind TokKind, start, end int, l int32, ls int) {
	var f uint8
	if lx.lineStartPending {
		f |= FlagLineStart
		lx.lineStartPending = false
	}
	if lx.space {
		f |= FlagSpaceBefore
	}
	lx.space = false
	lx.toks = append(lx.toks, Token{Kind: kind, Flags: f, Start: int32(start), End: int32(end), Line: l, Col: int32(start - ls)})
}

// blockComment scans the (nested) block comment at i, emitting it when it
// is a doc or module doc comment, and returns where it ends.
func (lx *lexer) blockComment(i int) int {
	src, n := lx.src, len(lx.src)
	start, l, ls := i, lx.line, lx.lineStart
	kind := TokKind(0)
	if i+2 < n && src[i+2] == '-' && !(i+3 < n && src[i+3] == '/') {
		kind = TokDoc
	} else if i+2 < n && src[i+2] == '!' {
		kind = TokModDoc
	}
	depth := 1
	j := i + 2
	for j < n && depth > 0 {
		if src[j] == '/' && j+1 < n && src[j+1] == '-' {
			depth++
			j += 2
		} else if src[j] == '-' && j+1 < n && src[j+1] == '/' {
			depth--
			j += 2
		} else {
			j++
		}
	}
	if depth > 0 {
		lx.errAt(start, ErrUnterminatedComment)
	}
	if kind != 0 {
		lx.emit(kind, start, j, l, ls)
	}
	lx.newlines(start, j)
	lx.space = true
	return j
}

// stringLit scans the string literal at i.
func (lx *lexer) stringLit(i int) int {
	src, n := lx.src, len(lx.src)
	start, l, ls := i, lx.line, lx.lineStart
	j := i + 1
	closed := false
	for j < n {
		if src[j] == '\\' {
			j += 2
			continue
		}
		if src[j] == '"' {
			j++
			closed = true
			break
		}
		j++
	}
	if j > n {
		j = n
	}
	if !closed {
		lx.errAt(start, ErrUnterminatedString)
	}
	lx.emit(TokString, start, j, l, ls)
	lx.newlines(start, j)
	return j
}

// backquote scans a name literal (`Nat.succ, or two backquotes and a name), a syntax quotation's
// opener (`( and `[) or a lone backquote at i.
func (lx *lexer) backquote(i int) int {
	src, n := lx.src, len(lx.src)
	j := i + 1
	if j < n && src[j] == '`' {
		j++
	}
	if j < n {
		r, _ := utf8.DecodeRune(src[j:])
		if IsIdFirst(r) || r == '\u00ab' {
			k := scanIdent(src, j)
			lx.emit(TokNameLit, i, k, lx.line, lx.lineStart)
			return k
		}
		if src[j] == '(' || src[j] == '[' {
			// syntax quotation: `(…) and `[…] open a bracket
			lx.emit(TokSymbol, i, j+1, lx.line, lx.lineStart)
			return j + 1
		}
	}
	lx.emit(TokSymbol, i, i+1, lx.line, lx.lineStart)
	return i + 1
}

// number scans the numeric literal at i (digits, letters of a base or
// suffix, and a decimal point followed by a digit, unless the number
// follows a dot: x.1.2 is two projections).
func (lx *lexer) number(i int) int {
	src, n := lx.src, len(lx.src)
	j := i + 1
	for j < n {
		d := src[j]
		if ('0' <= d && d <= '9') || isASCIIAlpha(rune(d)) || d == '_' {
			j++
			continue
		}
		if d == '.' && j+1 < n && '0' <= src[j+1] && src[j+1] <= '9' && !(i > 0 && src[i-1] == '.') {
			j++
			continue
		}
		break
	}
	lx.emit(TokNumber, i, j, lx.line, lx.lineStart)
	return j
}

// rawStringAt reports whether the r at i opens a raw string: r"…" or
// r#"…"# (any number of #).
func (lx *lexer) rawStringAt(i int) bool {
	j := i + 1
	for j < len(lx.src) && lx.src[j] == '#' {
		j++
	}
	return j < len(lx.src) && lx.src[j] == '"'
}

// rawString scans the raw string at i (rawStringAt).
func (lx *lexer) rawString(i int) int {
	src, n := lx.src, len(lx.src)
	j := i + 1
	hashes := 0
	for j < n && src[j] == '#' {
		hashes++
		j++
	}
	start, l, ls := i, lx.line, lx.lineStart
	closeSeq := "\"" + strings.Repeat("#", hashes)
	k := bytes.Index(src[j+1:], []byte(closeSeq))
	end := n
	if k >= 0 {
		end = j + 1 + k + len(closeSeq)
	} else {
		lx.errAt(start, ErrUnterminatedString)
	}
	lx.emit(TokString, start, end, l, ls)
	lx.newlines(start, end)
	return end
}

// ascii scans an identifier or a symbol starting with the ASCII byte at i.
func (lx *lexer) ascii(i int) int {
	src := lx.src
	if IsIdFirst(rune(src[i])) {
		j := scanIdent(src, i)
		lx.emit(TokIdent, i, j, lx.line, lx.lineStart)
		return j
	}
	if l := asciiSymbolLen(src, i); l > 0 {
		lx.emit(TokSymbol, i, i+l, lx.line, lx.lineStart)
		return i + l
	}
	lx.emit(TokSymbol, i, i+1, lx.line, lx.lineStart)
	return i + 1
}

// unicode scans an identifier or a symbol starting with the multi-byte
// rune at i; invalid UTF-8 is an error, skipped as space.
func (lx *lexer) unicode(i int) int {
	src := lx.src
	r, size := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError && size <= 1 {
		lx.errAt(i, ErrInvalidUTF8)
		lx.space = true
		return i + 1
	}
	if IsIdFirst(r) || r == '\u00ab' {
		if j := scanIdent(src, i); j > i {
			lx.emit(TokIdent, i, j, lx.line, lx.lineStart)
			return j
		}
	}
	lx.emit(TokSymbol, i, i+size, lx.line, lx.lineStart)
	return i + size
}

// charLit scans a character literal at src[i] == '\”.
func charLit(src []byte, i int) (int, bool) {
	n := len(src)
	if i > 0 {
		// x' is part of an identifier and handled there; after an identifier
		// or a closing bracket a quote is not a char literal.
		if r, _ := utf8.DecodeLastRune(src[:i]); IsIdRest(r) || r == ')' {
			return 0, false
		}
	}
	j := i + 1
	if j >= n {
		return 0, false
	}
	if src[j] == '\\' {
		k := j + 2
		for k < n && k < j+14 && src[k] != '\'' && src[k] != '\n' {
			k++
		}
		if k < n && src[k] == '\'' {
			return k + 1, true
		}
		return 0, false
	}
	if src[j] == '\n' || src[j] == '\'' {
		return 0, false
	}
	_, size := utf8.DecodeRune(src[j:])
	if j+size < n && src[j+size] == '\'' {
		return j + size + 1, true
	}
	return 0, false
}

// scanIdent scans a (possibly dotted) identifier starting at src[i] and
// returns its end. Escaped parts «…» may contain anything but ».
func scanIdent(src []byte, i int) int {
	n := len(src)
	j := i
	for {
		// one part
		if j < n && src[j] == 0xc2 && j+1 < n && src[j+1] == 0xab { // «
			k := j + 2
			for k < n && !(src[k] == 0xc2 && k+1 < n && src[k+1] == 0xbb) && src[k] != '\n' {
				k++
			}
			if k >= n || src[k] == '\n' {
				return max(j, i)
			}
			j = k + 2
		} else {
			r, size := utf8.DecodeRune(src[j:])
			if j >= n || !IsIdFirst(r) {
				return j
			}
			j += size
			for j < n {
				c := src[j]
				if c < utf8.RuneSelf {
					if IsIdRest(rune(c)) {
						j++
						continue
					}
					break
				}
				r, size := utf8.DecodeRune(src[j:])
				if !IsIdRest(r) {
					break
				}
				j += size
			}
		}
		// a dot continues the identifier if an identifier part follows
		if j+1 < n && src[j] == '.' {
			r, _ := utf8.DecodeRune(src[j+1:])
			if IsIdFirst(r) || r == '\u00ab' {
				j++
				continue
			}
		}
		return j
	}
}
