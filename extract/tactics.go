package extract

import "unicode/utf8"

// tacticCombinators run the tactic that follows them: the word after one is
// a tactic name too.
var tacticCombinators = map[string]bool{
	"try": true, "repeat": true, "repeat'": true, "all_goals": true, "any_goals": true, "focus": true,
	"iterate": true, "first": true, "on_goal": true, "pick_goal": true, "classical": false, "fail_if_success": true,
	"success_if_fail": true, "with_reducible": true, "rotate_left": false, "solve": true,
}

// tacticSkips marks the tokens of [i, j) that are tactic syntax, not
// references: the head word of every tactic in a `by` block (ring_nf,
// fun_prop, congr!, a user's rpow_ring), and config options written +opt
// (simp +contextual). The reader resolves what stays; a tactic name is never
// a constant of the proof, and reading it as one is what made PFR's
// project tactics count as unresolved.
//
// A `by` opens a block whose tactics start at the column of its first
// tactic (Lean requires a tactic sequence to be aligned); a line starting at
// that column at the block's bracket depth starts a tactic, and one left of
// it closes the block. `·`, `=>` (case, next, match arms, conv) and `;`,
// `<;>` inside a block start tactics too.
func (f *file) tacticSkips(i, j int) []bool {
	if j > len(f.toks) {
		j = len(f.toks)
	}
	if i >= j {
		return nil
	}
	type block struct {
		col   int32
		depth int
	}
	var blocks []block
	var skip []bool
	mark := func(k int) {
		if k < i || k >= j || f.toks[k].Kind != TokIdent {
			return
		}
		if skip == nil {
			skip = make([]bool, j-i)
		}
		skip[k-i] = true
	}
	isMarked := func(k int) bool { return skip != nil && k >= i && k < j && skip[k-i] }
	// head starts a tactic at k: the word is the tactic's name; after a
	// combinator the next word is one too.
	head := func(k int) {
		for n := 0; k < j && n < 4; n++ {
			if f.toks[k].Kind != TokIdent {
				return
			}
			mark(k)
			w := f.text(k)
			if w == "first" {
				// first | tac | tac: every alternative starts a tactic
				line, d := f.toks[k].Line, 0
				for m := k + 1; m < j && f.toks[m].Line == line; m++ {
					switch s := f.text(m); {
					case isOpener(s):
						d++
					case isCloser(s):
						d--
					case d == 0 && s == "|" && m+1 < j:
						mark(m + 1)
					}
				}
			}
			if !tacticCombinators[w] {
				return
			}
			k++
			for k < j && (f.toks[k].Kind == TokNumber || f.is(k, "|") || f.is(k, "=>")) {
				k++ // iterate 3 tac, first | tac, on_goal 2 => tac
			}
		}
	}
	depth := 0
	for k := i; k < j; k++ {
		t := f.toks[k]
		if t.Flags&FlagLineStart != 0 {
			col := f.charCol(k)
			for len(blocks) > 0 && (col < blocks[len(blocks)-1].col || depth < blocks[len(blocks)-1].depth) {
				blocks = blocks[:len(blocks)-1]
			}
			if len(blocks) > 0 && col == blocks[len(blocks)-1].col && depth == blocks[len(blocks)-1].depth && !isMarked(k) {
				head(k)
			}
		}
		if t.Kind == TokSymbol {
			s := f.text(k)
			switch {
			case isOpener(s):
				depth++
				continue
			case isCloser(s):
				depth--
				for len(blocks) > 0 && depth < blocks[len(blocks)-1].depth {
					blocks = blocks[:len(blocks)-1]
				}
				continue
			}
			inTactic := len(blocks) > 0 && depth == blocks[len(blocks)-1].depth
			switch s {
			case "·", "=>":
				if s == "=>" && !f.tacticArrow(k, i) {
					continue // fun x => …: a term inside the tactic
				}
				if inTactic && k+1 < j {
					if f.toks[k+1].Line != t.Line || s == "·" {
						blocks = append(blocks, block{col: f.charCol(k + 1), depth: depth})
					}
					head(k + 1)
				}
			case ";", "<;>":
				if inTactic {
					head(k + 1)
				}
			case "+", "-":
				// simp +contextual, omega -splitDisjunctions: +opt after a space
				if len(blocks) > 0 && k+1 < j && f.toks[k+1].Start == t.End && k > i && f.toks[k-1].End < t.Start {
					mark(k + 1)
				}
			}
			continue
		}
		if t.Kind == TokIdent && f.text(k) == "by" && k+1 < j {
			if (f.is(k+1, "{") || f.is(k+1, "(")) && k+2 < j {
				// by { tac; tac } and by (tac): the block is inside the brackets
				blocks = append(blocks, block{col: f.charCol(k + 2), depth: depth + 1})
				head(k + 2)
				continue
			}
			blocks = append(blocks, block{col: f.charCol(k + 1), depth: depth})
			head(k + 1)
		}
	}
	return skip
}

// armStarters begin the lines whose `=>` is followed by tactics:
// case tags, next, induction/cases/match alternatives, conv.
var armStarters = map[string]bool{"case": true, "case'": true, "next": true, "|": true, "conv": true,
	"conv_lhs": true, "conv_rhs": true, "on_goal": true, "·": true}

// tacticArrow reports whether the `=>` at k ends a case, next, alternative
// or conv head (tactics follow) rather than a fun (a term follows).
func (f *file) tacticArrow(k, i int) bool {
	start := k
	for start > i && f.toks[start].Flags&FlagLineStart == 0 {
		start--
	}
	if !armStarters[f.text(start)] {
		return false
	}
	for m := start; m < k; m++ {
		if w := f.text(m); w == "fun" || w == "λ" {
			return false
		}
	}
	return true
}

// charCol is the column of token k in characters, as Lean counts for
// alignment (Token.Col counts bytes: `· simp` puts simp at byte column 4
// but character column 3).
func (f *file) charCol(k int) int32 {
	t := f.toks[k]
	start := int(t.Start) - int(t.Col)
	if start < 0 {
		return t.Col
	}
	return int32(utf8.RuneCountInString(f.s[start:t.Start]))
}
