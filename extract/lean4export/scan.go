package lean4export

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small allocation-free JSON reader for the primitive records
// (names, levels, expressions) that make up almost every line of an export:
// encoding/json with reflection costs several times more per line, and a
// Mathlib export has hundreds of millions of lines. Anything it does not
// recognise is handed to encoding/json (see decodePrimitive), and a fuzz test
// checks that both agree.
type scanner struct {
	b   []byte
	i   int
	bad bool
	tmp []byte // unescaped string scratch
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) fail() { s.bad = true }

// uint reads a non-negative JSON integer that fits 32 bits.
func (s *scanner) uint() uint32 {
	s.ws()
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + uint64(s.b[s.i]-'0')
		if v > 1<<32-1 {
			s.fail()
			return 0
		}
		s.i++
	}
	if s.i == start || (s.i-start > 1 && s.b[start] == '0') {
		s.fail()
		return 0
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			s.fail() // not an integer
		}
	}
	return uint32(v)
}

// str reads a JSON string; the result aliases the line or s.tmp and is valid
// until the next call.
func (s *scanner) str() []byte {
	if !s.eat('"') {
		s.fail()
		return nil
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			out := s.b[start:s.i]
			s.i++
			if !utf8.Valid(out) {
				s.fail()
			}
			return out
		case c == '\\':
			return s.strSlow(start)
		case c < 0x20:
			s.fail()
			return nil
		}
		s.i++
	}
	s.fail()
	return nil
}

func (s *scanner) strSlow(start int) []byte {
	out := append(s.tmp[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			s.tmp = out
			if !utf8.Valid(out) {
				s.fail()
			}
			return out
		case c < 0x20:
			s.fail()
			return nil
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			s.fail()
			return nil
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				s.fail()
				return nil
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					r2, ok = s.hex4()
					if !ok {
						s.fail()
						return nil
					}
				}
				r = utf16.DecodeRune(r, r2)
			}
			out = utf8.AppendRune(out, r)
		default:
			s.fail()
			return nil
		}
	}
	s.fail()
	return nil
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// key reads `"name":` and returns the name.
func (s *scanner) key() []byte {
	k := s.str()
	if !s.eat(':') {
		s.fail()
	}
	return k
}

// skip skips any JSON value (depth-limited).
func (s *scanner) skip(depth int) {
	if depth > 64 {
		s.fail()
		return
	}
	switch s.peek() {
	case '"':
		s.str()
	case '{':
		s.i++
		if s.eat('}') {
			return
		}
		for !s.bad {
			s.key()
			s.skip(depth + 1)
			if s.eat(',') {
				continue
			}
			if !s.eat('}') {
				s.fail()
			}
			return
		}
	case '[':
		s.i++
		if s.eat(']') {
			return
		}
		for !s.bad {
			s.skip(depth + 1)
			if s.eat(',') {
				continue
			}
			if !s.eat(']') {
				s.fail()
			}
			return
		}
	case 't':
		s.lit("true")
	case 'f':
		s.lit("false")
	case 'n':
		s.lit("null")
	default:
		s.number()
	}
}

func (s *scanner) lit(w string) {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return
	}
	s.fail()
}

// number skips a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// (strconv.ParseFloat accepted what JSON does not: 00, +1, 1., .5).
func (s *scanner) number() {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	at := func(c byte) bool { // no whitespace inside a number
		if s.i < len(s.b) && s.b[s.i] == c {
			s.i++
			return true
		}
		return false
	}
	at('-')
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case digits() == 0:
		s.fail()
		return
	}
	if at('.') && digits() == 0 {
		s.fail()
		return
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			s.fail()
		}
	}
}

// object calls fn for every key of an object at the cursor; fn must consume
// the value.
func (s *scanner) object(fn func(k []byte)) {
	if !s.eat('{') {
		s.fail()
		return
	}
	if s.eat('}') {
		return
	}
	for !s.bad {
		k := s.key()
		if s.bad {
			return
		}
		fn(k)
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			s.fail()
		}
		return
	}
}

// end checks that nothing but white space follows.
func (s *scanner) end() {
	s.ws()
	if s.i != len(s.b) {
		s.fail()
	}
}
