package lean

import (
	"errors"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/internal/leantext"
)

// SplitImports cuts the import block off the top of a Lean text: the
// leading lines that are blank, comments, `import …` (also `public import`,
// `meta import`), `module` or `prelude`, up to the last such import line.
// The REPL accepts imports only in a command without "env", so a backend
// that reuses environments elaborates imports separately; n is the number of
// lines cut (positions in rest are n lines above those in the text).
func SplitImports(text string) (imports, rest string, n int) {
	m := mask(text)
	last := -1 // byte offset just past the last import line
	lineNo, lastLine := 0, 0
	for off := 0; off < len(m); {
		end := strings.IndexByte(m[off:], '\n')
		next := len(m)
		if end >= 0 {
			next = off + end + 1
		} else {
			end = len(m) - off
		}
		line := strings.TrimSpace(m[off : off+end])
		lineNo++
		switch {
		case line == "":
		case isImportLine(line):
			last, lastLine = next, lineNo
		default:
			off = len(m) // stop at the first command
			continue
		}
		off = next
	}
	if last < 0 {
		return "", text, 0
	}
	if last == len(text) && !strings.HasSuffix(text, "\n") {
		return text, "", lastLine - 1
	}
	return strings.TrimRight(text[:last], "\n"), text[last:], lastLine
}

func isImportLine(line string) bool {
	for _, p := range []string{"import ", "public import ", "meta import ", "public meta import ", "private import "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return line == "prelude" || line == "module"
}

// ErrNameClash is wrapped when two texts that must go into one Lean file
// declare the same name differently (two headers' `def f`, a statement's
// auxiliary definition against a header's).
var ErrNameClash = errors.New("name declared twice")

// ClashError names the clashing declaration.
type ClashError struct {
	Name          string
	First, Second string // the two declarations, first lines
}

func (e *ClashError) Error() string {
	return fmt.Sprintf("%s: %q is declared as %q and as %q", ErrNameClash, e.Name, e.First, e.Second)
}

func (e *ClashError) Unwrap() error { return ErrNameClash }

// MergeHeaders joins the headers of several Lean texts into one that serves
// them all: every imported module once, `import` lines first (Lean demands
// them before anything else), then each header's other commands in order,
// a command that several headers share (`open …`, `noncomputable section`,
// the same `def`) written once. Two different declarations of one name are
// a *ClashError. Empty headers are skipped.
func MergeHeaders(headers ...string) (string, error) {
	var mods []string
	seenMod := map[string]bool{}
	var blocks []string
	seenBlock := map[string]bool{}
	declared := map[string]string{} // name → normalized block
	for _, h := range headers {
		imp, rest, _ := SplitImports(h)
		mi := mask(imp)
		for _, line := range strings.Split(mi, "\n") {
			f := strings.Fields(line)
			for len(f) > 0 && (f[0] == "public" || f[0] == "meta" || f[0] == "private") {
				f = f[1:]
			}
			if len(f) == 0 || f[0] != "import" {
				continue
			}
			for _, mod := range f[1:] {
				if mod == "all" {
					continue
				}
				if !seenMod[mod] {
					seenMod[mod] = true
					mods = append(mods, mod)
				}
			}
		}
		for _, b := range splitCommands(rest) {
			key := normalizeBlock(b)
			if seenBlock[key] {
				continue
			}
			if name := declName(b); name != "" {
				if prev, ok := declared[name]; ok {
					return "", &ClashError{Name: name, First: firstLine(prev), Second: firstLine(key)}
				}
				declared[name] = key
			}
			seenBlock[key] = true
			blocks = append(blocks, strings.TrimRight(b, " \t\n"))
		}
	}
	var sb strings.Builder
	for _, m := range mods {
		sb.WriteString("import " + m + "\n")
	}
	if len(mods) > 0 && len(blocks) > 0 {
		sb.WriteString("\n")
	}
	for i, b := range blocks {
		if i > 0 {
			sb.WriteString("\n")
			if strings.Contains(b, "\n") || strings.Contains(blocks[i-1], "\n") {
				sb.WriteString("\n") // a blank line around multi-line commands
			}
		}
		sb.WriteString(b)
	}
	if len(blocks) > 0 {
		sb.WriteString("\n")
	}
	return sb.String(), nil
}

// splitCommands cuts Lean text into top-level commands: a command starts at
// a line that begins in column 0 with code (not whitespace, not `|`, whose
// equations continue a definition by pattern matching) or with a doc
// comment `/--`; a doc comment or attribute line starts a command together
// with the declaration after it. A comment before a command stands as a
// block of its own; one after a command's first line belongs to it.
func splitCommands(text string) []string {
	m := mask(text)
	var out []string
	start := -1
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		ml := m[off : off+len(line)]
		code := len(ml) > 0 && !strings.ContainsRune(" \t\r\n|", rune(ml[0]))
		doc := strings.HasPrefix(line, "/--")
		if code || doc {
			if start >= 0 && !onlyPreamble(text[start:off], m[start:off]) {
				out = append(out, text[start:off])
				start = -1
			}
			if start < 0 {
				start = off
			}
		} else if start < 0 && strings.TrimSpace(line) != "" {
			start = off // a comment: kept, as a block of its own or before the next command
		}
		off += len(line)
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	var blocks []string
	for _, b := range out {
		if strings.TrimSpace(b) != "" {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// onlyPreamble reports whether a block so far holds only a doc comment and
// attributes, which belong to the declaration that follows.
func onlyPreamble(raw, masked string) bool {
	t := strings.TrimSpace(masked)
	if t == "" {
		return strings.HasPrefix(strings.TrimSpace(raw), "/--")
	}
	for t != "" {
		if !strings.HasPrefix(t, "@[") {
			return false
		}
		i := strings.IndexByte(t, ']')
		if i < 0 {
			return true
		}
		t = strings.TrimSpace(t[i+1:])
	}
	return true
}

// normalizeBlock is a command's identity for deduplication: its lines with
// trailing spaces and blank lines dropped.
func normalizeBlock(b string) string {
	var keep []string
	for _, l := range strings.Split(b, "\n") {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// declName is the name a command declares ("" for other commands and for
// anonymous instances and examples).
func declName(block string) string {
	s := strings.TrimSpace(mask(block))
	for {
		switch {
		case strings.HasPrefix(s, "@["):
			depth := 0
			i := 0
			for i = 0; i < len(s); i++ {
				if s[i] == '[' {
					depth++
				} else if s[i] == ']' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if i >= len(s) {
				return ""
			}
			s = strings.TrimSpace(s[i+1:])
			continue
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			return ""
		}
		if leantext.Is(f[0], leantext.Modifier) {
			s = strings.TrimSpace(s[len(f[0]):])
			continue
		}
		if f[0] == "class" && len(f) > 1 && f[1] == "inductive" {
			f = f[1:]
		}
		if k := f[0]; leantext.Is(k, leantext.Decl) && len(f) > 1 {
			name := f[1]
			if i := strings.IndexAny(name, "({[:⦃"); i >= 0 {
				name = name[:i]
			}
			name = strings.TrimSuffix(name, ".")
			if k == "instance" && (name == "" || strings.HasPrefix(f[1], ":") || strings.HasPrefix(f[1], "[") || strings.HasPrefix(f[1], "(")) {
				return ""
			}
			return name
		}
		return ""
	}
}
