package extract

import "github.com/driftkit/driftkit/internal/leantext"

// Command is a top-level command: the tokens toks[Start:End] of its file.
// Unbalanced is set when the command's brackets did not balance (the split
// recovered at the next command keyword at the start of a line).
type Command struct {
	Start, End int
	Unbalanced bool
}

func isOpener(s string) bool {
	switch s {
	case "(", "[", "{", "⟨", "⦃", "@[", "%[", "`(", "`[", "$(", "⟦", "‹":
		return true
	}
	return false
}

func isCloser(s string) bool {
	switch s {
	case ")", "]", "}", "⟩", "⦄", "⟧", "›":
		return true
	}
	return false
}

// file is a lexed source.
type file struct {
	s    string // the source; token texts are substrings of it (no copies)
	toks []Token
	// groups[k], for an opener token k, is where groupColon's scan from k
	// stops and the colon it found (see groupTable); built on first use.
	// A file is used by one goroutine at a time.
	groups []groupEnd
	// groupsBuf is a recycled buffer for groups (see fileScratch).
	groupsBuf []groupEnd
	// refsBuf is collectRefs' recycled buffer (see fileScratch).
	refsBuf []ref
}

// text returns the text of token i ("" out of range) without allocating.
func (f *file) text(i int) string {
	if i < 0 || i >= len(f.toks) {
		return ""
	}
	t := f.toks[i]
	return f.s[t.Start:t.End]
}

func (f *file) is(i int, s string) bool {
	if i < 0 || i >= len(f.toks) {
		return false
	}
	t := f.toks[i]
	return int(t.End-t.Start) == len(s) && f.s[t.Start:t.End] == s
}

// span returns the source text of tokens [i, j).
func (f *file) span(i, j int) string {
	if i >= j || i >= len(f.toks) {
		return ""
	}
	return f.s[f.toks[i].Start:f.toks[j-1].End]
}

// skipHeader skips a declaration header prefix starting at i (doc comment,
// attributes, modifiers) and returns the index of the keyword after it.
func (f *file) skipHeader(i int) int {
	n := len(f.toks)
	for i < n {
		t := f.toks[i]
		switch {
		case t.Kind == TokDoc:
			i++
		case t.Kind == TokSymbol && f.is(i, "@["):
			i = f.matchBracket(i) + 1
		case t.Kind == TokIdent && leantext.Is(f.text(i), leantext.Modifier):
			i++
			if f.is(i, "[") && f.is(i-1, "scoped") { // scoped[NS]
				i = f.matchBracket(i) + 1
			}
		default:
			return i
		}
	}
	return i
}

// matchBracket returns the index of the closer matching the opener at i, or
// the last token index.
func (f *file) matchBracket(i int) int {
	depth := 0
	for j := i; j < len(f.toks); j++ {
		t := f.toks[j]
		if t.Kind != TokSymbol {
			continue
		}
		s := f.text(j)
		if isOpener(s) {
			depth++
		} else if isCloser(s) {
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(f.toks) - 1
}

// startsCommand reports whether token i starts a command (given it is at
// bracket depth 0), and the index of the first token after its header.
func (f *file) startsCommand(i int, curStartCol int32) (bool, int) {
	t := f.toks[i]
	if i > 0 && f.toks[i-1].End == t.Start && f.is(i-1, ".") {
		return false, i + 1 // (e).end is a field, not a command
	}
	switch t.Kind {
	case TokDoc, TokModDoc:
		if t.Kind == TokModDoc {
			return true, i + 1
		}
		k := f.skipHeader(i)
		if k < len(f.toks) && f.toks[k].Kind == TokIdent && (leantext.Is(f.text(k), leantext.Decl|leantext.Command) || f.text(k) == "class") {
			return true, f.afterKeyword(k)
		}
		return false, i + 1
	case TokSymbol:
		if f.is(i, "@[") {
			k := f.skipHeader(i)
			if k < len(f.toks) && f.toks[k].Kind == TokIdent && leantext.Is(f.text(k), leantext.Decl|leantext.Command) {
				return true, f.afterKeyword(k)
			}
			return false, i + 1
		}
		if f.is(i, "#") && t.Col == 0 && t.Flags&FlagLineStart != 0 && i+1 < len(f.toks) &&
			f.toks[i+1].Kind == TokIdent && f.toks[i+1].Start == t.End {
			return true, i + 2
		}
		return false, i + 1
	case TokIdent:
		s := f.text(i)
		if leantext.Is(s, leantext.SoftCommand) {
			if t.Flags&FlagLineStart != 0 && t.Col <= curStartCol {
				k := f.skipHeader(i)
				if k > i && k < len(f.toks) && leantext.Is(f.text(k), leantext.Decl|leantext.Command) {
					return true, f.afterKeyword(k)
				}
				return true, i + 1
			}
			return false, i + 1
		}
		if leantext.Is(s, leantext.Modifier) {
			k := f.skipHeader(i)
			if k < len(f.toks) && f.toks[k].Kind == TokIdent && leantext.Is(f.text(k), leantext.Decl|leantext.Command) {
				return true, f.afterKeyword(k)
			}
			return false, i + 1
		}
		if leantext.Is(s, leantext.Decl|leantext.Command) {
			return true, f.afterKeyword(i)
		}
	}
	return false, i + 1
}

// afterKeyword returns the index after a command keyword at k, consuming a
// second keyword that belongs to it (class inductive, deriving instance).
func (f *file) afterKeyword(k int) int {
	s := f.text(k)
	if (s == "class" && (f.is(k+1, "inductive") || f.is(k+1, "abbrev"))) || (s == "deriving" && f.is(k+1, "instance")) {
		return k + 2
	}
	return k + 1
}

// splitCommands splits the token stream into commands.
func (f *file) splitCommands() []Command {
	var cmds []Command
	n := len(f.toks)
	cur := -1
	curCol := int32(0)
	depth := 0
	unbalanced := false
	i := 0
	for i < n {
		t := f.toks[i]
		if depth > 0 && t.Kind == TokIdent && t.Col == 0 && t.Flags&FlagLineStart != 0 {
			// recovery: a declaration keyword at column 0 ends an unbalanced command
			s := f.text(i)
			if leantext.Is(s, leantext.Decl|leantext.Command|leantext.Modifier) {
				if ok, _ := f.startsCommand(i, 0); ok {
					depth = 0
					unbalanced = true
				}
			}
		}
		if depth == 0 {
			if ok, next := f.startsCommand(i, curCol); ok {
				if cur >= 0 {
					cmds = append(cmds, Command{Start: cur, End: i, Unbalanced: unbalanced})
				}
				unbalanced = false
				cur = i
				curCol = t.Col
				// brackets inside the header (attributes) are skipped
				i = next
				continue
			}
		}
		if t.Kind == TokSymbol {
			s := f.text(i)
			if isOpener(s) {
				depth++
			} else if isCloser(s) && depth > 0 {
				depth--
			}
		}
		if cur < 0 {
			cur = i
			curCol = t.Col
		}
		i++
	}
	if cur >= 0 && cur < n {
		cmds = append(cmds, Command{Start: cur, End: n, Unbalanced: unbalanced || depth > 0})
	}
	return cmds
}
